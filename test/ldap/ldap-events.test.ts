/**
 * Subject events (SPEC 10.4) of a context on the LDAP store, against a real OpenLDAP
 * (test/ldap/slapd.sh): the directory has no place for them, so svc keeps them in its own
 * `events.sqlite` in the data directory (as second factors, SPEC 15); they read at
 * GET …/subjects/{s}/events like any store's, the retention job prunes them, and a deleted subject's
 * events go with it (a new subject of the same id starts with none).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { send } from '../helpers/http';
import { slapdRequirement, startSlapd, type Slapd } from '../helpers/ldap';
import { login } from '../helpers/login';
import { describeWithService } from '../helpers/services';

jest.setTimeout(60_000);

const { users } = TEST_CREDENTIALS;
const DAY = 24 * 60 * 60 * 1000;
type Listed = { events: Array<{ at: string; type: string; client: string | null; principal: string | null; peer: string | null; detail: string }>; total: number };

describeWithService(slapdRequirement(), 'subject events of an LDAP context', () => {
  let slapd: Slapd;
  let server: TestServer;
  let clock = Date.UTC(2026, 0, 1);
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
  const subjects = () => `${server.baseUrl}/resources/contexts/employees/subjects`;
  const admin = async () => ({ cookie: (await login(server.baseUrl, { clientid: 'svc-web', user: 'alice', password: users.alice }, from('10.9.9.9'))).cookie!, ...from('10.9.9.9') });
  /** The rows events.sqlite holds for a subject of employees (read beside the core, as another process would). */
  const rows = (uniqueId: string) => {
    const db = new Database(join(server.dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare<[string], { type: string; detail: string }>("SELECT type, detail FROM subject_events WHERE context = 'employees' AND subject_id = ? ORDER BY id").all(uniqueId);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    slapd = startSlapd({ contexts: ['employees', 'customers'] });
    server = await startTestServer({
      now: () => clock,
      configure: (doc) => {
        for (const context of doc.contexts as Array<Record<string, unknown>>) context.store = 'ldap';
        doc.stores = { ldap: slapd.settings() };
        (doc.server as Record<string, unknown>).trustProxy = ['127.0.0.1/32', '::1/128'];
        doc.global = { ...(doc.global as Record<string, unknown> | undefined), 'events.maxPerSubject': 2, 'events.retentionDays': 30 };
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    slapd?.stop();
  });

  it('a failed login and an admin\'s edit of a directory user read at …/events, newest first, kept in events.sqlite', async () => {
    const asAdmin = await admin();
    expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: 'wrong-password' }, from('10.1.1.1'))).status).toBe(401);
    clock += 1000;
    expect((await send(`${subjects()}/bob`, { ...asAdmin, method: 'PUT', json: { subject: { attributes: { givenName: 'Robert-secret-value' } } } })).status).toBe(200);
    clock += 1000;
    expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob }, from('10.1.1.2'))).status).toBe(200);

    const read = await send(`${subjects()}/bob/events`, asAdmin);
    expect(read.status).toBe(200);
    const body = read.json as Listed;
    expect(body.total).toBe(3);
    expect(body.events.map((e) => [e.type, e.detail])).toEqual([
      ['login', expect.stringMatching(/^success /)],
      ['subject_write', 'success update: givenName'],
      ['login', expect.stringMatching(/^failure /)],
    ]);
    expect(body.events[1]).toMatchObject({ at: new Date(clock - 1000).toISOString(), client: 'svc-web', principal: 'employees/alice', peer: '10.9.9.9' });
    expect(body.events[2]).toMatchObject({ client: 'svc-web', principal: null, peer: '10.1.1.1' });
    expect(read.text).not.toContain('Robert-secret-value');
    // Where they are: svc's own file in the data directory, not the directory (whose schema has no place for them).
    expect(existsSync(join(server.dataDir, 'events.sqlite'))).toBe(true);
    expect(rows('bob').map((r) => r.type)).toEqual(['login', 'subject_write', 'login']);
    // The subject reads its own, as on every store.
    const bob = (await login(server.baseUrl, { clientid: 'svc-web', user: 'bob', password: users.bob }, from('10.1.1.3'))).cookie!;
    expect(((await send(`${subjects()}/bob/events?quantity=1`, { cookie: bob, ...from('10.1.1.3') })).json as Listed).events).toEqual([expect.objectContaining({ type: 'login', peer: '10.1.1.3' })]);
  });

  it('the retention job prunes them: the newest events.maxPerSubject, then none past events.retentionDays', async () => {
    const asAdmin = await admin();
    const before = (await send(`${subjects()}/bob/events?quantity=100`, asAdmin)).json as Listed;
    expect(before.total).toBeGreaterThan(2);
    expect(await server.core.subjectEvents.prune()).toBeGreaterThanOrEqual(before.total - 2);
    const kept = (await send(`${subjects()}/bob/events?quantity=100`, asAdmin)).json as Listed;
    expect(kept).toEqual({ events: before.events.slice(0, 2), total: 2 });
    clock += 31 * DAY;
    await server.core.subjectEvents.prune();
    expect(rows('bob')).toEqual([]);
    expect(((await send(`${subjects()}/bob/events`, await admin())).json as Listed).total).toBe(0);
  });

  it('a deleted subject\'s events go with it: 404 at once, and a new subject of the same id starts with none of them', async () => {
    const asAdmin = await admin();
    const dora = { subject: { uniqueId: 'dora', attributes: { mail: 'dora@example.com', givenName: 'Dora', familyName: 'Dale', password: 'Dora-is-here-1' } } };
    expect((await send(subjects(), { ...asAdmin, method: 'POST', json: dora })).status).toBe(201);
    clock += 1000;
    expect((await login(server.baseUrl, { clientid: 'svc-web', user: 'dora', password: 'not-doras-password' }, from('10.2.2.2'))).status).toBe(401);
    expect(((await send(`${subjects()}/dora/events`, asAdmin)).json as Listed).events.map((e) => [e.type, e.detail])).toEqual([
      ['login', expect.stringMatching(/^failure /)],
      ['subject_write', 'success create'],
    ]);

    expect((await send(`${subjects()}/dora`, { ...asAdmin, method: 'DELETE' })).status).toBe(204);
    expect((await send(`${subjects()}/dora/events`, asAdmin)).status).toBe(404);
    // The event log hears the deletion's audit line after the answer: wait until it has dropped them.
    for (let tries = 0; rows('dora').length > 0 && tries < 100; tries++) await new Promise((r) => setTimeout(r, 20));
    expect(rows('dora')).toEqual([]);

    clock += 1000;
    expect((await send(subjects(), { ...asAdmin, method: 'POST', json: dora })).status).toBe(201);
    expect(((await send(`${subjects()}/dora/events`, asAdmin)).json as Listed).events.map((e) => [e.type, e.detail])).toEqual([['subject_write', 'success create']]);
  });
});
