/**
 * SPEC 16's recovery by link on an `ldap` context, against a real OpenLDAP (test/ldap/slapd.sh) and
 * a real SMTP server process (test/helpers/smtp-server.mjs): the directory keeps the password, so a
 * reset link is bound to the entry's entryCSN, and any password change voids every link still out,
 * whether it was made through svc or in the directory itself (ldappasswd, ldapmodify). A voided link
 * gets the answer a used or unknown one gets; a link made after the change works.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { ldapwhoami, slapdRequirement, startSlapd, type Slapd } from '../helpers/ldap';
import { login } from '../helpers/login';
import { TestCa } from '../helpers/pki';
import { describeWithService } from '../helpers/services';
import { linkOf, SMTP_PASSWORD, SMTP_USER, startSmtp, type CaughtMail, type SmtpProcess } from '../helpers/smtp';

jest.setTimeout(60_000);

const { users } = TEST_CREDENTIALS;

describeWithService(slapdRequirement(), 'recovery by link on an LDAP context', () => {
  let dir: string;
  let slapd: Slapd;
  let smtp: SmtpProcess;
  let server: TestServer;
  const dn = (id: string) => `uid=${id},ou=employees,${slapd.baseDN}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-ldap-mail-'));
    const ca = new TestCa(join(dir, 'pki'), 'svc ldap mail test CA');
    smtp = await startSmtp(ca.issue({ cn: 'localhost', ips: ['127.0.0.1'], usage: 'serverAuth' }));
    slapd = startSlapd({ contexts: ['employees', 'customers'] });
    server = await startTestServer({
      configure: (doc) => {
        const contexts = doc.contexts as Array<Record<string, Record<string, unknown>>>;
        for (const context of contexts) (context as Record<string, unknown>).store = 'ldap';
        contexts[0].forgottenPassword.methods = ['questions', 'email'];
        doc.stores = { ldap: slapd.settings() };
        doc.mail = {
          smtp: { host: '127.0.0.1', port: smtp.port, ca: ca.certPath, user: SMTP_USER, password: SMTP_PASSWORD, from: 'svc <svc@example.com>' },
          publicBase: 'https://id.example.com/svc',
          retry: { initialSeconds: 0.2, maxSeconds: 0.5 },
        };
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    slapd?.stop();
    await smtp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const json = (method: string, path: string, body: unknown, cookie?: string) =>
    fetch(`${server.baseUrl}/resources${path}`, {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });

  /** Asks for a reset link for `name` and waits for its message: the link's token. */
  async function resetLink(name: string, address: string): Promise<string> {
    const before = smtp.messages.length;
    expect((await json('POST', '/contexts/employees/password-reset', { name })).status).toBe(202);
    const mail = await smtp.next((m: CaughtMail) => m.to.includes(address) && m.subject === 'Choose a new password', before);
    return linkOf(mail).token;
  }

  /** A reset link used with `password`: its status and problem (without the request-specific `instance`). */
  async function useLink(token: string, password: string): Promise<{ status: number; problem?: Record<string, unknown> }> {
    const answer = await json('PUT', '/password-reset', { token, password });
    if (answer.status === 204) return { status: 204 };
    const { instance: _instance, ...problem } = (await answer.json()) as Record<string, unknown>;
    return { status: answer.status, problem };
  }

  /** The answer every dead link gets (SPEC 16: unknown, used, expired): a well-formed token nobody was given. */
  const deadLink = () => useLink('A'.repeat(43), 'Whatever-pass-123');

  /** ldap-utils run against the test directory; their exit status must be 0. */
  function ldapTool(tool: 'ldappasswd' | 'ldapmodify', args: string[], input?: string): void {
    const run = spawnSync(`/usr/bin/${tool}`, ['-x', '-H', slapd.url, ...args], { input, encoding: 'utf8', timeout: 30_000 });
    expect({ tool, status: run.status, stderr: run.stderr }).toEqual({ tool, status: 0, stderr: '' });
  }

  it('a password change through svc voids every reset link still out; a link asked for afterwards works', async () => {
    const dead = await deadLink();
    expect(dead).toMatchObject({ status: 400, problem: { code: 'invalid_token' } });

    const session = await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob });
    expect(session.status).toBe(200);
    const first = await resetLink('bob', 'bob@example.com');
    const second = await resetLink('BOB@example.com', 'bob@example.com');

    // bob's own password change (PUT …/password, the directory's password modify operation).
    const change = await json('PUT', '/contexts/employees/subjects/bob/password', { oldPassword: users.bob, newPassword: 'Bob-changed-in-svc-1' }, `SVCSESSIONID=${session.cookie!}`);
    expect(change.status).toBe(204);
    expect(ldapwhoami(slapd.url, dn('bob'), 'Bob-changed-in-svc-1')).toBe(true);

    expect(await useLink(first, 'Bob-from-old-link-1')).toEqual(dead);
    expect(await useLink(second, 'Bob-from-old-link-2')).toEqual(dead);
    expect(ldapwhoami(slapd.url, dn('bob'), 'Bob-changed-in-svc-1')).toBe(true);

    const fresh = await resetLink('bob', 'bob@example.com');
    expect(await useLink(fresh, 'Bob-from-new-link-3')).toEqual({ status: 204 });
    expect(ldapwhoami(slapd.url, dn('bob'), 'Bob-from-new-link-3')).toBe(true);
    expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: 'Bob-from-new-link-3' })).status).toBe(200);
    // Used: the same answer again.
    expect(await useLink(fresh, 'Bob-from-new-link-4')).toEqual(dead);
  });

  it('a password change made in the directory itself (ldappasswd by the person, ldapmodify by its admin) voids the links still out', async () => {
    const dead = await deadLink();

    const beforePasswd = await resetLink('alice', 'alice@example.com');
    // alice changes her own password with the directory's tool (RFC 3062, bound as herself).
    ldapTool('ldappasswd', ['-D', dn('alice'), '-w', users.alice, '-a', users.alice, '-s', 'Alice-ldappasswd-1', dn('alice')]);
    expect(ldapwhoami(slapd.url, dn('alice'), 'Alice-ldappasswd-1')).toBe(true);
    expect(await useLink(beforePasswd, 'Alice-from-old-link-1')).toEqual(dead);

    const beforeModify = await resetLink('alice', 'alice@example.com');
    // The directory's administrator replaces userPassword with a plain modify.
    ldapTool('ldapmodify', ['-D', slapd.adminDN, '-w', slapd.adminPassword], `dn: ${dn('alice')}\nchangetype: modify\nreplace: userPassword\nuserPassword: Alice-ldapmodify-2\n`);
    expect(ldapwhoami(slapd.url, dn('alice'), 'Alice-ldapmodify-2')).toBe(true);
    expect(await useLink(beforeModify, 'Alice-from-old-link-2')).toEqual(dead);
    expect(ldapwhoami(slapd.url, dn('alice'), 'Alice-ldapmodify-2')).toBe(true);

    const fresh = await resetLink('alice', 'alice@example.com');
    expect(await useLink(fresh, 'Alice-from-new-link-3')).toEqual({ status: 204 });
    expect(ldapwhoami(slapd.url, dn('alice'), 'Alice-from-new-link-3')).toBe(true);
  });
});
