/**
 * SPEC 12, 14: cores sharing a PostgreSQL store share their contexts' groups (the store's
 * scim_groups table): a group made on one core, and a role given through the other, have one id
 * wherever they are read.
 */
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';
import type { TestServer } from '../helpers/core-server';
import { scimClient, startScimServer, type ScimClient } from './scim-client';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';

describeWithService(postgresRequirement(), 'SCIM groups on cores sharing PostgreSQL', () => {
  const schemas = suiteSchemas('scimgroups');
  let a: TestServer;
  let b: TestServer;
  let scimA: ScimClient;
  let scimB: ScimClient;
  const idsOf = async (scim: ScimClient) => Object.fromEntries(((await scim.request('GET', '/Groups?excludedAttributes=members')).body!.Resources as Array<{ id: string; displayName: string }>).map((g) => [g.displayName, g.id]));

  beforeAll(async () => {
    const { url } = await schemas.create();
    a = await startScimServer({ configure: onPostgres(url) });
    b = await startScimServer({ configure: onPostgres(url), seed: false });
    scimA = scimClient(a);
    scimB = scimClient(b);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  test('one id per group on both cores, whichever core made it or saw its role first', async () => {
    const made = await scimA.request('POST', '/Groups', { schemas: [GROUP], displayName: 'auditors' });
    expect(made.status).toBe(201);
    await b.core.subjects.update('employees', 'bob', { roles: ['user', 'night-shift'] }, 'admin');
    const onB = await idsOf(scimB);
    const onA = await idsOf(scimA);
    expect(onB.auditors).toBe(made.body!.id);
    expect(onB['night-shift']).toEqual(expect.any(String));
    expect(onA).toEqual(onB);
    expect((await scimA.request('GET', `/Groups/${onB['night-shift']}`)).body).toMatchObject({ displayName: 'night-shift', members: [{ value: 'bob' }] });
    // A rename on one core is the other's too.
    const renamed = await scimB.request('PATCH', `/Groups/${onB.auditors}`, { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'displayName', value: 'audit' }] });
    expect(renamed.status).toBe(200);
    expect((await scimA.request('GET', `/Groups/${onB.auditors}`)).body).toMatchObject({ id: onB.auditors, displayName: 'audit' });
  });
});
