import { ResultCodeError } from 'ldapts';
import { NotFound, ServiceUnavailable, WeakPassword } from '../../../common/src/errors';
import type { Logger } from '../../../common/src/log';
import type { LdapPool } from './ldap-pool';
import { PASSWORD_MODIFY_OID, passwordModifyValue, WHO_AM_I_OID } from './ldap-protocol';
import type { DirectoryPasswords, PasswordTarget } from './store';

const CONSTRAINT_VIOLATION = 19;
/** What a bind may answer for a password the directory does not accept now: wrong, expired, locked, refused. */
const REFUSED_BIND = new Set([48, 49, 50, 53]);

/** ldapts puts " Code: 0x13" after the directory's own words. */
const reason = (error: ResultCodeError): string => error.message.replace(/\s*Code: 0x[0-9a-f]+$/i, '') || 'refused by the directory';

/** A PasswordTarget of this directory: the DN of an entry a search found (never one built from the uniqueId). */
class FoundDN {
  constructor(readonly dn: string) {}
}

/** The target of the entry at `dn`, as the store's searches found it (ldap-store.ts). */
export function passwordTargetAt(dn: string): PasswordTarget {
  return new FoundDN(dn) as unknown as PasswordTarget;
}

function dnOfTarget(target: PasswordTarget): string {
  if (!(target instanceof FoundDN)) throw new TypeError('not a password target of an LDAP directory');
  return target.dn;
}

/**
 * Passwords of an `ldap` context (SPEC 13): the directory keeps and checks them. A check is a bind
 * as the DN of the entry a search found (the login's own lookup: an entry named by another RDN than
 * `idAttribute` binds as itself) on a fresh connection, never on the pool's (whose bound identity
 * would change), never with an empty password (an unauthenticated bind some directories accept). A
 * write is the password modify extended operation (RFC 3062) as the service account on the entry a
 * search finds, so the directory's password policy (ppolicy: history, length, quality) judges it;
 * its refusal is `weak_password` with its reason.
 */
export class LdapPasswords implements DirectoryPasswords {
  constructor(
    private readonly pool: LdapPool,
    /** The DN of the context's entry whose uniqueId this is, searched now (the store's readEntry). */
    private readonly locate: (context: string, uniqueId: string) => Promise<string | undefined>,
    private readonly log?: Logger,
  ) {}

  async target(context: string, uniqueId: string): Promise<PasswordTarget | undefined> {
    const dn = await this.locate(context, uniqueId);
    return dn === undefined ? undefined : passwordTargetAt(dn);
  }

  async verify(target: PasswordTarget, password: string): Promise<boolean> {
    const dn = dnOfTarget(target);
    if (password === '') {
      await this.spend();
      return false;
    }
    const client = await this.connect();
    try {
      await client.bind(dn, password);
      return true;
    } catch (error) {
      if (error instanceof ResultCodeError && REFUSED_BIND.has(error.code)) return false;
      throw this.unavailable(error);
    } finally {
      await client.unbind().catch(() => {});
    }
  }

  /**
   * What a refused login costs here without a bind (unknown, disabled or locked subject, empty
   * password): a fresh connection and one round trip, a "Who am I?" that binds nothing.
   */
  async spend(): Promise<void> {
    const client = await this.connect();
    try {
      await client.exop(WHO_AM_I_OID);
    } catch (error) {
      if (!(error instanceof ResultCodeError)) throw this.unavailable(error);
    } finally {
      await client.unbind().catch(() => {});
    }
  }

  async set(context: string, uniqueId: string, password: string): Promise<void> {
    const dn = await this.locate(context, uniqueId);
    if (dn === undefined) throw new NotFound(`subject ${uniqueId} not found in ${context}`);
    try {
      await this.pool.with((client) => client.exop(PASSWORD_MODIFY_OID, passwordModifyValue(dn, password)));
    } catch (error) {
      if (error instanceof ResultCodeError && error.code === CONSTRAINT_VIOLATION) {
        throw new WeakPassword('the directory refused the password', { errors: [{ path: 'password', message: reason(error) }] });
      }
      if (error instanceof ResultCodeError) throw error;
      throw this.unavailable(error);
    }
  }

  private async connect() {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private unavailable(error: unknown): ServiceUnavailable {
    const message = error instanceof Error ? error.message : String(error);
    this.log?.warn({ store: 'ldap', err: message }, 'the directory is unavailable');
    return new ServiceUnavailable('the subject store is unavailable', { headers: { 'Retry-After': '1' } });
  }
}
