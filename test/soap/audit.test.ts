/**
 * The same audit over SOAP as over REST (SPEC 8, 13): a header login is a `login` line (marked
 * transient, naming its client and principal, never the password), a refusal an `access_denied`
 * line, a write a `subject_write` line.
 */
import { sessionCookies } from '../authorization/helpers';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { logLines, type LogLines } from '../helpers/log-lines';
import { passwordHeader, soapClient, VERSIONS } from './helpers';

let server: TestServer;
let logs: LogLines;

beforeAll(async () => {
  logs = logLines();
  server = await startTestServer({ logger: logs.logger });
});
afterAll(async () => server.stop());

test.each(VERSIONS)('SOAP %s: login, refusal and write are audited as in REST', async (version) => {
  const start = logs.audits().length;
  const bob = await soapClient(server.baseUrl, version, { security: () => passwordHeader('svc-api', 'bob', TEST_CREDENTIALS.users.bob) });
  expect((await bob.call('read', { contextId: 'employees', subjectId: 'alice' })).fault).toMatchObject({ code: 'access_denied' });
  const wrong = await soapClient(server.baseUrl, version, { security: () => passwordHeader('svc-web', 'bob', 'Wrong-pass-123') });
  expect((await wrong.call('getSession', {})).fault).toMatchObject({ code: 'login_failed' });
  const admin = await soapClient(server.baseUrl, version, { cookie: (await sessionCookies(server)).SYSTEM });
  const id = `audited${version.replace('.', '')}`;
  await admin.call('create', { contextId: 'employees', subject: { uniqueId: id, attributes: { mail: `${id}@example.com` } } });

  const lines = logs.audits().slice(start);
  const login = lines.find((l) => l.event === 'login' && l.outcome === 'success');
  expect(login).toMatchObject({ client: 'svc-api', principal: 'employees/bob', level: 2, transient: true, reason: 'employees-password' });
  const denied = lines.find((l) => l.event === 'access_denied');
  expect(denied).toMatchObject({ operation: 'READ', target: 'contexts/employees/subjects/alice', session: login!.session, client: 'svc-api', principal: 'employees/bob' });
  expect(lines.find((l) => l.event === 'login' && l.outcome === 'failure')).toMatchObject({ client: 'svc-web', reason: 'rejected' });
  expect(lines.find((l) => l.event === 'subject_write')).toMatchObject({ reason: 'create', subject: `employees/${id}` });
  expect(JSON.stringify(lines)).not.toMatch(/Bob-pass|Wrong-pass/);
});
