/**
 * `{base}/config` as a page for SYSTEM browsers (JSON for programs as before): the configuration
 * without secrets, live sessions by handle with a button that really ends one, reload; refused to
 * everyone else; cross-site posts refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { startTestServer, testConfigDocument, TEST_CREDENTIALS, TEST_HASH, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { sessionCookie } from '../helpers/sessions';
import { textOf, Visitor } from './visitor';

let server: TestServer;

/** A browser logged in as the system user through the login form. */
async function admin(): Promise<Visitor> {
  const visitor = new Visitor(server);
  await visitor.logIn('svcadmin', TEST_CREDENTIALS.users.svcadmin);
  return visitor;
}

/** A browser logged in as bob, and its public handle. */
async function bob(): Promise<{ visitor: Visitor; handle: string }> {
  const visitor = new Visitor(server);
  await visitor.logIn('bob', TEST_CREDENTIALS.users.bob);
  return { visitor, handle: (await visitor.session()).uniqueId as string };
}

describe('without a configuration file', () => {
  beforeEach(async () => {
    server = await startTestServer();
  });
  afterEach(() => server.stop());

  test('SYSTEM sees clients, contexts, authenticators and policies, and no secret', async () => {
    const page = await (await admin()).get('/config');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const text = textOf(page.text);
    for (const heading of ['Live sessions', 'Clients', 'Contexts', 'Authenticators', 'Policies']) expect(text).toContain(heading);
    expect(text).toContain('portal-gateway');
    expect(text).toContain('set (hidden)');
    expect(text).toContain('system-does-everything');
    expect(text).toContain('employees-password');
    expect(text).toContain('nothing to reload');
    for (const secret of [...Object.values(TEST_CREDENTIALS.clients), ...Object.values(TEST_CREDENTIALS.users), server.core.config.system!.passwordHash]) {
      expect(page.text).not.toContain(secret);
    }
  });

  test('programs still get the JSON of the config area', async () => {
    const cookie = (await sessionCookie(server, 'SYSTEM')).split('=')[1];
    const answer = await send(`${server.baseUrl}/config`, { cookie, headers: { accept: 'application/json' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const config = answer.json?.config as Record<string, unknown>;
    expect(Object.keys(config)).toEqual(['clients', 'contexts', 'authenticators', 'policies', 'reservedIds', 'system']);
    expect(answer.text).not.toContain(TEST_CREDENTIALS.clients['svc-api']);
  });

  test('ending a session from the page really ends it', async () => {
    const { visitor: bobBrowser, handle } = await bob();
    const system = await admin();
    const ownHandle = (await system.session()).uniqueId as string;
    const page = await system.get('/config');
    expect(textOf(page.text)).toContain(handle);
    expect(textOf(page.text)).toContain(`${ownHandle} (yours)`);
    expect(page.text).toContain(`name="handle" value="${handle}"`);

    const ended = await system.post('/config/sessions/end', { handle });
    expect(ended.status).toBe(303);
    expect(ended.headers.get('location')).toBe('/svc/config?ended=1');
    expect(textOf((await system.get('/config?ended=1')).text)).toContain('The session was ended.');
    expect(textOf((await system.get('/config')).text)).not.toContain(handle);
    expect((await bobBrowser.session()).type).not.toBe('USER');

    const again = await system.post('/config/sessions/end', { handle });
    expect(again.headers.get('location')).toBe('/svc/config?ended=0');
  });

  test('a cross-site post ends nothing', async () => {
    const { visitor: bobBrowser, handle } = await bob();
    const system = await admin();
    const cross = await system.post('/config/sessions/end', { handle }, { origin: 'http://evil.example' });
    expect(cross.status).toBe(403);
    const byReferer = await system.post('/config/sessions/end', { handle }, { referer: 'http://evil.example/' });
    expect(byReferer.status).toBe(403);
    expect((await bobBrowser.session()).type).toBe('USER');
  });

  test('programs end a session by handle with JSON: 204, then 404', async () => {
    const { visitor: bobBrowser, handle } = await bob();
    const cookie = (await sessionCookie(server, 'SYSTEM')).split('=')[1];
    const url = `${server.baseUrl}/config/sessions/end`;
    expect((await send(url, { cookie, json: { handle } })).status).toBe(204);
    expect((await bobBrowser.session()).type).not.toBe('USER');
    const gone = await send(url, { cookie, json: { handle } });
    expect([gone.status, gone.json?.code]).toEqual([404, 'not_found']);
  });

  test('non-SYSTEM sessions get no config page and end nothing', async () => {
    const { visitor: bobBrowser, handle } = await bob();
    const alice = new Visitor(server);
    await alice.logIn('alice', TEST_CREDENTIALS.users.alice);
    const refused = await alice.get('/config');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(textOf(refused.text)).toContain('this page is not open to your session');
    expect(refused.text).not.toContain('portal-gateway');
    expect((await alice.post('/config/sessions/end', { handle })).status).toBe(403);
    expect((await bobBrowser.session()).type).toBe('USER');

    const anonymous = await new Visitor(server).get('/config');
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('location')).toBe('/svc/login?goto=%2Fsvc%2Fconfig');

    // Programs get the refusal they got before: authz.denyStatus, access_denied.
    const json = await send(`${server.baseUrl}/config`, { cookie: alice.cookie, headers: { accept: 'application/json' } });
    expect([json.status, json.json?.code]).toEqual([401, 'access_denied']);
  });

  test('reload without a configuration file is refused on a page', async () => {
    const refused = await (await admin()).post('/config/reload', {});
    expect(refused.status).toBe(409);
    expect(textOf(refused.text)).toContain('this server runs without a configuration file');
  });
});

test('the reload button reloads the configuration file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-config-page-'));
  const file = join(dir, 'svc.json');
  const doc = await testConfigDocument(dir, new PasswordHasher(TEST_HASH));
  writeFileSync(file, JSON.stringify(doc));
  server = await startTestServer({ dataDir: dir, configPath: file });
  try {
    const system = await admin();
    const page = await system.get('/config');
    expect(page.text).toContain('action="/svc/config/reload"');
    writeFileSync(file, JSON.stringify({ ...doc, global: { 'authz.denyStatus': 403 } }));
    const reloaded = await system.post('/config/reload', {});
    expect(reloaded.status).toBe(303);
    expect(reloaded.headers.get('location')).toBe('/svc/config?reloaded=1');
    expect(server.core.config.settings.denyStatus).toBe(403);
    expect(textOf((await system.get('/config?reloaded=1')).text)).toContain('The configuration file was reloaded.');
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
