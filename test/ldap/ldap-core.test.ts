/**
 * A core (and a gateway in front of it) whose contexts are on the LDAP store, against a real
 * OpenLDAP (test/ldap/slapd.sh), seeded like the demo: directory users log in through the core and
 * the gateway with the passwords the directory keeps; every kind of refused login is the same
 * answer for the same work; If-Match races; LDAP injection in every field; the forgotten-password
 * reset and an own password change go to the directory, whose own policy may refuse them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'ldapts';
import type { RunningGateway } from '../../gateway/src/index';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { runExport } from '../../server/src/subjects/transfer-command';
import { runTransfer } from '../helpers/transfer';
import type { DirectoryPasswords } from '../../server/src/subjects/store';
import { TEST_CREDENTIALS, TEST_HASH, testConfigDocument, type TestServer } from '../helpers/core-server';
import { ldapwhoami, slapdRequirement, startSlapd, type Slapd } from '../helpers/ldap';
import { login } from '../helpers/login';
import { describeWithService } from '../helpers/services';
import { portalLogin, startCoreAndGateway, stopCoreAndGateway } from '../gateway/gateway-helpers';
import { soapClient, VERSIONS } from '../soap/helpers';

jest.setTimeout(60_000);

const { users } = TEST_CREDENTIALS;

describeWithService(slapdRequirement(), 'a core on the LDAP directory store', () => {
  let slapd: Slapd;
  let core: TestServer;
  let gateway: RunningGateway;
  let directory: DirectoryPasswords;
  const dn = (id: string) => `uid=${id},ou=employees,${slapd.baseDN}`;
  const subjects = () => `${core.baseUrl}/resources/contexts/employees/subjects`;

  beforeAll(async () => {
    slapd = startSlapd({ contexts: ['employees', 'customers'] });
    ({ core, gateway } = await startCoreAndGateway({
      core: {
        configure: (doc) => {
          for (const context of doc.contexts as Array<Record<string, unknown>>) context.store = 'ldap';
          doc.stores = { ldap: slapd.settings() };
        },
      },
    }));
    directory = core.core.subjects.directoryPasswords('employees')!;
  });
  afterAll(async () => {
    await stopCoreAndGateway({ core, gateway });
    slapd?.stop();
  });

  /** A USER session cookie of `user` through the core's web client. */
  async function session(user: string, password: string): Promise<string> {
    const answer = await login(core.baseUrl, { clientid: 'svc-web', user, password });
    expect(answer.status).toBe(200);
    return `SVCSESSIONID=${answer.cookie!}`;
  }

  it('a reload may not raise maxFailures to the directory’s pwdMaxFailure (5): refused, the running limits stay', () => {
    const running = core.core.config;
    const raised = structuredClone(running) as typeof running;
    raised.stores.ldap!.maxFailures = 10;
    expect(() => core.core.apply(raised)).toThrow(/stores\.ldap\.maxFailures \(10\) must be below the directory's pwdMaxFailure \(5\)/);
    expect(core.core.config).toBe(running);
    const lowered = structuredClone(running) as typeof running;
    lowered.stores.ldap!.maxFailures = 2;
    core.core.apply(lowered);
    expect(core.core.config.stores.ldap!.maxFailures).toBe(2);
    core.core.apply(running);
  });

  it('the demo’s users are directory entries whose passwords only the directory has', async () => {
    expect(ldapwhoami(slapd.url, dn('bob'), users.bob)).toBe(true);
    expect(ldapwhoami(slapd.url, dn('bob'), 'not-his-password')).toBe(false);
    const bob = (await core.core.subjects.read('employees', 'bob'))!;
    expect(bob.attributes.password).toBeUndefined();
    expect(bob.attributes.passwordAnswers).toHaveLength(2);
  });

  it('a directory user logs in through the core, by uniqueId or mail, and through the gateway', async () => {
    const byId = await login(core.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob });
    expect(byId.status).toBe(200);
    expect(byId.json).toMatchObject({ session: { type: 'USER', level: 2, principal: { uniqueId: 'bob', contextId: 'employees' } } });
    const byMail = await login(core.baseUrl, { clientid: 'svc-web', user: 'ALICE@example.com', password: users.alice });
    expect(byMail.json).toMatchObject({ session: { principal: { uniqueId: 'alice' } } });
    const portal = await portalLogin(gateway, 'bob', users.bob, { visitor: 'visitor-bob' });
    expect(portal.status).toBe(200);
    expect(portal.json()).toMatchObject({ session: { principal: { uniqueId: 'bob', contextId: 'employees' }, level: 2 }, roles: ['user'] });
  });

  it('a wrong password, an empty password, an unknown user and a locked user: the same answer, one directory round trip per context each', async () => {
    await core.core.subjects.create('employees', 'locky', { mail: 'locky@example.com', password: 'Locky-pass-123' }, 'admin');
    // stores.ldap.maxFailures (3) caps the per-subject limit: three failures lock locky in svc.
    for (let i = 0; i < 3; i++) expect((await login(core.baseUrl, { clientid: 'svc-web', user: 'locky', password: `wrong-${i}-pass` })).status).toBe(401);
    const verify = jest.spyOn(directory, 'verify');
    const spend = jest.spyOn(directory, 'spend');
    const cases: Array<[string, string, string]> = [
      ['wrong password', 'bob', 'not-bobs-password'],
      ['empty password', 'bob', ''],
      ['unknown user', 'nobody', 'whatever-pass-1'],
      ['locked user (right password)', 'locky', 'Locky-pass-123'],
    ];
    const answers: Array<{ status: number; body: unknown; work: number }> = [];
    for (const [, user, password] of cases) {
      verify.mockClear();
      spend.mockClear();
      const answer = await login(core.baseUrl, { clientid: 'svc-web', user, password });
      const { instance: _instance, ...body } = answer.json ?? {};
      answers.push({ status: answer.status, body, work: verify.mock.calls.length + spend.mock.calls.length });
    }
    // The empty password made no bind at all.
    expect(verify.mock.calls.filter(([, password]) => password === '')).toHaveLength(0);
    verify.mockRestore();
    spend.mockRestore();
    for (const answer of answers) expect(answer).toEqual({ status: 401, body: answers[0].body, work: 2 });
    expect(answers[0].body).toMatchObject({ code: 'login_failed' });
    // svc locked locky; the directory did not (its pwdMaxFailure is 5): the account still binds.
    expect(ldapwhoami(slapd.url, dn('locky'), 'Locky-pass-123')).toBe(true);
  });

  describe('the same store as the others (issue 24 item 12)', () => {
    it('bob logs in as bob, and not as ｂｏｂ, " bob", "bob " or ｂｏｂ@example.com (the directory’s matching folds them to bob)', async () => {
      expect((await login(core.baseUrl, { clientid: 'svc-web', user: 'BOB@example.com', password: users.bob })).status).toBe(200);
      for (const user of ['ｂｏｂ', ' bob', 'bob ', 'ｂｏｂ@example.com']) {
        const answer = await login(core.baseUrl, { clientid: 'svc-web', user, password: users.bob });
        expect({ user, status: answer.status, code: (answer.json as { code?: string } | undefined)?.code }).toEqual({ user, status: 401, code: 'login_failed' });
      }
      // The refusals above count against no one who exists: bob is not locked.
      expect((await login(core.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob })).status).toBe(200);
    });

    it('a free-text search for %00 finds nobody, as on SQLite', async () => {
      const admin = await session('alice', users.alice);
      const answer = await fetch(`${subjects()}?search=%00`, { headers: { cookie: admin, accept: 'application/json' } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ results: [], total: 0 });
    });

    it('a non-ASCII mail on one’s own update is 400 invalid_attributes naming mail, by REST and by SOAP; the subject is unchanged', async () => {
      const bob = await session('bob', users.bob);
      const before = await core.core.subjects.read('employees', 'bob');
      const put = await fetch(`${subjects()}/bob`, {
        method: 'PUT',
        headers: { cookie: bob, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ subject: { attributes: { mail: 'bøb@example.com' } } }),
      });
      expect(put.status).toBe(400);
      expect(await put.json()).toMatchObject({ code: 'invalid_attributes', errors: [{ path: 'subject.attributes.mail', message: "the directory's mail holds only ASCII characters (IA5 String)" }] });
      for (const version of VERSIONS) {
        const client = await soapClient(core.baseUrl, version, { cookie: bob });
        const outcome = await client.call('update', { contextId: 'employees', subjectId: 'bob', subject: { attributes: { mail: 'bøb@example.com' } } });
        expect(outcome.fault).toMatchObject({ code: 'invalid_attributes', status: 400 });
      }
      expect(await core.core.subjects.read('employees', 'bob')).toEqual(before);
    });
  });

  it('a reload whose file maps an attribute to userPassword is refused, naming the path; the running configuration stays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ldap-reload-'));
    try {
      const doc = await testConfigDocument(dir, new PasswordHasher({ ...TEST_HASH, precomputeDummy: false }));
      for (const context of doc.contexts as Array<Record<string, unknown>>) context.store = 'ldap';
      doc.stores = { ldap: slapd.settings({ attributeMap: { ...slapd.settings().attributeMap, givenName: 'userPassword' } }) };
      writeFileSync(join(dir, 'svc.json'), JSON.stringify(doc));
      const running = core.core.config;
      expect(core.reload(join(dir, 'svc.json'))).toEqual({
        ok: false,
        problems: ['stores.ldap.attributeMap.givenName: "userPassword" is a password attribute of the directory: svc never reads or writes it; svc may not map a subject attribute to it'],
      });
      expect(core.core.config).toBe(running);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two concurrent If-Match updates: one 200, one 412', async () => {
    const admin = await session('alice', users.alice);
    const read = await fetch(`${subjects()}/bob`, { headers: { cookie: admin, accept: 'application/json' } });
    const etag = read.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const put = (givenName: string) =>
      fetch(`${subjects()}/bob`, {
        method: 'PUT',
        headers: { cookie: admin, 'content-type': 'application/json', accept: 'application/json', 'if-match': etag },
        body: JSON.stringify({ subject: { attributes: { givenName } } }),
      });
    const statuses = (await Promise.all([put('One'), put('Two')])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412]);
  });

  describe('LDAP injection matches nothing it should not', () => {
    const HOSTILE = ['*', ')(', '\\00', '(|(uid=*))', '*)(uid=*', 'bob)(|(uid=*'];
    let admin: string;
    beforeAll(async () => {
      admin = await session('alice', users.alice);
    });
    const search = async (query: string) => {
      const answer = await fetch(`${subjects()}?${query}`, { headers: { cookie: admin, accept: 'application/json' } });
      expect(answer.status).toBe(200);
      return (await answer.json()) as { total: number; results: Array<{ uniqueId: string }> };
    };

    it.each(HOSTILE)('%s as a login name or a password logs nobody in', async (hostile) => {
      expect((await login(core.baseUrl, { clientid: 'svc-web', user: hostile, password: users.bob })).status).toBe(401);
      expect((await login(core.baseUrl, { clientid: 'svc-web', user: 'bob', password: hostile })).status).toBe(401);
    });

    it.each(HOSTILE)('%s in a search, or as a value in each filter form, finds nothing', async (hostile) => {
      expect((await search(`search=${encodeURIComponent(hostile)}`)).total).toBe(0);
      for (const op of ['eq', 'co', 'sw', 'ew']) {
        for (const attribute of ['uniqueId', 'mail', 'givenName', 'roles']) {
          const filter = `${attribute} ${op} ${JSON.stringify(hostile)}`;
          expect({ filter, total: (await search(`filter=${encodeURIComponent(filter)}`)).total }).toEqual({ filter, total: 0 });
        }
      }
      // `ne` of a value nobody holds is everybody: nothing was dropped or widened.
      const everybody = (await search('quantity=1000')).total;
      expect((await search(`filter=${encodeURIComponent(`mail ne ${JSON.stringify(hostile)}`)}`)).total).toBe(everybody);
    });

    it('hostile values are stored as text and found only by themselves', async () => {
      const created = await fetch(subjects(), {
        method: 'POST',
        headers: { cookie: admin, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ subject: { uniqueId: 'inj', attributes: { mail: 'inj@example.com', givenName: '*)(uid=*', familyName: '(|(uid=*))\\00' } } }),
      });
      expect(created.status).toBe(201);
      const read = (await (await fetch(`${subjects()}/inj`, { headers: { cookie: admin, accept: 'application/json' } })).json()) as { subject: { attributes: Record<string, string> } };
      expect(read.subject.attributes).toMatchObject({ givenName: '*)(uid=*', familyName: '(|(uid=*))\\00' });
      expect((await search(`filter=${encodeURIComponent('givenName eq "*)(uid=*"')}`)).results.map((r) => r.uniqueId)).toEqual(['inj']);
      expect((await search(`filter=${encodeURIComponent('familyName co "\\\\00"')}`)).results.map((r) => r.uniqueId)).toEqual(['inj']);
      expect((await search(`search=${encodeURIComponent('*)(')}`)).results.map((r) => r.uniqueId)).toEqual(['inj']);
    });

    it('a hostile forgotten-password name gets the decoys of a name that does not exist', async () => {
      for (const hostile of HOSTILE) {
        const answer = await fetch(`${subjects()}/${encodeURIComponent(hostile)}/password/forgot`, { headers: { accept: 'application/json' } });
        expect(answer.status === 400 || answer.status === 200).toBe(true);
        if (answer.status === 200) expect(((await answer.json()) as { questions: string[] }).questions).toHaveLength(2);
      }
    });
  });

  it('a visitor registers in customers: the entry and its password are in the directory, and the registrant logs in', async () => {
    const registered = await fetch(`${core.baseUrl}/resources/contexts/customers/subjects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ subject: { uniqueId: 'carol', attributes: { mail: 'carol@example.org', givenName: 'Carol', familyName: 'Cole', password: 'Carol-registers-1' } } }),
    });
    expect(registered.status).toBe(201);
    expect(((await registered.json()) as { subject: unknown }).subject).toEqual({ uniqueId: 'carol', attributes: { mail: 'carol@example.org', givenName: 'Carol', familyName: 'Cole', roles: ['user'] } });
    expect(ldapwhoami(slapd.url, `uid=carol,ou=customers,${slapd.baseDN}`, 'Carol-registers-1')).toBe(true);
    const answer = await login(core.baseUrl, { clientid: 'svc-web', user: 'carol@example.org', password: 'Carol-registers-1' });
    expect(answer.json).toMatchObject({ session: { principal: { uniqueId: 'carol', contextId: 'customers' } } });
  });

  it('svc export of an ldap context carries no password, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ldap-export-'));
    try {
      const doc = await testConfigDocument(dir, new PasswordHasher({ ...TEST_HASH, precomputeDummy: false }));
      for (const context of doc.contexts as Array<Record<string, unknown>>) context.store = 'ldap';
      doc.stores = { ldap: slapd.settings() };
      writeFileSync(join(dir, 'svc.json'), JSON.stringify(doc));
      const { code, stdout, stderr } = await runTransfer(runExport, ['--config', join(dir, 'svc.json'), '--context', 'employees']);
      expect(code).toBe(0);
      expect(stderr).toContain('employees is on a directory (ldap), which keeps the passwords: no password is exported');
      const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as { uniqueId: string; attributes: Record<string, unknown> });
      expect(lines.map((l) => l.uniqueId)).toEqual(expect.arrayContaining(['alice', 'bob']));
      for (const line of lines) expect(line.attributes.password).toBeUndefined();
      expect(lines.find((l) => l.uniqueId === 'bob')!.attributes.passwordAnswers).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the forgotten-password reset changes the password in the directory; its own policy refuses a password in its history', async () => {
    let cookie = '';
    const visit = async (method: string, body?: unknown) => {
      const answer = await fetch(`${subjects()}/bob/password/forgot`, {
        method,
        headers: { cookie, 'content-type': 'application/json', accept: 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const set = answer.headers.get('set-cookie');
      if (set) cookie = set.split(';')[0];
      return answer;
    };
    // The injection attempts above spent bob's three tries (stores.ldap.maxFailures): an admin lifts his lock.
    const admin = await session('alice', users.alice);
    expect((await fetch(`${subjects()}/bob/lockout`, { method: 'DELETE', headers: { cookie: admin, accept: 'application/json' } })).status).toBe(204);
    expect((await visit('GET')).status).toBe(200);
    expect((await visit('PUT', { answers: TEST_CREDENTIALS.answers.bob })).status).toBe(200);
    expect((await visit('PUT', { password: 'Reset-bob-pass-7' })).status).toBe(204);
    expect(ldapwhoami(slapd.url, dn('bob'), 'Reset-bob-pass-7')).toBe(true);
    expect(ldapwhoami(slapd.url, dn('bob'), users.bob)).toBe(false);
    expect((await login(core.baseUrl, { clientid: 'svc-web', user: 'bob', password: 'Reset-bob-pass-7' })).status).toBe(200);

    // Back to the first password: svc's policy has nothing against it, the directory's history has.
    const bob = await session('bob', 'Reset-bob-pass-7');
    const change = await fetch(`${subjects()}/bob/password`, {
      method: 'PUT',
      headers: { cookie: bob, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ oldPassword: 'Reset-bob-pass-7', newPassword: users.bob }),
    });
    expect(change.status).toBe(400);
    expect(await change.json()).toMatchObject({ code: 'weak_password', errors: [{ path: 'password', message: 'Password is in history of old passwords' }] });
    expect(ldapwhoami(slapd.url, dn('bob'), 'Reset-bob-pass-7')).toBe(true);

    // A reset the directory refuses writes nothing and spends nothing: the visitor chooses another.
    expect((await visit('GET')).status).toBe(200);
    expect((await visit('PUT', { answers: TEST_CREDENTIALS.answers.bob })).status).toBe(200);
    const refused = await visit('PUT', { password: users.bob });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'weak_password', errors: [{ message: 'Password is in history of old passwords' }] });
    expect((await visit('PUT', { password: 'Reset-bob-pass-8' })).status).toBe(204);
    expect(ldapwhoami(slapd.url, dn('bob'), 'Reset-bob-pass-8')).toBe(true);
    expect((await visit('PUT', { password: 'Reset-bob-pass-9' })).status).toBe(400);
  });

  describe('an entry whose DN has another RDN than idAttribute (cn=carol, uid=carol)', () => {
    const password = 'Carol-entry-pass-1';
    const carolDN = () => `cn=carol,ou=employees,${slapd.baseDN}`;
    const entryAt = async (dnText: string) => {
      const client = new Client({ url: slapd.url });
      await client.bind(slapd.adminDN, slapd.adminPassword);
      try {
        return (await client.search(dnText, { scope: 'base', attributes: ['*'] })).searchEntries[0];
      } catch {
        return undefined;
      } finally {
        await client.unbind();
      }
    };
    beforeAll(async () => {
      // An entry svc did not write: named by cn, its uid the login name, its password set in the directory.
      const client = new Client({ url: slapd.url });
      await client.bind(slapd.adminDN, slapd.adminPassword);
      try {
        await client.add(carolDN(), { objectClass: ['account', 'svcSubject'], cn: 'carol', uid: 'carol', mail: 'carol.cole@example.com', userPassword: password });
      } finally {
        await client.unbind();
      }
      expect(ldapwhoami(slapd.url, carolDN(), password)).toBe(true);
    });

    it('logs in with her password, checked by a bind to the DN the search found; a wrong one is login_failed', async () => {
      const byId = await login(core.baseUrl, { clientid: 'svc-web', user: 'carol', password });
      expect(byId.status).toBe(200);
      expect(byId.json).toMatchObject({ session: { type: 'USER', level: 2, principal: { uniqueId: 'carol', contextId: 'employees' } } });
      expect((await login(core.baseUrl, { clientid: 'svc-web', user: 'CAROL.cole@example.com', password })).status).toBe(200);
      const wrong = await login(core.baseUrl, { clientid: 'svc-web', user: 'carol', password: 'not-carols-pass-1' });
      expect(wrong.status).toBe(401);
      expect(wrong.json).toMatchObject({ code: 'login_failed' });
    });

    it('is read, updated, changes her own password and is deleted at her own DN (no entry appears at uid=carol)', async () => {
      const admin = await session('alice', users.alice);
      const read = await fetch(`${subjects()}/carol`, { headers: { cookie: admin, accept: 'application/json' } });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ subject: { uniqueId: 'carol', attributes: { mail: 'carol.cole@example.com' } } });
      const put = await fetch(`${subjects()}/carol`, {
        method: 'PUT',
        headers: { cookie: admin, 'content-type': 'application/json', accept: 'application/json', 'if-match': read.headers.get('etag')! },
        body: JSON.stringify({ subject: { attributes: { mail: 'carol.cole@example.com', givenName: 'Carol' } } }),
      });
      expect(put.status).toBe(200);
      expect(await entryAt(carolDN())).toMatchObject({ cn: 'carol', uid: 'carol', givenName: 'Carol', svcId: 'carol' });
      expect(await entryAt(dn('carol'))).toBeUndefined();

      const carol = await session('carol', password);
      const change = await fetch(`${subjects()}/carol/password`, {
        method: 'PUT',
        headers: { cookie: carol, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ oldPassword: password, newPassword: 'Carol-changed-pass-2' }),
      });
      expect(change.status).toBe(204);
      expect(ldapwhoami(slapd.url, carolDN(), 'Carol-changed-pass-2')).toBe(true);
      expect((await login(core.baseUrl, { clientid: 'svc-web', user: 'carol', password: 'Carol-changed-pass-2' })).status).toBe(200);

      const removed = await fetch(`${subjects()}/carol`, { method: 'DELETE', headers: { cookie: admin, accept: 'application/json' } });
      expect(removed.status).toBe(204);
      expect(await entryAt(carolDN())).toBeUndefined();
      expect((await login(core.baseUrl, { clientid: 'svc-web', user: 'carol', password: 'Carol-changed-pass-2' })).status).toBe(401);
    });
  });
});
