/**
 * The store contract on the LDAP directory store against a real OpenLDAP (test/ldap/slapd.sh: its
 * own slapd on a spare port, with the unique, sssvlv and ppolicy overlays), minus the password-hash
 * checks SPEC 13 exempts, and what is the directory's own: the filter reaching the directory
 * escaped, the password-policy limit, an unreachable directory. Without slapd the suite is skipped
 * (or fails under SVC_TEST_REQUIRE_ALL=1).
 */
import { Client } from 'ldapts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { InvalidAttributes, ServiceUnavailable } from '../../common/src/errors';
import { buildConfig } from '../../server/src/config/load';
import { demoConfigDocument } from '../../server/src/demo/demo-config';
import { SubjectGroupsFile } from '../../server/src/subjects/groups-file';
import { SubjectEventsFile } from '../../server/src/subjects/events-file';
import { LdapSubjectStore, ldapShapes } from '../../server/src/subjects/ldap-store';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import type { SubjectStore } from '../../server/src/subjects/store';
import { SubjectService } from '../../server/src/subjects/subject-service';
import { ImportRefused, importLines } from '../../server/src/subjects/transfer';
import { TEST_CREDENTIALS, TEST_HASH } from '../helpers/core-server';
import { ldapwhoami, slapdRequirement, startSlapd, type Slapd } from '../helpers/ldap';
import { describeWithService } from '../helpers/services';
import { subjectStoreContract } from './store-contract';

jest.setTimeout(60_000);

const SYSTEM_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
const config = buildConfig(demoConfigDocument({ credentials: TEST_CREDENTIALS, systemPasswordHash: SYSTEM_HASH, dataDir: '/nonexistent', host: '127.0.0.1', port: 0 }), {});
const shapes = ldapShapes(config.contexts);
const CONTEXTS = ['employees', 'customers'];

describeWithService(slapdRequirement(), 'LdapSubjectStore', () => {
  let slapd: Slapd;
  const opened: SubjectStore[] = [];
  let eventsDir: string;
  let eventFiles = 0;
  const storeOn = async (more = {}, options: { events?: SubjectEventsFile; groups?: SubjectGroupsFile } = {}) => {
    const store = new LdapSubjectStore(slapd.settings(more), shapes, options);
    opened.push(store);
    return store;
  };
  beforeAll(() => {
    slapd = startSlapd({ contexts: CONTEXTS });
    eventsDir = mkdtempSync(join(tmpdir(), 'svc-ldap-events-'));
  });
  afterAll(() => {
    slapd?.stop();
    rmSync(eventsDir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  describe('the store contract', () => {
    subjectStoreContract({
      make: async () => {
        await slapd.clear(CONTEXTS);
        // Its subject events in svc's own file (a fresh data directory's events.sqlite each time).
        const dir = join(eventsDir, String(++eventFiles));
        const store = await storeOn({}, { events: new SubjectEventsFile(join(dir, 'events.sqlite')), groups: new SubjectGroupsFile(join(dir, 'groups.sqlite')) });
        await store.open!();
        return store;
      },
      // Another core sharing the data directory: its groups.sqlite.
      twin: async (store) => {
        const twin = await storeOn({}, { groups: new SubjectGroupsFile((store.groups as SubjectGroupsFile).file) });
        await twin.open!();
        return twin;
      },
      passwordsElsewhere: true,
      asciiMail: true,
    });
  });

  describe('what is the directory’s own', () => {
    beforeEach(() => slapd.clear(CONTEXTS));

    it('entries are where SPEC 13 says: uid=<id>,ou=<context>,<baseDN>, svc’s attributes mapped, no password', async () => {
      const store = await storeOn();
      await store.create('employees', { uniqueId: 'a+b', attributes: { mail: 'ab@x.org', familyName: 'Berg', roles: ['user', 'admin'] }, keys: ['login:a+b', 'login:ab@x.org', 'unique:mail:ab@x.org'], indexed: [] });
      const admin = new Client({ url: slapd.url });
      await admin.bind(slapd.adminDN, slapd.adminPassword);
      const { searchEntries } = await admin.search(`uid=a\\+b,ou=employees,${slapd.baseDN}`, { scope: 'base', attributes: ['*'] });
      await admin.unbind();
      expect(searchEntries[0]).toMatchObject({ uid: 'a+b', sn: 'Berg', mail: 'ab@x.org', svcRole: ['user', 'admin'], svcId: 'a+b', svcVersion: '1' });
      expect(searchEntries[0].objectClass).toEqual(['account', 'svcSubject']);
    });

    it('an entry named by another RDN (cn=dave, uid=dave) is found, read, written, bound and deleted at its own DN', async () => {
      const daveDN = `cn=dave,ou=employees,${slapd.baseDN}`;
      const admin = new Client({ url: slapd.url });
      await admin.bind(slapd.adminDN, slapd.adminPassword);
      const at = async (dn: string) => (await admin.search(dn, { scope: 'base', attributes: ['*'] }).catch(() => ({ searchEntries: [] }))).searchEntries[0];
      try {
        await admin.add(daveDN, { objectClass: ['account', 'svcSubject'], cn: 'dave', uid: 'dave', mail: 'dave@x.org', userPassword: 'Dave-entry-pass-1' });
        const store = await storeOn();
        const found = (await store.findLogin('employees', 'login:dave'))!;
        expect(found.subject).toMatchObject({ uniqueId: 'dave', attributes: { mail: 'dave@x.org' } });
        await expect(store.passwords.verify(found.passwordTarget!, 'Dave-entry-pass-1')).resolves.toBe(true);
        await expect(store.passwords.verify(found.passwordTarget!, 'not-daves-pass')).resolves.toBe(false);
        await expect(store.get('employees', 'dave')).resolves.toMatchObject({ uniqueId: 'dave' });
        await expect(store.get('employees', 'DAVE')).resolves.toBeUndefined();
        // Its id is taken: no second entry at uid=dave (nor uid=DAVE) beside it.
        await expect(store.create('employees', { uniqueId: 'dave', attributes: {}, keys: ['login:dave'], indexed: [] })).rejects.toMatchObject({ status: 409 });
        await expect(store.create('employees', { uniqueId: 'DAVE', attributes: {}, keys: ['login:dave'], indexed: [] })).rejects.toMatchObject({ status: 409 });
        await store.update('employees', { uniqueId: 'dave', attributes: { mail: 'dave@x.org', givenName: 'Dave' }, keys: ['login:dave', 'login:dave@x.org', 'unique:mail:dave@x.org'], indexed: [] });
        expect(await at(daveDN)).toMatchObject({ givenName: 'Dave', svcId: 'dave', svcVersion: '2' });
        expect(await at(`uid=dave,ou=employees,${slapd.baseDN}`)).toBeUndefined();
        await store.passwords.set('employees', 'dave', 'Dave-changed-pass-2');
        expect(ldapwhoami(slapd.url, daveDN, 'Dave-changed-pass-2')).toBe(true);
        await expect(store.passwords.verify((await store.passwords.target('employees', 'dave'))!, 'Dave-changed-pass-2')).resolves.toBe(true);
        await expect(store.delete('employees', 'dave')).resolves.toBe(true);
        expect(await at(daveDN)).toBeUndefined();
        await expect(store.passwords.target('employees', 'dave')).resolves.toBeUndefined();
        await expect(store.passwords.set('employees', 'dave', 'Dave-changed-pass-3')).rejects.toMatchObject({ status: 404 });
      } finally {
        await admin.unbind();
      }
    });

    it('the credential version a reset link is bound to (entryCSN): the same until a write, new on every password change, even two in one second', async () => {
      const store = await storeOn();
      await store.create('employees', { uniqueId: 'erin', attributes: { mail: 'erin@x.org' }, keys: ['login:erin', 'login:erin@x.org', 'unique:mail:erin@x.org'], indexed: [] });
      await store.passwords.set('employees', 'erin', 'Erin-first-pass-1');
      const seen = [await store.passwords.credentialVersion('employees', 'erin')];
      expect(seen[0]).toMatch(/^\d{14}\.\d{6}Z#/);
      // Reading and a successful bind write nothing.
      await store.get('employees', 'erin');
      await expect(store.passwords.verify((await store.passwords.target('employees', 'erin'))!, 'Erin-first-pass-1')).resolves.toBe(true);
      await expect(store.passwords.credentialVersion('employees', 'erin')).resolves.toBe(seen[0]);
      // Back to back, well within one second (pwdChangedTime and modifyTimestamp would not tell them apart).
      for (const password of ['Erin-second-pass-2', 'Erin-third-pass-3']) {
        await store.passwords.set('employees', 'erin', password);
        seen.push(await store.passwords.credentialVersion('employees', 'erin'));
      }
      expect(new Set(seen).size).toBe(3);
      await expect(store.passwords.credentialVersion('employees', 'nobody')).resolves.toBeUndefined();
    });

    it('svc import whose third line has a mail the directory cannot hold: refused, naming line 3, nothing written', async () => {
      const store = await storeOn();
      const service = new SubjectService(new Map(CONTEXTS.map((id) => [id, { config: config.contexts.find((c) => c.id === id)!, store }])), new PasswordHasher({ ...TEST_HASH, precomputeDummy: false }), () => new Set());
      const line = (id: string, mail: string) => JSON.stringify({ uniqueId: id, attributes: { mail, roles: ['user'] } });
      const lines = [line('ann', 'ann@x.org'), line('ben', 'ben@x.org'), line('cat', 'cät@x.org'), line('dan', 'dan@x.org')];
      const refused = await importLines(service, 'employees', Readable.from(lines), { replace: false }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ImportRefused);
      expect((refused as ImportRefused).problems).toEqual([
        "line 3: subject cat: the directory cannot hold these values; subject.attributes.mail: the directory's mail holds only ASCII characters (IA5 String)",
      ]);
      await expect(store.count('employees')).resolves.toBe(0);
    });

    it('an import with a key the directory’s unique overlay folds onto another’s (ｂｅｎ, ben) is refused before its first entry', async () => {
      const store = await storeOn();
      await store.create('employees', { uniqueId: 'fw', attributes: {}, keys: ['login:fw', 'unique:nick:ｂｅｎ'], indexed: [] });
      const at = new Date(0).toISOString();
      const batch = [
        { write: { uniqueId: 'ann', attributes: {}, keys: ['login:ann'], indexed: [] }, created: at, modified: at },
        { write: { uniqueId: 'ben', attributes: {}, keys: ['login:ben', 'unique:nick:ben'], indexed: [] }, created: at, modified: at },
      ];
      const refused = await store.importSubjects('employees', batch, { replace: false }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ status: 409, extensions: { uniqueId: 'ben', conflicts: ['nick'] } });
      await expect(store.count('employees')).resolves.toBe(1);
    });

    it('two values for an attribute the directory holds one of (roles mapped to displayName, SINGLE-VALUE) are 400, nothing written', async () => {
      const store = await storeOn({ attributeMap: { ...slapd.settings().attributeMap, roles: 'displayName' } });
      const refused = await store.create('employees', { uniqueId: 'two', attributes: { roles: ['a', 'b'] }, keys: ['login:two'], indexed: [] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(InvalidAttributes);
      expect((refused as InvalidAttributes).errors).toEqual([{ path: 'subject.attributes.roles', message: "the directory's displayName holds one value" }]);
      await expect(store.exists('employees', 'two')).resolves.toBe(false);
      await expect(store.create('employees', { uniqueId: 'one', attributes: { roles: ['a'] }, keys: ['login:one'], indexed: [] })).resolves.toMatchObject({ attributes: { roles: ['a'] } });
    });

    it('an attribute the directory’s schema calls operational is refused at open, whatever the configuration let through', async () => {
      for (const attribute of ['entryUUID', 'namingContexts']) {
        const store = await storeOn({ attributeMap: { ...slapd.settings().attributeMap, familyName: attribute } });
        await expect(store.open()).rejects.toThrow(`stores.ldap: "${attribute}" is an operational attribute of the directory (its schema says so); svc may not map a subject attribute to it`);
      }
    });

    it('a maxFailures at or above the directory’s pwdMaxFailure (5 here) is refused at open', async () => {
      const fine = await storeOn({ maxFailures: 4 });
      await expect(fine.open!()).resolves.toBeUndefined();
      expect(fine.directoryMaxFailure).toBe(5);
      await expect((await storeOn({ maxFailures: 5 })).open!()).rejects.toThrow(/maxFailures \(5\) must be below the directory's pwdMaxFailure \(5\)/);
    });

    it('StartTLS and ldaps: with the directory’s CA the store works; without it, the certificate is refused', async () => {
      const tls = startSlapd({ tls: true, contexts: CONTEXTS });
      try {
        const trusted = new LdapSubjectStore(tls.settings({ startTLS: true, caFile: tls.ca }), shapes);
        opened.push(trusted);
        await trusted.open();
        await trusted.create('employees', { uniqueId: 'tls', attributes: {}, keys: ['login:tls'], indexed: [] });
        await expect(trusted.exists('employees', 'tls')).resolves.toBe(true);
        const target = await trusted.passwords.target('employees', 'tls');
        expect(target).toBeDefined();
        await expect(trusted.passwords.verify(target!, 'no-password-set')).resolves.toBe(false);
        const untrusted = new LdapSubjectStore(tls.settings({ startTLS: true }), shapes);
        opened.push(untrusted);
        await expect(untrusted.ping()).resolves.toBe(false);
        await expect(untrusted.get('employees', 'tls')).rejects.toBeInstanceOf(ServiceUnavailable);
        const ldaps = new LdapSubjectStore(tls.settings({ url: tls.ldapsUrl, caFile: tls.ca }), shapes);
        opened.push(ldaps);
        await expect(ldaps.get('employees', 'tls')).resolves.toMatchObject({ uniqueId: 'tls' });
        const ldapsUntrusted = new LdapSubjectStore(tls.settings({ url: tls.ldapsUrl }), shapes);
        opened.push(ldapsUntrusted);
        await expect(ldapsUntrusted.ping()).resolves.toBe(false);
      } finally {
        await Promise.all(opened.splice(0).map((s) => s.close()));
        tls.stop();
      }
    });

    it('many sorted searches on a small pool never run out of the directory’s sort slots (olcSssVlvMaxPerConn 16)', async () => {
      const store = await storeOn({ poolSize: 2 });
      await store.create('employees', { uniqueId: 'one', attributes: {}, keys: ['login:one'], indexed: [] });
      const pages = await Promise.all(Array.from({ length: 100 }, () => store.search('employees', { offset: 0, quantity: 10 })));
      for (const page of pages) expect(page.total).toBe(1);
    });

    it('after the directory restarts, the pool’s connections are replaced and bound again (never used anonymously)', async () => {
      const store = await storeOn({ poolSize: 2 });
      await store.create('employees', { uniqueId: 'kept', attributes: { mail: 'kept@x.org' }, keys: ['login:kept'], indexed: [] });
      await Promise.all([store.get('employees', 'kept'), store.get('employees', 'kept')]);
      await slapd.restart();
      // The first call after the restart may meet a connection that broke under it: 503, never "not found".
      const first = await store.get('employees', 'kept').catch((e: unknown) => e);
      if (!(first instanceof ServiceUnavailable)) expect(first).toMatchObject({ uniqueId: 'kept' });
      for (let i = 0; i < 4; i++) expect(await store.get('employees', 'kept')).toMatchObject({ uniqueId: 'kept', attributes: { mail: 'kept@x.org' } });
      expect((await store.search('employees', { offset: 0, quantity: 10 })).total).toBe(1);
    });

    it('an unreachable directory answers 503 and ping false', async () => {
      const store = await storeOn({ url: 'ldap://127.0.0.1:1', connectTimeoutMs: 500 });
      await expect(store.ping()).resolves.toBe(false);
      await expect(store.get('employees', 'bob')).rejects.toBeInstanceOf(ServiceUnavailable);
    });
  });
});
