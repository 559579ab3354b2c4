/**
 * The cookies the gateway keeps for one core session, as a browser would: the core's session cookie
 * and whatever else the core sets for that session (a pre-login flow's signed state, SPEC section 4).
 * They are held as the one `Cookie` header value the gateway sends back to that core, and never leave
 * for the portal. Bounded, because the core's answers decide what goes in.
 */

/** A core sets one or two cookies; more, or longer, is not a session and is not kept. */
const MAX_COOKIES = 8;
const MAX_COOKIE_LENGTH = 4096;
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;

/** `Max-Age=0` (or negative), or an `Expires` date in the past: the cookie is to be removed. */
function isExpiry(attribute: string): boolean {
  const eq = attribute.indexOf('=');
  const name = attribute.slice(0, eq).trim().toLowerCase();
  const value = attribute.slice(eq + 1).trim();
  if (name === 'max-age') return /^(0|-\d+)$/.test(value);
  return name === 'expires' && Date.parse(value) <= Date.now();
}

function pairsOf(header: string): Map<string, string> {
  const pairs = new Map<string, string>();
  if (header === '') return pairs;
  for (const pair of header.split('; ')) {
    const eq = pair.indexOf('=');
    pairs.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return pairs;
}

/** The value of cookie `name` in a Cookie header the gateway built, or undefined. */
export function cookieValue(header: string, name: string): string | undefined {
  return pairsOf(header).get(name);
}

/**
 * `header` with the answer's Set-Cookie lines applied: a value sets or replaces its cookie, an
 * emptied or expired one (`Max-Age=0`, an empty value) removes it. Attributes other than that are the
 * browser's business (the gateway sends every cookie of the session to the core that set it).
 */
export function applySetCookie(header: string, setCookie: string | string[] | undefined): string {
  if (setCookie === undefined) return header;
  const pairs = pairsOf(header);
  for (const line of Array.isArray(setCookie) ? setCookie : [setCookie]) {
    const [pair, ...attributes] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (!COOKIE_NAME.test(name) || !COOKIE_VALUE.test(value) || name.length + value.length > MAX_COOKIE_LENGTH) continue;
    const cleared = value === '' || attributes.some(isExpiry);
    if (cleared) pairs.delete(name);
    else if (pairs.has(name) || pairs.size < MAX_COOKIES) pairs.set(name, value);
  }
  return [...pairs].map(([name, value]) => `${name}=${value}`).join('; ');
}
