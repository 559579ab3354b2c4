/**
 * Several instances (SPEC section 12, issue 15's multi-instance test): `npm run demo:cluster` runs two
 * cores, two gateways and the portal as real processes on one PostgreSQL (this suite's own schema) and
 * one Redis (this suite's own prefix), seeded like the demo. No decision depends on which instance a
 * request reached: writes, If-Match races, sessions, clientcred and assertion nonces, a visitor's flow
 * across gateways, lockout, the registration throttle, the wrong-answer counter, a revoked role, and a
 * second factor's code and recovery code, each accepted once across cores and gateways. Mail (SPEC 16)
 * goes to the cluster's one development mailbox from a queue both cores share: a registration's
 * verification is sent once, and its link, like a reset link, works through the other core.
 * Ctrl-C stops every process, and so does the death of one. Skipped with a message without PostgreSQL or Redis, unless
 * SVC_TEST_REQUIRE_ALL=1.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { signPrincipalAssertion, type PrincipalName } from '../../common/src/assertion/principal-assertion';
import type { DemoCredentials } from '../../server/src/demo/demo-config';
import type { RunningPortal } from '../../portlet-adapter/src/portal';
import { Browser, tokenOf } from '../portal/portal-helpers';
import { exitOf, startDemoCluster, stopDemoCluster, type RunningCluster } from '../helpers/demo-cluster';
import { alive } from '../helpers/svc-process';
import { send, type Sent } from '../helpers/http';
import { login, sealedParams } from '../helpers/login';
import { adminQuery, suiteSchemas } from '../helpers/postgres';
import { deleteKeys } from '../helpers/redis-keys';
import { describeWithService, postgresRequirement, REDIS_URL, redisRequirement } from '../helpers/services';

/** SPEC section 12: "a revoked admin role stops working everywhere within a second". */
const BOUND_MS = 1000;

describeWithService(redisRequirement(), 'demo:cluster: two cores and two gateways as processes', () => {
  describeWithService(postgresRequirement(), 'on one PostgreSQL and one Redis', () => {
    const schemas = suiteSchemas('cluster');
    const prefix = `svc-test:cluster:${process.pid}:${randomBytes(6).toString('hex')}:`;
    let dataDir: string;
    let schemaUrl: string;
    const started: RunningCluster[] = [];
    let cluster: RunningCluster;
    let credentials: DemoCredentials;
    let a: string;
    let b: string;
    let gwA: string;
    let gwB: string;

    const subjects = (base: string, id = '') => `${base}/resources/contexts/employees/subjects${id ? `/${id}` : ''}`;
    const cookieAt = async (base: string, user: string, password: string) => {
      const answer = await login(base, { clientid: 'svc-web', user, password }, { headers: { accept: 'application/json' } });
      expect(answer.status).toBe(200);
      return answer.cookie!;
    };
    const admin = (base: string) => cookieAt(base, 'svcadmin', credentials.users.svcadmin);
    /** One request to a gateway signed as the demo portal (`user` null: a visitor). */
    /** `carried`: a visitor's sealed core state (X-Svc-Visitor-State), sent back and kept as the portal keeps it in the visitor's cookie. */
    const viaGateway = async (gw: string, path: string, options: { user: PrincipalName | null; visitor: string; method?: string; json?: unknown; assertion?: string; carried?: { state?: string } }) => {
      const url = new URL(`${gw}/api${path}`);
      const method = options.method ?? (options.json === undefined ? 'GET' : 'POST');
      const assertion =
        options.assertion ??
        signPrincipalAssertion({ portalId: 'demo-portal', secret: credentials.portals['demo-portal'], user: options.user, visitor: options.visitor, address: '198.51.100.20', method, pathAndQuery: url.pathname + url.search });
      const headers: Record<string, string> = { accept: 'application/json', 'x-svc-principal': assertion };
      if (options.carried?.state !== undefined) headers['x-svc-visitor-state'] = options.carried.state;
      const answer = await send(url.href, { method, json: options.json, headers });
      const state = answer.headers.get('x-svc-visitor-state');
      if (options.carried && state !== null) options.carried.state = state;
      return answer;
    };

    type Caught = { to: string; subject: string; text: string; html: string; sentAt: string };
    const caught = async () => (await send(`${cluster.mailbox}messages`)).json as unknown as Caught[];
    /** The caught messages to `to` with `subject`, once there is one (the shared queue sends within a second or two). */
    const mailsTo = async (to: string, subject: string): Promise<Caught[]> => {
      for (let tries = 0; ; tries++) {
        const messages = await caught();
        const found = messages.filter((m) => m.to.includes(to) && m.subject === subject);
        if (found.length > 0) return found;
        if (tries === 100) throw new Error(`no "${subject}" to ${to} in the mailbox: ${messages.map((m) => `${m.to}: ${m.subject}`).join('; ')}`);
        await new Promise((resolvePromise) => setTimeout(resolvePromise, 200));
      }
    };
    /** The `token` of a message's link, and the link. */
    const linkOf = (message: Caught) => {
      const link = message.text.split('\n').find((line) => line.startsWith('http'))!;
      return { link, token: new URL(link).searchParams.get('token')! };
    };
    /** Waits until the shared queue holds nothing for `uniqueId` (sent and removed: no core can send it again). */
    const queueDrained = async (uniqueId: string) => {
      for (let tries = 0; ; tries++) {
        const [row] = await adminQuery<{ n: string }>('SELECT count(*) AS n FROM svc_mail_queue WHERE subject = $1', [uniqueId], schemaUrl);
        if (Number(row.n) === 0) return;
        if (tries === 100) throw new Error(`the mail of ${uniqueId} is still queued`);
        await new Promise((resolvePromise) => setTimeout(resolvePromise, 200));
      }
    };
    /** The `{base}` of the core whose audit line says it sent `kind` to `principal`, and every such line. */
    const sentBy = (kind: string, principal: string) => {
      const lines = cluster.log
        .map((line) => {
          try {
            return JSON.parse(line) as Record<string, unknown>;
          } catch {
            return {};
          }
        })
        .filter((entry) => entry.audit === true && entry.event === 'mail' && entry.outcome === 'success' && entry.kind === kind && entry.principal === principal);
      const sender = cluster.processes.find((p) => p.pid === lines[0]?.pid);
      return { lines, base: sender && `${sender.url}/svc` };
    };

    beforeAll(async () => {
      const { url } = await schemas.create();
      schemaUrl = url;
      dataDir = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
      cluster = await startDemoCluster(dataDir, { SVC_POSTGRES_URL: url, SVC_REDIS_URL: REDIS_URL, SVC_REDIS_PREFIX: prefix });
      started.push(cluster);
      credentials = JSON.parse(readFileSync(cluster.credentials, 'utf8')) as DemoCredentials;
      [a, b] = cluster.cores;
      [gwA, gwB] = cluster.gateways;
    }, 120_000);
    afterAll(async () => {
      for (const running of started) await stopDemoCluster(running);
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      await deleteKeys(redis, prefix);
      await redis.quit();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }, 60_000);

    test('five processes, seeded like the demo, with the credentials file of npm start', async () => {
      expect(cluster.processes.map((p) => p.name)).toEqual(['core-a', 'core-b', 'gateway-a', 'gateway-b', 'portal']);
      expect(new Set(cluster.processes.map((p) => p.pid)).size).toBe(5);
      expect(cluster.credentials).toBe(join(dataDir, 'demo-credentials.json'));
      for (const user of ['alice', 'bob'] as const) await cookieAt(b, user, credentials.users[user]);
      const home = await fetch(`${cluster.portal}/page/home`, { redirect: 'manual' });
      expect(home.status).toBe(200);
      expect(cluster.mailbox).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect((await fetch(cluster.mailbox)).status).toBe(200);
    });

    test('a registrant is mailed one verification link from the shared queue; it works through the core that did not send it', async () => {
      const password = 'Erin-cluster-41';
      // Through a gateway, as the portal's Registration window registers: the core counts the
      // registration against the visitor's address, not this test's 127.0.0.1 (the throttle test's).
      const registered = await viaGateway(gwA, '/contexts/customers/subjects', {
        user: null,
        visitor: 'erin-tab',
        json: { subject: { uniqueId: 'erin', attributes: { mail: 'erin@example.net', givenName: 'Erin', familyName: 'Cluster', password } } },
      });
      expect(registered.status).toBe(202);
      expect(registered.json).toMatchObject({ status: 'verification_sent' });
      for (const base of [a, b]) expect((await login(base, { clientid: 'svc-web', user: 'erin', password }, { headers: { accept: 'application/json' } })).text).toContain('Confirm your e-mail address first');

      const [message] = await mailsTo('erin@example.net', 'Confirm your e-mail address');
      // Sent and gone from the queue: exactly one message, sent by one core (one audit line).
      await queueDrained('erin');
      expect(await mailsTo('erin@example.net', 'Confirm your e-mail address')).toHaveLength(1);
      const { lines, base: sender } = sentBy('verify', 'customers/erin');
      expect(lines).toHaveLength(1);
      expect([a, b]).toContain(sender);
      const { link, token } = linkOf(message);
      // mail.publicBase: the first core's {base} (no load balancer in front of the cluster).
      expect(link.startsWith(`${a}/anon/verify?token=`)).toBe(true);
      const other = sender === a ? b : a;
      expect((await send(`${other}/resources/email-verification`, { json: { token } })).status).toBe(204);
      expect((await send(`${sender}/resources/email-verification`, { json: { token } })).json).toMatchObject({ code: 'invalid_token' });
      for (const base of [a, b]) expect((await login(base, { clientid: 'svc-web', user: 'erin', password }, { headers: { accept: 'application/json' } })).status).toBe(200);
    });

    test('a reset link asked for through core A sets the password through core B, once', async () => {
      const asked = await send(`${a}/resources/contexts/customers/password-reset`, { json: { name: 'erin@example.net' } });
      expect(asked.status).toBe(202);
      const [message] = await mailsTo('erin@example.net', 'Choose a new password');
      await queueDrained('erin');
      expect(await mailsTo('erin@example.net', 'Choose a new password')).toHaveLength(1);
      expect(sentBy('reset', 'customers/erin').lines).toHaveLength(1);
      const { link, token } = linkOf(message);
      expect(link.startsWith(`${a}/anon/reset?token=`)).toBe(true);
      expect((await send(`${b}/resources/password-reset`, { method: 'PUT', json: { token, password: 'Erin-reset-cluster-42' } })).status).toBe(204);
      expect((await send(`${a}/resources/password-reset`, { method: 'PUT', json: { token, password: 'Erin-again-cluster-43' } })).json).toMatchObject({ code: 'invalid_token' });
      expect((await login(a, { clientid: 'svc-web', user: 'erin', password: 'Erin-reset-cluster-42' }, { headers: { accept: 'application/json' } })).status).toBe(200);
    });

    test('a subject created on core A is read, searched and updated on core B', async () => {
      const created = await send(subjects(a), { cookie: await admin(a), json: { subject: { uniqueId: 'carol', attributes: { mail: 'carol@example.com', givenName: 'C', familyName: 'Cluster', password: 'Carol-cluster-41' } } } });
      expect(created.status).toBe(201);
      const cookieB = await admin(b);
      const read = await send(subjects(b, 'carol'), { cookie: cookieB });
      expect(read.status).toBe(200);
      const found = await send(`${subjects(b)}?filter=${encodeURIComponent('mail eq "CAROL@example.com"')}`, { cookie: cookieB });
      expect(found.json).toMatchObject({ total: 1, results: [{ uniqueId: 'carol' }] });
      const updated = await send(subjects(b, 'carol'), { method: 'PUT', cookie: cookieB, headers: { 'if-match': read.headers.get('etag')! }, json: { subject: { attributes: { givenName: 'Carol' } } } });
      expect(updated.status).toBe(200);
      expect((await send(subjects(a, 'carol'), { cookie: await admin(a) })).json).toMatchObject({ subject: { attributes: { givenName: 'Carol' } } });
    });

    test('two concurrent If-Match updates on different cores: exactly one 200 and one 412', async () => {
      const [cookieA, cookieB] = await Promise.all([admin(a), admin(b)]);
      for (let round = 0; round < 3; round++) {
        const etag = (await send(subjects(a, 'bob'), { cookie: cookieA })).headers.get('etag')!;
        const put = (base: string, cookie: string, name: string) =>
          send(subjects(base, 'bob'), { method: 'PUT', cookie, headers: { 'if-match': etag }, json: { subject: { attributes: { givenName: name } } } });
        const answers = await Promise.all([put(a, cookieA, `a${round}`), put(b, cookieB, `b${round}`)]);
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
      }
    });

    test('a login on core A is used on core B; a logout on A is refused on B', async () => {
      const cookie = await cookieAt(a, 'alice', credentials.users.alice);
      const onB = await send(`${b}/resources/session`, { cookie, headers: { accept: 'application/json' } });
      expect(onB.status).toBe(200);
      expect(onB.json).toMatchObject({ session: { type: 'USER', principal: { uniqueId: 'alice' } } });
      expect((await send(subjects(b, 'alice'), { cookie })).status).toBe(200);
      expect((await send(`${a}/logout`, { method: 'POST', cookie })).status).toBe(204);
      // The session is gone everywhere: B answers as to a stranger (the session resource: ANON) and refuses the read.
      expect((await send(`${b}/resources/session`, { cookie, headers: { accept: 'application/json' } })).json).toMatchObject({ session: { type: 'ANON' } });
      const refused = await send(subjects(b, 'alice'), { cookie });
      expect(refused.status).toBe(401);
    });

    test('a clientcred accepted by core A is refused when replayed at core B', async () => {
      const params = sealedParams(new ClientSealer('svc-api', credentials.clients['svc-api']), { user: 'alice', password: credentials.users.alice });
      expect((await login(a, params)).status).toBe(200);
      const replay = await login(b, params);
      expect(replay.status).toBe(401);
      expect(replay.json).toMatchObject({ code: 'invalid_client' });
    });

    test('an assertion accepted by gateway A is refused when replayed at gateway B', async () => {
      const path = new URL(`${gwB}/api/session`).pathname;
      const assertion = signPrincipalAssertion({ portalId: 'demo-portal', secret: credentials.portals['demo-portal'], user: { contextId: 'employees', uniqueId: 'alice' }, visitor: 'replay', method: 'GET', pathAndQuery: path });
      expect((await viaGateway(gwA, '/session', { user: null, visitor: 'replay', assertion })).status).toBe(200);
      const replay = await viaGateway(gwB, '/session', { user: null, visitor: 'replay', assertion });
      expect(replay.status).toBe(401);
      expect(replay.json).toMatchObject({ code: 'invalid_assertion' });
    });

    test('a portal user logged in through gateway A is served by gateway B with the same core session', async () => {
      const login = await viaGateway(gwA, '/login', { user: null, visitor: 'tab', json: { user: 'alice', password: credentials.users.alice } });
      expect(login.status).toBe(200);
      const made = (login.json as { session: { uniqueId: string } }).session.uniqueId;
      const served = await viaGateway(gwB, '/session', { user: { contextId: 'employees', uniqueId: 'alice' }, visitor: 'tab' });
      expect(served.status).toBe(200);
      expect(served.json).toMatchObject({ session: { uniqueId: made } });
    });

    test('a second factor (SPEC 15): a code accepted by core A is refused replayed on core B; a pending from gateway A completes at gateway B, and its recovery code is spent on both', async () => {
      const password = 'Dora-cluster-41';
      const created = await send(subjects(a), { cookie: await admin(a), json: { subject: { uniqueId: 'dora', attributes: { mail: 'dora@example.com', password } } } });
      expect(created.status).toBe(201);
      const doraA = await cookieAt(a, 'dora', password);
      const secret = (await send(`${subjects(a, 'dora')}/otp`, { cookie: doraA, json: { password } })).json!.secret as string;
      const code = execFileSync('oathtool', ['--totp', '-b', secret], { encoding: 'utf8' }).trim();
      const confirmed = await send(`${subjects(a, 'dora')}/otp`, { method: 'PUT', cookie: doraA, json: { code } });
      expect(confirmed.status).toBe(200);
      const [recovery] = confirmed.json!.recoveryCodes as string[];
      // The same code on core B: its step was accepted on A (the last step is in Redis).
      const passwordB = await login(b, { clientid: 'svc-web', user: 'dora', password });
      expect(passwordB.json).toMatchObject({ code: 'otp_required' });
      const pendingB = passwordB.json!.pending as string;
      const replayed = await login(b, { clientid: 'svc-web', pending: pendingB, otp: code });
      expect(replayed.status).toBe(401);
      expect(replayed.json).toMatchObject({ code: 'login_failed' });
      // Through the gateways: the pending gateway A sealed to the portal session opens at gateway B.
      const first = await viaGateway(gwA, '/login', { user: null, visitor: 'dora-tab', json: { user: 'dora', password } });
      expect(first.json).toMatchObject({ code: 'otp_required' });
      const pending = (first.json as { pending: string }).pending;
      const second = await viaGateway(gwB, '/login', { user: null, visitor: 'dora-tab', json: { pending, otp: recovery } });
      expect(second.status).toBe(200);
      expect(second.json).toMatchObject({ session: { principal: { uniqueId: 'dora' }, level: 3 } });
      const again = (await viaGateway(gwB, '/login', { user: null, visitor: 'dora-tab-2', json: { user: 'dora', password } })).json as { pending: string };
      const spent = await viaGateway(gwA, '/login', { user: null, visitor: 'dora-tab-2', json: { pending: again.pending, otp: recovery } });
      expect(spent.json).toMatchObject({ code: 'login_failed' });
    });

    test('bob logs in to the portal once; its pages, spread over both gateways, need no new core login', async () => {
      const gateways = cluster.processes.filter((p) => p.name.startsWith('gateway'));
      const metrics = () => Promise.all(gateways.map(async (gateway) => (await fetch(`${gateway.url}/metrics`)).text()));
      const logins = async () =>
        (await metrics()).reduce((sum, text) => sum + Number(/^svc_gateway_core_logins_total\{kind="principal",outcome="success"\} (\d+)/m.exec(text)?.[1] ?? 0), 0);
      /** Requests each gateway has answered on its routes (not its /health, /ready, /metrics). */
      const served = async () =>
        (await metrics()).map((text) => [...text.matchAll(/^svc_gateway_request_duration_seconds_count\{[^}]*route="(?!unmatched|\/)[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0));
      const bob = new Browser({ url: new URL(cluster.portal).origin } as RunningPortal);
      const form = await bob.get('/portal/login');
      expect((await bob.post('/portal/login', { _csrf: tokenOf(form.text), user: 'bob', password: credentials.users.bob })).status).toBe(303);
      const before = await logins();
      const servedBefore = await served();
      for (let i = 0; i < 4; i++) {
        const page = await bob.get('/portal/page/home');
        expect(page.status).toBe(200);
        expect(page.text).toContain('bob@example.com');
      }
      expect(await logins()).toBe(before);
      // Both gateways served bob's pages.
      (await served()).forEach((count, i) => expect(count).toBeGreaterThan(servedBefore[i]));
    });

    test("lockout counts failures on both cores: the 5th wrong password (3 on A, 2 on B) locks carol everywhere", async () => {
      const attempt = (base: string, password: string) => login(base, { clientid: 'svc-web', user: 'carol', password }, { headers: { accept: 'application/json' } });
      const wrong: number[] = [];
      for (const base of [a, b, a, b, a]) wrong.push((await attempt(base, 'not-her-password')).status);
      expect(wrong).toEqual([401, 401, 401, 401, 401]);
      const right = await attempt(b, 'Carol-cluster-41');
      expect(right.status).toBe(401);
      expect(right.json).toMatchObject({ code: 'login_failed' });
    });

    test('the registration throttle counts registrations on both cores', async () => {
      const register = (base: string, i: number) =>
        send(`${base}/resources/contexts/customers/subjects`, {
          headers: { 'x-forwarded-for': '203.0.113.77' },
          json: { subject: { uniqueId: `reg${i}`, attributes: { mail: `reg${i}@example.org`, givenName: 'R', familyName: 'S', password: `Registers-${i}-cluster` } } },
        });
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++) statuses.push((await register(i % 2 === 0 ? a : b, i)).status);
      // 202: customers verify their address (SPEC 16); the throttle counts them all the same.
      expect(statuses).toEqual([...Array<number>(10).fill(202), 429]);
    });

    test('the forgotten-password wrong-answer counter counts on both cores', async () => {
      const forgot = (base: string) => `${base}/resources/contexts/employees/subjects/alice/password/forgot`;
      const asked = await send(forgot(a), { headers: { accept: 'application/json' } });
      expect(asked.status).toBe(200);
      const statuses: Sent['status'][] = [];
      for (const base of [a, b, a, b]) statuses.push((await send(forgot(base), { method: 'PUT', cookie: asked.cookie, json: { answers: ['x', 'y'] } })).status);
      expect(statuses).toEqual([400, 400, 400, 429]);
    });

    test("a visitor's forgotten-password flow succeeds with its requests alternating between the gateways", async () => {
      const visitor = `visitor-${randomBytes(4).toString('hex')}`;
      // The flow's state travels with the visitor (SPEC 9): neither gateway keeps anything for it.
      const carried: { state?: string } = {};
      const path = '/contexts/employees/subjects/bob/password/forgot';
      expect((await viaGateway(gwA, path, { user: null, visitor, carried })).status).toBe(200);
      expect(carried.state).toBeDefined();
      expect((await viaGateway(gwB, path, { user: null, visitor, carried, method: 'PUT', json: { answers: credentials.answers.bob } })).status).toBe(200);
      expect((await viaGateway(gwA, path, { user: null, visitor, carried, method: 'PUT', json: { password: 'Cluster-bob-new-7' } })).status).toBe(204);
      const login = await viaGateway(gwB, '/login', { user: null, visitor, json: { user: 'bob', password: 'Cluster-bob-new-7' } });
      expect(login.status).toBe(200);
    });

    test('alice loses admin on core A and is refused on core B within one second', async () => {
      const alice = await cookieAt(b, 'alice', credentials.users.alice);
      const readBob = () => send(subjects(b, 'bob'), { cookie: alice });
      expect((await readBob()).status).toBe(200); // B has cached alice's roles
      const revoked = await send(subjects(a, 'alice'), { method: 'PUT', cookie: await admin(a), json: { subject: { attributes: { roles: ['user'] } } } });
      expect(revoked.status).toBe(200);
      const deadline = Date.now() + BOUND_MS;
      let status = 200;
      while (status === 200 && Date.now() < deadline) status = (await readBob()).status;
      expect(status).toBe(401);
    });

    test('Ctrl-C (SIGINT to the process group, as a terminal sends it) stops every process of the cluster', async () => {
      const pids = cluster.processes.map((p) => p.pid);
      expect(pids.every(alive)).toBe(true);
      expect(await stopDemoCluster(cluster)).toBe(0);
      expect(pids.filter(alive)).toEqual([]);
      await expect(fetch(cluster.mailbox)).rejects.toThrow();
    }, 60_000);

    test('a process that dies stops the others, and the cluster exits 1', async () => {
      // Started again on the same data: nothing is seeded twice, the credentials file is reused.
      const again = await startDemoCluster(dataDir, { SVC_POSTGRES_URL: schemaUrl, SVC_REDIS_URL: REDIS_URL, SVC_REDIS_PREFIX: prefix });
      started.push(again);
      expect(again.credentials).toBe(cluster.credentials);
      await cookieAt(again.cores[1], 'alice', credentials.users.alice);
      const pids = again.processes.map((p) => p.pid);
      const victim = again.processes.find((p) => p.name === 'gateway-b')!;
      expect(await exitOf(again, () => process.kill(victim.pid, 'SIGKILL'))).toBe(1);
      expect(pids.filter(alive)).toEqual([]);
      expect(again.log.some((line) => line.includes('"a cluster process died; stopping the others"') && line.includes('"gateway-b"'))).toBe(true);
    }, 120_000);
  });
});
