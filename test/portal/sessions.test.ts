import { ServiceUnavailable } from '../../common/src/errors';
import { PortalSessionStore } from '../../portlet-adapter/src/portal/session-store';
import { VisitorCookies } from '../../portlet-adapter/src/portal/visitor-cookie';
import { PortalKeys } from '../../portlet-adapter/src/portal/keys';
import { PORTAL_SECRET } from './portal-helpers';

const bob = { contextId: 'employees', uniqueId: 'bob' };

describe('portal sessions', () => {
  let now = 1_000_000_000;
  const store = (overrides = {}) => new PortalSessionStore({ idleSeconds: 1800, absoluteSeconds: 43_200, maxSessions: 2, now: () => now, ...overrides });

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

  test('the visitor cookie: sealed, expiring, refused when altered or sealed under another secret', () => {
    const cookies = new VisitorCookies(new PortalKeys(PORTAL_SECRET).visitorCookie, 3600);
    const state = { ...cookies.issue(now), gateway: 'c2VhbGVkLWJ5LXRoZS1nYXRld2F5', session: { id: 's1', created: now, attributes: [['javax.portlet.p.w?x', { a: 1 }]] as [string, unknown][], containerData: [['preferences', new Map([['home/w', { v: ['1'] }]])]] as [string, unknown][] } };
    const value = cookies.seal(cookies.plaintext(state));
    expect(value).toMatch(/^v2\.[A-Za-z0-9_-]+$/);
    expect(value.length).toBe(cookies.sealedLength(cookies.plaintext(state).length));
    // Nothing of it reads in the clear.
    expect(Buffer.from(value.slice(3), 'base64url').toString('latin1')).not.toContain('javax.portlet');
    expect(cookies.read(value, now)).toEqual(state);
    expect(cookies.read(value, now + 3601 * 1000)).toBeUndefined();
    const body = value.slice(3);
    expect(cookies.read(`v2.${body.slice(0, 30)}${body[30] === 'A' ? 'B' : 'A'}${body.slice(31)}`, now)).toBeUndefined();
    expect(cookies.read(`v1.${body}`, now)).toBeUndefined();
    expect(new VisitorCookies(new PortalKeys(`${PORTAL_SECRET}x`).visitorCookie, 3600).read(value, now)).toBeUndefined();
  });
});
