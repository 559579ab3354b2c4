/**
 * The behaviour every SubjectStore must have (SPEC sections 3, 12 and 13), run against each variant:
 * memory-store.test.ts, sqlite-store.test.ts, postgres-store.test.ts, ldap-store.test.ts. Writes are made as the subject
 * service makes them (its uniqueness keys and search values), through the service where its rules
 * matter (If-Match, merging, hashing).
 */
import { Conflict, InvalidAttributes, InvalidFilter, NotFound, PreconditionFailed } from '../../common/src/errors';
import { buildConfig } from '../../server/src/config/load';
import type { ContextConfig } from '../../server/src/config/types';
import { demoConfigDocument } from '../../server/src/demo/demo-config';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import type { CompareOp, FilterNode } from '../../server/src/subjects/filter/ast';
import type { ImportedSubject, SubjectStore, SubjectWrite } from '../../server/src/subjects/store';
import type { Attributes } from '../../server/src/subjects/subject';
import type { StoredGroup } from '../../server/src/subjects/subject-groups';
import { SubjectService } from '../../server/src/subjects/subject-service';
import { TEST_CREDENTIALS, TEST_HASH } from '../helpers/core-server';

export interface SubjectStoreHarness {
  /** A new, empty store, ready to use. */
  make(): Promise<SubjectStore>;
  /** A second store over the same data as `store`, as another core would open it (shared stores only). */
  twin?(store: SubjectStore): Promise<SubjectStore>;
  /**
   * The passwords live elsewhere (an LDAP directory, SPEC 13): the store keeps no password hash, so
   * the hash checks do not apply and an imported password is not kept.
   */
  passwordsElsewhere?: boolean;
  /** Its `mail` holds ASCII alone (a directory's IA5 String `mail`): a non-ASCII address is refused, never stored. */
  asciiMail?: boolean;
}

const E = 'employees';
const C = 'customers';
// Any PHC-shaped string will do for the configuration's system user: nobody logs in here.
const SYSTEM_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
const config = buildConfig(
  demoConfigDocument({ credentials: TEST_CREDENTIALS, systemPasswordHash: SYSTEM_HASH, dataDir: '/nonexistent', host: '127.0.0.1', port: 0 }),
  {},
);
const contextConfig = (id: string): ContextConfig => config.contexts.find((c) => c.id === id)!;
const hasher = new PasswordHasher({ ...TEST_HASH, precomputeDummy: false });

/** The subject service over `store` for both demo contexts. */
function serviceOver(store: SubjectStore): SubjectService {
  return new SubjectService(
    new Map([E, C].map((id) => [id, { config: contextConfig(id), store }])),
    hasher,
    () => new Set(['svcadmin']),
  );
}

/** What CREATE and UPDATE hand the store for these attributes. */
const write = (id: string, attributes: Attributes, context = E): SubjectWrite => serviceOver(undefined as never).toWrite(contextConfig(context), id, attributes);
const person = (id: string, mail = `${id.toLowerCase()}@example.com`, more: Attributes = {}): SubjectWrite =>
  write(id, { mail, givenName: id, roles: ['user'], ...more });

const ids = (subjects: Array<{ uniqueId: string }>) => subjects.map((s) => s.uniqueId);
const codePointOrder = (list: string[]) => [...list].sort();

/** Settles all, and says how many were fulfilled and what the rejections were. */
async function race<T>(calls: Array<Promise<T>>): Promise<{ won: T[]; lost: unknown[] }> {
  const settled = await Promise.allSettled(calls);
  return {
    won: settled.filter((s): s is PromiseFulfilledResult<Awaited<T>> => s.status === 'fulfilled').map((s) => s.value),
    lost: settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason),
  };
}

/** The filter data set: every form of SPEC section 3's subset and SCIM's flat forms (SPEC 14) are tried on it below. */
const PEOPLE: Array<[string, Attributes]> = [
  ['alice', { mail: 'alice@example.com', givenName: 'Alice', familyName: 'Anders', roles: ['admin', 'user'] }],
  ['bob', { mail: 'bob@example.com', givenName: 'Bob', familyName: 'Berg', roles: ['user'] }],
  ['Carol', { mail: 'carol@Example.ORG', givenName: 'Carol', familyName: "O'Brien", roles: [] }],
  ['dave.d', { mail: 'dave_d@x.org', givenName: 'Dave', familyName: '100% Dahl', roles: ['auditor'], disabled: 'true' }],
  ['eve', { mail: 'eve@x.org', givenName: 'Ève', roles: ['user', 'auditor'] }],
  ['zed-1', { mail: 'z@x.org', givenName: 'Zoë', familyName: 'Ångström', roles: ['USER'] }],
];

const FILTERS: Array<[string, string[]]> = [
  ['mail eq "BOB@example.com"', ['bob']],
  ['mail ne "bob@example.com"', ['Carol', 'alice', 'dave.d', 'eve', 'zed-1']],
  ['mail co "example"', ['Carol', 'alice', 'bob']],
  ['mail sw "d"', ['dave.d']],
  ['mail ew ".ORG"', ['Carol', 'dave.d', 'eve', 'zed-1']],
  ['mail co "_"', ['dave.d']],
  ['familyName pr', ['Carol', 'alice', 'bob', 'dave.d', 'zed-1']],
  ['not (familyName pr)', ['eve']],
  ['roles pr', ['alice', 'bob', 'dave.d', 'eve', 'zed-1']],
  ['roles eq "user"', ['alice', 'bob', 'eve', 'zed-1']],
  ['roles ne "user"', ['Carol', 'dave.d']],
  ['roles eq "user" and roles eq "auditor"', ['eve']],
  ['roles eq "admin" or disabled eq "true"', ['alice', 'dave.d']],
  ['(roles eq "user" or roles eq "auditor") and not (mail ew ".org")', ['alice', 'bob']],
  ['not (roles eq "user" or mail co "example")', ['dave.d']],
  ['familyName co "%"', ['dave.d']],
  ['familyName co "\'"', ['Carol']],
  ['givenName eq "ève"', ['eve']],
  ['givenName sw "ZO"', ['zed-1']],
  ['familyName ew "STRÖM"', ['zed-1']],
  ['uniqueId eq "CAROL"', ['Carol']],
  ['uniqueId ne "alice"', ['Carol', 'bob', 'dave.d', 'eve', 'zed-1']],
  ['uniqueId sw "d"', ['dave.d']],
  ['uniqueId co "-"', ['zed-1']],
  ['uniqueId ew "E"', ['alice', 'eve']],
  ['uniqueId pr', ['Carol', 'alice', 'bob', 'dave.d', 'eve', 'zed-1']],
  ['mail eq "nobody@example.com"', []],
  // SCIM's forms (RFC 7644 section 3.4.2.2, SPEC 14): ordering on the folded value by code point, any value of a list.
  ['familyName gt "berg"', ['Carol', 'zed-1']],
  ['familyName GE "BERG"', ['Carol', 'bob', 'zed-1']],
  ['familyName lt "berg"', ['alice', 'dave.d']],
  ['familyName le "Berg"', ['alice', 'bob', 'dave.d']],
  ['givenName gt "zoe"', ['eve', 'zed-1']],
  ['mail lt "c"', ['alice', 'bob']],
  ['mail ge ""', ['Carol', 'alice', 'bob', 'dave.d', 'eve', 'zed-1']],
  ['familyName le ""', []],
  ['roles ge "user"', ['alice', 'bob', 'eve', 'zed-1']],
  ['roles lt "b"', ['alice', 'dave.d', 'eve']],
  ['not (roles lt "b")', ['Carol', 'bob', 'zed-1']],
  ['not (familyName ge "a")', ['dave.d', 'eve']],
  ['uniqueId gt "carol"', ['dave.d', 'eve', 'zed-1']],
  ['uniqueId le "BOB"', ['alice', 'bob']],
  ['(familyName gt "m" or givenName lt "b") and not (mail ew ".org")', ['alice']],
  ['not (not (disabled pr) and (roles eq "user" or roles pr))', ['Carol', 'dave.d']],
  ['((mail sw "a") or (mail sw "b")) and (roles pr)', ['alice', 'bob']],
  ['roles eq "user" and not (familyName pr or givenName lt "c")', ['eve']],
];

export function subjectStoreContract(harness: SubjectStoreHarness): void {
  const open: SubjectStore[] = [];
  let store: SubjectStore;
  let service: SubjectService;

  /** The store as a second core would see it (the same store when the variant cannot be shared). */
  const other = async (): Promise<SubjectStore> => {
    if (!harness.twin) return store;
    const twin = await harness.twin(store);
    open.push(twin);
    return twin;
  };

  beforeEach(async () => {
    store = await harness.make();
    open.push(store);
    service = serviceOver(store);
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  describe('CRUD', () => {
    it('creates version 1 and reads it back exactly, by exact uniqueId only', async () => {
      const created = await store.create(E, person('bob', 'Bob@Example.com', { familyName: 'Berg' }));
      expect(created).toMatchObject({ uniqueId: 'bob', version: 1 });
      expect(created.created).toBe(created.modified);
      expect(Number.isNaN(Date.parse(created.created))).toBe(false);
      const read = await store.get(E, 'bob');
      expect(read).toEqual(created);
      expect(read!.attributes).toEqual({ mail: 'Bob@Example.com', givenName: 'bob', roles: ['user'], familyName: 'Berg' });
      await expect(store.get(E, 'Bob')).resolves.toBeUndefined();
      await expect(store.exists(E, 'bob')).resolves.toBe(true);
      await expect(store.exists(E, 'Bob')).resolves.toBe(false);
      await expect(store.count(E)).resolves.toBe(1);
    });

    it('keeps contexts apart: the same uniqueId and the same mail in two contexts are two subjects', async () => {
      await store.create(E, person('bob'));
      await store.create(C, write('bob', { mail: 'bob@example.com', givenName: 'Customer Bob' }, C));
      expect((await store.get(C, 'bob'))!.attributes.givenName).toBe('Customer Bob');
      expect((await store.get(E, 'bob'))!.attributes.givenName).toBe('bob');
      await store.delete(C, 'bob');
      await expect(store.exists(C, 'bob')).resolves.toBe(false);
      await expect(store.exists(E, 'bob')).resolves.toBe(true);
      expect((await store.search(E, { offset: 0, quantity: 10 })).total).toBe(1);
      await expect(store.count(C)).resolves.toBe(0);
    });

    it('finds a subject by any of its login names, folded', async () => {
      await store.create(E, person('Bob', 'Bob.Berg@Example.com'));
      expect((await service.findByLoginName(E, 'bob'))!.uniqueId).toBe('Bob');
      expect((await service.findByLoginName(E, 'BOB.BERG@example.COM'))!.uniqueId).toBe('Bob');
      await expect(service.findByLoginName(E, 'berg')).resolves.toBeUndefined();
      await expect(service.findByLoginName(C, 'bob')).resolves.toBeUndefined();
    });

    it('updates: the version goes up, keys and search values follow the new attributes', async () => {
      await store.create(E, person('bob', 'bob@example.com'));
      const updated = await store.update(E, person('bob', 'robert@example.com', { givenName: 'Robert' }), 1);
      expect(updated).toMatchObject({ uniqueId: 'bob', version: 2, attributes: { mail: 'robert@example.com', givenName: 'Robert' } });
      expect(await store.get(E, 'bob')).toEqual(updated);
      expect((await service.findByLoginName(E, 'robert@example.com'))!.uniqueId).toBe('bob');
      await expect(service.findByLoginName(E, 'bob@example.com')).resolves.toBeUndefined();
      expect(ids((await service.search(E, { filter: 'givenName eq "robert"', offset: 0, quantity: 10 })).results)).toEqual(['bob']);
      expect((await service.search(E, { filter: 'mail eq "bob@example.com"', offset: 0, quantity: 10 })).total).toBe(0);
      // The old mail is free again.
      await store.create(E, person('bobby', 'bob@example.com'));
    });

    it('an update of a missing subject is NotFound; a stale version is PreconditionFailed and changes nothing', async () => {
      await expect(store.update(E, person('ghost'))).rejects.toBeInstanceOf(NotFound);
      await expect(store.update(E, person('ghost'), 1)).rejects.toBeInstanceOf(NotFound);
      const created = await store.create(E, person('bob'));
      await store.update(E, person('bob', 'bob@example.com', { givenName: 'B' }), 1);
      await expect(store.update(E, person('bob', 'other@example.com', { givenName: 'C' }), 1)).rejects.toBeInstanceOf(PreconditionFailed);
      const now = await store.get(E, 'bob');
      expect(now).toMatchObject({ version: 2, attributes: { mail: 'bob@example.com', givenName: 'B' }, created: created.created });
      await expect(service.findByLoginName(E, 'other@example.com')).resolves.toBeUndefined();
    });

    it('deletes a subject with its keys and search values', async () => {
      await store.create(E, person('bob'));
      await expect(store.delete(E, 'bob')).resolves.toBe(true);
      await expect(store.delete(E, 'bob')).resolves.toBe(false);
      await expect(store.get(E, 'bob')).resolves.toBeUndefined();
      await expect(service.findByLoginName(E, 'bob@example.com')).resolves.toBeUndefined();
      expect((await service.search(E, { search: 'bob', offset: 0, quantity: 10 })).total).toBe(0);
      await expect(store.count(E)).resolves.toBe(0);
      const again = await store.create(E, person('bob'));
      expect(again.version).toBe(1);
    });
  });

  describe('uniqueness, case-insensitive, enforced by the store', () => {
    it('refuses a uniqueId that exists, in any case', async () => {
      await store.create(E, person('bob'));
      await expect(store.create(E, person('bob', 'x@example.com'))).rejects.toThrow(/subject bob exists/);
      const variant = await store.create(E, person('BOB', 'y@example.com')).catch((e: unknown) => e);
      expect(variant).toBeInstanceOf(Conflict);
      expect((variant as Conflict).extensions.conflicts).toEqual(['login name']);
      await expect(store.count(E)).resolves.toBe(1);
    });

    it('refuses a unique value or login name another subject holds, naming the attribute and never the value', async () => {
      await store.create(E, person('alice', 'alice@example.com'));
      const taken = await store.create(E, person('bob', 'ALICE@example.com')).catch((e: unknown) => e);
      expect(taken).toBeInstanceOf(Conflict);
      expect((taken as Conflict).extensions.conflicts).toEqual(expect.arrayContaining(['mail', 'login name']));
      expect(JSON.stringify((taken as Conflict).extensions)).not.toContain('alice@');
      // A uniqueId equal to another subject's login name, and a login name equal to another's uniqueId.
      await expect(store.create(E, person('Alice@Example.com', 'other@example.com'))).rejects.toBeInstanceOf(Conflict);
      await store.create(E, person('carol.c'));
      await expect(store.update(E, person('alice', 'Carol.C'))).rejects.toBeInstanceOf(Conflict);
      await expect(store.count(E)).resolves.toBe(2);
    });

    it('an update that would take another subject’s value is refused and changes nothing', async () => {
      await store.create(E, person('alice'));
      await store.create(E, person('bob'));
      await expect(store.update(E, person('bob', 'alice@example.com', { givenName: 'Changed' }))).rejects.toBeInstanceOf(Conflict);
      expect(await store.get(E, 'bob')).toMatchObject({ version: 1, attributes: { mail: 'bob@example.com', givenName: 'bob' } });
      expect((await service.findByLoginName(E, 'bob@example.com'))!.uniqueId).toBe('bob');
      expect((await service.search(E, { filter: 'givenName eq "changed"', offset: 0, quantity: 10 })).total).toBe(0);
    });

    it('of concurrent creates of one uniqueId in different cases, exactly one wins', async () => {
      const second = await other();
      const spellings = ['race', 'RACE', 'Race', 'rAce', 'raCe', 'racE', 'RAce', 'raCE'];
      const { won, lost } = await race(spellings.map((id, i) => (i % 2 ? second : store).create(E, person(id, `${i}@race.org`))));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(spellings.length - 1);
      for (const error of lost) expect(error).toBeInstanceOf(Conflict);
      await expect(store.count(E)).resolves.toBe(1);
      expect((await service.findByLoginName(E, 'RACE'))!.uniqueId).toBe(won[0].uniqueId);
    });

    it('of concurrent creates claiming one mail in different cases, exactly one wins', async () => {
      const second = await other();
      const { won, lost } = await race(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? second : store).create(E, person(`user${i}`, i % 3 ? 'Same@Example.com' : 'same@example.COM'))),
      );
      expect(won).toHaveLength(1);
      for (const error of lost) expect(error).toBeInstanceOf(Conflict);
      expect((await service.findByLoginName(E, 'same@example.com'))!.uniqueId).toBe(won[0].uniqueId);
      expect((await store.search(E, { offset: 0, quantity: 100 })).total).toBe(1);
    });
  });

  describe('optimistic concurrency', () => {
    it('of two concurrent updates with one If-Match version, exactly one wins and the other is PreconditionFailed', async () => {
      await store.create(E, person('bob'));
      const second = await other();
      const { won, lost } = await race([
        store.update(E, person('bob', 'bob@example.com', { givenName: 'first' }), 1),
        second.update(E, person('bob', 'bob@example.com', { givenName: 'second' }), 1),
      ]);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(PreconditionFailed);
      expect(await store.get(E, 'bob')).toMatchObject({ version: 2, attributes: { givenName: won[0].attributes.givenName } });
    });

    it('through the service too: concurrent If-Match updates, exactly one 200', async () => {
      await service.create(E, 'bob', { mail: 'bob@example.com' }, 'admin');
      const second = serviceOver(await other());
      const { won, lost } = await race([
        service.update(E, 'bob', { givenName: 'one' }, 'admin', 1),
        second.update(E, 'bob', { givenName: 'two' }, 'admin', 1),
        service.update(E, 'bob', { givenName: 'three' }, 'admin', 1),
      ]);
      expect(won).toHaveLength(1);
      expect(lost.every((e) => e instanceof PreconditionFailed)).toBe(true);
      expect((await store.get(E, 'bob'))!.version).toBe(2);
    });

    it('concurrent updates without If-Match each keep what the others wrote (merged again, never lost)', async () => {
      await service.create(E, 'bob', { mail: 'bob@example.com' }, 'admin');
      const second = serviceOver(await other());
      await Promise.all([
        service.update(E, 'bob', { givenName: 'Robert' }, 'admin'),
        second.update(E, 'bob', { familyName: 'Berg' }, 'admin'),
        service.update(E, 'bob', { roles: ['user', 'auditor'] }, 'admin'),
      ]);
      const bob = (await store.get(E, 'bob'))!;
      expect(bob.attributes).toMatchObject({ givenName: 'Robert', familyName: 'Berg', roles: ['user', 'auditor'] });
      expect(bob.version).toBe(4);
    });

    it('twelve concurrent updates without If-Match on two instances all succeed, none lost (never a 412 nobody asked for)', async () => {
      await service.create(E, 'bob', { mail: 'bob@example.com' }, 'admin');
      const second = serviceOver(await other());
      const names = Array.from({ length: 12 }, (_, i) => `Name${i}`);
      const writes = names.map((name, i) => (i % 2 ? second : service).update(E, 'bob', { givenName: name }, 'admin'));
      const settled = await Promise.allSettled(writes);
      expect(settled.filter((r) => r.status === 'rejected')).toEqual([]);
      const bob = (await store.get(E, 'bob'))!;
      expect(bob.version).toBe(13);
      expect(names).toContain(bob.attributes.givenName);
    });
  });

  describe("an attribute's distinct values (SCIM's groups are the roles held, SPEC 14)", () => {
    it('lists each folded value once, in code-point order, of its own context only, following every write', async () => {
      expect(await store.distinctValues(E, 'roles')).toEqual([]);
      await store.create(E, person('alice', undefined, { roles: ['admin', 'user'] }));
      await store.create(E, person('bob', undefined, { roles: ['User', 'Sales', 'zone-b'] }));
      await store.create(E, person('carol', undefined, { roles: [] }));
      await store.create(C, write('dan', { mail: 'dan@example.com', roles: ['buyer'] }, C));
      expect(await store.distinctValues(E, 'roles')).toEqual(['admin', 'sales', 'user', 'zone-b']);
      expect(await store.distinctValues(C, 'roles')).toEqual(['buyer']);
      await store.update(E, person('alice', undefined, { roles: ['user', 'Ops'] }));
      expect(await (await other()).distinctValues(E, 'roles')).toEqual(['ops', 'sales', 'user', 'zone-b']);
      await store.delete(E, 'bob');
      expect(await store.distinctValues(E, 'roles')).toEqual(['ops', 'user']);
    });
  });

  describe("SCIM's groups, beside the subjects and shared where they are (SPEC 14)", () => {
    it('registers each role seen once, in any case, keeps its id, and another core sees the same', async () => {
      expect(await store.groups.list(E)).toEqual([]);
      await store.groups.ensure(E, ['user', 'Sales']);
      await store.groups.ensure(E, ['USER', 'ops']);
      const listed = await store.groups.list(E);
      expect(listed.map((g) => [g.name, g.kept, g.version])).toEqual([['ops', false, 1], ['Sales', false, 1], ['user', false, 1]]);
      const twin = await other();
      expect(await twin.groups.list(E)).toEqual(listed);
      expect(await twin.groups.byNames(E, ['SALES', 'nobody'])).toEqual([listed[1]]);
      expect(await twin.groups.get(E, listed[2].id)).toEqual(listed[2]);
      expect(await store.groups.list(C)).toEqual([]);
    });

    it('creates a group kept, refuses a taken name in any case, renames on the version read, deletes', async () => {
      const made = await store.groups.create(E, 'Night');
      expect(made).toMatchObject({ name: 'Night', version: 1, kept: true });
      await expect(store.groups.create(E, 'night')).rejects.toBeInstanceOf(Conflict);
      await store.groups.ensure(E, ['day']);
      const [day] = await store.groups.byNames(E, ['day']);
      await expect(store.groups.update(E, made, 'DAY')).rejects.toBeInstanceOf(Conflict);
      expect(await store.groups.update(E, made, 'Late')).toBe(true);
      expect(await store.groups.update(E, made, 'Later')).toBe(false);
      expect(await (await other()).groups.get(E, made.id)).toMatchObject({ id: made.id, name: 'Late', version: 2, kept: true });
      expect(await store.groups.update(E, day, 'Dawn')).toBe(true);
      expect(await store.groups.get(E, day.id)).toMatchObject({ name: 'Dawn', kept: true });
      expect(await store.groups.delete(E, made.id)).toBe(true);
      expect(await store.groups.delete(E, made.id)).toBe(false);
      expect(await store.groups.get(E, made.id)).toBeUndefined();
    });

    it('of two cores seeing a role first at once, one id is assigned', async () => {
      const twin = await other();
      await Promise.all([store.groups.ensure(E, ['race', 'x']), twin.groups.ensure(E, ['RACE', 'y'])]);
      const all = await store.groups.list(E);
      expect(all.map((g) => g.name.toLowerCase())).toEqual(['race', 'x', 'y']);
      expect(await twin.groups.list(E)).toEqual(all);
    });
  });

  describe('subject events (SPEC 10.4), where the store keeps them', () => {
    const event = (n: number, at = `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`) => ({ at, type: 'login', client: 'svc-web', principal: null, peer: '10.0.0.1', detail: `success ${n}` });

    it('lists a subject\'s events newest first, paged, with their total, apart from other subjects and contexts', async () => {
      if (!store.events) return;
      for (let n = 0; n < 5; n++) await store.events.append(E, 'bob', event(n));
      await store.events.append(E, 'alice', event(9));
      await store.events.append(C, 'bob', event(8));
      const page = await store.events.list(E, 'bob', 1, 2);
      expect(page).toEqual({ events: [event(3), event(2)], total: 5 });
      expect((await store.events.list(E, 'bob', 0, 10)).events.map((e) => e.detail)).toEqual(['success 4', 'success 3', 'success 2', 'success 1', 'success 0']);
      expect(await store.events.list(E, 'nobody', 0, 10)).toEqual({ events: [], total: 0 });
    });

    it('prunes what is older than the retention and all but the newest of each subject', async () => {
      if (!store.events) return;
      for (let n = 0; n < 6; n++) await store.events.append(E, 'bob', event(n));
      for (let n = 0; n < 2; n++) await store.events.append(E, 'alice', event(n, `2025-01-01T00:00:0${n}.000Z`));
      await store.events.append(E, 'carol', event(7));
      expect(await store.events.prune('2026-01-01T00:00:01.000Z', 3)).toBe(5);
      expect((await store.events.list(E, 'bob', 0, 10)).events.map((e) => e.detail)).toEqual(['success 5', 'success 4', 'success 3']);
      expect((await store.events.list(E, 'alice', 0, 10)).total).toBe(0);
      expect((await store.events.list(E, 'carol', 0, 10)).total).toBe(1);
    });

    it('forgets a deleted subject\'s events, and no other subject\'s or context\'s', async () => {
      if (!store.events) return;
      for (let n = 0; n < 3; n++) await store.events.append(E, 'bob', event(n));
      await store.events.append(E, 'alice', event(4));
      await store.events.append(C, 'bob', event(5));
      expect(await store.events.forget(E, 'bob')).toBe(3);
      expect(await store.events.list(E, 'bob', 0, 10)).toEqual({ events: [], total: 0 });
      expect((await store.events.list(E, 'alice', 0, 10)).total).toBe(1);
      expect((await store.events.list(C, 'bob', 0, 10)).total).toBe(1);
      expect(await store.events.forget(E, 'nobody')).toBe(0);
    });
  });

  describe('search', () => {
    it('orders by uniqueId in code-point order, whatever the insertion order', async () => {
      const names = ['bravo', 'Alpha', 'a-1', 'a.1', 'a_1', 'a+1', 'a@1', 'a1', '0zero', 'Zulu', 'zz', 'B2'];
      for (const id of [...names].reverse()) await store.create(E, person(id, `${names.indexOf(id)}@order.org`));
      const page = await store.search(E, { offset: 0, quantity: 100 });
      expect(ids(page.results)).toEqual(codePointOrder(names));
      expect(page.total).toBe(names.length);
      expect(ids(await store.list(E, undefined, 100))).toEqual(codePointOrder(names));
    });

    describe('every filter form', () => {
      beforeEach(async () => {
        for (const [id, attributes] of PEOPLE) await service.create(E, id, attributes, 'admin');
        // The same people in another context must never show.
        await store.create(C, write('ghost', { mail: 'bob@example.com', givenName: 'Alice', roles: ['admin', 'user'] }, C));
      });

      it.each(FILTERS)('%s', async (filter, expected) => {
        const page = await service.search(E, { filter, offset: 0, quantity: 100 });
        expect(ids(page.results)).toEqual(expected);
        expect(page.total).toBe(expected.length);
      });

      it('free text: a folded prefix of any search attribute, with a filter too', async () => {
        const search = async (text: string, filter?: string) => ids((await service.search(E, { search: text, filter, offset: 0, quantity: 100 })).results);
        expect(await search('ALI')).toEqual(['alice']);
        expect(await search('b')).toEqual(['bob']);
        expect(await search('ève')).toEqual(['eve']);
        expect(await search('ång')).toEqual(['zed-1']);
        expect(await search('d')).toEqual(['dave.d']);
        expect(await search('e')).toEqual(['eve']);
        expect(await search('c', 'roles pr')).toEqual([]);
        expect(await search('c')).toEqual(['Carol']);
        expect(await search('example')).toEqual([]);
        expect(await search('%')).toEqual([]);
      });

      it('sorts by a search attribute: least folded value, a subject without one after every value, ties by uniqueId; desc reverses all', async () => {
        const sorted = async (sort: string, order?: string, more: { filter?: string; offset?: number; quantity?: number } = {}) =>
          ids((await service.search(E, { sort, order, filter: more.filter, offset: more.offset ?? 0, quantity: more.quantity ?? 100 })).results);
        const ascending = ['dave.d', 'alice', 'bob', 'Carol', 'zed-1', 'eve'];
        expect(await sorted('familyName')).toEqual(ascending);
        expect(await sorted('familyName', 'asc')).toEqual(ascending);
        expect(await sorted('familyName', 'desc')).toEqual([...ascending].reverse());
        // Pages across the boundary between those with a value and those without, both ways.
        expect(await sorted('familyName', 'asc', { offset: 4, quantity: 2 })).toEqual(['zed-1', 'eve']);
        expect(await sorted('familyName', 'asc', { offset: 5, quantity: 5 })).toEqual(['eve']);
        expect(await sorted('familyName', 'desc', { offset: 0, quantity: 2 })).toEqual(['eve', 'zed-1']);
        expect(await sorted('familyName', 'desc', { offset: 1, quantity: 2 })).toEqual(['zed-1', 'Carol']);
        expect(await sorted('familyName', 'desc', { offset: 6, quantity: 2 })).toEqual([]);
        expect(await sorted('familyName', 'desc', { filter: 'roles pr' })).toEqual(['eve', 'zed-1', 'bob', 'alice', 'dave.d']);
        expect(await sorted('mail', 'desc', { filter: 'mail ew ".org"', quantity: 2 })).toEqual(['zed-1', 'eve']);
        expect(await sorted('uniqueId', 'desc')).toEqual(codePointOrder(PEOPLE.map(([id]) => id)).reverse());
        expect((await service.search(E, { order: 'desc', offset: 0, quantity: 100 })).results.map((r) => r.uniqueId)).toEqual(codePointOrder(PEOPLE.map(([id]) => id)).reverse());
        for (const [sort, order] of [['roles', undefined], ['password', undefined], ['nope', undefined], ['mail', 'up'], ['MAIL', undefined]]) {
          await expect(service.search(E, { sort, order, offset: 0, quantity: 10 })).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
        }
      });

      it('values are parameters: quotes and SQL in a filter or a search are only text', async () => {
        const injection = `x" or "1" eq "1`;
        await expect(service.search(E, { filter: `mail eq "${injection.replace(/"/g, '\\"')}"`, offset: 0, quantity: 10 })).resolves.toMatchObject({ total: 0 });
        expect((await service.search(E, { search: "'; DROP TABLE subjects; --", offset: 0, quantity: 10 })).total).toBe(0);
        expect((await service.search(E, { filter: 'familyName eq "o\'brien"', offset: 0, quantity: 10 })).total).toBe(1);
        await expect(store.count(E)).resolves.toBe(PEOPLE.length);
      });
    });

    it('pages: offset and quantity over the ordered results, with the total of all matches', async () => {
      for (let i = 24; i >= 0; i--) await store.create(E, person(`s${String(i).padStart(2, '0')}`));
      const page = (offset: number, quantity: number, filter?: string) => service.search(E, { offset, quantity, filter });
      const first = await page(0, 10);
      expect(ids(first.results)).toEqual(Array.from({ length: 10 }, (_, i) => `s0${i}`));
      expect(first.total).toBe(25);
      expect(ids((await page(20, 10)).results)).toEqual(['s20', 's21', 's22', 's23', 's24']);
      await expect(page(30, 10)).resolves.toEqual({ results: [], total: 25 });
      const filtered = await page(1, 2, 'uniqueId sw "s1"');
      expect(ids(filtered.results)).toEqual(['s11', 's12']);
      expect(filtered.total).toBe(10);
      await expect(service.search(E, { offset: 0, quantity: 10, filter: 'uniqueId eq "none"' })).resolves.toEqual({ results: [], total: 0 });
    });

    it('sorted pages: ties broken by uniqueId in the order asked, the total of all matches', async () => {
      for (const id of ['t3', 't1', 'u2', 't2', 'u1']) await store.create(E, person(id, `${id}@sort.org`, { givenName: id.startsWith('t') ? 'Same' : 'Other' }));
      const page = (order: string, offset: number, quantity: number) => service.search(E, { sort: 'givenName', order, offset, quantity });
      expect(ids((await page('asc', 0, 10)).results)).toEqual(['u1', 'u2', 't1', 't2', 't3']);
      expect(ids((await page('desc', 0, 10)).results)).toEqual(['t3', 't2', 't1', 'u2', 'u1']);
      const second = await page('asc', 2, 2);
      expect(ids(second.results)).toEqual(['t1', 't2']);
      expect(second.total).toBe(5);
      // A write moves a subject to its new place.
      await service.update(E, 't3', { givenName: 'Aaron' }, 'admin');
      expect(ids((await page('asc', 0, 2)).results)).toEqual(['t3', 'u1']);
    });

    it('lists a context in keyset pages (what export walks)', async () => {
      for (let i = 0; i < 7; i++) await store.create(E, person(`k${i}`));
      await store.create(C, write('k0', { mail: 'k0@example.com' }, C));
      expect(ids(await store.list(E, undefined, 3))).toEqual(['k0', 'k1', 'k2']);
      expect(ids(await store.list(E, 'k2', 3))).toEqual(['k3', 'k4', 'k5']);
      expect(ids(await store.list(E, 'k5', 3))).toEqual(['k6']);
      expect(await store.list(E, 'k6', 3)).toEqual([]);
      expect(await store.list(E, undefined, 3)).toEqual(await Promise.all(['k0', 'k1', 'k2'].map(async (id) => (await store.get(E, id))!)));
    });
  });

  describe('matching as svc folds (NFC, lower case) and nothing more: a directory folds more, every store answers alike', () => {
    beforeEach(async () => {
      await service.create(E, 'bob', { mail: 'bob@example.com', givenName: 'Bob' }, 'admin');
      // Full-width letters: "ｂｅｎ" is ben to a directory's matching rules (NFKC), not to svc.
      await service.create(E, 'fw', { mail: 'fw@example.com', givenName: 'ｂｅｎ' }, 'admin');
    });

    it('a login name is found only in its own folded form: never full-width, never with spaces around it', async () => {
      expect((await service.findByLoginName(E, 'BOB'))!.uniqueId).toBe('bob');
      expect((await service.findByLoginName(E, 'Bob@Example.COM'))!.uniqueId).toBe('bob');
      for (const name of ['ｂｏｂ', 'ＢＯＢ', ' bob', 'bob ', ' bob ', 'b ob', 'ｂｏｂ@example.com', 'bob@example.com ', 'bob@ｅxample.com', 'bob\u0000', 'ｂｅｎ', 'ben']) {
        await expect(service.findLogin(E, name)).resolves.toBeUndefined();
      }
    });

    it('free text: a control character finds nobody; a full-width prefix finds only full-width values, an ASCII one only ASCII ones', async () => {
      const search = async (text: string, more: { offset?: number; quantity?: number } = {}) => service.search(E, { search: text, offset: more.offset ?? 0, quantity: more.quantity ?? 100 });
      for (const text of ['\u0000', 'b\u0000', '\u0001', '\u001f', '\u007f']) expect(await search(text)).toEqual({ results: [], total: 0 });
      expect(ids((await search('ｂ')).results)).toEqual(['fw']);
      expect(ids((await search('b')).results)).toEqual(['bob']);
      expect(ids((await search('ｂｏ')).results)).toEqual([]);
      expect(ids((await search('ben')).results)).toEqual([]);
      expect(ids((await search('b o')).results)).toEqual([]);
      const page = await search('ｂ', { offset: 1, quantity: 10 });
      expect(page).toEqual({ results: [], total: 1 });
    });

    it.each([
      ['givenName eq "ｂｅｎ"', ['fw']],
      ['givenName eq "ben"', []],
      ['givenName sw "ｂ"', ['fw']],
      ['givenName co "ｏ"', []],
      ['givenName eq " bob"', []],
      ['givenName eq "bob "', []],
      ['givenName eq "b  ob"', []],
      ['mail eq "ｂｏｂ@example.com"', []],
      ['uniqueId eq "ｂｏｂ"', []],
      ['not (givenName eq "ben")', ['bob', 'fw']],
      // Ordering too: "ｂｅｎ" (U+FF42…) comes after "c" by code point, though a directory orders it as "ben".
      ['givenName gt "c"', ['fw']],
      ['givenName lt "c"', ['bob']],
      ['not (givenName ge "c")', ['bob']],
    ])('filter %s', async (filter, expected) => {
      const page = await service.search(E, { filter, offset: 0, quantity: 100 });
      expect(ids(page.results)).toEqual(expected);
      expect(page.total).toBe(expected.length);
    });
  });

  describe('a value the store cannot hold (a non-ASCII mail in a directory whose mail is IA5 String)', () => {
    const refusedMail = (error: unknown) => {
      expect(error).toBeInstanceOf(InvalidAttributes);
      expect((error as InvalidAttributes).errors).toEqual([{ path: 'subject.attributes.mail', message: expect.stringMatching(/ASCII/) }]);
    };

    it('an own update is refused as invalid attributes naming it, nothing written; or, where it can be held, it reads back exactly', async () => {
      await service.create(E, 'bob', { mail: 'bob@example.com', givenName: 'Bob' }, 'admin');
      const before = await store.get(E, 'bob');
      const outcome = await service.update(E, 'bob', { mail: 'bøb@example.com', givenName: 'Bøb' }, 'self').catch((e: unknown) => e);
      if (harness.asciiMail) {
        refusedMail(outcome);
        expect(await store.get(E, 'bob')).toEqual(before);
        refusedMail(await service.create(E, 'bo', { mail: 'bø@example.com' }, 'admin').catch((e: unknown) => e));
        await expect(store.exists(E, 'bo')).resolves.toBe(false);
      } else {
        expect(outcome).toMatchObject({ version: 2, attributes: { mail: 'bøb@example.com', givenName: 'Bøb' } });
        expect((await service.findByLoginName(E, 'BØB@example.com'))!.uniqueId).toBe('bob');
      }
    });

    it('an import with one on its third subject is refused whole, naming that subject; or written whole', async () => {
      const at = new Date(Date.UTC(2024, 0, 1)).toISOString();
      const batch = [person('alice'), person('bob'), person('carol', 'cärol@example.com')].map((w) => ({ write: w, created: at, modified: at }));
      const outcome = await store.importSubjects(E, batch, { replace: false }).catch((e: unknown) => e);
      if (harness.asciiMail) {
        refusedMail(outcome);
        expect((outcome as InvalidAttributes).extensions.uniqueId).toBe('carol');
        expect(await store.list(E, undefined, 10)).toEqual([]);
      } else {
        expect(outcome).toBeUndefined();
        expect(ids(await store.list(E, undefined, 10))).toEqual(['alice', 'bob', 'carol']);
      }
    });
  });

  describe('hashes', () => {
    // SPEC 13: a directory keeps its passwords (svc never sees a hash), but the answers are svc's.
    if (harness.passwordsElsewhere) {
      it('keeps answer hashes byte for byte, and they verify; no password hash is ever stored', async () => {
        await service.create(E, 'bob', { mail: 'bob@example.com', password: 'Correct-horse-9', passwordQuestions: ['Pet?', 'City?'], passwordAnswers: ['Rex', 'Oslo'] }, 'admin');
        const stored = (await store.get(E, 'bob'))!;
        const answers = stored.attributes.passwordAnswers as string[];
        expect(stored.attributes.password).toBeUndefined();
        expect(answers).toHaveLength(2);
        expect((await hasher.verify(answers[1], 'oslo')).ok).toBe(true);
        await service.update(E, 'bob', { givenName: 'Bob' }, 'self');
        expect((await store.get(E, 'bob'))!.attributes.passwordAnswers).toEqual(answers);
        expect((await store.search(E, { offset: 0, quantity: 1 })).results[0].attributes.passwordAnswers).toEqual(answers);
        await service.update(E, 'bob', { password: 'Another-horse-8' }, 'admin');
        expect((await store.get(E, 'bob'))!.attributes.password).toBeUndefined();
      });
      return;
    }
    it('keeps password and answer hashes byte for byte, and they verify', async () => {
      await service.create(E, 'bob', { mail: 'bob@example.com', password: 'Correct-horse-9', passwordQuestions: ['Pet?', 'City?'], passwordAnswers: ['Rex', 'Oslo'] }, 'admin');
      const stored = (await store.get(E, 'bob'))!;
      const hash = stored.attributes.password as string;
      const answers = stored.attributes.passwordAnswers as string[];
      expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
      expect(answers).toHaveLength(2);
      expect((await hasher.verify(hash, 'Correct-horse-9')).ok).toBe(true);
      expect((await hasher.verify(answers[1], 'oslo')).ok).toBe(true);
      // Unchanged by an update of something else, by a search, by a listing.
      await service.update(E, 'bob', { givenName: 'Bob' }, 'self');
      const after = (await store.get(E, 'bob'))!;
      expect(after.attributes.password).toBe(hash);
      expect(after.attributes.passwordAnswers).toEqual(answers);
      expect((await store.findByKey(E, 'login:bob'))!.attributes.password).toBe(hash);
      expect((await store.list(E, undefined, 1))[0].attributes.password).toBe(hash);
      expect((await store.search(E, { offset: 0, quantity: 1 })).results[0].attributes.passwordAnswers).toEqual(answers);
      // A new password is a new hash; a hash upgrade stores exactly what it is given.
      await service.update(E, 'bob', { password: 'Another-horse-8' }, 'admin');
      expect((await hasher.verify((await store.get(E, 'bob'))!.attributes.password as string, 'Another-horse-8')).ok).toBe(true);
      const given = '$scrypt$ln=15,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
      await service.setPasswordHash(E, 'bob', given);
      expect((await store.get(E, 'bob'))!.attributes.password).toBe(given);
    });
  });

  describe("a subject's timestamps in the store's filter (SCIM's meta.created, meta.lastModified): instants", () => {
    const at = (second: number) => new Date(Date.UTC(2011, 4, 13, 4, 42, second, 500)).toISOString();
    const search = async (filter: FilterNode) => ids((await store.search(E, { filter, offset: 0, quantity: 100 })).results);
    const meta = (attr: string, op: CompareOp, value: string): FilterNode => ({ op, attr, value });
    beforeEach(async () => {
      await store.importSubjects(
        E,
        [33, 34, 35].map((second, i) => ({ write: write(`t${i}`, { mail: `t${i}@example.com`, roles: i === 2 ? ['admin'] : ['user'] }), created: at(second), modified: at(second + 10) })),
        { replace: false },
      );
    });

    it.each<[string, CompareOp, string, string[]]>([
      ['meta.created', 'gt', '2011-05-13T04:42:34Z', ['t1', 't2']],
      ['meta.created', 'gt', '2011-05-13T04:42:34.500Z', ['t2']],
      ['meta.created', 'ge', '2011-05-13T04:42:34.500Z', ['t1', 't2']],
      ['meta.created', 'lt', '2011-05-13T06:42:34.5+02:00', ['t0']],
      ['meta.created', 'le', '2011-05-13T04:42:34.500', ['t0', 't1']],
      ['meta.created', 'eq', '2011-05-13T04:42:35.5Z', ['t2']],
      ['meta.created', 'ne', '2011-05-13T04:42:35.500Z', ['t0', 't1']],
      ['meta.lastModified', 'gt', '2011-05-13T04:42:44Z', ['t1', 't2']],
      ['meta.lastModified', 'lt', '2011-05-13T04:42:34Z', []],
    ])('%s %s %s', async (attr, op, value, expected) => {
      expect(await search(meta(attr, op, value))).toEqual(expected);
    });

    it('with the other forms: and, or, not, pr', async () => {
      expect(await search({ op: 'pr', attr: 'meta.lastModified' })).toEqual(['t0', 't1', 't2']);
      expect(await search({ op: 'and', left: meta('meta.created', 'gt', '2011-05-13T04:42:33.5Z'), right: meta('roles', 'eq', 'USER') })).toEqual(['t1']);
      expect(await search({ op: 'or', left: meta('meta.lastModified', 'le', '2011-05-13T04:42:43.5Z'), right: meta('roles', 'eq', 'admin') })).toEqual(['t0', 't2']);
      expect(await search({ op: 'not', expr: meta('meta.created', 'ge', '2011-05-13T04:42:34Z') })).toEqual(['t0']);
    });

    it.each<[CompareOp, string]>([
      ['co', '2011'],
      ['gt', 'yesterday'],
      ['gt', '2011-05-13'],
      ['gt', '2011-13-45T99:00:00Z'],
    ])('%s %j is an invalid filter', async (op, value) => {
      await expect(store.search(E, { filter: meta('meta.created', op, value), offset: 0, quantity: 10 })).rejects.toBeInstanceOf(InvalidFilter);
    });
  });

  describe('import', () => {
    const at = (day: number) => new Date(Date.UTC(2024, 0, day, 12, 30, 15, 123)).toISOString();
    const imported = (id: string, mail?: string, day = 1): ImportedSubject => ({ write: person(id, mail), created: at(day), modified: at(day + 1) });

    it('writes subjects with their timestamps, as version 1, searchable and with their keys', async () => {
      const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
      const progress: number[] = [];
      await store.importSubjects(
        E,
        [imported('bob'), { write: person('alice', undefined, { password: hash }), created: at(3), modified: at(4) }],
        { replace: false, onProgress: (n) => progress.push(n) },
      );
      expect(progress[progress.length - 1]).toBe(2);
      expect(await store.get(E, 'alice')).toEqual({
        uniqueId: 'alice',
        attributes: { mail: 'alice@example.com', givenName: 'alice', roles: ['user'], ...(harness.passwordsElsewhere ? {} : { password: hash }) },
        version: 1,
        created: at(3),
        modified: at(4),
      });
      expect((await service.findByLoginName(E, 'BOB@example.com'))!.uniqueId).toBe('bob');
      expect(ids((await service.search(E, { search: 'al', offset: 0, quantity: 10 })).results)).toEqual(['alice']);
    });

    it('is all or nothing: a uniqueId that exists refuses the whole import, naming it', async () => {
      await store.create(E, person('bob'));
      const error = await store.importSubjects(E, [imported('alice'), imported('bob', 'new@example.com'), imported('carol')], { replace: false }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Conflict);
      expect((error as Conflict).extensions.uniqueId).toBe('bob');
      expect(ids(await store.list(E, undefined, 10))).toEqual(['bob']);
      await expect(service.findByLoginName(E, 'alice@example.com')).resolves.toBeUndefined();
    });

    it('is all or nothing: a value another subject holds refuses the whole import, naming the subject', async () => {
      await store.create(E, person('alice'));
      for (const batch of [
        [imported('bob'), imported('carol', 'ALICE@example.com')],
        [imported('bob'), imported('dave', 'bob@EXAMPLE.com')],
        [imported('bob'), imported('Alice', 'other@example.com')],
      ]) {
        const error = await store.importSubjects(E, batch, { replace: false }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Conflict);
        expect((error as Conflict).extensions.uniqueId).toBe(batch[1].write.uniqueId);
        expect(ids(await store.list(E, undefined, 10))).toEqual(['alice']);
      }
    });

    it('with replace, replaces an existing subject: new attributes and keys, its version up', async () => {
      await store.create(E, person('bob'));
      await store.update(E, person('bob', 'bob@example.com', { givenName: 'B' }));
      await store.importSubjects(E, [imported('bob', 'robert@example.com', 5), imported('alice')], { replace: true });
      expect(await store.get(E, 'bob')).toMatchObject({ version: 3, created: at(5), modified: at(6), attributes: { mail: 'robert@example.com', givenName: 'bob' } });
      await expect(service.findByLoginName(E, 'bob@example.com')).resolves.toBeUndefined();
      expect((await service.findByLoginName(E, 'robert@example.com'))!.uniqueId).toBe('bob');
      await expect(store.count(E)).resolves.toBe(2);
    });

    describe("SCIM's groups with the subjects (SPEC 12, 14): the same ids wherever they go", () => {
      const group = (id: string, name: string, more: Partial<StoredGroup> = {}): StoredGroup => ({ id, name, created: at(1), modified: at(2), version: 1, kept: true, ...more });

      it('writes each group as given: id, name, timestamps, version and kept; another core sees them', async () => {
        const groups = [group('9d3c1f0e-1111-4a5b-8c6d-000000000001', 'Night Shift', { version: 4 }), group('g-user', 'user', { kept: false, created: at(3), modified: at(3) })];
        await store.importSubjects(E, [imported('bob')], { replace: false, groups });
        expect(await store.groups.list(E)).toEqual([groups[0], groups[1]]);
        expect(await (await other()).groups.get(E, 'g-user')).toEqual(groups[1]);
        expect(await store.groups.byNames(E, ['NIGHT shift'])).toEqual([groups[0]]);
        expect(await store.groups.list(C)).toEqual([]);
        // A role seen later is registered beside them; the imported name keeps its id.
        await store.groups.ensure(E, ['USER', 'ops']);
        expect((await store.groups.list(E)).map((g) => [g.id === 'g-user', g.name])).toEqual([[false, 'Night Shift'], [false, 'ops'], [true, 'user']]);
      });

      it('without groups, leaves the groups as they are', async () => {
        const made = await store.groups.create(E, 'Night');
        await store.importSubjects(E, [imported('bob')], { replace: false });
        await store.importSubjects(E, [imported('bob')], { replace: true, groups: [] });
        expect(await store.groups.list(E)).toEqual([made]);
      });

      it('is all or nothing: a group id that exists, or a name another group has in any case, refuses the whole import, naming the group', async () => {
        const made = await store.groups.create(E, 'Night');
        for (const taken of [group(made.id, 'Other'), group('g-2', 'NIGHT')]) {
          const error = await store.importSubjects(E, [imported('alice')], { replace: false, groups: [group('g-1', 'Day'), taken] }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(Conflict);
          expect((error as Conflict).extensions.groupId).toBe(taken.id);
          expect(ids(await store.list(E, undefined, 10))).toEqual([]);
          expect(await store.groups.list(E)).toEqual([made]);
        }
        // A subject refused keeps the groups out too.
        await store.create(E, person('bob'));
        await expect(store.importSubjects(E, [imported('bob')], { replace: false, groups: [group('g-1', 'Day')] })).rejects.toBeInstanceOf(Conflict);
        expect(await store.groups.list(E)).toEqual([made]);
      });

      it('with replace: the group of its id is replaced (its version above the old one), another of its name gives the name up, the rest stay', async () => {
        const night = await store.groups.create(E, 'Night');
        expect(await store.groups.update(E, night, 'Night')).toBe(true);
        await store.groups.ensure(E, ['day', 'ops', 'x', 'y']);
        const [x] = await store.groups.byNames(E, ['x']);
        const [y] = await store.groups.byNames(E, ['y']);
        const [ops] = await store.groups.byNames(E, ['ops']);
        await store.importSubjects(E, [imported('bob')], {
          replace: true,
          groups: [group(night.id, 'Dusk', { version: 1 }), group('g-day', 'DAY', { version: 7 }), group(x.id, 'y'), group(y.id, 'x')],
        });
        const after = await store.groups.list(E);
        expect(after.map((g) => [g.id, g.name, g.version, g.kept])).toEqual([
          ['g-day', 'DAY', 7, true],
          [night.id, 'Dusk', 3, true],
          [ops.id, 'ops', 1, false],
          // Two groups trading names: each replaced.
          [y.id, 'x', 2, true],
          [x.id, 'y', 2, true],
        ]);
      });
    });

    it('imports many subjects in one call', async () => {
      const many = Array.from({ length: 1_234 }, (_, i) => imported(`m${String(i).padStart(5, '0')}`));
      await store.importSubjects(E, many, { replace: false });
      await expect(store.count(E)).resolves.toBe(1_234);
      expect(ids((await service.search(E, { filter: 'mail eq "m01000@example.com"', offset: 0, quantity: 10 })).results)).toEqual(['m01000']);
      expect(ids(await store.list(E, 'm01231', 10))).toEqual(['m01232', 'm01233']);
    });
  });
}
