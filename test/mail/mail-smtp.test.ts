/**
 * SPEC 16 against a real SMTP server run as its own process (STARTTLS with a private CA, AUTH):
 * recovery by link, verified registration, the limits, and an outage with a restart of svc between
 * the request and the delivery.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { bodyOf } from '../helpers/json';
import { login } from '../helpers/login';
import { TestCa, type Issued } from '../helpers/pki';
import { linkOf, SMTP_PASSWORD, SMTP_USER, startSmtp, type CaughtMail, type SmtpProcess } from '../helpers/smtp';

let dir: string;
let ca: TestCa;
let certificate: Issued;
let smtp: SmtpProcess;
let server: TestServer;

/** The mail section and the contexts of SPEC 11's demo: employees both ways, customers by link with verified registration. */
function withMail(port: number, dataDir?: string) {
  return (doc: Record<string, unknown>) => {
    doc.mail = {
      smtp: { host: '127.0.0.1', port, ca: ca.certPath, user: SMTP_USER, password: SMTP_PASSWORD, from: 'svc <svc@example.com>' },
      publicBase: 'https://id.example.com/svc',
      linkOrigins: ['https://portal.example.com'],
      retry: { initialSeconds: 0.2, maxSeconds: 0.5 },
    };
    const contexts = doc.contexts as Array<Record<string, Record<string, unknown>>>;
    contexts[0].forgottenPassword.methods = ['questions', 'email'];
    contexts[1].forgottenPassword = { ...contexts[1].forgottenPassword, enabled: true, methods: ['email'] };
    contexts[1].registration.verifyEmail = true;
    if (dataDir) (doc.server as Record<string, unknown>).dataDir = dataDir;
  };
}

const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/resources${path}`, { method, headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body) });
const to = (address: string) => (mail: CaughtMail) => mail.to.includes(address);
const loginAs = (user: string, password: string) => login(server.baseUrl, { clientid: 'svc-web', user, password });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-mail-'));
  ca = new TestCa(join(dir, 'pki'), 'svc mail test CA');
  certificate = ca.issue({ cn: 'localhost', ips: ['127.0.0.1'], usage: 'serverAuth' });
  smtp = await startSmtp(certificate);
});

afterAll(async () => {
  await smtp.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('mail over SMTP with STARTTLS and AUTH', () => {
  beforeEach(async () => {
    server = await startTestServer({ configure: withMail(smtp.port) });
  });
  afterEach(() => server.stop());

  test('recovery by link: the same answer for any name, a link whose GET uses nothing, its PUT once, the sessions ended', async () => {
    const before = smtp.messages.length;
    const alice = await loginAs('alice', TEST_CREDENTIALS.users.alice);
    expect(alice.status).toBe(200);
    const known = await json('POST', '/contexts/employees/password-reset', { name: 'ALICE@example.com' });
    const unknown = await json('POST', '/contexts/employees/password-reset', { name: 'nobody' });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(await bodyOf(known)).toEqual({ message: 'If the name is known, a link is on its way.' });
    expect(await bodyOf(unknown)).toEqual(await bodyOf(await json('POST', '/contexts/employees/password-reset', { name: 'nobody2' })));

    const mail = await smtp.next(to('alice@example.com'), before);
    expect(mail).toMatchObject({ user: SMTP_USER, secure: true, subject: 'Choose a new password', from: '"svc" <svc@example.com>' });
    expect(mail.html).toContain('href="https://id.example.com/svc/anon/reset?token=');
    const { link, token } = linkOf(mail);
    expect(link.startsWith('https://id.example.com/svc/anon/reset?token=')).toBe(true);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // A mail scanner fetching the link: a form, nothing used.
    const page = await send(`${server.baseUrl}/anon/reset?token=${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="token"');
    expect((await json('PUT', '/password-reset', { token, password: 'short' })).status).toBe(400);
    const done = await json('PUT', '/password-reset', { token, password: 'Alice-new-pass-42' });
    expect(done.status).toBe(204);
    const again = await json('PUT', '/password-reset', { token, password: 'Alice-new-pass-43' });
    expect(again.status).toBe(400);
    expect((await bodyOf(again)).code).toBe('invalid_token');
    expect((await loginAs('alice', 'Alice-new-pass-42')).status).toBe(200);
    // Her earlier session ended with the reset.
    const session = await send(`${server.baseUrl}/resources/session`, { cookie: alice.cookie, headers: { accept: 'application/json' } });
    expect(session.status).toBe(401);
    // Only one message for the known name, none for the unknown ones; the queue kept no token.
    expect(smtp.messages.slice(before).filter((m) => m.subject === 'Choose a new password')).toHaveLength(1);
  });

  test('any password change voids a reset link still out; at most 3 mails per subject an hour', async () => {
    const before = smtp.messages.length;
    expect((await json('POST', '/contexts/employees/password-reset', { name: 'bob' })).status).toBe(202);
    const { token } = linkOf(await smtp.next(to('bob@example.com'), before));
    await server.core.subjects.setPassword('employees', 'bob', 'Bob-changed-pass-1');
    const refused = await json('PUT', '/password-reset', { token, password: 'Bob-new-pass-9876' });
    expect(refused.status).toBe(400);
    expect((await bodyOf(refused)).code).toBe('invalid_token');
    for (let i = 0; i < 3; i++) expect((await json('POST', '/contexts/employees/password-reset', { name: 'bob' })).status).toBe(202);
    await smtp.next((m) => to('bob@example.com')(m) && m.subject === 'Choose a new password', before + 2);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(smtp.messages.slice(before).filter(to('bob@example.com'))).toHaveLength(3);
  });

  test('verified registration: 202 whether the address is new or taken, no login before the link, the link once', async () => {
    const before = smtp.messages.length;
    const carol = { uniqueId: 'carol', attributes: { mail: 'carol@example.org', givenName: 'Carol', familyName: 'Cole', password: 'Carol-registers-1' } };
    const created = await json('POST', '/contexts/customers/subjects', { subject: carol });
    expect(created.status).toBe(202);
    expect(await bodyOf(created)).toEqual({ status: 'verification_sent' });
    const refused = await loginAs('carol', 'Carol-registers-1');
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('Confirm your e-mail address first');
    const wrong = await loginAs('carol', 'Carol-wrong-pass-1');
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('Confirm');

    // The same address again, under another id: the same answer, a notice to the holder.
    const taken = await json('POST', '/contexts/customers/subjects', { subject: { ...carol, uniqueId: 'carol2' } });
    expect(taken.status).toBe(202);
    expect(await bodyOf(taken)).toEqual({ status: 'verification_sent' });
    // An id that is another subject's address: answered as a taken address.
    const probe = await json('POST', '/contexts/customers/subjects', { subject: { ...carol, uniqueId: 'carol@example.org', attributes: { ...carol.attributes, mail: 'other@example.org' } } });
    expect(probe.status).toBe(202);
    // A taken id is still 409.
    expect((await json('POST', '/contexts/customers/subjects', { subject: { ...carol, attributes: { ...carol.attributes, mail: 'c9@example.org' } } })).status).toBe(409);

    const verification = await smtp.next((m) => to('carol@example.org')(m) && m.subject === 'Confirm your e-mail address', before);
    const { token, link } = linkOf(verification);
    expect(link.startsWith('https://id.example.com/svc/anon/verify?token=')).toBe(true);
    await smtp.next((m) => to('carol@example.org')(m) && m.subject === 'Someone tried to register with your address', before);
    expect(await server.core.subjects.context('customers').store.get('customers', 'carol2')).toBeUndefined();

    expect((await send(`${server.baseUrl}/anon/verify?token=${token}`)).status).toBe(200);
    expect((await json('POST', '/email-verification', { token })).status).toBe(204);
    const spent = await json('POST', '/email-verification', { token });
    expect(spent.status).toBe(400);
    expect((await bodyOf(spent)).code).toBe('invalid_token');
    expect((await loginAs('carol', 'Carol-registers-1')).status).toBe(200);
    // The system user (whose principal names no context) logs in as before.
    expect((await loginAs('svcadmin', TEST_CREDENTIALS.users.svcadmin)).status).toBe(200);
  });

  test('unverified registrants are removed after 24 hours', async () => {
    const carol = { uniqueId: 'dora', attributes: { mail: 'dora@example.org', givenName: 'Dora', familyName: 'Dunn', password: 'Dora-registers-1' } };
    expect((await json('POST', '/contexts/customers/subjects', { subject: carol })).status).toBe(202);
    const store = server.core.subjects.context('customers').store;
    expect(await store.get('customers', 'dora')).toBeDefined();
    expect(await server.core.email.sweep()).toBe(0);
    const db = new Database(join(server.dataDir, 'mail.sqlite'));
    db.prepare("UPDATE mail_unverified SET since = since - 25 * 3600 * 1000 WHERE subject = 'dora'").run();
    db.close();
    expect(await server.core.email.sweep()).toBe(1);
    expect(await store.get('customers', 'dora')).toBeUndefined();
  });

  test('an own address change: a link to the new address, a notice to the old; mail changes only when it is followed', async () => {
    const before = smtp.messages.length;
    const bob = await loginAs('bob', TEST_CREDENTIALS.users.bob);
    const put = (body: unknown) => send(`${server.baseUrl}/resources/contexts/employees/subjects/bob/mail`, { method: 'PUT', cookie: bob.cookie, json: body, headers: { accept: 'application/json' } });
    const direct = await send(`${server.baseUrl}/resources/contexts/employees/subjects/bob`, { method: 'PUT', cookie: bob.cookie, json: { subject: { attributes: { mail: 'bob@new.example' } } }, headers: { accept: 'application/json' } });
    expect(direct.status).toBe(400);
    expect(JSON.parse(direct.text)).toMatchObject({ code: 'attribute_not_writable' });
    expect(JSON.parse(direct.text).detail).toContain('/mail');
    expect((await put({ mail: 'bob@new.example', password: 'wrong-password-1' })).status).toBe(400);
    const asked = await put({ mail: 'bob@new.example', password: TEST_CREDENTIALS.users.bob });
    expect(asked.status).toBe(202);
    expect(JSON.parse(asked.text)).toEqual({ status: 'verification_sent' });
    const taken = await put({ mail: 'alice@example.com', password: TEST_CREDENTIALS.users.bob });
    expect(JSON.parse(taken.text)).toEqual({ status: 'verification_sent' });
    const link = await smtp.next((m) => to('bob@new.example')(m), before);
    await smtp.next((m) => to('bob@example.com')(m) && m.subject === 'Your e-mail address is being changed', before);
    await smtp.next((m) => to('alice@example.com')(m) && m.subject === 'Someone tried to use your address', before);
    const read = await send(`${server.baseUrl}/resources/contexts/employees/subjects/bob/mail`, { cookie: bob.cookie, headers: { accept: 'application/json' } });
    expect(JSON.parse(read.text)).toMatchObject({ mail: 'bob@example.com', pending: { mail: 'bob@new.example' } });
    expect((await json('POST', '/email-verification', { token: linkOf(link).token })).status).toBe(204);
    expect((await server.core.subjects.read('employees', 'bob')).attributes.mail).toBe('bob@new.example');
  });
});

describe('an outage: the SMTP server down while a reset is asked, svc restarted in between', () => {
  test('the message waits in the queue (no token in it) and arrives once when the server is back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-mail-outage-'));
    const port = smtp.port;
    const before = smtp.messages.length;
    await smtp.stop();
    let first: TestServer | undefined = await startTestServer({ dataDir, configure: withMail(port) });
    try {
      expect((await fetch(`${first.baseUrl}/resources/contexts/employees/password-reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bob' }) })).status).toBe(202);
      // A few failed tries, then svc stops with the message still queued.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      await first.stop({ keepData: true });
      first = undefined;
      const db = new Database(join(dataDir, 'mail.sqlite'), { readonly: true });
      const rows = db.prepare('SELECT * FROM mail_queue').all() as Array<Record<string, unknown>>;
      db.close();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ kind: 'reset', subject: 'bob', address: 'bob@example.com' });
      expect(Number(rows[0].attempts)).toBeGreaterThan(0);
      expect(Object.keys(rows[0]).sort()).toEqual(['address', 'attempts', 'context', 'created', 'id', 'kind', 'next_at', 'not_after', 'return_to', 'subject']);

      server = await startTestServer({ dataDir, seed: false, configure: withMail(port) });
      smtp = await startSmtp(certificate, { port, messages: smtp.messages });
      const mail = await smtp.next(to('bob@example.com'), before);
      const { token } = linkOf(mail);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(smtp.messages.slice(before).filter(to('bob@example.com'))).toHaveLength(1);
      expect(await server.core.mailDelivery['deps'].store().queued()).toBe(0);
      expect((await json('PUT', '/password-reset', { token, password: 'Bob-after-outage-1' })).status).toBe(204);
      await server.stop();
    } finally {
      await first?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
