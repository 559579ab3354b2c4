import { Forbidden, InvalidRequest, TooManyRequests } from '../../../common/src/errors';
import { principalName } from '../../../common/src/principal-name';
import type { Audit } from '../audit';
import type { PasswordHasher } from '../passwords/password-hasher';
import type { SubjectService } from '../subjects/subject-service';
import type { LockoutStore, LockStatus } from './lockout-store';
import type { AttemptLimiter } from '../flows/attempt-limiter';
import { recordRefusedHash } from '../passwords/hash-cost';
import { checkPasswordPolicy } from '../passwords/password-policy';
import type { Session } from '../sessions/session';
import { valuesOf, type StoredSubject } from '../subjects/subject';
import { partiesOf } from '../audit';

export interface PasswordChange {
  contextId: string;
  uniqueId: string;
  oldPassword: string;
  newPassword: string;
  session: Session;
  cookieValue?: string;
  peer: string;
}

/** A subject's own password, given by the subject's own session. */
export interface OwnPasswordProof {
  contextId: string;
  uniqueId: string;
  password: string;
  session: Session;
  peer: string;
}

export interface AccountsDeps {
  subjects: SubjectService;
  lockout: LockoutStore;
  /** Wrong second-factor codes per subject (SPEC 15): lifting a lock clears them too. */
  wrongCodes: Pick<AttemptLimiter, 'clear'>;
  hasher: PasswordHasher;
  audit: Audit;
  /** Ends a subject's sessions on every core (Core.endSubjectSessions), except the caller's own. */
  endSubjectSessions(contextId: string, uniqueId: string, reason: string, exceptCookieValue?: string): Promise<void>;
}

/** What a subject's account answers to besides its attributes: its own password, and an administrator's lifting of its lock. */
export class Accounts {
  constructor(private readonly deps: AccountsDeps) {}

  /**
   * PUT .../subjects/{s}/password (SPEC section 7): one's own password, proved by the old one. The
   * old password is guessed like a login's: it counts against the lockout before it is verified, and a
   * locked pair or subject answers like a wrong one, so a stolen session cannot be used to guess it, not
   * even with parallel requests. The subject's other sessions end; the caller's own one stays.
   */
  async changeOwnPassword(change: PasswordChange): Promise<void> {
    const { contextId, uniqueId, session } = change;
    const subject = await this.proveOwnPassword({ contextId, uniqueId, password: change.oldPassword, session, peer: change.peer }, 'oldPassword', 'password_change_old_password');
    const key = principalName({ contextId, uniqueId });
    checkPasswordPolicy(change.newPassword, { userId: uniqueId, attributes: subject.attributes });
    await this.deps.subjects.setPassword(contextId, uniqueId, change.newPassword);
    this.deps.audit.record({ ...partiesOf(session, change.peer), event: 'subject_write', outcome: 'success', reason: 'password_change', principal: key, session: session.handle, peer: change.peer });
    await this.deps.endSubjectSessions(contextId, uniqueId, 'password', change.cookieValue);
  }

  /**
   * The session's own subject proves its password (a password change, a second factor's enrollment
   * or removal: SPEC 7 and 15). It is guessed like a login's: it counts against the lockout before it
   * is verified, and a locked pair or subject answers like a wrong one, so a stolen session cannot be
   * used to guess it, not even with parallel requests. Resolves the subject; a wrong password is 400
   * naming `field`.
   */
  async proveOwnPassword(proof: OwnPasswordProof, field: string, failure: string): Promise<StoredSubject> {
    const { contextId, uniqueId, session, peer } = proof;
    const principal = session.principal;
    if (!principal || principal.contextId !== contextId || principal.uniqueId !== uniqueId || session.type !== 'USER') {
      throw new Forbidden('only a subject may do this for itself here; administrators update the subject');
    }
    const subject = await this.deps.subjects.read(contextId, uniqueId);
    const attribute = this.deps.subjects.context(contextId).config.definition.password;
    if (!attribute) throw new InvalidRequest(`context ${contextId} has no password attribute`);
    const key = principalName({ contextId, uniqueId });
    const hash = valuesOf(subject.attributes[attribute])[0];
    // The guess takes its place in the lockout counters before it is verified, as a login's does.
    const reservation = await this.deps.lockout.reserve([key], peer);
    if (reservation.throttled) throw new TooManyRequests('too many failed attempts from this address', { headers: { 'Retry-After': String(reservation.retryAfter) } });
    const ok = await this.verifyOld(contextId, uniqueId, hash, proof.password, reservation.locked);
    if (!ok) {
      this.deps.audit.record({ ...partiesOf(session, peer), event: 'subject_write', outcome: 'failure', reason: failure, principal: key, session: session.handle, peer });
      for (const lock of reservation.started) this.deps.audit.record({ ...partiesOf(session, peer), event: 'lockout', outcome: 'success', reason: lock.kind, subject: key });
      throw new InvalidRequest('the password does not match', { errors: [{ path: field, message: 'does not match' }] });
    }
    await this.deps.lockout.release(reservation, key);
    return subject;
  }

  /**
   * The old password checked as a login checks it: against the hash, or by a bind for a directory
   * (never with an empty password) to the entry a search finds now, searched whatever the outcome; a
   * locked subject costs the same and is refused.
   */
  private async verifyOld(contextId: string, uniqueId: string, hash: string | undefined, password: string, locked: boolean): Promise<boolean> {
    const directory = this.deps.subjects.directoryPasswords(contextId);
    if (directory) {
      const target = await directory.target(contextId, uniqueId);
      if (!target || locked || password === '') {
        await directory.spend();
        return false;
      }
      return directory.verify(target, password);
    }
    const verdict = hash === undefined || locked ? await this.deps.hasher.verifyDummy(password) : await this.deps.hasher.verify(hash, password);
    recordRefusedHash(this.deps.audit, principalName({ contextId, uniqueId }), verdict);
    return verdict.ok;
  }

  /** GET .../subjects/{s}/lockout (SPEC 6): the subject's lock status; 404 for a missing subject. */
  async lockStatus(contextId: string, uniqueId: string): Promise<LockStatus> {
    await this.deps.subjects.read(contextId, uniqueId);
    const subject = principalName({ contextId, uniqueId });
    return (await this.deps.lockout.statuses([subject])).get(subject)!;
  }

  /** The lock status of each of a context's subjects, in one call to the lockout store (SEARCH's include=status). */
  async lockStatuses(contextId: string, uniqueIds: readonly string[]): Promise<Map<string, LockStatus>> {
    const names = uniqueIds.map((uniqueId) => principalName({ contextId, uniqueId }));
    const statuses = await this.deps.lockout.statuses(names);
    return new Map(uniqueIds.map((uniqueId, i) => [uniqueId, statuses.get(names[i])!]));
  }

  /** DELETE .../subjects/{s}/lockout: an administrator lifts every lock of the subject, and its count of wrong second-factor codes. */
  async liftLockout(contextId: string, uniqueId: string, by: Session, peer: string): Promise<void> {
    await this.deps.subjects.read(contextId, uniqueId);
    const subject = principalName({ contextId, uniqueId });
    await this.deps.lockout.lift(subject);
    await this.deps.wrongCodes.clear(subject);
    this.deps.audit.record({ ...partiesOf(by, peer), event: 'lockout', outcome: 'success', reason: 'lifted', subject });
  }
}
