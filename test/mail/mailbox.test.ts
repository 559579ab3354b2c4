/**
 * The demo's development mailbox (SPEC 11): what svc sends over SMTP is listed on its page and as
 * JSON, newest first; both listeners are on the loopback only.
 */
import nodemailer from 'nodemailer';
import { startMailbox, type RunningMailbox } from '../../server/src/demo/mailbox';

let mailbox: RunningMailbox;
beforeEach(async () => {
  mailbox = await startMailbox({ smtpPort: 0 });
});
afterEach(() => mailbox.close());

const sendTo = (to: string, subject: string, text: string) =>
  nodemailer.createTransport({ host: '127.0.0.1', port: mailbox.smtpPort, secure: false, ignoreTLS: true }).sendMail({ from: 'svc <svc@localhost>', to, subject, text, html: `<p>${text}</p>` });

test('messages caught over SMTP are answered as JSON newest first, and listed on the page with their links as links', async () => {
  await sendTo('dana@example.net', 'First', 'Hello');
  await sendTo('erin@example.net', 'Second <b>', 'Follow http://127.0.0.1:8080/svc/anon/verify?token=abc&x=1 now');
  const answer = await fetch(`${mailbox.pageUrl}/messages`);
  expect(answer.headers.get('content-type')).toBe('application/json');
  const messages = (await answer.json()) as Array<Record<string, string>>;
  expect(messages.map((m) => m.subject)).toEqual(['Second <b>', 'First']);
  expect(messages[0]).toMatchObject({ to: 'erin@example.net', text: expect.stringContaining('token=abc'), html: expect.stringContaining('<p>') });
  expect(Date.parse(messages[0].sentAt)).not.toBeNaN();
  const page = await (await fetch(`${mailbox.pageUrl}/`)).text();
  expect(page).toContain('<h2 id="m0">Second &#60;b&#62;</h2>');
  expect(page).toContain('<a href="http://127.0.0.1:8080/svc/anon/verify?token=abc&#38;x=1">');
  expect(page).not.toContain('<p>Hello</p>');
  expect((await fetch(`${mailbox.pageUrl}/messages`, { method: 'POST' })).status).toBe(405);
});

test('both listeners bind 127.0.0.1 only', async () => {
  expect(new URL(mailbox.pageUrl).hostname).toBe('127.0.0.1');
  const other = (await import('node:os')).networkInterfaces();
  const external = Object.values(other).flat().find((a) => a && a.family === 'IPv4' && !a.internal);
  if (!external) return;
  await expect(fetch(`http://${external.address}:${new URL(mailbox.pageUrl).port}/messages`)).rejects.toThrow();
});
