/**
 * `passwords.maxCost` (SPEC section 2; issue 24, item 10): a stored hash may cost at most 4× the
 * configured setting of its algorithm in memory and in time. `svc import` accepted an argon2id hash
 * at m=64 MiB, t=1000, and two wrong-password logins for that name held the whole hashing pool for
 * 30 s. Now such a hash is refused at import (the line named) and never computed at a login on any
 * store: the login fails like a wrong password after one computation of the configured cost, and an
 * audit line names the subject.
 */
import { randomBytes } from 'node:crypto';
import { HashCostCeiling } from '../../server/src/passwords/hash-cost';
import { PasswordHasher, type ComputeEvent, type PasswordHasherOptions } from '../../server/src/passwords/password-hasher';
import { parsePhc } from '../../server/src/passwords/phc';
import { startTestServer, TEST_CREDENTIALS, TEST_HASH, type TestServer } from '../helpers/core-server';
import { logLines } from '../helpers/log-lines';
import { login } from '../helpers/login';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';

const b64 = (n: number) => randomBytes(n).toString('base64').replace(/=+$/, '');
/** A well-formed PHC string at these parameters (never computed: a ceiling is decided on the parameters alone). */
const argon2Phc = (m: number, t: number, p = 1) => `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(16)}$${b64(32)}`;
const scryptPhc = (ln: number, r: number, p: number) => `$scrypt$ln=${ln},r=${r},p=${p}$${b64(16)}$${b64(32)}`;

describe('the ceiling, at the shipped defaults (argon2id m=19456 t=2, scrypt ln=17 r=8 p=1, 4× each)', () => {
  const ceiling = new HashCostCeiling({ argon2: { memoryCost: 19456, timeCost: 2, parallelism: 1 }, scrypt: { ln: 17, r: 8, p: 1 } });
  const problem = (phc: string) => ceiling.problem(parsePhc(phc));

  it.each([
    ['the configured argon2id setting', argon2Phc(19456, 2)],
    ["OWASP's other argon2id settings", argon2Phc(47104, 1)],
    ['4× the memory', argon2Phc(77824, 2)],
    ['4× the time', argon2Phc(19456, 8)],
    ['many lanes over the same blocks', argon2Phc(19456, 2, 8)],
    ['the configured scrypt setting', scryptPhc(17, 8, 1)],
    ["OWASP's other scrypt settings", scryptPhc(13, 8, 10)],
    ['scrypt at 4× the memory', scryptPhc(19, 8, 1)],
  ])('accepts %s', (_what, phc) => {
    expect(problem(phc)).toBeUndefined();
  });

  it.each([
    ['the review\'s argon2id m=64 MiB t=1000', argon2Phc(65536, 1000), /argon2id m=65536,t=1000,p=1.*time/],
    ['argon2id m=4 GiB', argon2Phc(4 * 1024 * 1024, 1), /memory \(4194304 KiB; at most 77824\)/],
    ['argon2id at 4× memory and 2× time', argon2Phc(77824, 4), /time \(8× the configured setting's; at most 4×\)/],
    ['scrypt N=2^20 (1 GiB)', scryptPhc(20, 8, 1), /scrypt ln=20,r=8,p=1.*memory/],
    ['scrypt p=64', scryptPhc(17, 8, 64), /scrypt ln=17,r=8,p=64.*time/],
    ['scrypt r=64', scryptPhc(17, 64, 1), /memory/],
  ])('refuses %s', (_what, phc, why) => {
    expect(problem(phc)).toMatch(why);
    expect(problem(phc)).toContain('passwords.maxCost');
  });

  it('factors are configurable', () => {
    const roomy = new HashCostCeiling({ argon2: { memoryCost: 19456, timeCost: 2, parallelism: 1 }, scrypt: { ln: 17, r: 8, p: 1 } }, { memoryFactor: 4, timeFactor: 2000 });
    expect(roomy.problem(parsePhc(argon2Phc(65536, 1000)))).toBeUndefined();
  });
});

describe('PasswordHasher.verify never computes a hash above the ceiling', () => {
  it('spends one computation of the configured algorithm instead, and says why', async () => {
    const events: ComputeEvent[] = [];
    const hasher = new PasswordHasher({ ...TEST_HASH, algorithm: 'scrypt', scrypt: { ln: 10, r: 8, p: 1 }, onCompute: (e) => events.push(e) });
    await hasher.ready();
    // Right password, and a hash cheap enough to compute in a test: only its parameters refuse it.
    const stored = await new PasswordHasher({ argon2: { memoryCost: 8192, timeCost: 1, parallelism: 1 }, precomputeDummy: false }).hash('the-right-password');
    events.length = 0;
    const verdict = await hasher.verify(stored, 'the-right-password');
    expect(verdict).toEqual({ ok: false, needsRehash: false, refused: expect.stringContaining('argon2id m=8192,t=1,p=1') });
    expect(events).toEqual([{ algorithm: 'scrypt', operation: 'verify' }]);
  });
});

/** A core on `store` whose hasher is cheap (argon2id m=1024 t=1; scrypt ln=10), recording its computations and audit. */
async function coreWithStore(store: () => Promise<Configure>, hash: PasswordHasherOptions) {
  const events: ComputeEvent[] = [];
  const log = logLines();
  const server = await startTestServer({ logger: log.logger, configure: await store(), hash: { ...hash, onCompute: (e) => events.push(e) } });
  return { server, events, log };
}

type Configure = (doc: Record<string, unknown>) => void;

/** `configure` gives each test's core its own store (a fresh schema on PostgreSQL). */
function loginSuite(store: string, configure: () => Promise<Configure>): void {
  describe(`a login on ${store} never computes a stored hash above the ceiling`, () => {
    let server: TestServer | undefined;
    afterEach(async () => {
      await server?.stop();
      server = undefined;
    });

    it.each([
      // configured, stored above the ceiling: the one computation made is the configured algorithm's, never the stored one's
      ['argon2id at 8× the memory', { algorithm: 'scrypt', scrypt: { ln: 10, r: 8, p: 1 } }, { argon2: { memoryCost: 8192, timeCost: 1, parallelism: 1 } }, 'scrypt', 'argon2id m=8192'],
      ['scrypt at 8× the memory', { scrypt: { ln: 10, r: 8, p: 1 } }, { algorithm: 'scrypt', scrypt: { ln: 13, r: 8, p: 1 } }, 'argon2id', 'scrypt ln=13,r=8,p=1'],
    ] as const)('%s: the right password fails like a wrong one, after the configured work, and the audit names the subject', async (_what, configured, storedWith, computed, detail) => {
      const made = await coreWithStore(configure, configured);
      server = made.server;
      const stored = await new PasswordHasher({ ...storedWith, precomputeDummy: false }).hash(TEST_CREDENTIALS.users.bob);
      await server.core.subjects.setPasswordHash('employees', 'bob', stored);
      const attempt = (user: string, password: string) => login(server!.baseUrl, { clientid: 'svc-web', user, password }, { headers: { accept: 'application/json' } });
      // What an ordinary wrong password costs (each password authenticator of the client spends one computation).
      made.events.length = 0;
      expect((await attempt('alice', 'not-alices-password')).status).toBe(401);
      const ordinary = made.events.splice(0);
      const answer = await attempt('bob', TEST_CREDENTIALS.users.bob);
      expect([answer.status, answer.json?.code]).toEqual([401, 'login_failed']);
      expect(made.events).toEqual(ordinary);
      expect(made.events.every((e) => e.algorithm === computed)).toBe(true);
      const refused = made.log.audits().filter((a) => a.event === 'password_hash_refused');
      expect(refused).toEqual([expect.objectContaining({ outcome: 'failure', reason: 'cost_above_ceiling', subject: 'employees/bob', detail: expect.stringContaining(detail) })]);
    });

    it('a hash at the ceiling still logs in, and is upgraded to the configured setting', async () => {
      const made = await coreWithStore(configure, {});
      server = made.server;
      const atCeiling = await new PasswordHasher({ argon2: { memoryCost: 4096, timeCost: 1, parallelism: 1 }, precomputeDummy: false }).hash(TEST_CREDENTIALS.users.bob);
      await server.core.subjects.setPasswordHash('employees', 'bob', atCeiling);
      const answer = await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: TEST_CREDENTIALS.users.bob }, { headers: { accept: 'application/json' } });
      expect(answer.status).toBe(200);
      const upgraded = (await server.core.subjects.read('employees', 'bob')).attributes.password;
      expect(String(upgraded)).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    });
  });
}

loginSuite('SQLite', async () => () => undefined);
loginSuite('the memory store', async () => (doc) => {
  for (const context of doc.contexts as Array<Record<string, unknown>>) context.store = 'memory';
});
describeWithService(postgresRequirement(), 'PostgreSQL', () => {
  const schemas = suiteSchemas('hash_cost');
  loginSuite('PostgreSQL', async () => onPostgres((await schemas.create()).url));
});
