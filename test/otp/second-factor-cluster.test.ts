/**
 * Two real cores on one PostgreSQL and one Redis (SPEC 12 and 15), with one data directory as a
 * cluster's shared volume (`otp.key`, `otp.sqlite`): a code accepted by one core is refused when
 * replayed on the other (the last accepted step is in Redis), and a pending token spent on one is
 * spent on both. Skipped with a message without PostgreSQL or Redis, unless SVC_TEST_REQUIRE_ALL=1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { RedisSessionStore } from '../../server/src/sessions/redis-session-store';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send, type Sent } from '../helpers/http';
import { login } from '../helpers/login';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, postgresRequirement, REDIS_URL, redisRequirement } from '../helpers/services';

const { users } = TEST_CREDENTIALS;
const T0 = 1_795_000_020_000;
let clock = T0;
const oathtool = (secret: string) => execFileSync('oathtool', ['--totp', '-b', secret, '--now', `@${Math.floor(clock / 1000)}`], { encoding: 'utf8' }).trim();
const level = (sent: Sent) => (sent.json?.session as { level: number } | undefined)?.level;

describeWithService(redisRequirement(), 'a second factor across two cores', () => {
  describeWithService(postgresRequirement(), 'on PostgreSQL and Redis', () => {
    const schemas = suiteSchemas('otp');
    const prefix = `svc-test:otp:${process.pid}:${randomBytes(6).toString('hex')}:`;
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-otp-cluster-'));
    let a: TestServer;
    let b: TestServer;
    let secret: string;
    const web = (server: TestServer, extra: Record<string, string>) => login(server.baseUrl, { clientid: 'svc-web', ...extra });

    beforeAll(async () => {
      const { url } = await schemas.create();
      const options = { configure: onPostgres(url), dataDir, now: () => clock };
      a = await startTestServer({ ...options, sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix }) });
      b = await startTestServer({ ...options, sessionStore: new RedisSessionStore({ url: REDIS_URL, prefix }), seed: false });
      const session = await web(a, { user: 'bob', password: users.bob });
      const otp = `${a.baseUrl}/resources/contexts/employees/subjects/bob/otp`;
      secret = (await send(otp, { cookie: session.cookie, json: { password: users.bob } })).json!.secret as string;
      clock += 30_000;
      expect((await send(otp, { method: 'PUT', cookie: session.cookie, json: { code: oathtool(secret) } })).status).toBe(200);
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
      const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      await deleteKeys(admin, prefix);
      await admin.quit();
    });

    test('a code accepted on one core is refused on the other; the next step is accepted there', async () => {
      clock += 30_000;
      const code = oathtool(secret);
      expect(level(await web(a, { user: 'bob', password: users.bob, otp: code }))).toBe(3);
      const pending = (await web(b, { user: 'bob', password: users.bob })).json!.pending as string;
      const replayed = await web(b, { pending, otp: code });
      expect(replayed.json!.code).toBe('login_failed');
      clock += 30_000;
      const pendingAgain = (await web(b, { user: 'bob', password: users.bob })).json!.pending as string;
      expect(level(await web(b, { pending: pendingAgain, otp: oathtool(secret) }))).toBe(3);
    });

    test('a pending token spent on one core is spent on the other', async () => {
      const pending = (await web(a, { user: 'bob', password: users.bob })).json!.pending as string;
      clock += 30_000;
      expect(level(await web(a, { pending, otp: oathtool(secret) }))).toBe(3);
      clock += 30_000;
      expect((await web(b, { pending, otp: oathtool(secret) })).json!.code).toBe('login_failed');
    });

    test('ten wrong codes on one core stop codes on the other, until a lock lifted on either', async () => {
      const bob = { contextId: 'employees', uniqueId: 'bob' };
      for (let i = 0; i < 10; i++) expect(await a.core.secondFactors.verify(bob, 'ABCDEFGHIJKLMNOP')).toBe(false);
      clock += 30_000;
      expect(await b.core.secondFactors.verify(bob, oathtool(secret))).toBe(false);
      const system = (await web(b, { user: 'svcadmin', password: users.svcadmin })).cookie;
      expect((await send(`${b.baseUrl}/resources/contexts/employees/subjects/bob/lockout`, { method: 'DELETE', cookie: system })).status).toBe(204);
      expect(await a.core.secondFactors.verify(bob, oathtool(secret))).toBe(true);
    });
  });
});
