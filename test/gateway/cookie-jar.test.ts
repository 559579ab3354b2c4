import { applySetCookie, cookieValue } from '../../gateway/src/cookie-jar';

describe('the cookies the gateway keeps for a core session', () => {
  it('sets, replaces and removes as a browser would', () => {
    let jar = applySetCookie('', ['SVCSESSIONID=core-session; Path=/; HttpOnly', 'SVCFLOW=flow-state; Path=/; HttpOnly; SameSite=Lax']);
    expect(jar).toBe('SVCSESSIONID=core-session; SVCFLOW=flow-state');
    jar = applySetCookie(jar, 'SVCSESSIONID=next; Path=/');
    expect(jar).toBe('SVCSESSIONID=next; SVCFLOW=flow-state');
    expect(cookieValue(jar, 'SVCSESSIONID')).toBe('next');
    expect(applySetCookie(jar, 'SVCFLOW=; Path=/; Max-Age=0')).toBe('SVCSESSIONID=next');
    expect(applySetCookie(jar, 'SVCFLOW=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT')).toBe('SVCSESSIONID=next');
    expect(applySetCookie(jar, 'SVCFLOW=x; Max-Age=60')).toBe('SVCSESSIONID=next; SVCFLOW=x');
    expect(applySetCookie(jar, undefined)).toBe(jar);
  });

  it('keeps nothing that is not a cookie, and a bounded number of them', () => {
    expect(applySetCookie('', ['=x', 'no-value', 'bad name=x', 'a=b c', 'a=b;c', `big=${'x'.repeat(5000)}`])).toBe('a=b');
    const many = Array.from({ length: 20 }, (_, i) => `c${i}=v`);
    expect(applySetCookie('', many).split('; ')).toHaveLength(8);
    expect(cookieValue('', 'SVCSESSIONID')).toBeUndefined();
  });
});
