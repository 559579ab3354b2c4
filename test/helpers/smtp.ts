/** A real SMTP server process (smtp-server.mjs: STARTTLS and AUTH) and the messages it received. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Issued } from './pki';

export interface CaughtMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  user: string;
  secure: boolean;
}

export const SMTP_USER = 'svc-mailer';
export const SMTP_PASSWORD = 'smtp-test-password-1';

export interface SmtpProcess {
  port: number;
  /** Every message received so far by this process and the earlier ones of the same mailbox. */
  messages: CaughtMail[];
  /** The first message (from `after` on) that matches, waiting for it (jest's timeout bounds the wait). */
  next(match: (mail: CaughtMail) => boolean, after?: number): Promise<CaughtMail>;
  stop(): Promise<void>;
}

/** Starts the server process (on `port`, or any free one), appending to `messages` when given. */
export async function startSmtp(certificate: Issued, options: { port?: number; messages?: CaughtMail[] } = {}): Promise<SmtpProcess> {
  const messages = options.messages ?? [];
  const waiters = new Set<() => void>();
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'smtp-server.mjs')], {
    env: { PATH: process.env.PATH ?? '', SMTP_PORT: String(options.port ?? 0), SMTP_CERT: certificate.certPath, SMTP_KEY: certificate.keyPath, SMTP_USER, SMTP_PASSWORD },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the SMTP server exited (${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const parsed = JSON.parse(line) as { listening?: number } & CaughtMail;
      if (parsed.listening !== undefined) return resolve(parsed.listening);
      messages.push(parsed);
      for (const wake of waiters) wake();
    });
  });
  const next = (match: (mail: CaughtMail) => boolean, after = 0) =>
    new Promise<CaughtMail>((resolve) => {
      const look = () => {
        const found = messages.slice(after).find(match);
        if (!found) return;
        waiters.delete(look);
        resolve(found);
      };
      waiters.add(look);
      look();
    });
  return {
    port,
    messages,
    next,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 2000).unref();
      }),
  };
}

/** The link a message carries (its text's line that starts with http), and its token. */
export function linkOf(mail: CaughtMail): { link: string; token: string } {
  const link = mail.text.split('\n').find((line) => /^https?:\/\//.test(line.trim()))?.trim();
  if (!link) throw new Error(`no link in "${mail.subject}"`);
  return { link, token: new URL(link).searchParams.get('token') ?? '' };
}
