/**
 * The real built `svc cli` as a child process against an in-process core server. Children run
 * asynchronously: a synchronous spawn would block the event loop the server answers on.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { runCli } from '../helpers/svc-process';
import { endSessionsOf } from '../helpers/sessions';

const ROOT = join(__dirname, '..', '..');

let server: TestServer;
let home: string;

const cli = (args: string[], options?: { stdin?: string; env?: Record<string, string> }) => runCli(home, args, options);

const base = () => ['--base-url', server.baseUrl];

// Each step starts a node process that loads the whole command; beside the flood and browser
// suites on two cores, a test of several steps can need more than jest's 30 s.
jest.setTimeout(120_000);

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT });
  server = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'svc-cli-'));
}, 180_000);
afterAll(async () => {
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('svc cli', () => {
  it('logs in with the password from stdin and works as alice', async () => {
    const login = await cli(['login', ...base(), '--client-id', 'svc-web', '--user', 'alice'], { stdin: `${TEST_CREDENTIALS.users.alice}\n` });
    expect(login).toMatchObject({ code: 0, stderr: '' });
    expect(login.stdout).toMatch(/^type\s+USER$/m);
    expect(login.stdout).toMatch(/^user\s+alice \(employees\)$/m);

    const file = join(home, 'session.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = readFileSync(file, 'utf8');
    expect(saved).not.toContain(TEST_CREDENTIALS.users.alice);
    expect(JSON.parse(saved)).toMatchObject({ kind: 'password', baseUrl: server.baseUrl, clientId: 'svc-web', contextId: 'employees', user: 'alice' });

    const whoami = await cli(['whoami', '--json']);
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ type: 'USER', level: 2, principal: { uniqueId: 'alice', contextId: 'employees' }, contextId: 'employees' });

    const get = await cli(['get', 'bob']);
    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/^mail\s+bob@example\.com$/m);

    // The parts of bob an administrator may read, in the same READ (include=otp,lockout,events).
    const parts = await cli(['get', 'bob', '--include', 'otp,lockout,events']);
    expect(parts).toMatchObject({ code: 0, stderr: '' });
    expect(parts.stdout).toMatch(/^two-step sign-in\s+none$/m);
    expect(parts.stdout).toMatch(/^locked\s+no$/m);
    expect(parts.stdout).toMatch(/^at\s+type\s+detail\s+principal\s+peer$/m);
    const partsJson = JSON.parse((await cli(['get', 'bob', '--include', 'lockout', '--json'])).stdout) as Record<string, unknown>;
    expect(partsJson).toMatchObject({ uniqueId: 'bob', lockout: { locked: false, lockedUntil: null } });
    expect(partsJson.events).toBeUndefined();
    const badInclude = await cli(['get', 'bob', '--include', 'secrets']);
    expect(badInclude.code).toBe(2);
    expect(badInclude.stderr).toContain('--include names some of otp, mail, lockout, events');

    const created = await cli(['create', 'dora', 'mail=dora@example.com', 'givenName=Dora', 'roles[]=user']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^roles\s+user$/m);

    const updated = await cli(['update', 'dora', 'familyName=Diaz', 'givenName=', '--json']);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ uniqueId: 'dora', attributes: { familyName: 'Diaz' } });
    expect(JSON.parse(updated.stdout).attributes.givenName).toBeUndefined();

    const search = await cli(['search', '--filter', 'mail ew "@example.com"', '--json']);
    expect(search.code).toBe(0);
    const page = JSON.parse(search.stdout) as { total: number; results: { uniqueId: string }[] };
    expect(page.results.map((s) => s.uniqueId)).toEqual(expect.arrayContaining(['alice', 'bob', 'dora']));
    expect(typeof page.total).toBe('number');
    const table = await cli(['search', 'dora']);
    expect(table.stdout).toMatch(/^uniqueId\s+familyName\s+mail\s+roles$/m);
    expect(table.stdout).toMatch(/^1-1 of 1$/m);

    const sorted = await cli(['search', '--sort', 'mail', '--order', 'desc', '--json']);
    expect((JSON.parse(sorted.stdout) as { results: { uniqueId: string }[] }).results.map((s) => s.uniqueId)).toEqual(['dora', 'bob', 'alice']);
    const csv = await cli(['search', '--sort', 'mail', '--csv']);
    expect(csv).toMatchObject({ code: 0, stderr: '' });
    expect(csv.stdout.split('\r\n')).toEqual(['uniqueId,mail,givenName,familyName,roles,disabled,userName,displayName,externalId', 'alice,alice@example.com,Alice,Anders,admin,,,,', 'bob,bob@example.com,Bob,Berg,user,,,,', 'dora,dora@example.com,,Diaz,user,,,,', '']);
    expect((await cli(['search', '--sort', 'roles'])).stderr).toMatch(/^svc cli: invalid_request \(400\)/);
    expect((await cli(['search', '--order', 'up'])).code).toBe(2);
    expect((await cli(['search', '--csv', '--quantity', '5'])).code).toBe(2);

    const can = await cli(['can', 'DELETE', 'dora']);
    expect(can.code).toBe(0);
    expect(can.stdout).toMatch(/^ALLOW DELETE contexts\/employees\/subjects\/dora/);

    expect((await cli(['delete', 'dora'])).code).toBe(0);
    const gone = await cli(['get', 'dora']);
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim().split('\n')).toHaveLength(1);
    expect(gone.stderr).toMatch(/^svc cli: not_found \(404\)/);

    const otherContext = await cli(['search', '--context', 'customers']);
    expect(otherContext.code).toBe(1);
    expect(otherContext.stderr).toMatch(/access_denied \(401\)/);

    const logout = await cli(['logout']);
    expect(logout).toMatchObject({ code: 0, stdout: 'logged out\n' });
    const after = await cli(['whoami']);
    expect(after.code).toBe(1);
    expect(after.stderr).toBe('svc cli: not logged in; run "svc cli login"\n');
  });

  it('the check as bob: DENY exits 1', async () => {
    expect((await cli(['login', ...base(), '--client-id', 'svc-web', '--user', 'bob'], { stdin: `${TEST_CREDENTIALS.users.bob}\n` })).code).toBe(0);
    const deny = await cli(['can', 'delete', 'alice']);
    expect(deny).toMatchObject({ code: 1, stderr: '' });
    expect(deny.stdout).toMatch(/^DENY DELETE contexts\/employees\/subjects\/alice \(denied\)$/m);
    const allow = await cli(['can', 'READ', 'bob', '--json']);
    expect(allow.code).toBe(0);
    expect(JSON.parse(allow.stdout)).toMatchObject({ allowed: true, decision: 'ALLOW', exists: true });
    expect((await cli(['logout'])).code).toBe(0);
  });

  it('takes the secret from the environment, and a wrong password fails in one line', async () => {
    const env = { SVC_BASE_URL: server.baseUrl, SVC_CLIENT_ID: 'svc-api', SVC_CLIENT_SECRET: TEST_CREDENTIALS.clients['svc-api'] };
    const wrong = await cli(['login', '--user', 'alice'], { env, stdin: 'not-the-password\n' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^svc cli: login_failed \(401\): .*\n$/);
    const ok = await cli(['login', '--user', 'alice', '--json'], { env, stdin: `${TEST_CREDENTIALS.users.alice}\n` });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ clientId: 'svc-api', level: 2 });
    const badSecret = await cli(['login', '--user', 'alice'], { env: { ...env, SVC_CLIENT_SECRET: 'd3Jvbmctc2VjcmV0LWZvci1zdmMtYXBpLXRlc3RzLW9ubHktMDE' }, stdin: `${TEST_CREDENTIALS.users.alice}\n` });
    expect(badSecret.code).toBe(1);
    expect(badSecret.stderr).toMatch(/^svc cli: invalid_client \(401\)/);
    expect((await cli(['logout'])).code).toBe(0);
  });

  it('a session ended on the server is reported and forgotten', async () => {
    expect((await cli(['login', ...base(), '--client-id', 'svc-web', '--user', 'bob'], { stdin: `${TEST_CREDENTIALS.users.bob}\n` })).code).toBe(0);
    await endSessionsOf(server, 'employees', 'bob');
    const res = await cli(['get', 'bob']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^svc cli: session_expired: the session has ended; run "svc cli login"\n$/);
    expect((await cli(['whoami'])).stderr).toMatch(/not logged in/);
  });

  it('anonymous: no password asked, the check in another context', async () => {
    const login = await cli(['login', ...base(), '--anonymous', '--json']);
    expect(login.code).toBe(0);
    expect(JSON.parse(login.stdout)).toMatchObject({ type: 'ANON', principal: null, level: 0 });
    expect((await cli(['can', 'CREATE', '--context', 'customers'])).code).toBe(0);
    expect((await cli(['get', 'bob'])).stderr).toMatch(/^svc cli: access_denied \(401\)/);
    expect((await cli(['logout'])).code).toBe(0);
  });

  it('usage mistakes exit 2; the secret is not a flag', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    const flag = await cli(['login', '--secret', 'x']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/Unknown option '--secret'/);
    const noUser = await cli(['login', ...base()]);
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toMatch(/^svc cli: give --user ID \(or SVC_USER\), or --anonymous\n\nusage: svc cli <command>/);
  });

  it('no core given: names --base-url and SVC_BASE_URL, exit 2 with the usage', async () => {
    const answer = await cli(['login', '--anonymous']);
    expect(answer).toMatchObject({ code: 2, stdout: '' });
    expect(answer.stderr).toMatch(/^svc cli: no core given: --base-url URL \(or SVC_BASE_URL\)/);
    expect(answer.stderr).toMatch(/^usage: svc cli <command>/m);
  });

  it('a check on a subject without its id is refused here, as an unknown operation is, before any session', async () => {
    for (const op of ['READ', 'update', 'DELETE']) {
      const answer = await cli(['can', op]);
      expect(answer).toMatchObject({ code: 2, stdout: '' });
      expect(answer.stderr).toMatch(new RegExp(`^svc cli: ${op.toUpperCase()} is checked on a subject: svc cli can ${op.toUpperCase()} ID\n\nusage: svc cli`));
    }
    expect((await cli(['can', 'SEARCH', 'bob'])).stderr).toMatch(/^svc cli: SEARCH is checked on the context, not a subject/);
    expect((await cli(['can', 'FROB'])).stderr).toMatch(/^svc cli: OP is one of CREATE, READ, UPDATE, DELETE, SEARCH\n\nusage: svc cli/);
  });

  it('a password login refused with no client named says to name one with --client-id', async () => {
    const answer = await cli(['login', ...base(), '--user', 'alice'], { stdin: `${TEST_CREDENTIALS.users.alice}\n` });
    expect(answer.code).toBe(1);
    expect(answer.stderr).toMatch(/^svc cli: login_failed \(401\): .*; no client was named, so the core's default client was used: name one with --client-id ID \(or SVC_CLIENT_ID\)\n$/);
    // Named, the same password is accepted: the hint was the cause.
    expect((await cli(['login', ...base(), '--client-id', 'svc-web', '--user', 'alice'], { stdin: `${TEST_CREDENTIALS.users.alice}\n` })).code).toBe(0);
    expect((await cli(['logout'])).code).toBe(0);
  });
});
