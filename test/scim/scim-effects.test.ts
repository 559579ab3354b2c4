/**
 * A SCIM write is svc's own (SPEC 14): audited with the provisioning client's id, a deactivation or a
 * new password ends the subject's sessions (SPEC 4: 401 session_revoked), and wrong tokens count
 * against the address like failed logins (429 once it is throttled).
 */
import type { AuditRecord } from '../../server/src/audit';
import type { TestServer } from '../helpers/core-server';
import { login } from '../helpers/login';
import { COOKIE } from '../helpers/http';
import { scimClient, startScimServer, type ScimClient } from './scim-client';

let server: TestServer;
let scim: ScimClient;
const records: AuditRecord[] = [];

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

beforeAll(async () => {
  server = await startScimServer({ configure: (doc) => void (doc.global = { ...(doc.global as object), 'lockout.addressFailures': 5 }) });
  server.core.audit.onRecord((record) => records.push(record));
  scim = scimClient(server);
});
afterAll(() => server.stop());

const session = async (user: string, password: string) => {
  const answer = await login(server.baseUrl, { clientid: 'svc-web', user, password });
  expect(answer.status).toBe(200);
  return `${COOKIE}=${answer.cookie}`;
};
const sessionStatus = async (cookie: string) => (await fetch(`${server.baseUrl}/resources/session`, { headers: { cookie, accept: 'application/json' } })).status;

test('every write is audited with the provisioning client', async () => {
  const made = await scim.request('POST', '/Users', { schemas: [USER], userName: 'audited', emails: [{ value: 'audited@example.org' }] });
  expect(made.status).toBe(201);
  await scim.request('PATCH', '/Users/audited', { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'A.' }] });
  await scim.request('DELETE', '/Users/audited');
  const writes = records.filter((r) => r.event === 'subject_write' && r.subject === 'employees/audited');
  expect(writes.map((r) => r.reason)).toEqual(['create', 'update', 'delete']);
  for (const write of writes) expect(write).toMatchObject({ client: 'scim-employees', principal: 'employees/scim-employees' });
});

test('deactivating a user and setting its password end its sessions', async () => {
  await scim.request('POST', '/Users', { schemas: [USER], userName: 'leaver', password: 'Leaver-pass-2024!', emails: [{ value: 'leaver@example.org' }] });
  const first = await session('leaver', 'Leaver-pass-2024!');
  expect(await sessionStatus(first)).toBe(200);
  expect((await scim.request('PATCH', '/Users/leaver', { schemas: [PATCH], Operations: [{ op: 'replace', path: 'password', value: 'Leaver-pass-2025!' }] })).status).toBe(200);
  expect(await sessionStatus(first)).toBe(401);
  const second = await session('leaver', 'Leaver-pass-2025!');
  expect((await scim.request('PATCH', '/Users/leaver', { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] })).status).toBe(200);
  const revoked = await fetch(`${server.baseUrl}/resources/session`, { headers: { cookie: second, accept: 'application/json' } });
  expect(revoked.status).toBe(401);
  expect(((await revoked.json()) as { code: string }).code).toBe('session_revoked');
});

test('wrong tokens count against the address like failed logins', async () => {
  const wrong = scimClient(server, 'employees', `svcscim_${'C'.repeat(43)}`);
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push((await wrong.request('GET', '/Users')).status);
  expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
  expect(statuses[6]).toBe(429);
  expect(records.some((r) => r.event === 'login' && r.outcome === 'failure' && r.reason === 'wrong_token')).toBe(true);
});
