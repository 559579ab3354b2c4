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

/** An entry as the store's search found it: its DN, and its entryCSN (ldap-store.ts's readEntry). */
export interface LocatedEntry {
  dn: string;
  csn: string;
}

/**
 * Passwords of an `ldap` context (SPEC 13): the directory keeps and checks them. A check is a bind
 * as the DN of the entry a search found (the login's own lookup: an entry named by another RDN than
 * `idAttribute` binds as itself) on a fresh connection, never on the pool's (whose bound identity
 * would change), never with an empty password (an unauthenticated bind some directories accept). A
 * write is the password modify extended operation (RFC 3062) as the service account on the entry a
 * search finds, so the directory's password policy (ppolicy: history, length, quality) judges it;
 * its refusal is `weak_password` with its reason. A reset link is bound to the entry's `entryCSN`
 * (credentialVersion).
 */
export class LdapPasswords implements DirectoryPasswords {
  constructor(
    private readonly pool: LdapPool,
    /** The context's entry whose uniqueId this is, searched now (the store's readEntry). */
    private readonly locate: (context: string, uniqueId: string) => Promise<LocatedEntry | undefined>,
    private readonly log?: Logger,
  ) {}

  async target(context: string, uniqueId: string): Promise<PasswordTarget | undefined> {
    const entry = await this.locate(context, uniqueId);
    return entry === undefined ? undefined : passwordTargetAt(entry.dn);
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
    const dn = (await this.locate(context, uniqueId))?.dn;
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

  /**
   * The entry's `entryCSN`, asked for by name (an operational attribute; readEntry names it). Of
   * what the directory keeps and svc may read, it is the one a password change always changes:
   * slapd gives every write a new CSN (its own time to the microsecond and a per-change count, so
   * two changes never share one), whoever makes it and however (password modify as svc, ldappasswd
   * as the person, an administrator's ldapmodify of userPassword, a replica's copy of any of them),
   * with or without the ppolicy overlay; svc already relies on it for If-Match. Not
   * `pwdChangedTime`: only ppolicy keeps it, absent on an entry added with its password, and
   * `modifyTimestamp` neither: both are whole seconds, so a change in the second its link was made
   * would not void it. Every other write to the entry changes entryCSN too (an attribute update,
   * ppolicy's record of a failed bind), which voids the links still out: conservative, and the
   * person asks for another. No entryCSN (a directory keeping none): undefined, no link is usable.
   */
  async credentialVersion(context: string, uniqueId: string): Promise<string | undefined> {
    const entry = await this.locate(context, uniqueId);
    if (entry === undefined) return undefined;
    if (entry.csn === '') {
      this.log?.warn({ store: 'ldap', dn: entry.dn }, 'the directory shows no entryCSN for this entry: no reset link can be bound to its password');
      return undefined;
    }
    return entry.csn;
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
