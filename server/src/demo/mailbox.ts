/**
 * The demo's development mailbox (SPEC 11 and 16): an SMTP listener (smtp-server) that keeps every
 * message it is sent, and beside it, on the next port, a page that lists them (`GET /`) and their
 * JSON for scripts (`GET /messages`: `[{"to","subject","text","html","sentAt"}]`, newest first). Both
 * bind 127.0.0.1 whatever SVC_HOST says: they show live reset links. The newest 200 are kept, in
 * memory only. A message's HTML is never rendered here (the JSON carries it): the page shows its
 * text, with its links made links.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { html, type Html } from '../../../common/src/html';
import type { Logger } from '../../../common/src/log';

export interface CaughtMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

const MAX_KEPT = 200;
const MAX_SIZE = 1024 * 1024;
export const MAILBOX_HOST = '127.0.0.1';

export interface RunningMailbox {
  smtpPort: number;
  /** `http://127.0.0.1:{port}` of the page. */
  pageUrl: string;
  messages(): readonly CaughtMessage[];
  close(): Promise<void>;
}

/** Starts both listeners: SMTP on `smtpPort` (0: any free one), the page on `pagePort` (default the next). */
export async function startMailbox(options: { smtpPort: number; pagePort?: number; log?: Logger }): Promise<RunningMailbox> {
  const kept: CaughtMessage[] = [];
  const smtp = new SMTPServer({
    // Loopback only, for a demo: no TLS, no AUTH, no size above 1 MiB.
    secure: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    size: MAX_SIZE,
    logger: false,
    banner: 'svc demo mailbox',
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          const to = (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).map((a) => a.text).join(', ');
          kept.unshift({ to, subject: mail.subject ?? '', text: mail.text ?? '', html: typeof mail.html === 'string' ? mail.html : '', sentAt: (mail.date ?? new Date()).toISOString() });
          kept.splice(MAX_KEPT);
          options.log?.info({ event: 'mailbox', to, subject: mail.subject }, 'the demo mailbox caught a message');
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  smtp.on('error', (error) => options.log?.warn({ event: 'mailbox', err: error.message }, 'the demo mailbox refused a connection'));
  await new Promise<void>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.listen(options.smtpPort, MAILBOX_HOST, () => resolve());
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const page: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://mailbox').pathname;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('GET only\n');
      return;
    }
    if (path === '/messages') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(kept));
      return;
    }
    if (path === '/') {
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(mailboxPage(kept, smtpPort).text);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    page.once('error', reject);
    page.listen(options.pagePort ?? (options.smtpPort === 0 ? 0 : smtpPort + 1), MAILBOX_HOST, () => resolve());
  });
  const pageUrl = `http://${MAILBOX_HOST}:${(page.address() as AddressInfo).port}`;
  return {
    smtpPort,
    pageUrl,
    messages: () => kept,
    close: async () => {
      page.closeAllConnections();
      await Promise.all([new Promise<void>((resolve) => page.close(() => resolve())), new Promise<void>((resolve) => smtp.close(() => resolve()))]);
    },
  };
}

/** A message's text with its http(s) links as links (everything else escaped). */
function linked(text: string): Html[] {
  const parts: Html[] = [];
  let last = 0;
  for (const match of text.matchAll(/https?:\/\/[^\s<>"']+/g)) {
    parts.push(html`${text.slice(last, match.index)}`);
    parts.push(html`<a href="${match[0]}">${match[0]}</a>`);
    last = match.index + match[0].length;
  }
  parts.push(html`${text.slice(last)}`);
  return parts;
}

function mailboxPage(messages: readonly CaughtMessage[], smtpPort: number): Html {
  const items = messages.map(
    (m, i) => html`<li><article aria-labelledby="m${i}">
<h2 id="m${i}">${m.subject || '(no subject)'}</h2>
<p class="meta">To <strong>${m.to}</strong>, <time datetime="${m.sentAt}">${m.sentAt.replace('T', ' ').slice(0, 19)} UTC</time></p>
<pre>${linked(m.text)}</pre>
</article></li>`,
  );
  return html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc demo mailbox</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 48rem; padding: 1rem; line-height: 1.5; color: #1a1a1a; background: #fff; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin: 0 0 .25rem; }
ol { list-style: none; padding: 0; } li { border: 1px solid #767676; border-radius: 6px; padding: .75rem 1rem; margin: 0 0 1rem; }
.meta { margin: 0 0 .5rem; color: #444; font-size: .95rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-family: inherit; margin: 0; }
a { color: #0b57d0; } a:focus { outline: 3px solid #0b57d0; outline-offset: 2px; }
</style></head>
<body><main>
<h1>svc demo mailbox</h1>
<p>Every message svc sent to <code>127.0.0.1:${smtpPort}</code>, newest first (the newest ${MAX_KEPT}, until the demo stops). Reload the page for new ones; <a href="/messages">the same as JSON</a>.</p>
${messages.length ? html`<ol>${items}</ol>` : html`<p role="status">No messages yet. Register in customers, or ask for a password reset link, and reload.</p>`}
</main></body></html>`;
}
