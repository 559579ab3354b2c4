/**
 * Core sessions in Redis (`gateway.redis`; core-sessions.ts has the rules), shared by every gateway
 * and worker on the same Redis and prefix: one session per portal session of a user (portal, user,
 * handle), which any core accepts because the cores share their sessions in Redis. So a user logged
 * in through one gateway is served by another without a new core login. (A visitor's state is not
 * kept here: it travels with the visitor, visitor-state.ts, and opens at every gateway of the portal.)
 *
 * Key `<prefix>c:<HMAC of the principal>`: no portal, user name or visitor handle in Redis's key
 * space. Value `<fingerprint>.<sealed>`: the fingerprint is an HMAC of the Cookie header value (what
 * compare-and-set compares, telling nothing of the cookie), the sealed part the cookie itself under
 * AES-256-GCM with the key as associated data (a value copied to another principal's key does not
 * open). Both keys are derived from `gateway.secret`, which every gateway of one portal shares. Each
 * value expires after `sessionTtlSeconds`, like the memory variant's entries. A portal session whose
 * core session the core revoked holds the value `revoked` instead, for as long: SessionRevoked, no login.
 *
 * Changes are Lua compare-and-set scripts on the fingerprint the caller saw: of two gateways logging
 * the same principal in at once, one stores its session, the other finds it, uses it and ends its own.
 * Any Redis failure is ServiceUnavailable (503): a principal is never served without the lookup.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { ServiceUnavailable } from '../../common/src/errors';
import type { CoreLogin } from './core-login';
import { freshVisitor, PrincipalLogins, sessionRevoked, type CoreSession, type CoreSessions, type CoreSessionsOptions } from './core-sessions';
import { principalKey } from './trust';

/**
 * KEYS: the principal's key. ARGV: the fingerprint the caller saw ('' = none), the new value, TTL ms.
 * 1 when the value was stored; else the value held now (nil when none).
 */
const SET_IF_SCRIPT = `
local current = redis.call('GET', KEYS[1])
local seen = ''
if current then seen = string.match(current, '^([^.]*)%.') or '?' end
if seen ~= ARGV[1] then return current end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/** KEYS: the principal's key. ARGV: the fingerprint of the session to forget. 1 when it was deleted. */
const DELETE_IF_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and string.match(current, '^([^.]*)%.') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`;

/**
 * The value of a portal session whose core session was revoked (no `.`: no fingerprint matches it, so
 * no compare-and-set replaces it; only a portal login's SET does, and a login makes a new handle).
 */
const REVOKED = 'revoked';

/** KEYS: the principal's key. ARGV: the fingerprint of the revoked session, the mark, TTL ms. 1 when marked. */
const REVOKE_IF_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current and string.match(current, '^([^.]*)%.') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

interface ScriptedRedis extends Redis {
  svcGwSessionRevokeIf(key: string, seen: string, mark: string, ttlMs: number): Promise<number>;
  svcGwSessionSetIf(key: string, seen: string, value: string, ttlMs: number): Promise<1 | string | null>;
  svcGwSessionDeleteIf(key: string, seen: string): Promise<number>;
}

interface Stored {
  /** The Cookie header value. */
  cookie: string;
  anonymous: boolean;
  /** The core that made it (where a replaced session is logged out). */
  origin: string;
}

export interface RedisCoreSessionsOptions extends Omit<CoreSessionsOptions, 'maxEntries' | 'clock'> {
  /** A connection its owner closes. */
  redis: Redis;
  /** `gateway.redis.prefix`. */
  prefix: string;
  /** `gateway.secret`: the sealing and naming keys are derived from it. */
  secret: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const derive = (secret: string, info: string) => Buffer.from(hkdfSync('sha256', secret, 'svc-gateway core sessions', info, 32));

export class RedisCoreSessions implements CoreSessions {
  readonly #redis: ScriptedRedis;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #login: CoreLogin;
  readonly #logins: PrincipalLogins;
  readonly #storing = new Map<string, Promise<CoreSession>>();
  readonly #sealKey: Buffer;
  readonly #nameKey: Buffer;
  readonly #fingerprintKey: Buffer;

  constructor(options: RedisCoreSessionsOptions) {
    this.#prefix = `${options.prefix}c:`;
    this.#ttlMs = options.ttlMs;
    this.#login = options.login;
    this.#logins = new PrincipalLogins(options);
    this.#sealKey = derive(options.secret, 'seal');
    this.#nameKey = derive(options.secret, 'name');
    this.#fingerprintKey = derive(options.secret, 'fingerprint');
    options.redis.defineCommand('svcGwSessionSetIf', { numberOfKeys: 1, lua: SET_IF_SCRIPT });
    options.redis.defineCommand('svcGwSessionDeleteIf', { numberOfKeys: 1, lua: DELETE_IF_SCRIPT });
    options.redis.defineCommand('svcGwSessionRevokeIf', { numberOfKeys: 1, lua: REVOKE_IF_SCRIPT });
    this.#redis = options.redis as ScriptedRedis;
  }

  async get(core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    const key = this.#key(principal);
    const held = await this.#read(key);
    if (held) return { core, cookie: held.cookie, anonymous: held.anonymous };
    return principal.user === null ? freshVisitor(core) : this.#newLogin(key, core, principal);
  }

  async renew(stale: CoreSession, principal: VerifiedPrincipal): Promise<CoreSession> {
    const key = this.#key(principal);
    const held = await this.#read(key);
    if (held && held.cookie !== stale.cookie) return { core: stale.core, cookie: held.cookie, anonymous: held.anonymous };
    await this.drop(stale, principal);
    return principal.user === null ? freshVisitor(stale.core) : this.#newLogin(key, stale.core, principal);
  }

  async drop(stale: CoreSession, principal: VerifiedPrincipal): Promise<void> {
    if (stale.cookie === '') return;
    const key = this.#key(principal);
    await this.#call(() => this.#redis.svcGwSessionDeleteIf(key, this.#fingerprint(stale.cookie)));
  }

  async revoke(stale: CoreSession, principal: VerifiedPrincipal): Promise<void> {
    if (principal.user === null) return this.drop(stale, principal);
    const key = this.#key(principal);
    await this.#call(() => this.#redis.svcGwSessionRevokeIf(key, this.#fingerprint(stale.cookie), REVOKED, this.#ttlMs));
  }

  async adopt(previous: CoreSession, cookie: string, principal: VerifiedPrincipal): Promise<void> {
    // A user's session is adopted only while it is held; a visitor's first one from nothing.
    const key = this.#key(principal);
    const value = this.#seal(key, { cookie, anonymous: previous.anonymous, origin: previous.core });
    await this.#call(() => this.#redis.svcGwSessionSetIf(key, this.#fingerprint(previous.cookie), value, this.#ttlMs));
  }

  async put(core: string, principal: VerifiedPrincipal, cookie: string): Promise<CoreSession[]> {
    const key = this.#key(principal);
    const value = this.#seal(key, { cookie, anonymous: principal.user === null, origin: core });
    const previous = await this.#call(() => this.#redis.set(key, value, 'PX', this.#ttlMs, 'GET'));
    return this.#sessionsOf(key, previous);
  }

  async take(principal: VerifiedPrincipal): Promise<CoreSession[]> {
    const key = this.#key(principal);
    return this.#sessionsOf(key, await this.#call(() => this.#redis.getdel(key)));
  }

  async ready(): Promise<boolean> {
    if (this.#redis.status !== 'ready') return false;
    try {
      return (await this.#redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /**
   * A user's login on `core`, stored unless another gateway (or request) stored one first: then that
   * one is used and this one ended, so that both converge on one session.
   */
  async #newLogin(key: string, core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    // Requests that found nothing while this login is being made and stored wait for it, rather
    // than read Redis before the store and log in again.
    const pending = this.#storing.get(key);
    if (pending) return { ...(await pending), core };
    const attempt = this.#loginAndStore(key, core, principal).finally(() => this.#storing.delete(key));
    this.#storing.set(key, attempt);
    return attempt;
  }

  async #loginAndStore(key: string, core: string, principal: VerifiedPrincipal): Promise<CoreSession> {
    const cookie = await this.#logins.login(key, core, principal);
    const mine: CoreSession = { core, cookie, anonymous: false };
    const value = this.#seal(key, { cookie, anonymous: false, origin: core });
    const outcome = await this.#call(() => this.#redis.svcGwSessionSetIf(key, '', value, this.#ttlMs));
    if (outcome === 1) return mine;
    const theirs = this.#open(key, outcome);
    if (!theirs || theirs.cookie === cookie) return mine;
    this.#login.logout(core, cookie).catch(() => undefined);
    return { core, cookie: theirs.cookie, anonymous: theirs.anonymous };
  }

  /**
   * The principal's stored session. One that does not open (sealed under another secret, or tampered
   * with) is deleted, so that it reads as none for every later compare-and-set too.
   */
  async #read(key: string): Promise<Stored | undefined> {
    const value = await this.#call(() => this.#redis.get(key));
    if (value === REVOKED) throw sessionRevoked();
    const held = this.#open(key, value);
    if (value !== null && !held) await this.#call(() => this.#redis.svcGwSessionDeleteIf(key, value.slice(0, value.indexOf('.'))));
    return held;
  }

  #sessionsOf(key: string, value: string | null): CoreSession[] {
    const held = this.#open(key, value);
    return held ? [{ core: held.origin, cookie: held.cookie, anonymous: held.anonymous }] : [];
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw new ServiceUnavailable("The gateway's session map is unavailable", { cause: error });
    }
  }

  #key(principal: VerifiedPrincipal): string {
    return this.#prefix + createHmac('sha256', this.#nameKey).update(principalKey(principal), 'utf8').digest('base64url');
  }

  /** '' for no cookie (a visitor's start), so that "nothing held" is what a first adoption expects. */
  #fingerprint(cookie: string): string {
    return cookie === '' ? '' : createHmac('sha256', this.#fingerprintKey).update(cookie, 'utf8').digest('base64url').slice(0, 22);
  }

  #seal(key: string, stored: Stored): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#sealKey, iv).setAAD(Buffer.from(key, 'utf8'));
    const sealed = Buffer.concat([cipher.update(JSON.stringify([stored.cookie, stored.anonymous, stored.origin]), 'utf8'), cipher.final()]);
    return `${this.#fingerprint(stored.cookie)}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
  }

  /** The stored session, or undefined when there is none or it does not open (another secret, or tampered with: treated as none). */
  #open(key: string, value: string | null | undefined): Stored | undefined {
    if (typeof value !== 'string') return undefined;
    const raw = Buffer.from(value.slice(value.indexOf('.') + 1), 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#sealKey, raw.subarray(0, IV_BYTES)).setAAD(Buffer.from(key, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      const [cookie, anonymous, origin] = JSON.parse(text) as [string, boolean, string];
      return { cookie, anonymous, origin };
    } catch {
      return undefined;
    }
  }
}
