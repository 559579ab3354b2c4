/**
 * The behaviour of the SessionManager, run over each store variant (memory, Redis).
 */
import { createHash, randomBytes } from 'node:crypto';
import { ServiceUnavailable, SessionExpired } from '../../common/src/errors';
import { sessionView } from '../../server/src/sessions/session';
import { SessionManager, handleOf, storeKeyOf, type CreateSessionInput } from '../../server/src/sessions/session-manager';
import type { SessionStore } from '../../server/src/sessions/session-store';
import { FakeClock, type StoreBounds, type StoreHarness } from './helpers';

const IDLE = 1800;
const ABSOLUTE = 12 * 3600;
const JDOE = { uniqueId: 'jdoe', contextId: 'people' };

const anon: CreateSessionInput = { type: 'ANON', clientId: '', principal: null, level: 0, authenticator: 'anonymous' };
const user: CreateSessionInput = { type: 'USER', clientId: 'web', principal: JDOE, level: 2, authenticator: 'pw' };
const system: CreateSessionInput = { type: 'SYSTEM', clientId: 'admin', principal: { uniqueId: 'system', contextId: 'config' }, level: 2, authenticator: 'system' };
const internal: CreateSessionInput = { type: 'INTERNAL', clientId: '', principal: null, level: 0, authenticator: 'internal' };

/** Tampers with one character of a string (always to a different one). */
function flip(value: string, index: number): string {
  const c = value[index];
  return value.slice(0, index) + (c === 'A' ? 'B' : 'A') + value.slice(index + 1);
}

export function managerBehaviour(harness: StoreHarness): void {
  let clock: FakeClock;
  let store: SessionStore;
  let sessions: SessionManager;
  const open: SessionStore[] = [];

  const setUp = (bounds?: StoreBounds, extra: { signingKey?: Buffer } = {}): void => {
    store = harness.make(clock, bounds);
    open.push(store);
    sessions = new SessionManager({ store, idleSeconds: IDLE, absoluteSeconds: ABSOLUTE, now: clock.now, ...extra });
  };

  beforeEach(() => {
    clock = new FakeClock();
    setUp();
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  describe('create and resolve', () => {
    it('an ANON session is stateless: a signed value and nothing in the store', async () => {
      const { cookieValue, session } = await sessions.create(anon);
      expect(cookieValue).toMatch(/^s1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      expect(session).toMatchObject({ type: 'ANON', clientId: '', principal: null, level: 0, authenticator: 'anonymous', stateless: true });
      expect(session.handle).toBe(handleOf(cookieValue));
      expect(session.handle).toMatch(/^[A-Za-z0-9_-]{22}$/);
      await expect(store.size()).resolves.toBe(0);

      const resolved = await sessions.resolve(cookieValue);
      expect(resolved.presentedInvalid).toBe(false);
      expect(resolved.needsRefresh).toBe(false);
      expect(resolved.session).toEqual(session);
      expect(sessionView(resolved.session!)).toEqual({ uniqueId: session.handle, type: 'ANON', clientId: '', principal: null, level: 0, message: '' });
    });

    it('10 000 ANON sessions add nothing to the store, and every value differs', async () => {
      const values = new Set<string>();
      for (let i = 0; i < 10_000; i++) values.add((await sessions.create(anon)).cookieValue);
      expect(values.size).toBe(10_000);
      await expect(store.size()).resolves.toBe(0);
      await expect(store.list(10)).resolves.toEqual([]);
    });

    it('an INTERNAL session without data is stateless too, and keeps its message', async () => {
      const { cookieValue, session } = await sessions.create({ ...internal, message: 'Answer the questions' });
      expect(session.stateless).toBe(true);
      await expect(store.size()).resolves.toBe(0);
      const { session: resolved } = await sessions.resolve(cookieValue);
      expect(resolved).toMatchObject({ type: 'INTERNAL', message: 'Answer the questions', stateless: true });
    });

    it.each([
      ['USER', user],
      ['SYSTEM', system],
    ])('a %s session is stored under the SHA-256 of its value, never the value itself', async (type, input) => {
      const { cookieValue, session } = await sessions.create(input);
      expect(cookieValue).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(cookieValue, 'base64url')).toHaveLength(32);
      expect(session).toMatchObject({ type, principal: input.principal, level: 2, stateless: false, created: clock.t, lastAccess: clock.t });
      expect(session.handle).toBe(createHash('sha256').update(cookieValue).digest().subarray(0, 16).toString('base64url'));
      await expect(store.size()).resolves.toBe(1);
      const key = createHash('sha256').update(cookieValue).digest('base64url');
      expect(storeKeyOf(cookieValue)).toBe(key);
      await expect(store.get(key)).resolves.toMatchObject({ handle: session.handle, type });
      await expect(store.get(cookieValue)).resolves.toBeUndefined();

      const resolved = await sessions.resolve(cookieValue);
      expect(resolved).toEqual({ session, presentedInvalid: false, needsRefresh: false });
      expect(sessionView(resolved.session!)).toMatchObject({ uniqueId: session.handle, type, principal: input.principal });
    });

    it('an ANON session with data keeps it in its signed cookie; a session with a principal is stored', async () => {
      const withData = await sessions.create({ ...anon, data: { flow: 'register' } });
      expect(withData.session).toMatchObject({ stateless: true, data: { flow: 'register' } });
      const internalWithPrincipal = await sessions.create({ ...internal, principal: JDOE });
      expect(internalWithPrincipal.session.stateless).toBe(false);
      await expect(store.size()).resolves.toBe(1);
      await expect(sessions.resolve(withData.cookieValue)).resolves.toMatchObject({ session: { stateless: true, data: { flow: 'register' } } });
      await expect(sessions.endForPrincipal('people', 'jdoe')).resolves.toBe(1);
    });

    it('refuses stateless data too large for a cookie', async () => {
      await expect(sessions.create({ ...anon, data: { big: 'x'.repeat(2000) } })).rejects.toThrow(TypeError);
      await expect(store.size()).resolves.toBe(0);
    });

    it('nothing presented is not an invalid presentation', async () => {
      await expect(sessions.resolve(undefined)).resolves.toEqual({ presentedInvalid: false, needsRefresh: false });
      await expect(sessions.resolve('')).resolves.toEqual({ presentedInvalid: false, needsRefresh: false });
    });

    it('rejects invalid input', async () => {
      await expect(sessions.create({ ...user, type: 'ROOT' as never })).rejects.toThrow(TypeError);
      await expect(sessions.create({ ...user, level: 4 as never })).rejects.toThrow(TypeError);
      expect(() => new SessionManager({ store, idleSeconds: 0, absoluteSeconds: 1 })).toThrow(TypeError);
      expect(() => new SessionManager({ store, idleSeconds: 1, absoluteSeconds: 1, signingKey: Buffer.alloc(8) })).toThrow(TypeError);
    });
  });

  describe('nothing the server did not issue is adopted', () => {
    it('a random 43-character id never issued', async () => {
      await sessions.create(user);
      for (let i = 0; i < 20; i++) {
        await expect(sessions.resolve(randomBytes(32).toString('base64url'))).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
      }
      await expect(store.size()).resolves.toBe(1);
    });

    it('malformed values', async () => {
      const { cookieValue } = await sessions.create(user);
      for (const bad of [
        cookieValue.slice(0, 42),
        `${cookieValue}A`,
        `${cookieValue.slice(0, 42)}+`,
        'not a session',
        's1.',
        's1..',
        's2.e30.AAAA',
        'x'.repeat(10_000),
        's1.' + 'A'.repeat(5000) + '.' + 'A'.repeat(43),
      ]) {
        await expect(sessions.resolve(bad)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
      }
    });

    it('forged, modified or truncated stateless values', async () => {
      const { cookieValue } = await sessions.create(anon);
      const [prefix, payload, mac] = cookieValue.split('.');
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const reencode = (p: Record<string, unknown>) => Buffer.from(JSON.stringify(p)).toString('base64url');
      const forged = [
        `${prefix}.${reencode({ ...decoded, t: 'INTERNAL' })}.${mac}`,
        `${prefix}.${reencode({ ...decoded, c: 'admin' })}.${mac}`,
        `${prefix}.${reencode({ ...decoded, iat: clock.t + 1 })}.${mac}`,
        `${prefix}.${reencode({ ...decoded, t: 'SYSTEM' })}.${mac}`,
        `${prefix}.${payload}.${flip(mac, 0)}`,
        `${prefix}.${payload}.${flip(mac, 42)}`,
        `${prefix}.${flip(payload, 5)}.${mac}`,
        `${prefix}.${payload}.${mac.slice(0, 42)}`,
        `${prefix}.${payload}.`,
        `${prefix}.${payload}`,
        `${prefix}.${payload.slice(0, -1)}.${mac}`,
        `${prefix}.${payload}.${mac}.${mac}`,
        `s1.${payload}.${Buffer.alloc(32).toString('base64url')}`,
        cookieValue.slice(0, -10),
      ];
      for (const bad of forged) {
        expect(bad).not.toBe(cookieValue);
        await expect(sessions.resolve(bad)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
      }
      // The original still works.
      await expect(sessions.resolve(cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
    });

    it('a stateless value signed with another key', async () => {
      const other = new SessionManager({ store, idleSeconds: IDLE, absoluteSeconds: ABSOLUTE, now: clock.now });
      const { cookieValue } = await other.create(anon);
      await expect(sessions.resolve(cookieValue)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
    });

    it('instances sharing a signing key accept each other\'s stateless values', async () => {
      const signingKey = randomBytes(32);
      const a = new SessionManager({ store, idleSeconds: IDLE, absoluteSeconds: ABSOLUTE, now: clock.now, signingKey });
      const b = new SessionManager({ store, idleSeconds: IDLE, absoluteSeconds: ABSOLUTE, now: clock.now, signingKey });
      const { cookieValue, session } = await a.create(anon);
      await expect(b.resolve(cookieValue)).resolves.toEqual({ session, presentedInvalid: false, needsRefresh: false });
    });
  });

  describe('lifetimes (fake clock)', () => {
    it('a stateless session expires the idle timeout after issue, and asks for a refresh past half of it', async () => {
      const { cookieValue } = await sessions.create(anon);
      clock.advance((IDLE / 2) * 1000);
      await expect(sessions.resolve(cookieValue)).resolves.toMatchObject({ presentedInvalid: false, needsRefresh: false });
      clock.advance(1);
      const resolved = await sessions.resolve(cookieValue);
      expect(resolved).toMatchObject({ presentedInvalid: false, needsRefresh: true });

      const refreshed = await sessions.refresh(cookieValue, resolved.session!);
      expect(refreshed.cookieValue).not.toBe(cookieValue);
      expect(refreshed.session.created).toBe(resolved.session!.created);
      await expect(store.size()).resolves.toBe(0);

      clock.advance((IDLE / 2) * 1000 - 1);
      await expect(sessions.resolve(cookieValue)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
      await expect(sessions.resolve(refreshed.cookieValue)).resolves.toMatchObject({ presentedInvalid: false, needsRefresh: false });
    });

    it('refreshing a stateless session does not outlive the absolute timeout', async () => {
      let { cookieValue } = await sessions.create(anon);
      const start = clock.t;
      while (clock.t - start < ABSOLUTE * 1000 - IDLE * 1000) {
        clock.advance((IDLE / 2) * 1000 + 1);
        const resolved = await sessions.resolve(cookieValue);
        expect(resolved.session).toBeDefined();
        cookieValue = (await sessions.refresh(cookieValue, resolved.session!)).cookieValue;
      }
      clock.t = start + ABSOLUTE * 1000 - 1;
      await expect(sessions.resolve(cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
      clock.t = start + ABSOLUTE * 1000;
      await expect(sessions.resolve(cookieValue)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
    });

    it('a stateless value issued in the future is refused', async () => {
      const future = new SessionManager({ store, idleSeconds: IDLE, absoluteSeconds: ABSOLUTE, now: () => clock.t + 3_600_000, signingKey: Buffer.alloc(32, 1) });
      const here = new SessionManager({ store, idleSeconds: IDLE, absoluteSeconds: ABSOLUTE, now: clock.now, signingKey: Buffer.alloc(32, 1) });
      const { cookieValue } = await future.create(anon);
      await expect(here.resolve(cookieValue)).resolves.toMatchObject({ presentedInvalid: true });
    });

    it('a stored session ends after the idle timeout without use', async () => {
      const { cookieValue } = await sessions.create(user);
      clock.advance(IDLE * 1000 - 1);
      const resolved = await sessions.resolve(cookieValue);
      expect(resolved.session).toBeDefined();
      expect(resolved.session!.lastAccess).toBe(clock.t);
      // Use keeps it alive past the first deadline...
      clock.advance(IDLE * 1000 - 1);
      await expect(sessions.resolve(cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
      // ...idling does not.
      clock.advance(IDLE * 1000);
      await expect(sessions.resolve(cookieValue)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
      await expect(store.size()).resolves.toBe(0);
    });

    it('a stored session ends at the absolute timeout however busy', async () => {
      const { cookieValue } = await sessions.create(user);
      const start = clock.t;
      while (clock.t + (IDLE / 2) * 1000 < start + ABSOLUTE * 1000) {
        clock.advance((IDLE / 2) * 1000);
        await expect(sessions.resolve(cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
      }
      clock.t = start + ABSOLUTE * 1000 - 10_000;
      await expect(sessions.resolve(cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
      clock.t = start + ABSOLUTE * 1000;
      await expect(sessions.resolve(cookieValue)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
    });

    it('writes lastAccess back to the store at most once a minute', async () => {
      const { cookieValue } = await sessions.create(user);
      const key = storeKeyOf(cookieValue);
      const created = clock.t;
      clock.advance(30_000);
      expect((await sessions.resolve(cookieValue)).session!.lastAccess).toBe(clock.t);
      expect((await store.get(key))!.lastAccess).toBe(created);
      clock.advance(30_000);
      await sessions.resolve(cookieValue);
      expect((await store.get(key))!.lastAccess).toBe(clock.t);
    });
  });

  describe('ending sessions', () => {
    it('end removes a stored session', async () => {
      const { cookieValue } = await sessions.create(user);
      await expect(sessions.end(cookieValue)).resolves.toBe(true);
      await expect(sessions.resolve(cookieValue)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
      await expect(sessions.end(cookieValue)).resolves.toBe(false);
      await expect(store.size()).resolves.toBe(0);
    });

    it('end of a stateless value or garbage is a no-op', async () => {
      const { cookieValue } = await sessions.create(anon);
      await expect(sessions.end(cookieValue)).resolves.toBe(false);
      await expect(sessions.end('garbage')).resolves.toBe(false);
    });

    it('endForPrincipal ends the subject\'s other sessions and keeps the excepted one', async () => {
      const keep = await sessions.create(user);
      const other1 = await sessions.create(user);
      const other2 = await sessions.create({ ...user, level: 1, authenticator: 'token' });
      const elsewhere = await sessions.create({ ...user, principal: { uniqueId: 'jdoe', contextId: 'staff' } });
      const someoneElse = await sessions.create({ ...user, principal: { uniqueId: 'asmith', contextId: 'people' } });

      await expect(sessions.endForPrincipal('people', 'jdoe', keep.cookieValue)).resolves.toBe(2);
      await expect(sessions.resolve(keep.cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
      for (const ended of [other1, other2]) await expect(sessions.resolve(ended.cookieValue)).resolves.toMatchObject({ presentedInvalid: true });
      for (const kept of [elsewhere, someoneElse]) await expect(sessions.resolve(kept.cookieValue)).resolves.toMatchObject({ presentedInvalid: false });

      await expect(sessions.endForPrincipal('people', 'jdoe')).resolves.toBe(1);
      await expect(sessions.resolve(keep.cookieValue)).resolves.toMatchObject({ presentedInvalid: true });
    });

    it('a session ended while a request held it is not brought back by the touch', async () => {
      const { cookieValue } = await sessions.create(user);
      // A store whose record is ended (by another request) right after this request read it.
      const racing = new Proxy(store, {
        get(target, prop) {
          if (prop === 'get') {
            return async (key: string) => {
              const found = await target.get(key);
              await target.delete(key);
              return found;
            };
          }
          const value: unknown = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const racingSessions = new SessionManager({ store: racing, idleSeconds: IDLE, absoluteSeconds: ABSOLUTE, now: clock.now });
      clock.advance(120_000);
      await expect(racingSessions.resolve(cookieValue)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
      await expect(store.size()).resolves.toBe(0);
      await expect(store.get(storeKeyOf(cookieValue))).resolves.toBeUndefined();
    });
  });

  describe('bounds', () => {
    it('a full store refuses new stored sessions with 503 and keeps every existing one', async () => {
      setUp({ maxSessions: 3 });
      const existing = [await sessions.create(user), await sessions.create(system), await sessions.create({ ...internal, principal: JDOE })];
      await expect(sessions.create(user)).rejects.toBeInstanceOf(ServiceUnavailable);
      await expect(sessions.create(system)).rejects.toBeInstanceOf(ServiceUnavailable);
      for (const s of existing) await expect(sessions.resolve(s.cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
      await expect(store.size()).resolves.toBe(3);
      // Anonymous visitors are still served (stateless), flow state included, without growing anything.
      const visitor = await sessions.create(anon);
      await expect(sessions.resolve(visitor.cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
      const inFlow = await sessions.attachData(visitor.cookieValue, visitor.session, { flow: 'forgot' });
      await expect(sessions.resolve(inFlow.cookieValue)).resolves.toMatchObject({ session: { data: { flow: 'forgot' } } });
      await expect(store.size()).resolves.toBe(3);
    });
  });

  describe('attachData', () => {
    it('gives a stateless session a new signed value that carries the data, and stores nothing', async () => {
      const first = await sessions.create(internal);
      clock.advance(5_000);
      const { cookieValue, session } = await sessions.attachData(first.cookieValue, first.session, { flow: 'forgot', subject: 'jdoe' });
      expect(cookieValue).not.toBe(first.cookieValue);
      expect(cookieValue).toMatch(/^s1\./);
      expect(session).toMatchObject({ type: 'INTERNAL', stateless: true, created: first.session.created, data: { flow: 'forgot', subject: 'jdoe' } });
      await expect(store.size()).resolves.toBe(0);
      const resolved = await sessions.resolve(cookieValue);
      expect(resolved.session).toMatchObject({ type: 'INTERNAL', data: { flow: 'forgot', subject: 'jdoe' } });
      // The earlier value stays what it was: the data is in the value, not on the server.
      expect((await sessions.resolve(first.cookieValue)).session?.data).toBeUndefined();
      // Refreshing keeps the data; empty data leaves none behind.
      clock.advance((IDLE / 2) * 1000 + 60_000);
      const refreshed = await sessions.refresh(cookieValue, (await sessions.resolve(cookieValue)).session!);
      expect((await sessions.resolve(refreshed.cookieValue)).session?.data).toEqual({ flow: 'forgot', subject: 'jdoe' });
      const cleared = await sessions.attachData(refreshed.cookieValue, refreshed.session, {});
      expect((await sessions.resolve(cleared.cookieValue)).session?.data).toBeUndefined();
    });

    it('a signed value whose data was altered is refused', async () => {
      const { cookieValue } = await sessions.create({ ...anon, data: { flow: 'forgot', name: 'bob' } });
      const [prefix, payload, mac] = cookieValue.split('.');
      const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), d: { flow: 'forgot', name: 'alice' } })).toString('base64url');
      await expect(sessions.resolve(`${prefix}.${altered}.${mac}`)).resolves.toEqual({ presentedInvalid: true, needsRefresh: false });
    });

    it('updates the data of a stored session in place', async () => {
      const first = await sessions.create(user);
      const second = await sessions.attachData(first.cookieValue, first.session, { step: 2 });
      expect(second.cookieValue).toBe(first.cookieValue);
      await expect(sessions.resolve(first.cookieValue)).resolves.toMatchObject({ session: { data: { step: 2 } } });
      await expect(store.size()).resolves.toBe(1);
    });

    it('refuses an ended session and a cookie value that is not the session\'s', async () => {
      const first = await sessions.create(user);
      const other = await sessions.create(user);
      await expect(sessions.attachData(other.cookieValue, first.session, {})).rejects.toThrow(TypeError);
      await sessions.end(first.cookieValue);
      await expect(sessions.attachData(first.cookieValue, first.session, {})).rejects.toBeInstanceOf(SessionExpired);
      await expect(store.size()).resolves.toBe(1);
    });
  });

  describe('config area', () => {
    it('lists live stored sessions by handle, without cookie values or data', async () => {
      const a = await sessions.create({ ...user, data: { secret: 'answer' } });
      const b = await sessions.create(system);
      await sessions.create(anon);
      const listed = await sessions.list(10);
      expect(listed.map((s) => s.handle).sort()).toEqual([a.session.handle, b.session.handle].sort());
      const text = JSON.stringify(listed);
      expect(text).not.toContain(a.cookieValue);
      expect(text).not.toContain(storeKeyOf(a.cookieValue));
      expect(text).not.toContain('answer');
      await expect(sessions.list(1)).resolves.toHaveLength(1);
    });

    it('ends a session by handle', async () => {
      const a = await sessions.create(user);
      const b = await sessions.create(user);
      await expect(sessions.endByHandle(a.session.handle)).resolves.toBe(true);
      await expect(sessions.endByHandle(a.session.handle)).resolves.toBe(false);
      await expect(sessions.endByHandle('not a handle')).resolves.toBe(false);
      await expect(sessions.resolve(a.cookieValue)).resolves.toMatchObject({ presentedInvalid: true });
      await expect(sessions.resolve(b.cookieValue)).resolves.toMatchObject({ presentedInvalid: false });
      expect(sessions.handleOf(b.cookieValue)).toBe(b.session.handle);
    });
  });
}
