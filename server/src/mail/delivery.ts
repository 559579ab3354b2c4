/**
 * Sending what the queue holds (SPEC 16), at least once: each core claims the next due message for a
 * lease, has it composed (a link's token is minted only now, so nothing usable ever waits in the
 * queue), sends it with nodemailer over SMTP, and removes it; a failure is tried again after an
 * exponential back-off (`mail.retry`), and a message past its `notAfter` (a link's lifetime) is
 * dropped, not sent late. A core that dies between claim and removal leaves the message to the
 * next claim after the lease. Every message sent, failed or dropped is an audit line, never its token.
 */
import { readFileSync } from 'node:fs';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../../../common/src/log';
import { NO_PARTIES, type Audit } from '../audit';
import { principalName } from '../../../common/src/principal-name';
import type { MailSettings } from '../config/types';
import type { MailStore, QueuedMail } from './mail-store';
import type { MailContent } from './templates';

/** A claimed message is another core's again after this long (far above one send's timeouts). */
const LEASE_MS = 120_000;
/** The queue is looked at this often at least (messages queued by other cores, retries due). */
const POLL_MS = 2_000;

/** A message ready to send, and what to undo if sending fails (the token minted for it). */
export interface Composed {
  content: MailContent;
  abandon?: () => Promise<void>;
}

export interface DeliveryDeps {
  store: () => MailStore;
  settings: () => MailSettings | undefined;
  /** The message of a queued intent, or undefined when it is no longer wanted (the subject is gone). */
  compose: (mail: QueuedMail) => Promise<Composed | undefined>;
  audit: Audit;
  log: Logger;
  now: () => number;
}

export class MailDelivery {
  private transport?: { key: string; transporter: Transporter };
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;
  /** Stopped for good (the core closed): nothing starts it again. */
  private closed = false;

  constructor(private readonly deps: DeliveryDeps) {}

  start(): void {
    if (this.closed) return;
    this.stopped = false;
    this.kick();
  }

  /** Starts sending if it had not started (a reload that added `mail` to a core started without it). */
  ensureStarted(): void {
    if (this.stopped) this.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    this.transport?.transporter.close();
    this.transport = undefined;
  }

  /** Looks at the queue now (something was queued). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.drain()
      .catch((error: unknown) => this.deps.log.warn({ event: 'mail', err: String(error) }, 'the mail queue could not be read'))
      .then(() => this.schedule())
      .finally(() => (this.running = undefined));
  }

  private async schedule(): Promise<void> {
    if (this.stopped) return;
    const now = this.deps.now();
    const due = await this.deps.store().nextDue().catch(() => undefined);
    const wait = this.again ? 0 : Math.max(0, Math.min(POLL_MS, due === undefined ? POLL_MS : due - now));
    this.again = false;
    this.timer = setTimeout(() => this.kick(), wait);
    this.timer.unref();
  }

  /** Sends every due message, one at a time. */
  async drain(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const now = this.deps.now();
      const mail = await this.deps.store().claim(now, LEASE_MS);
      if (!mail) return;
      await this.deliver(mail, now);
    }
  }

  private record(mail: QueuedMail, outcome: 'success' | 'failure', reason: string, extra: Record<string, unknown> = {}): void {
    this.deps.audit.record({ ...NO_PARTIES, event: 'mail', outcome, reason, kind: mail.kind, principal: principalName({ contextId: mail.contextId, uniqueId: mail.uniqueId }), attempts: mail.attempts + (outcome === 'success' ? 1 : 0), ...extra });
  }

  private async deliver(mail: QueuedMail, now: number): Promise<void> {
    const store = this.deps.store();
    if (now > mail.notAfter) {
      await store.remove(mail.id);
      this.record(mail, 'failure', 'expired');
      return;
    }
    const settings = this.deps.settings();
    if (!settings) return this.failed(mail, undefined, new Error('mail is not configured'));
    let composed: Composed | undefined;
    try {
      composed = await this.deps.compose(mail);
    } catch (error) {
      return this.failed(mail, settings, error);
    }
    if (!composed) {
      await store.remove(mail.id);
      this.record(mail, 'failure', 'unwanted');
      return;
    }
    try {
      await this.transporter(settings).sendMail({ from: settings.smtp.from, to: mail.address, subject: composed.content.subject, text: composed.content.text, html: composed.content.html });
    } catch (error) {
      await composed.abandon?.().catch(() => undefined);
      return this.failed(mail, settings, error);
    }
    await store.remove(mail.id);
    this.record(mail, 'success', 'sent');
  }

  private async failed(mail: QueuedMail, settings: MailSettings | undefined, error: unknown): Promise<void> {
    const attempts = mail.attempts + 1;
    const retry = settings?.retry ?? { initialSeconds: 5, maxSeconds: 900 };
    const wait = Math.min(retry.initialSeconds * 2 ** (attempts - 1), retry.maxSeconds) * 1000;
    await this.deps.store().retry(mail.id, attempts, this.deps.now() + wait);
    this.deps.log.warn({ event: 'mail', kind: mail.kind, attempts, retryInMs: wait, err: (error as Error).message ?? String(error) }, 'a message could not be sent; it will be tried again');
    this.record(mail, 'failure', 'send_failed', { attempts, retryInSeconds: wait / 1000 });
  }

  /** One SMTP transport per `mail.smtp` setting (a reload that changes it makes a new one). */
  private transporter(settings: MailSettings): Transporter {
    const { smtp } = settings;
    const key = JSON.stringify(smtp);
    if (this.transport?.key === key) return this.transport.transporter;
    this.transport?.transporter.close();
    const transporter = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      requireTLS: !smtp.secure && smtp.requireTLS,
      ...(smtp.user !== undefined ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
      tls: { minVersion: 'TLSv1.2', ...(smtp.ca ? { ca: readFileSync(smtp.ca) } : {}) },
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    this.transport = { key, transporter };
    return transporter;
  }
}
