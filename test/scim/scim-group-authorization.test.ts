/**
 * A group write is decided member by member (SPEC 6, 14): each subject whose roles it changes is an
 * UPDATE of that subject for the policy decision point, as a REST write of it would be, and every
 * one is decided before the first is written. Here the provisioner's policy is narrowed: it may not
 * update alice. A group write touching alice is refused whole, with a SCIM error, and nothing changes.
 */
import type { AuditRecord } from '../../server/src/audit';
import { defaultPolicies } from '../../server/src/policy/default-policies';
import type { SvcConfig } from '../../server/src/config/types';
import { startScimServer, scimClient, type ScimClient } from './scim-client';
import type { TestServer } from '../helpers/core-server';

let server: TestServer;
let scim: ScimClient;
const records: AuditRecord[] = [];

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const roles = async (id: string) => (await server.core.subjects.read('employees', id)).attributes.roles;
const groupNamed = async (name: string) => (await scim.request('GET', `/Groups?filter=${encodeURIComponent(`displayName eq "${name}"`)}`)).body!.Resources as Array<{ id: string; members: Array<{ value: string }> }>;

beforeAll(async () => {
  server = await startScimServer({
    configure: (doc) => {
      doc.policies = [
        ...defaultPolicies(doc.contexts as SvcConfig['contexts'], { scim: true }),
        { id: 'provisioner-leaves-alice-alone', effect: 'deny', sessionTypes: ['USER'], roles: ['provisioner'], operations: ['UPDATE'], targets: ['contexts/employees/subjects/alice'] },
      ];
    },
  });
  scim = scimClient(server);
  // m1 and alice share a role given outside SCIM.
  await server.core.subjects.create('employees', 'm1', { mail: 'm1@example.org', roles: ['user', 'team'] }, 'admin');
  await server.core.subjects.create('employees', 'm2', { mail: 'm2@example.org', roles: ['user'] }, 'admin');
  const alice = await server.core.subjects.read('employees', 'alice');
  await server.core.subjects.update('employees', 'alice', { roles: [...(alice.attributes.roles as string[]), 'team'] }, 'admin');
  server.core.audit.onRecord((record) => records.push(record));
});
afterAll(() => server.stop());

function expectRefused(answer: { status: number; body: Record<string, unknown> | undefined }): void {
  expect(answer.status).toBe(401);
  expect(answer.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' });
}

test('a member the provisioner may not update refuses the creation: no group, no role given to the others', async () => {
  records.length = 0;
  expectRefused(await scim.request('POST', '/Groups', { schemas: [GROUP], displayName: 'mixed', members: [{ value: 'm1' }, { value: 'alice' }] }));
  expect(await groupNamed('mixed')).toEqual([]);
  expect(await roles('m1')).toEqual(['user', 'team']);
  expect(records).toContainEqual(expect.objectContaining({ event: 'access_denied', operation: 'UPDATE', target: 'contexts/employees/subjects/alice', reason: 'provisioner-leaves-alice-alone' }));
  expect(records.filter((r) => r.event === 'subject_write')).toEqual([]);
});

test('adding members is decided for each before any is written', async () => {
  const made = await scim.request('POST', '/Groups', { schemas: [GROUP], displayName: 'crew', members: [{ value: 'm1' }] });
  expect(made.status).toBe(201);
  const id = made.body!.id as string;
  const version = made.headers.get('etag');
  expectRefused(await scim.request('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: 'm2' }, { value: 'alice' }] }] }));
  expectRefused(await scim.request('PUT', `/Groups/${id}`, { schemas: [GROUP], displayName: 'crew', members: [{ value: 'm2' }, { value: 'alice' }] }));
  expect(await roles('m1')).toEqual(['user', 'team', 'crew']);
  expect(await roles('m2')).toEqual(['user']);
  const after = await scim.request('GET', `/Groups/${id}`);
  expect(after.body).toMatchObject({ members: [{ value: 'm1' }] });
  expect(after.headers.get('etag')).toBe(version);
  // Without alice the same write goes through: the narrowed policy is the only refusal.
  const allowed = await scim.request('PUT', `/Groups/${id}`, { schemas: [GROUP], displayName: 'crew', members: [{ value: 'm2' }] });
  expect(allowed.status).toBe(200);
  expect(await roles('m1')).toEqual(['user', 'team']);
  expect(await roles('m2')).toEqual(['user', 'crew']);
});

test('removing, renaming or deleting a group alice is in is refused whole', async () => {
  const [team] = await groupNamed('team');
  expect(team.members.map((m) => m.value).sort()).toEqual(['alice', 'm1']);
  expectRefused(await scim.request('PATCH', `/Groups/${team.id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: 'members' }] }));
  expectRefused(await scim.request('PATCH', `/Groups/${team.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'squad' }] }));
  expectRefused(await scim.request('PUT', `/Groups/${team.id}`, { schemas: [GROUP], displayName: 'team', members: [] }));
  expectRefused(await scim.request('DELETE', `/Groups/${team.id}`));
  expect(await roles('m1')).toEqual(['user', 'team']);
  expect(await roles('alice')).toContain('team');
  expect((await groupNamed('team'))[0].id).toBe(team.id);
  // Members the provisioner may update still come and go one by one.
  const removed = await scim.request('PATCH', `/Groups/${team.id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: 'members[value eq "m1"]' }] });
  expect(removed.status).toBe(200);
  expect(await roles('m1')).toEqual(['user']);
});

test('an unknown member is 400 invalidValue, and the adminRoles rule holds for every member before any write', async () => {
  const made = await scim.request('POST', '/Groups', { schemas: [GROUP], displayName: 'ghosts', members: [{ value: 'm1' }, { value: 'nobody-here' }] });
  expect(made.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
  expect(await roles('m1')).toEqual(['user']);
  const [admin] = await groupNamed('admin');
  const grant = await scim.request('PATCH', `/Groups/${admin.id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: 'm1' }, { value: 'm2' }] }] });
  expect(grant.body).toMatchObject({ status: '400', scimType: 'mutability' });
  expect(await roles('m1')).toEqual(['user']);
  expect(await roles('m2')).toEqual(['user', 'crew']);
});
