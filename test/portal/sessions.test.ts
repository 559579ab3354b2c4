import { ServiceUnavailable } from '../../common/src/errors';
import { PortalSessionStore } from '../../portlet-adapter/src/portal/session-store';
import { VisitorCookies } from '../../portlet-adapter/src/portal/visitor-cookie';
import { PortalKeys } from '../../portlet-adapter/src/portal/keys';
import { PORTAL_SECRET } from './portal-helpers';

const bob = { contextId: 'employees', uniqueId: 'bob' };

describe('portal sessions', () => {
  let now = 1_000_000_000;
  const store = (overrides = {}) => new PortalSessionStore({ idleSeconds: 1800, absoluteSeconds: 43_200, maxSessions: 2, maxVisitorStates: 2, now: () => now, ...overrides });

  test('idle 30 min and absolute 12 h; the store keeps a digest of the cookie, and an ended session is gone', () => {
    const sessions = store();
    const { cookie, session } = sessions.create(bob, ['user']);
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.handle).not.toContain(cookie.slice(0, 10));
    for (let hour = 0; hour < 11; hour++) {
      now += 25 * 60 * 1000;
      expect(sessions.resolve(cookie)?.name).toBe('employees/bob');
    }
    now += 2 * 3600 * 1000;
    expect(sessions.resolve(cookie)).toBeUndefined();
    const second = sessions.create(bob, []);
    now += 31 * 60 * 1000;
    expect(sessions.resolve(second.cookie)).toBeUndefined();
    const third = sessions.create(bob, []);
    expect(sessions.end(third.cookie)?.handle).toBe(third.session.handle);
    expect(sessions.resolve(third.cookie)).toBeUndefined();
    expect(sessions.resolve('not-a-cookie')).toBeUndefined();
  });

  test('a full store refuses a new login (503) rather than end anyone\'s session', () => {
    const sessions = store();
    const first = sessions.create(bob, []);
    sessions.create(bob, []);
    expect(() => sessions.create(bob, [])).toThrow(ServiceUnavailable);
    expect(sessions.resolve(first.cookie)).toBeDefined();
  });

  test('visitors: no state until asked for; bounded, the least recently seen goes first', () => {
    const sessions = store();
    expect(sessions.visitor('v1', false)).toBeUndefined();
    expect(sessions.visitorStates).toBe(0);
    const v1 = sessions.visitor('v1', true)!;
    sessions.visitor('v2', true);
    expect(sessions.visitor('v1', false)).toBe(v1);
    sessions.visitor('v3', true);
    expect(sessions.visitor('v2', false)).toBeUndefined();
    expect(sessions.visitor('v1', false)).toBe(v1);
    expect(sessions.visitorStates).toBe(2);
  });

  test('the visitor cookie: signed, expiring, refused when altered', () => {
    const cookies = new VisitorCookies(new PortalKeys(PORTAL_SECRET).visitorCookie, 3600);
    const { value, handle } = cookies.issue(now);
    expect(cookies.read(value, now)).toBe(handle);
    expect(cookies.read(value, now + 3601 * 1000)).toBeUndefined();
    const [v, h, expires, mac] = value.split('.');
    expect(cookies.read([v, h, String(Number(expires) + 1000), mac].join('.'), now)).toBeUndefined();
    expect(cookies.read([v, `${h.startsWith('A') ? 'B' : 'A'}${h.slice(1)}`, expires, mac].join('.'), now)).toBeUndefined();
    expect(new VisitorCookies(new PortalKeys(`${PORTAL_SECRET}x`).visitorCookie, 3600).read(value, now)).toBeUndefined();
  });
});
