/**
 * SPEC 16's flows over the mail queue: recovery by link, verified registration, resending a
 * verification, an address change confirmed by the new address. Every answer a visitor gets is the
 * same whether or not a name or an address is known; what differs happens in the queue, later.
 *
 * Tokens: 256 random bits, base64url, minted when their message is sent (compose), kept only as
 * SHA-256 in the mail store, taken (deleted) by the one request that uses them. A reset's token is
 * bound to a digest of the subject's credential version at minting time (SubjectService's: the
 * stored hash, or a directory's entryCSN), so any password change voids every reset link still
 * out. Mails per subject are limited (3 an hour, shared where the sessions are); flow starts per
 * visitor's address take the forgotten-password flow's limit.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Conflict, InvalidAttributes, InvalidToken, NotFound, WeakPassword } from '../../../common/src/errors';
import { principalName } from '../../../common/src/principal-name';
import { partiesOf, type Audit, type AuditParties } from '../audit';
import { findLoginSubject } from '../authenticators/subject-lookup';
import { MAIL_ATTRIBUTE } from '../config/references';
import type { ContextConfig, MailSettings, SvcConfig } from '../config/types';
import { takeSlot, type AttemptLimiter } from '../flows/attempt-limiter';
import type { Accounts } from '../login/account';
import { checkPasswordPolicy } from '../passwords/password-policy';
import type { Session } from '../sessions/session';
import type { AttributeInput } from '../subjects/attributes';
import { fold, valuesOf, type StoredSubject } from '../subjects/subject';
import type { SubjectService } from '../subjects/subject-service';
import type { Composed, MailDelivery } from './delivery';
import { TOKEN_KINDS, type MailIntent, type MailKind, type MailStore, type QueuedMail, type StoredToken } from './mail-store';
import { render } from './templates';

/** SPEC 16's lifetimes, in minutes: a reset link 15 min, a verification and an address change's link 24 h. */
export const LIFETIME_MINUTES: Record<StoredToken['kind'], number> = { reset: 15, verify: 24 * 60, change: 24 * 60 };
/** A notice (no link) not sent within this long is dropped too. */
const NOTICE_MINUTES = 24 * 60;
/** Unverified registrants are removed after this long. */
export const UNVERIFIED_MS = 24 * 60 * 60_000;
/** SPEC 16: at most 3 mails per subject per hour. */
export const MAILS_PER_SUBJECT = { limit: 3, window: 60 * 60 };
/** How often unverified registrants and expired tokens are looked for. */
const CLEANUP_MS = 10 * 60_000;

export const RESET_MESSAGE = 'If the name is known, a link is on its way.';

export interface EmailFlowsDeps {
  config(): SvcConfig;
  store(): MailStore;
  delivery(): MailDelivery;
  subjects: SubjectService;
  accounts: Accounts;
  /** Mails per subject (3 an hour), kept where the sessions are. */
  perSubject: AttemptLimiter;
  /** Flow starts per visitor's address: the forgotten-password flow's own limiter. */
  starts: AttemptLimiter;
  audit: Audit;
  now(): number;
  endSubjectSessions(contextId: string, uniqueId: string, reason: string): Promise<void>;
}

/** A registration in a context that verifies addresses: answered 202 whatever happened. */
export const VERIFICATION_SENT = Object.freeze({ status: 'verification_sent' as const });
export type VerificationSent = typeof VERIFICATION_SENT;

export interface Visitor {
  session: Session;
  peer: string;
}

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('base64url');

/** A token as links carry it: 43 characters of base64url. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export class EmailFlows {
  private cleanup?: NodeJS.Timeout;

  constructor(private readonly deps: EmailFlowsDeps) {}

  private get mail(): MailSettings | undefined {
    return this.deps.config().mail;
  }

  private context(contextId: string): ContextConfig {
    return this.deps.subjects.context(contextId).config;
  }

  /** Whether a context's forgotten password goes by mailed link. */
  resetsByMail(contextId: string): boolean {
    const { forgottenPassword } = this.context(contextId);
    return this.mail !== undefined && forgottenPassword.enabled && forgottenPassword.methods.includes('email');
  }

  /** Whether a context's registrants verify their address. */
  verifies(contextId: string): boolean {
    return this.mail !== undefined && this.context(contextId).registration.verifyEmail;
  }

  /** The address of a subject, if it has one. */
  private addressOf(subject: StoredSubject): string | undefined {
    return valuesOf(subject.attributes[MAIL_ATTRIBUTE])[0];
  }

  /** A link's base: `returnTo` when its origin is one of `mail.linkOrigins`, else undefined (publicBase is used). */
  checkedReturnTo(returnTo: unknown): string | undefined {
    if (typeof returnTo !== 'string' || returnTo.length > 2048) return undefined;
    let url: URL;
    try {
      url = new URL(returnTo);
    } catch {
      return undefined;
    }
    if (url.username || url.password || url.hash) return undefined;
    return this.mail?.linkOrigins.includes(url.origin) ? url.toString() : undefined;
  }

  private async queue(intent: Omit<MailIntent, 'notAfter'>, minutes: number): Promise<void> {
    await this.deps.store().enqueue({ ...intent, notAfter: this.deps.now() + minutes * 60_000 }, this.deps.now());
    const delivery = this.deps.delivery();
    delivery.ensureStarted();
    delivery.kick();
  }

  /** Takes a slot of the subject's mails; false (nothing to send) past 3 an hour. */
  private async mayMail(contextId: string, uniqueId: string): Promise<boolean> {
    const slot = await this.deps.perSubject.take(principalName({ contextId, uniqueId }));
    return slot.granted;
  }

  // --- recovery by link ---

  /**
   * POST …/contexts/{c}/password-reset: the name resolved as login resolves one; a link to the
   * subject's address if it can use one. The answer is RESET_MESSAGE whatever happened (a 429 only
   * for the visitor's own address's flow starts), and it does not wait for the queue: only a known
   * name's request writes there, so its time would tell a known name from an unknown one (the steps
   * before it cost both alike). What became of the request is audited, a failure included.
   */
  async requestReset(visitor: Visitor, contextId: string, name: string, returnTo?: unknown): Promise<void> {
    if (!this.resetsByMail(contextId)) throw new NotFound(`context ${contextId} has no recovery by link`);
    await takeSlot(this.deps.starts, visitor.peer, 'too many forgotten-password requests from this address; try again later');
    const { found } = await findLoginSubject(this.deps.subjects, contextId, name);
    const address = found && this.addressOf(found.subject);
    const queueing = async (): Promise<boolean> => {
      if (!found || !address || !(await this.mayMail(contextId, found.subject.uniqueId))) return false;
      await this.queue({ kind: 'reset', contextId, uniqueId: found.subject.uniqueId, address, returnTo: this.checkedReturnTo(returnTo) }, LIFETIME_MINUTES.reset);
      return true;
    };
    const audited = (queued: boolean) =>
      this.deps.audit.record({ ...partiesOf(visitor.session, visitor.peer), event: 'mail', outcome: queued ? 'success' : 'failure', reason: queued ? 'reset_requested' : 'reset_not_queued', principal: found ? principalName(found.principal) : '(unknown)' });
    void queueing().then(audited, () => audited(false));
  }

  /** PUT {base}/resources/password-reset: the token, once, and a new password; ends the subject's sessions, keeps its second factor. */
  async useReset(visitor: Visitor | undefined, token: unknown, password: string): Promise<void> {
    const taken = await this.take(token, ['reset']);
    if (!taken) throw new InvalidToken('This link is unknown, used or expired: ask for a new one.');
    const { contextId, uniqueId } = taken;
    const subject = await this.deps.subjects.read(contextId, uniqueId).catch(() => undefined);
    const bound = subject && (await this.resetBinding(contextId, subject));
    if (!subject || subject.attributes.disabled === 'true' || bound === undefined || !sameDigest(bound, taken.bound)) {
      throw new InvalidToken('This link is unknown, used or expired: ask for a new one.');
    }
    try {
      checkPasswordPolicy(password, { userId: uniqueId, attributes: subject.attributes });
      await this.deps.subjects.setPassword(contextId, uniqueId, password);
    } catch (error) {
      // A refused password uses nothing up: the person may choose another with the same link.
      if (error instanceof WeakPassword) await this.deps.store().putToken(taken);
      throw error;
    }
    await this.deps.endSubjectSessions(contextId, uniqueId, 'password');
    const parties: AuditParties = visitor ? partiesOf(visitor.session, visitor.peer) : { session: null, client: null, principal: null, peer: null };
    this.deps.audit.record({ ...parties, event: 'subject_write', outcome: 'success', reason: 'password_reset_link', principal: principalName({ contextId, uniqueId }) });
  }

  /**
   * The digest a reset token is bound to: of the subject's credential version now, which any
   * password change changes (SubjectService.credentialVersion decides what it is); undefined when
   * there is none (no link is minted, none is accepted).
   */
  private async resetBinding(contextId: string, subject: StoredSubject): Promise<string | undefined> {
    const version = await this.deps.subjects.credentialVersion(contextId, subject);
    if (version === undefined) return undefined;
    return createHash('sha256').update(`${contextId}\u0000${subject.uniqueId}\u0000${version}`).digest('base64url');
  }

  // --- verification ---

  /**
   * A registration in a context with `verifyEmail` (after the registration throttle): 202 whether
   * the address is new or taken. A taken uniqueId is still 409, unless it is another subject's
   * address, which is answered as a taken address.
   */
  async register(contextId: string, uniqueId: unknown, attributes: AttributeInput, create: () => Promise<StoredSubject>): Promise<VerificationSent> {
    const { store } = this.deps.subjects.context(contextId);
    const given = attributes[MAIL_ATTRIBUTE];
    const address = typeof given === 'string' ? given : undefined;
    if (!address) throw new InvalidAttributes('required attributes are missing', { errors: [{ path: `subject.attributes.${MAIL_ATTRIBUTE}`, message: 'required' }] });
    const holderOf = async (value: string) => (await store.findByKey(contextId, `unique:${MAIL_ATTRIBUTE}:${fold(value)}`)) ?? undefined;
    // A uniqueId that is another subject's address: answered as a taken address, so it cannot probe addresses.
    if (typeof uniqueId === 'string' && uniqueId.includes('@')) {
      const holder = await holderOf(uniqueId);
      if (holder && fold(holder.uniqueId) !== fold(uniqueId)) {
        await this.notice(contextId, holder, 'registered');
        return VERIFICATION_SENT;
      }
    }
    const holder = await holderOf(address);
    if (holder) {
      await this.notice(contextId, holder, 'registered');
      return VERIFICATION_SENT;
    }
    let created: StoredSubject;
    try {
      created = await create();
    } catch (error) {
      // The address was taken between the look and the write: a notice, as if it had been seen.
      const late = error instanceof Conflict ? await holderOf(address) : undefined;
      if (!late) throw error;
      await this.notice(contextId, late, 'registered');
      return VERIFICATION_SENT;
    }
    await this.deps.store().markUnverified(contextId, created.uniqueId, this.deps.now());
    await this.mayMail(contextId, created.uniqueId);
    await this.queue({ kind: 'verify', contextId, uniqueId: created.uniqueId, address }, LIFETIME_MINUTES.verify);
    return VERIFICATION_SENT;
  }

  private async notice(contextId: string, holder: StoredSubject, kind: 'registered' | 'taken'): Promise<void> {
    const address = this.addressOf(holder);
    if (address && (await this.mayMail(contextId, holder.uniqueId))) await this.queue({ kind, contextId, uniqueId: holder.uniqueId, address }, NOTICE_MINUTES);
  }

  /** Whether a subject registered and has not verified its address yet (a login is refused). */
  async unverified(contextId: string, uniqueId: string): Promise<boolean> {
    // The system user's principal names no context (nor does any other outside the configured ones).
    const context = this.deps.config().contexts.find((c) => c.id === contextId);
    if (!this.mail || !context?.registration.verifyEmail) return false;
    return (await this.deps.store().unverifiedSince(contextId, uniqueId)) !== undefined;
  }

  /** POST …/contexts/{c}/email-verification: a new link for an unverified subject; the same answer for any name. */
  async resendVerification(visitor: Visitor, contextId: string, name: string): Promise<void> {
    if (!this.verifies(contextId)) throw new NotFound(`context ${contextId} does not verify addresses`);
    await takeSlot(this.deps.starts, visitor.peer, 'too many requests from this address; try again later');
    const { found } = await findLoginSubject(this.deps.subjects, contextId, name);
    const address = found && this.addressOf(found.subject);
    if (!found || !address || !(await this.unverified(contextId, found.subject.uniqueId))) return;
    if (await this.mayMail(contextId, found.subject.uniqueId)) await this.queue({ kind: 'verify', contextId, uniqueId: found.subject.uniqueId, address }, LIFETIME_MINUTES.verify);
  }

  /**
   * POST {base}/resources/email-verification: a registrant's link (the subject may log in from now
   * on) or an address change's (`mail` becomes the new address now). Resolves what was confirmed.
   */
  async verify(visitor: Visitor | undefined, token: unknown): Promise<{ kind: 'verify' | 'change'; contextId: string; uniqueId: string }> {
    const taken = await this.take(token, ['verify', 'change']);
    if (!taken) throw new InvalidToken('This link is unknown, used or expired.');
    const { contextId, uniqueId } = taken;
    const subject = await this.deps.subjects.read(contextId, uniqueId).catch(() => undefined);
    if (!subject) throw new InvalidToken('This link is unknown, used or expired.');
    const parties: AuditParties = visitor ? partiesOf(visitor.session, visitor.peer) : { session: null, client: null, principal: null, peer: null };
    const principal = principalName({ contextId, uniqueId });
    if (taken.kind === 'verify') {
      if (fold(this.addressOf(subject) ?? '') !== fold(taken.address)) throw new InvalidToken('This link is for an address the account no longer has.');
      await this.deps.store().clearUnverified(contextId, uniqueId);
      this.deps.audit.record({ ...parties, event: 'subject_write', outcome: 'success', reason: 'mail_verified', principal });
      return { kind: 'verify', contextId, uniqueId };
    }
    const pending = await this.deps.store().pendingAddress(contextId, uniqueId, this.deps.now());
    if (!pending || fold(pending.address) !== fold(taken.address)) throw new InvalidToken('This link was replaced by a newer one.');
    try {
      await this.deps.subjects.update(contextId, uniqueId, { [MAIL_ATTRIBUTE]: taken.address }, 'admin');
    } catch (error) {
      if (error instanceof Conflict) throw new InvalidToken('This address now belongs to another account.');
      throw error;
    }
    await this.deps.store().clearPendingAddress(contextId, uniqueId);
    this.deps.audit.record({ ...parties, event: 'subject_write', outcome: 'success', reason: 'mail_changed', principal, attributes: [MAIL_ATTRIBUTE] });
    return { kind: 'change', contextId, uniqueId };
  }

  // --- address change ---

  /**
   * PUT …/subjects/{s}/mail by the subject itself, proved by its password: a link to the new address
   * and a notice to the old one; an address that is another subject's gets a notice instead. The
   * answer is the same either way.
   */
  async changeAddress(actor: Visitor & { cookieValue?: string }, contextId: string, uniqueId: string, address: unknown, password: unknown): Promise<VerificationSent> {
    if (!this.mail) throw new NotFound('this svc sends no mail');
    if (typeof password !== 'string') throw new InvalidAttributes('password is required', { errors: [{ path: 'password', message: 'required' }] });
    if (typeof address !== 'string' || !/^[^\s@<>()",;]+@[^\s@<>()",;]+\.[^\s@<>()",;]+$/.test(address) || address.length > 254) {
      throw new InvalidAttributes('not an e-mail address', { errors: [{ path: 'mail', message: 'not an e-mail address' }] });
    }
    const subject = await this.deps.accounts.proveOwnPassword({ contextId, uniqueId, password, session: actor.session, peer: actor.peer }, 'password', 'mail_change_password');
    const old = this.addressOf(subject);
    this.deps.audit.record({ ...partiesOf(actor.session, actor.peer), event: 'mail', outcome: 'success', reason: 'change_requested', principal: principalName({ contextId, uniqueId }) });
    if (old !== undefined && fold(old) === fold(address)) return VERIFICATION_SENT;
    const { store } = this.deps.subjects.context(contextId);
    const holder = await store.findByKey(contextId, `unique:${MAIL_ATTRIBUTE}:${fold(address)}`);
    if (!(await this.mayMail(contextId, uniqueId))) return VERIFICATION_SENT;
    if (holder) {
      await this.queue({ kind: 'taken', contextId, uniqueId, address }, NOTICE_MINUTES);
      return VERIFICATION_SENT;
    }
    await this.deps.store().setPendingAddress(contextId, uniqueId, address, this.deps.now() + LIFETIME_MINUTES.change * 60_000);
    await this.queue({ kind: 'change', contextId, uniqueId, address }, LIFETIME_MINUTES.change);
    if (old) await this.queue({ kind: 'changing', contextId, uniqueId, address: old }, NOTICE_MINUTES);
    return VERIFICATION_SENT;
  }

  /** The subject's pending address change, for its own reading. */
  async pendingAddress(contextId: string, uniqueId: string): Promise<{ mail: string; expires: string } | undefined> {
    if (!this.mail) return undefined;
    const pending = await this.deps.store().pendingAddress(contextId, uniqueId, this.deps.now());
    return pending && { mail: pending.address, expires: new Date(pending.expires).toISOString() };
  }

  // --- tokens ---

  private async take(token: unknown, kinds: Array<StoredToken['kind']>): Promise<StoredToken | undefined> {
    if (!this.mail || typeof token !== 'string' || !TOKEN_SHAPE.test(token)) return undefined;
    const hash = hashToken(token);
    for (const kind of kinds) {
      const taken = await this.deps.store().takeToken(hash, kind, this.deps.now());
      if (taken) return taken;
    }
    return undefined;
  }

  /**
   * The message of a queued intent, composed as it is sent: a link's token is minted now and kept as
   * its hash; undefined when the message is no longer wanted (the subject is gone, or verified).
   */
  async compose(mail: QueuedMail): Promise<Composed | undefined> {
    const settings = this.mail;
    if (!settings) return undefined;
    const subject = await this.deps.subjects.read(mail.contextId, mail.uniqueId).catch((error: unknown) => {
      if (error instanceof NotFound) return undefined;
      throw error;
    });
    if (!subject) return undefined;
    if (!TOKEN_KINDS.has(mail.kind)) return { content: render({ kind: mail.kind, uniqueId: subject.uniqueId, contextId: mail.contextId, newAddress: mail.kind === 'changing' ? await this.pendingOf(mail) : undefined }) };
    const kind = mail.kind as StoredToken['kind'];
    if (kind === 'verify' && !(await this.deps.store().unverifiedSince(mail.contextId, mail.uniqueId))) return undefined;
    const bound = kind === 'reset' ? await this.resetBinding(mail.contextId, subject) : '';
    // A reset link bound to nothing could outlive a password change: not sent.
    if (bound === undefined) return undefined;
    const token = randomBytes(32).toString('base64url');
    const minutes = LIFETIME_MINUTES[kind];
    const stored: StoredToken = {
      hash: hashToken(token),
      kind,
      contextId: mail.contextId,
      uniqueId: mail.uniqueId,
      address: mail.address,
      bound,
      expires: this.deps.now() + minutes * 60_000,
    };
    await this.deps.store().putToken(stored);
    const link = this.link(settings, kind, mail.returnTo, token);
    return {
      content: render({ kind: mail.kind, uniqueId: subject.uniqueId, contextId: mail.contextId, link, minutes }),
      abandon: async () => void (await this.deps.store().takeToken(stored.hash, kind, this.deps.now())),
    };
  }

  private async pendingOf(mail: QueuedMail): Promise<string | undefined> {
    return (await this.deps.store().pendingAddress(mail.contextId, mail.uniqueId, this.deps.now()))?.address;
  }

  /** `{publicBase}/anon/reset?token=…` (or verify), or the portal window's `returnTo` with the token added. */
  private link(settings: MailSettings, kind: StoredToken['kind'], returnTo: string | undefined, token: string): string {
    const checked = returnTo && this.checkedReturnTo(returnTo);
    if (checked) {
      // The token goes where the URL leaves room for it: an empty parameter named `token` or ending in
      // `.token` (a portal window's render parameter, `forgot.p.token=`), else a `token` added.
      const url = new URL(checked);
      const slot = [...url.searchParams].find(([name, value]) => value === '' && (name === 'token' || name.endsWith('.token')))?.[0] ?? 'token';
      url.searchParams.set(slot, token);
      return url.toString();
    }
    const page = kind === 'reset' ? 'reset' : 'verify';
    return `${settings.publicBase.replace(/\/+$/, '')}/anon/${page}?token=${token}`;
  }

  // --- housekeeping ---

  /** Removes registrants unverified for 24 h, and expired tokens; every 10 minutes from start. */
  start(): void {
    if (!this.mail) return;
    const run = () => void this.sweep().catch(() => undefined);
    run();
    this.cleanup = setInterval(run, CLEANUP_MS);
    this.cleanup.unref();
  }

  stop(): void {
    if (this.cleanup) clearInterval(this.cleanup);
  }

  async sweep(): Promise<number> {
    const store = this.deps.store();
    const now = this.deps.now();
    await store.pruneTokens(now);
    let removed = 0;
    for (const { contextId, uniqueId } of await store.unverifiedBefore(now - UNVERIFIED_MS, 1000)) {
      try {
        await this.deps.subjects.delete(contextId, uniqueId);
        removed++;
        this.deps.audit.record({ session: null, client: null, principal: null, peer: null, event: 'subject_write', outcome: 'success', reason: 'unverified_removed', subject: principalName({ contextId, uniqueId }) });
      } catch (error) {
        if (!(error instanceof NotFound)) continue;
      }
      await store.clearUnverified(contextId, uniqueId);
    }
    return removed;
  }
}

function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type { MailKind };
