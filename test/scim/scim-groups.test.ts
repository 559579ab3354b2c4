/**
 * SCIM Groups ↔ a context's roles (SPEC 14): stable ids, empty groups that persist, members that
 * gain and lose the role, a rename that renames it on every member, adminRoles kept out of reach.
 */
import { startScimServer, scimClient, type ScimClient } from './scim-client';
import type { TestServer } from '../helpers/core-server';

let server: TestServer;
let scim: ScimClient;

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const roles = async (id: string) => (await server.core.subjects.read('employees', id)).attributes.roles;

beforeAll(async () => {
  server = await startScimServer();
  scim = scimClient(server);
  for (const userName of ['g1', 'g2']) {
    const made = await scim.request('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName, emails: [{ value: `${userName}@example.org` }] });
    expect(made.status).toBe(201);
  }
});
afterAll(() => server.stop());

describe('Groups', () => {
  it('lists the roles subjects hold as groups, and finds one by displayName as Okta does', async () => {
    const list = await scim.request('GET', '/Groups');
    expect(list.status).toBe(200);
    const names = (list.body!.Resources as Array<{ displayName: string }>).map((g) => g.displayName);
    expect(names).toEqual(expect.arrayContaining(['admin', 'user', 'provisioner']));
    const found = await scim.request('GET', `/Groups?filter=${encodeURIComponent('displayName eq "ADMIN"')}&excludedAttributes=members`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ displayName: 'admin' }] });
    expect((found.body!.Resources as object[])[0]).not.toHaveProperty('members');
  });

  it('creates an empty group that persists, adds and removes members, renames the role on every member', async () => {
    const created = await scim.request('POST', '/Groups', { schemas: [GROUP], displayName: 'sales' });
    expect(created.status).toBe(201);
    const id = created.body!.id as string;
    expect((await scim.request('GET', `/Groups/${id}`)).body).toMatchObject({ id, displayName: 'sales', members: [] });
    const added = await scim.request('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: 'g1' }, { value: 'g2' }] }] });
    expect(added.status).toBe(200);
    expect(await roles('g1')).toEqual(['user', 'sales']);
    const again = await scim.request('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: 'g1' }] }] });
    expect(again.status).toBe(200);
    const removed = await scim.request('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: 'members[value eq "g2"]' }] });
    expect(removed.body).toMatchObject({ members: [{ value: 'g1' }] });
    expect(await roles('g2')).toEqual(['user']);
    const renamed = await scim.request('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { id, displayName: 'sales-emea' } }] });
    expect(renamed.body).toMatchObject({ id, displayName: 'sales-emea' });
    expect(await roles('g1')).toEqual(['user', 'sales-emea']);
    const put = await scim.request('PUT', `/Groups/${id}`, { schemas: [GROUP], displayName: 'sales-emea', members: [{ value: 'g2' }] });
    expect(put.body).toMatchObject({ members: [{ value: 'g2' }] });
    expect(await roles('g1')).toEqual(['user']);
    expect((await scim.request('DELETE', `/Groups/${id}`)).status).toBe(204);
    expect(await roles('g2')).toEqual(['user']);
    expect((await scim.request('GET', `/Groups/${id}`)).status).toBe(404);
  });

  it('never renames, deletes or hands out an admin role (400 mutability)', async () => {
    const admin = (await scim.request('GET', `/Groups?filter=${encodeURIComponent('displayName eq "admin"')}`)).body!.Resources as Array<{ id: string }>;
    const id = admin[0].id;
    const rename = await scim.request('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'root' }] });
    expect(rename.status).toBe(400);
    expect(rename.body).toMatchObject({ scimType: 'mutability' });
    expect((await scim.request('DELETE', `/Groups/${id}`)).body).toMatchObject({ status: '400', scimType: 'mutability' });
    const grant = await scim.request('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: 'g1' }] }] });
    expect(grant.body).toMatchObject({ status: '400', scimType: 'mutability' });
    expect(await roles('g1')).toEqual(['user']);
  });
});

describe('the group list is always the roles held', () => {
  it('shows a role given outside SCIM at once, with an id assigned the first time and kept', async () => {
    const before = await scim.request('GET', '/Groups');
    expect((before.body!.Resources as Array<{ displayName: string }>).map((g) => g.displayName)).not.toContain('Night-Shift');
    // Given as a REST write gives it, after this process has listed the groups.
    await server.core.subjects.update('employees', 'g2', { roles: ['user', 'Night-Shift'] }, 'admin');
    const found = await scim.request('GET', `/Groups?filter=${encodeURIComponent('displayName eq "night-shift"')}`);
    expect(found.body).toMatchObject({ totalResults: 1, Resources: [{ displayName: 'Night-Shift', members: [{ value: 'g2' }] }] });
    const id = (found.body!.Resources as Array<{ id: string }>)[0].id;
    expect((await scim.request('GET', '/Users/g2')).body).toMatchObject({ groups: expect.arrayContaining([expect.objectContaining({ value: id, display: 'Night-Shift' })]) });
    expect((await scim.request('GET', `/Groups/${id}`)).body).toMatchObject({ id, displayName: 'Night-Shift' });
    // A group of a held role's name is a conflict, not a second group.
    expect((await scim.request('POST', '/Groups', { schemas: [GROUP], displayName: 'NIGHT-SHIFT' })).body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    const again = await scim.request('GET', '/Groups');
    expect((again.body!.Resources as Array<{ id: string; displayName: string }>).filter((g) => g.displayName === 'Night-Shift').map((g) => g.id)).toEqual([id]);
    await server.core.subjects.update('employees', 'g2', { roles: ['user'] }, 'admin');
  });
});

describe('a role nobody holds any more', () => {
  it('is no group, keeps its id for when it comes back; a group SCIM made or changed stays, empty', async () => {
    await server.core.subjects.update('employees', 'g1', { roles: ['user', 'temp'] }, 'admin');
    const find = async (name: string) => (await scim.request('GET', `/Groups?filter=${encodeURIComponent(`displayName eq "${name}"`)}`)).body!.Resources as Array<{ id: string }>;
    const [temp] = await find('temp');
    await server.core.subjects.update('employees', 'g1', { roles: ['user'] }, 'admin');
    expect(await find('temp')).toEqual([]);
    expect((await scim.request('GET', `/Groups/${temp.id}`)).status).toBe(404);
    await server.core.subjects.update('employees', 'g2', { roles: ['user', 'temp'] }, 'admin');
    expect((await find('temp')).map((g) => g.id)).toEqual([temp.id]);
    // Emptied over SCIM, it is SCIM's own from then on: it stays.
    expect((await scim.request('PUT', `/Groups/${temp.id}`, { schemas: [GROUP], displayName: 'temp', members: [] })).status).toBe(200);
    expect(await roles('g2')).toEqual(['user']);
    expect((await find('temp')).map((g) => g.id)).toEqual([temp.id]);
    expect((await scim.request('GET', `/Groups/${temp.id}`)).body).toMatchObject({ displayName: 'temp', members: [] });
    expect((await scim.request('DELETE', `/Groups/${temp.id}`)).status).toBe(204);
  });

  it('made again over SCIM is the group of the id it had', async () => {
    await server.core.subjects.update('employees', 'g1', { roles: ['user', 'once'] }, 'admin');
    const [once] = (await scim.request('GET', `/Groups?filter=${encodeURIComponent('displayName eq "once"')}`)).body!.Resources as Array<{ id: string }>;
    await server.core.subjects.update('employees', 'g1', { roles: ['user'] }, 'admin');
    const made = await scim.request('POST', '/Groups', { schemas: [GROUP], displayName: 'once' });
    expect(made.status).toBe(201);
    expect(made.body!.id).toBe(once.id);
    expect((await scim.request('DELETE', `/Groups/${once.id}`)).status).toBe(204);
  });
});
