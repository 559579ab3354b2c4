import { Writable } from 'node:stream';
import pino from 'pino';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { login, sealedParams } from '../helpers/login';

const { users, clients } = TEST_CREDENTIALS;
const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    done();
  },
});
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ logger: pino({ level: 'info' }, sink) });
});
afterAll(() => server.stop());

const audits = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.audit === true);

it('every login outcome and logout is one audit line, and no line holds a secret', async () => {
  const base = server.baseUrl;
  const ok = await login(base, { clientid: 'svc-web', user: 'alice', password: users.alice });
  await login(base, { clientid: 'svc-web', user: 'alice', password: 'Wrong-but-secret-1' });
  await login(base, { clientid: 'svc-web', user: 'Typed-password-in-user-field', password: 'x' });
  const sealed = sealedParams(new ClientSealer('svc-api', clients['svc-api']), { user: 'bob', password: users.bob });
  await login(base, sealed);
  await login(base, sealed);
  await send(`${base}/logout`, { method: 'POST', cookie: ok.cookie });

  const events = audits().map((a) => `${String(a.event)}:${String(a.outcome)}:${String(a.reason)}`);
  expect(events).toEqual(expect.arrayContaining([
    'login:success:employees-password',
    'login:failure:rejected',
    'login:success:employees-password',
    'client_validation:failure:replayed',
    'logout:success:ended',
  ]));
  const success = audits().find((a) => a.event === 'login' && a.outcome === 'success');
  expect(success).toMatchObject({ client: 'svc-web', principal: 'employees/alice', level: 2 });
  expect(typeof success?.session).toBe('string');
  expect(typeof success?.peer).toBe('string');

  const everything = lines.join('\n');
  for (const secret of [users.alice, users.bob, 'Wrong-but-secret-1', 'Typed-password-in-user-field', ok.cookie!, sealed.clientcred, sealed.password, clients['svc-api']]) {
    expect(everything).not.toContain(secret);
  }
});
