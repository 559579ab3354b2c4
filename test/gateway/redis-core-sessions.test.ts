/**
 * The compare-and-set rules of the gateways' core sessions in Redis (gateway/src/redis-core-sessions.ts),
 * two instances (two gateways) on the real shared Redis, with a recording CoreLogin in place of the
 * cores (the map is under test, not the logins): racing logins converge and the loser's session is
 * ended; an adoption or a drop applies only to the session it was derived from; a visitor's first
 * adoption wins once; put and take answer what they replaced. Skipped with a message without Redis.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import pino from 'pino';
import type { PrincipalName, VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import type { CoreLogin, PasswordLogin } from '../../gateway/src/core-login';
import { GatewayMetrics } from '../../gateway/src/observability';
import { RedisCoreSessions } from '../../gateway/src/redis-core-sessions';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, REDIS_URL, redisRequirement } from '../helpers/services';

const CORE = 'http://core-a/svc';
const OTHER = 'http://core-b/svc';
const SECRET = randomBytes(32).toString('base64url');

/** Logins that each make a new cookie after `delayMs`, and the logouts asked for. */
class RecordingLogin implements CoreLogin {
  made = 0;
  readonly loggedOut: string[] = [];
  constructor(private readonly delayMs = 0) {}
  async principal(_base: string, user: PrincipalName): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return `SVCSESSIONID=${user.uniqueId}-${++this.made}-${randomBytes(4).toString('hex')}`;
  }
  password(): Promise<PasswordLogin> {
    throw new Error('not used');
  }
  secondStep(): Promise<PasswordLogin> {
    throw new Error('not used');
  }
  async logout(_base: string, cookie: string): Promise<void> {
    this.loggedOut.push(cookie);
  }
}

const user = (uniqueId: string): VerifiedPrincipal => ({ portalId: 'p', user: { contextId: 'employees', uniqueId }, visitor: 'dg', address: null }) as VerifiedPrincipal;
const visitor = (handle: string): VerifiedPrincipal => ({ portalId: 'p', user: null, visitor: handle, address: null }) as VerifiedPrincipal;

describeWithService(redisRequirement(), 'core sessions in Redis: compare-and-set', () => {
  const prefix = `svc-test:gwcas:${process.pid}:${randomBytes(6).toString('hex')}:`;
  let redis: Redis;
  const gateway = (login: CoreLogin, secret = SECRET) =>
    new RedisCoreSessions({ redis, prefix, secret, login, ttlMs: 60_000, log: pino({ level: 'silent' }), metrics: new GatewayMetrics(false) });

  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  test('two gateways logging one user in at once converge on one session; the other login is ended', async () => {
    const logins = [new RecordingLogin(30), new RecordingLogin(30)];
    const [a, b] = logins.map((login) => gateway(login));
    const [fromA, fromB] = await Promise.all([a.get(CORE, user('u1')), b.get(OTHER, user('u1'))]);
    expect(fromA.cookie).toBe(fromB.cookie);
    expect(fromB.core).toBe(OTHER);
    const loggedOut = logins.flatMap((login) => login.loggedOut);
    expect(loggedOut).toHaveLength(1);
    expect(loggedOut[0]).not.toBe(fromA.cookie);
    expect((await a.get(CORE, user('u1'))).cookie).toBe(fromA.cookie);
  });

  test('concurrent first requests on one gateway make one login', async () => {
    const login = new RecordingLogin(20);
    const a = gateway(login);
    const sessions = await Promise.all(Array.from({ length: 20 }, () => a.get(CORE, user('u2'))));
    expect(new Set(sessions.map((s) => s.cookie)).size).toBe(1);
    expect(login.made).toBe(1);
    expect(login.loggedOut).toEqual([]);
  });

  test('a renewal by one gateway is found by the other, which does not log in again', async () => {
    const [la, lb] = [new RecordingLogin(), new RecordingLogin()];
    const [a, b] = [gateway(la), gateway(lb)];
    const first = await a.get(CORE, user('u3'));
    const renewed = await a.renew(first, user('u3'));
    expect(renewed.cookie).not.toBe(first.cookie);
    // B still holds the dead one: its renewal takes A's, no login.
    expect((await b.renew({ ...first, core: OTHER }, user('u3'))).cookie).toBe(renewed.cookie);
    expect(lb.made).toBe(0);
  });

  test('a drop or an adoption of a session that was replaced meanwhile changes nothing', async () => {
    const a = gateway(new RecordingLogin());
    const old = await a.get(CORE, user('u4'));
    const current = await a.renew(old, user('u4'));
    await a.drop(old, user('u4'));
    await a.adopt(old, `${old.cookie}; FLOW=x`, user('u4'));
    expect((await a.get(CORE, user('u4'))).cookie).toBe(current.cookie);
    await a.adopt(current, `${current.cookie}; FLOW=y`, user('u4'));
    expect((await a.get(CORE, user('u4'))).cookie).toBe(`${current.cookie}; FLOW=y`);
    await a.drop({ ...current, cookie: `${current.cookie}; FLOW=y` }, user('u4'));
    expect(await redis.keys(`${prefix}c:*`)).toHaveLength(3); // u1, u2, u3: u4's is gone
  });

  test("a visitor's first ANON cookie is adopted once: of two gateways adopting from nothing, the first wins", async () => {
    const [a, b] = [gateway(new RecordingLogin()), gateway(new RecordingLogin())];
    const start = await a.get(CORE, visitor('v1'));
    expect(start).toEqual({ core: CORE, cookie: '', anonymous: true });
    await a.adopt(start, 'SVCSESSIONID=s1.first', visitor('v1'));
    await b.adopt({ ...start, core: OTHER }, 'SVCSESSIONID=s1.second', visitor('v1'));
    expect(await b.get(OTHER, visitor('v1'))).toEqual({ core: OTHER, cookie: 'SVCSESSIONID=s1.first', anonymous: true });
  });

  test('put answers the session it replaced (to log it out where it was made); take empties', async () => {
    const a = gateway(new RecordingLogin());
    const made = await a.get(OTHER, user('u5'));
    expect(await a.put(CORE, user('u5'), 'SVCSESSIONID=by-password')).toEqual([{ core: OTHER, cookie: made.cookie, anonymous: false }]);
    expect(await a.take(user('u5'))).toEqual([{ core: CORE, cookie: 'SVCSESSIONID=by-password', anonymous: false }]);
    expect(await a.take(user('u5'))).toEqual([]);
  });

  test('a gateway with another secret neither finds nor disturbs the others: its keys are its own', async () => {
    const login = new RecordingLogin();
    const ours = gateway(new RecordingLogin());
    const stranger = gateway(login, randomBytes(32).toString('base64url'));
    const mine = await ours.get(CORE, user('u6'));
    const theirs = await stranger.get(CORE, user('u6'));
    expect(theirs.cookie).not.toBe(mine.cookie);
    expect(login.made).toBe(1);
    expect((await ours.get(CORE, user('u6'))).cookie).toBe(mine.cookie);
    expect((await stranger.get(CORE, user('u6'))).cookie).toBe(theirs.cookie);
  });

  test('a revoked session leaves a mark every gateway honours: SessionRevoked, never a login; a stale revocation changes nothing', async () => {
    const [la, lb] = [new RecordingLogin(), new RecordingLogin()];
    const [a, b] = [gateway(la), gateway(lb)];
    const held = await a.get(CORE, user('u9'));
    await b.revoke({ ...held, cookie: 'SVCSESSIONID=not-the-held-one' }, user('u9'));
    expect((await b.get(CORE, user('u9'))).cookie).toBe(held.cookie);
    await b.revoke(held, user('u9'));
    for (const sessions of [a, b]) {
      await expect(sessions.get(CORE, user('u9'))).rejects.toMatchObject({ status: 401, code: 'session_revoked' });
      await expect(sessions.renew(held, user('u9'))).rejects.toMatchObject({ code: 'session_revoked' });
    }
    expect(la.made + lb.made).toBe(1);
    // Another portal session of the same user is not touched by the mark.
    const other = { ...user('u9'), visitor: 'another' } as VerifiedPrincipal;
    expect((await a.get(CORE, other)).cookie).not.toBe(held.cookie);
  });
});
