/**
 * Crashes (issue 16): a real `svc server` child process on a SQLite file is killed with SIGKILL in
 * the middle of a write load from several clients, started again on the same file and port, and
 * every write it acknowledged (201 or 200) is there, whole: its row, its attributes and its search
 * index entries (a filter finds it). A gateway in front of it answers 502 while the core is gone
 * and serves again once it is back, without being restarted itself. The same on PostgreSQL (a schema
 * of this suite) when it is reachable.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningGateway } from '../../gateway/src/index';
import { employee, send as sendViaGateway, startTestGateway } from '../gateway/gateway-helpers';
import { TEST_CREDENTIALS, seededConfigDocument } from '../helpers/core-server';
import { send } from '../helpers/http';
import { onPostgres, suiteSchemas } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';
import { startCoreProcess, stopSvc, type Running } from '../helpers/svc-process';

const CLIENTS = 4;
/** Kill once this many writes are acknowledged (the load goes on until the process is gone). */
const KILL_AFTER = 120;

/**
 * The scenario on one subject store: `onStore` (none: the demo's SQLite) gives the configuration
 * change that puts the subjects elsewhere, called once before the core is seeded.
 */
function crashSuite(store: string, onStore?: () => Promise<(doc: Record<string, unknown>) => void>): void {
  let dir: string;
  let configFile: string;
  let core: Running & { ready: string };
  let gateway: RunningGateway;

  const base = () => `${core.ready}/svc`;

  async function adminCookie(): Promise<string> {
    const answer = await send(`${base()}/login`, { form: { user: 'alice', password: TEST_CREDENTIALS.users.alice, clientid: 'svc-web' }, headers: { accept: 'application/json' } });
    if (answer.status !== 200 || !answer.cookie) throw new Error(`login: ${answer.status} ${answer.text}`);
    return answer.cookie;
  }

  const attributesOf = (id: string, round: number) => ({ mail: `${id}@example.com`, givenName: `g-${id}`, familyName: `round-${round}` });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    const configure = onStore ? await onStore() : undefined;
    const doc = await seededConfigDocument(dir, configure);
    configure?.(doc);
    configFile = join(dir, 'core.json');
    writeFileSync(configFile, JSON.stringify(doc));
    core = await startCoreProcess(configFile);
    gateway = await startTestGateway([base()]);
  }, 60_000);

  afterAll(async () => {
    await gateway.close();
    if (core.child.exitCode === null && core.child.signalCode === null) await stopSvc(core);
    rmSync(dir, { recursive: true, force: true });
  });

  test(`kill -9 during writes from ${CLIENTS} clients (${store}): every acknowledged write is there, whole`, async () => {
    const cookie = await adminCookie();
    expect((await sendViaGateway(gateway, '/gw/api/session', { user: employee('bob') })).status).toBe(200);
    /** id → the attributes of its last acknowledged write. */
    const acknowledged = new Map<string, Record<string, string>>();
    /** id → a write sent after the acknowledged one whose answer the kill may have cut off: it may have committed. */
    const inFlight = new Map<string, Record<string, string>>();
    let unanswered = 0;
    const killed = new Promise<void>((resolve) => core.child.once('exit', () => resolve()));
    let gone = false;
    void killed.then(() => (gone = true));

    const client = async (n: number) => {
      for (let i = 0; !gone; i++) {
        const id = `crash-${n}-${i}`;
        try {
          const created = await send(`${base()}/resources/contexts/employees/subjects`, { cookie, json: { subject: { uniqueId: id, attributes: attributesOf(id, 0) } }, headers: { accept: 'application/json' } });
          if (created.status !== 201) throw new Error(`create ${id}: ${created.status} ${created.text}`);
          acknowledged.set(id, attributesOf(id, 0));
          inFlight.set(id, attributesOf(id, 1));
          const updated = await send(`${base()}/resources/contexts/employees/subjects/${id}`, { method: 'PUT', cookie, json: { subject: { attributes: attributesOf(id, 1) } }, headers: { accept: 'application/json' } });
          if (updated.status !== 200) throw new Error(`update ${id}: ${updated.status} ${updated.text}`);
          acknowledged.set(id, attributesOf(id, 1));
          inFlight.delete(id);
          if (acknowledged.size >= KILL_AFTER && core.child.exitCode === null) core.child.kill('SIGKILL');
        } catch (error) {
          // Only the kill may interrupt a request: a connection error (fetch's, from node's realm), never a refusal.
          if ((error as Error).message !== 'fetch failed') throw error;
          unanswered++;
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    await killed;

    // While the core is gone, the gateway answers 502 problems.
    const down = await sendViaGateway(gateway, '/gw/api/session', { user: employee('bob') });
    expect(down.status).toBe(502);
    expect(down.json()).toMatchObject({ code: 'bad_gateway' });

    core = await startCoreProcess(configFile, new URL(core.ready).port);
    const after = await adminCookie();
    for (const [id, attributes] of acknowledged) {
      const read = await send(`${base()}/resources/contexts/employees/subjects/${id}`, { cookie: after, headers: { accept: 'application/json' } });
      const stored = (read.json?.subject as { attributes?: Record<string, unknown> } | undefined)?.attributes;
      // The acknowledged write, or a later one that committed before the kill cut its answer off.
      const expected = inFlight.has(id) && stored?.familyName === inFlight.get(id)?.familyName ? inFlight.get(id)! : attributes;
      expect({ id, status: read.status, attributes: stored }).toEqual({ id, status: 200, attributes: expect.objectContaining(expected) });
    }
    // Nothing half-written: every subject of the load (acknowledged or not) is whole, and its index
    // entries agree with its row.
    const listed = await send(`${base()}/resources/contexts/employees/subjects?filter=${encodeURIComponent('uniqueId sw "crash-"')}&quantity=1000`, { cookie: after, headers: { accept: 'application/json' } });
    const found = (listed.json?.results ?? listed.json?.subjects ?? []) as { uniqueId: string; attributes: Record<string, string> }[];
    expect(found.length).toBeGreaterThanOrEqual(acknowledged.size);
    for (const subject of found) {
      expect(subject.attributes).toMatchObject({ mail: `${subject.uniqueId}@example.com`, givenName: `g-${subject.uniqueId}` });
      const byIndex = await send(`${base()}/resources/contexts/employees/subjects?filter=${encodeURIComponent(`givenName eq "g-${subject.uniqueId}"`)}`, { cookie: after, headers: { accept: 'application/json' } });
      expect(byIndex.json).toMatchObject({ total: 1 });
    }
    // The gateway serves again, without a restart of its own.
    let again = await sendViaGateway(gateway, '/gw/api/session', { user: employee('bob') });
    for (let tries = 0; again.status === 502 && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await sendViaGateway(gateway, '/gw/api/session', { user: employee('bob') });
    }
    expect(again.status).toBe(200);
    console.log(`kill -9 (${store}): ${acknowledged.size} writes acknowledged by ${CLIENTS} clients, all found whole after the restart; ${found.length} subjects of the load present; ${unanswered} requests cut off by the kill`);
  }, 120_000);
}

describe('SQLite', () => crashSuite('SQLite'));

describeWithService(postgresRequirement(), 'PostgreSQL', () => {
  const schemas = suiteSchemas('crash');
  crashSuite('PostgreSQL', async () => onPostgres((await schemas.create()).url));
});
