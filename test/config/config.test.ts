import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig, ConfigError, loadConfigFile } from '../../server/src/config/load';
import { DEFAULT_PASSWORDS } from '../../server/src/config/defaults';
import { DEFAULT_SCRYPT, PasswordHasher } from '../../server/src/passwords/password-hasher';
import { isOwaspScryptSetting } from '../../server/src/passwords/phc';
import { startTestServer, testConfigDocument, TEST_HASH } from '../helpers/core-server';

let dir: string;
let valid: Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
  valid = await testConfigDocument(dir, new PasswordHasher({ ...TEST_HASH, precomputeDummy: false }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function problemsOf(doc: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    buildConfig(doc, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

test('the demo-shaped document is valid, with defaults filled in and frozen', () => {
  const config = buildConfig(valid, {});
  expect(config.settings.session.idleSeconds).toBe(1800);
  expect(config.settings.denyStatus).toBe(401);
  expect(config.settings.bodyLimitBytes).toBe(1024 * 1024);
  expect(config.clients.find((c) => c.id === 'svc-api')!.secret).toHaveLength(1);
  expect(Object.isFrozen(config.clients)).toBe(true);
});

test('every error is reported by its path', () => {
  const doc = structuredClone(valid) as { clients: Array<Record<string, unknown>>; global?: Record<string, unknown>; contexts: Array<Record<string, unknown>> };
  (doc.clients[2].authenticators as string[])[0] = 'x';
  doc.clients[1].secret = 'too-short';
  doc.global = { 'authz.denyStatus': 402 };
  const problems = problemsOf(doc);
  expect(problems).toEqual(expect.arrayContaining(['global.authz.denyStatus: must be one of [401,403]']));
  const semantic = structuredClone(valid) as typeof doc;
  (semantic.clients[2].authenticators as string[])[0] = 'x';
  semantic.clients[1].secret = 'too-short';
  expect(problemsOf(semantic)).toEqual(
    expect.arrayContaining(['clients[2].authenticators[0]: unknown authenticator "x"', expect.stringMatching(/^clients\[1\]\.secret: must be at least 43 characters/)]),
  );
  const unknown = { ...structuredClone(valid), colour: 'blue' };
  expect(problemsOf(unknown)).toEqual(['(root): unknown property "colour"']);
});

test('a document with both schema and reference errors lists both, each by path, schema errors first', () => {
  const doc = structuredClone(valid) as { clients: Array<Record<string, unknown>>; global?: Record<string, unknown> };
  (doc.clients[2].authenticators as string[])[0] = 'x';
  doc.global = { 'authz.denyStatus': 402 };
  expect(problemsOf({ ...doc, colour: 'blue' })).toEqual([
    '(root): unknown property "colour"',
    'global.authz.denyStatus: must be one of [401,403]',
    'clients[2].authenticators[0]: unknown authenticator "x"',
  ]);
});

test('the reference checks never throw on a schema-invalid document, and skip what they cannot check', () => {
  const base = structuredClone(valid) as Record<string, unknown> & { clients: Array<Record<string, unknown>>; contexts: Array<Record<string, unknown>> };
  const ill: Array<[string, (doc: typeof base) => void]> = [
    ['contexts', (d) => { d.contexts = 'employees' as never; }],
    ['a context', (d) => { d.contexts[0] = 7 as never; }],
    ['a definition', (d) => { d.contexts[0].definition = null; }],
    ['attributes', (d) => { (d.contexts[0].definition as Record<string, unknown>).attributes = ['mail']; }],
    ['authenticators', (d) => { d.authenticators = { id: 'a' }; }],
    ['an authenticator', (d) => { (d.authenticators as unknown[])[0] = null; }],
    ['authenticator options', (d) => { (d.authenticators as Array<Record<string, unknown>>)[0].options = 'x'; }],
    ['clients', (d) => { d.clients = null as never; }],
    ['a client', (d) => { d.clients[0] = 'svc-api' as never; }],
    ['client lists', (d) => { d.clients[0].authenticators = 'x'; d.clients[0].contexts = 3; d.clients[0].secret = 5; }],
    ['policies', (d) => { d.policies = [{ id: 'p', targets: 'x', clients: 4 }, null]; }],
    ['server', (d) => { d.server = { tls: { clientCA: 'ca.pem', xfccPeers: 'everyone' } }; }],
    ['sessions', (d) => { d.sessions = { store: 'redis', redis: { url: 5 } }; }],
    ['global', (d) => { d.global = 'x'; }],
    ['stores', (d) => { d.stores = 1; }],
  ];
  for (const [what, spoil] of ill) {
    const doc = structuredClone(base);
    spoil(doc);
    const problems = problemsOf(doc);
    expect({ what, some: problems.length > 0 }).toEqual({ what, some: true });
    // Nothing the reference checks say may come from the ill-typed part alone: only the schema speaks of it.
    expect({ what, problems: problems.filter((p) => /unknown (context|authenticator|client|attribute)|undefined/.test(p)) }).toEqual({ what, problems: [] });
  }
});

describe('passwords.scrypt: only an OWASP-listed setting, or one at least as strong in every parameter (SPEC 4)', () => {
  const withScrypt = (scrypt: Record<string, number>) => ({ ...structuredClone(valid), passwords: { algorithm: 'scrypt', scrypt } });

  test.each([
    { ln: 17, r: 8, p: 1 },
    { ln: 16, r: 8, p: 2 },
    { ln: 15, r: 8, p: 3 },
    { ln: 14, r: 8, p: 5 },
    { ln: 13, r: 8, p: 10 },
    { ln: 18, r: 8, p: 1 },
    { ln: 17, r: 16, p: 2 },
    { ln: 14, r: 8, p: 6 },
  ])('%o is accepted', (scrypt) => {
    expect(problemsOf(withScrypt(scrypt))).toEqual([]);
    expect(buildConfig(withScrypt(scrypt), {}).passwords.scrypt).toEqual(scrypt);
  });

  test.each([
    { ln: 15, r: 8, p: 1 },
    { ln: 16, r: 8, p: 1 },
    { ln: 14, r: 8, p: 4 },
    { ln: 13, r: 8, p: 9 },
    { ln: 15, r: 16, p: 1 },
  ])('%o is refused, naming the allowed settings', (scrypt) => {
    expect(problemsOf(withScrypt(scrypt))).toEqual([
      'passwords.scrypt: ln=' + scrypt.ln + ',r=' + scrypt.r + ',p=' + scrypt.p +
        ' is not an OWASP-listed scrypt setting; use one of ln=17,r=8,p=1; ln=16,r=8,p=2; ln=15,r=8,p=3; ln=14,r=8,p=5; ln=13,r=8,p=10 (or one of these with larger values)',
    ]);
  });

  test('the setting is checked whatever the algorithm, and the default is listed', () => {
    expect(problemsOf({ ...structuredClone(valid), passwords: { scrypt: { ln: 15 } } })).toEqual([expect.stringMatching(/^passwords\.scrypt: ln=15,r=8,p=1 is not an OWASP-listed/)]);
    expect(buildConfig(valid, {}).passwords.scrypt).toEqual({ ln: 17, r: 8, p: 1 });
    // svc hash-password --scrypt hashes with the hasher's default: listed too.
    expect(DEFAULT_SCRYPT).toEqual({ ln: 17, r: 8, p: 1 });
    expect(isOwaspScryptSetting(DEFAULT_SCRYPT) && isOwaspScryptSetting(DEFAULT_PASSWORDS.scrypt)).toBe(true);
  });

  test('a stored hash at any other valid setting still verifies, and is marked for upgrade', async () => {
    const config = buildConfig(withScrypt({ ln: 16, r: 8, p: 2 }), {});
    const hasher = new PasswordHasher({ ...config.passwords, precomputeDummy: false });
    const old = await new PasswordHasher({ algorithm: 'scrypt', scrypt: { ln: 10, r: 8, p: 1 }, precomputeDummy: false }).hash('Old-secret-11');
    expect(old).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$/);
    expect(await hasher.verify(old, 'Old-secret-11')).toEqual({ ok: true, needsRehash: true });
    expect(await hasher.verify(old, 'wrong')).toEqual({ ok: false, needsRehash: false });
  });
});

test('${ENV} is substituted, and a missing variable is an error by path', () => {
  const doc = structuredClone(valid) as { clients: Array<Record<string, unknown>> };
  doc.clients[2].secret = '${API_SECRET}';
  expect(buildConfig(doc, { API_SECRET: 'x'.repeat(43) }).clients[2].secret).toEqual(['x'.repeat(43)]);
  expect(problemsOf(doc, {})).toEqual(['clients[2].secret: environment variable API_SECRET is not set']);
});

test('a file that is not JSON names the file', () => {
  const file = join(dir, 'broken.json');
  writeFileSync(file, '{ "contexts": [');
  expect(() => loadConfigFile(file)).toThrow(/broken\.json is not valid JSON/);
});

test('a bad reload is refused and the running configuration stays', async () => {
  const server = await startTestServer();
  try {
    const good = join(dir, 'good.json');
    const doc = structuredClone(valid) as { global?: Record<string, unknown> };
    doc.global = { 'authz.denyStatus': 403 };
    writeFileSync(good, JSON.stringify(doc));
    expect(server.reload(good)).toEqual({ ok: true });
    expect(server.core.config.settings.denyStatus).toBe(403);

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...doc, clients: [{ id: 'x', authenticators: ['nope'], contexts: ['employees'] }] }));
    const result = server.reload(bad);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems).toEqual(expect.arrayContaining(['clients[0].authenticators[0]: unknown authenticator "nope"']));
    expect(server.core.config.settings.denyStatus).toBe(403);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  } finally {
    await server.stop();
  }
});
