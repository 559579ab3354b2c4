/**
 * A subject's second factor (SPEC 15): enrollment proved by the password, confirmation by a first
 * code (which gives the recovery codes, once), removal, and the check of a login's code. Knows no
 * HTTP. The secret is sealed at rest (factor-cipher.ts) and leaves only in enrollment's answer; it
 * is never logged.
 */
import { createHash } from 'node:crypto';
import { Conflict, Forbidden, InvalidRequest, StepUpRequired } from '../../../common/src/errors';
import { principalName } from '../../../common/src/principal-name';
import { partiesOf, type Audit } from '../audit';
import type { AttemptLimiter } from '../flows/attempt-limiter';
import type { Accounts } from '../login/account';
import type { Principal, Session } from '../sessions/session';
import { openSecret, sealSecret } from './factor-cipher';
import type { FactorStore } from './factor-store';
import { matchingStep, newSecret, otpauthUri } from './totp';
import type { UsedSteps } from './used-steps';
import { Secret } from 'otpauth';

/** SPEC 15: ten recovery codes of 80 random bits each. */
const RECOVERY_CODES = 10;
const RECOVERY_BYTES = 10;
/** SPEC 15: at most 10 wrong codes per subject per 24 h are tried. */
export const WRONG_CODE_LIMITS = { limit: 10, window: 24 * 60 * 60 };

export interface SecondFactorsDeps {
  /** The store, opened at first use (core.ts: `otp.sqlite` in the data directory). */
  store(): FactorStore;
  /** `otp.key` (core.ts). */
  key(): Buffer;
  usedSteps: UsedSteps;
  /** Wrong codes per subject (WRONG_CODE_LIMITS), shared where the sessions are. */
  wrongCodes: AttemptLimiter;
  accounts: Pick<Accounts, 'proveOwnPassword'>;
  audit: Audit;
  now(): number;
  /** `authz.denyStatus`, for a removal refused for the session's level. */
  denyStatus(): 401 | 403;
}

export interface Enrollment {
  secret: string;
  uri: string;
}

/** Who acts, from where. */
export interface Actor {
  session: Session;
  peer: string;
}

const digest = (code: string) => createHash('sha256').update(code, 'utf8').digest('base64url');
/** Recovery codes are typed by hand: letters and digits only, compared without case, dashes or spaces. */
const normalized = (code: string) => code.replace(/[\s-]/g, '').toUpperCase();

export class SecondFactors {
  constructor(private readonly deps: SecondFactorsDeps) {}

  /** Whether the subject has a confirmed factor (the policy decision point is told; a login asks for a code). */
  has(principal: Principal): boolean {
    return this.deps.store().get(principal.contextId, principal.uniqueId)?.confirmed === true;
  }

  /** GET …/otp: whether the subject has a factor (never the secret), and how many recovery codes are left. */
  state(principal: Principal): { state: 'none' | 'pending' | 'confirmed'; recoveryCodesLeft: number } {
    const factor = this.deps.store().get(principal.contextId, principal.uniqueId);
    if (!factor) return { state: 'none', recoveryCodesLeft: 0 };
    return { state: factor.confirmed ? 'confirmed' : 'pending', recoveryCodesLeft: factor.confirmed ? factor.recovery.length : 0 };
  }

  /** POST …/otp: a new pending secret for the session's own subject, proved by its password; 409 when one is confirmed. */
  async enroll(contextId: string, uniqueId: string, password: string, by: Actor): Promise<Enrollment> {
    await this.deps.accounts.proveOwnPassword({ contextId, uniqueId, password, ...by }, 'password', 'otp_enroll_password');
    const secret = newSecret();
    if (!this.deps.store().putPending(contextId, uniqueId, sealSecret(this.deps.key(), contextId, uniqueId, secret))) {
      throw new Conflict('a second factor is already confirmed; remove it first');
    }
    this.record(by, contextId, uniqueId, 'enrollment_started');
    return { secret, uri: otpauthUri(secret, uniqueId) };
  }

  /** PUT …/otp: the first code confirms the pending factor; the recovery codes are answered once. */
  async confirm(contextId: string, uniqueId: string, code: string, by: Actor): Promise<string[]> {
    this.assertOwn(contextId, uniqueId, by.session);
    const factor = this.deps.store().get(contextId, uniqueId);
    if (!factor || factor.confirmed) throw new Conflict('there is no enrollment to confirm');
    if (!(await this.acceptCode({ contextId, uniqueId }, factor.secret, code, false))) {
      this.record(by, contextId, uniqueId, 'confirmation_code_wrong', 'failure');
      throw new InvalidRequest('the code does not match', { errors: [{ path: 'code', message: 'does not match' }] });
    }
    const codes = Array.from({ length: RECOVERY_CODES }, () => new Secret({ size: RECOVERY_BYTES }).base32);
    if (!this.deps.store().confirm(contextId, uniqueId, factor.secret, codes.map((c) => digest(c)))) throw new Conflict('the enrollment changed meanwhile; start again');
    this.record(by, contextId, uniqueId, 'added');
    return codes;
  }

  /** DELETE …/otp with the password and a code: the subject removes its own factor. */
  async removeOwn(contextId: string, uniqueId: string, password: string, code: string, by: Actor): Promise<void> {
    await this.deps.accounts.proveOwnPassword({ contextId, uniqueId, password, ...by }, 'password', 'otp_remove_password');
    const factor = this.deps.store().get(contextId, uniqueId);
    // A pending factor has never been proved: the password alone removes it.
    if (factor?.confirmed && !(await this.verify({ contextId, uniqueId }, code))) {
      this.record(by, contextId, uniqueId, 'removal_code_wrong', 'failure');
      throw new InvalidRequest('the code does not match', { errors: [{ path: 'code', message: 'does not match' }] });
    }
    if (factor) this.deps.store().remove(contextId, uniqueId);
    this.record(by, contextId, uniqueId, 'removed');
  }

  /**
   * DELETE …/otp without a body: another's factor, by an administrator (the policies decided) whose
   * session is level 3, or SYSTEM (SPEC 15): an administrator without a second factor cannot strip
   * another's and take the account.
   */
  async removeOther(contextId: string, uniqueId: string, by: Actor): Promise<void> {
    if (by.session.type !== 'SYSTEM' && by.session.level < 3) throw new StepUpRequired(this.deps.denyStatus());
    const removed = this.deps.store().remove(contextId, uniqueId);
    this.record(by, contextId, uniqueId, removed ? 'removed_by_admin' : 'none_to_remove');
  }

  /** The subject was deleted: its factor goes too (a subject made later under its id must not inherit it). */
  forget(principal: Principal): void {
    this.deps.store().remove(principal.contextId, principal.uniqueId);
  }

  /**
   * A login's code (SPEC 15): a current TOTP code of a step later than the last accepted, or an
   * unused recovery code (consumed). A wrong code takes one of the subject's 10 daily slots before it
   * is compared; once they are spent every code is refused, the right one too.
   */
  async verify(principal: Principal, code: string): Promise<boolean> {
    const factor = this.deps.store().get(principal.contextId, principal.uniqueId);
    if (!factor?.confirmed) return false;
    return this.acceptCode(principal, factor.secret, code, true);
  }

  private async acceptCode(principal: Principal, sealed: string, code: string, recovery: boolean): Promise<boolean> {
    const subject = principalName(principal);
    const slot = await this.deps.wrongCodes.take(subject);
    if (!slot.granted) return false;
    const secret = openSecret(this.deps.key(), principal.contextId, principal.uniqueId, sealed);
    const step = matchingStep(secret, code.trim(), this.deps.now());
    const ok =
      step !== undefined
        ? await this.deps.usedSteps.accept(subject, step)
        : recovery && this.deps.store().consumeRecovery(principal.contextId, principal.uniqueId, digest(normalized(code)));
    if (ok) await this.deps.wrongCodes.release(subject, slot.id);
    return ok;
  }

  private assertOwn(contextId: string, uniqueId: string, session: Session): void {
    const principal = session.principal;
    if (!principal || principal.contextId !== contextId || principal.uniqueId !== uniqueId || session.type !== 'USER') {
      throw new Forbidden('only a subject may enroll its own second factor');
    }
  }

  /** The audit line of every change (never the secret nor a code). */
  private record(by: Actor, contextId: string, uniqueId: string, reason: string, outcome: 'success' | 'failure' = 'success'): void {
    this.deps.audit.record({ ...partiesOf(by.session, by.peer), event: 'second_factor', outcome, reason, subject: principalName({ contextId, uniqueId }) });
  }
}
