/**
 * The load the outage suites run against a core while they take a service away: a few clients, each
 * logging alice in and then, with her session, back to back: a check (bob READ), a read of bob and
 * (the first client) an update of his givenName (a transaction); a client whose session is gone (401) logs in again. Every answer is tallied by phase; what a client must never see
 * is recorded as an anomaly: a status other than 200, 401 (a session lost with its store) and 503, a
 * 503 that is not a problem-details `service_unavailable`, or a request without an answer.
 */
import { TEST_CREDENTIALS } from '../helpers/core-server';
import { send, type Sent } from '../helpers/http';

export interface PhaseTally {
  ok: number;
  /** 401: the session is gone, a fresh login is needed. */
  relogin: number;
  /** 503 problems. */
  unavailable: number;
}

export interface OutageLoad {
  /** Starts counting under a new phase name; counts of earlier phases are kept. */
  phase(name: string): void;
  tally(name: string): PhaseTally;
  /** Resolves once the current phase has counted `n` answers matching `which`. */
  until(which: keyof PhaseTally, n: number): Promise<void>;
  readonly anomalies: string[];
  stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Checks an answer; returns an anomaly's description or undefined. */
function anomalyOf(what: string, answer: Sent, allowed: number[]): string | undefined {
  if (!allowed.includes(answer.status)) return `${what}: ${answer.status} ${answer.text.slice(0, 300)}`;
  if (answer.status === 503) {
    const type = answer.headers.get('content-type') ?? '';
    if (!type.startsWith('application/problem+json') || answer.json?.code !== 'service_unavailable') return `${what}: 503 not a service_unavailable problem: ${type} ${answer.text.slice(0, 300)}`;
    if (/\bat .*\.js:\d+/.test(answer.text)) return `${what}: a stack trace in the answer`;
  }
  return undefined;
}

/** Starts `clients` clients against the core at `base` (its `{contextRoot}` URL). */
export function startOutageLoad(base: string, clients = 3): OutageLoad {
  const tallies = new Map<string, PhaseTally>();
  let current = 'start';
  const tally = (name: string) => {
    let t = tallies.get(name);
    if (!t) tallies.set(name, (t = { ok: 0, relogin: 0, unavailable: 0 }));
    return t;
  };
  const anomalies: string[] = [];
  let running = true;

  const count = (answer: Sent) => {
    const t = tally(current);
    if (answer.status === 200) t.ok++;
    else if (answer.status === 401) t.relogin++;
    else if (answer.status === 503) t.unavailable++;
  };

  // One writer: concurrent PUTs without If-Match of one subject may answer 412 on PostgreSQL (found
  // here; not an outage matter).
  const client = async (n: number) => {
    let cookie: string | undefined;
    while (running) {
      try {
        if (cookie === undefined) {
          const login = await send(`${base}/login`, { form: { user: 'alice', password: TEST_CREDENTIALS.users.alice, clientid: 'svc-web' }, headers: { accept: 'application/json' } });
          const anomaly = anomalyOf('login', login, [200, 503]);
          if (anomaly) anomalies.push(anomaly);
          count(login);
          if (login.status === 200) cookie = login.cookie;
          else await pause(20);
          continue;
        }
        const bob = `${base}/resources/contexts/employees/subjects/bob`;
        const requests: Array<[string, () => Promise<Sent>]> = [
          ['check', () => send(`${bob}?isAllowed=READ`, { cookie, headers: { accept: 'application/json' } })],
          ['read', () => send(bob, { cookie, headers: { accept: 'application/json' } })],
        ];
        if (n === 0) requests.push(['update', () => send(bob, { method: 'PUT', cookie, json: { subject: { attributes: { givenName: `Bob ${Date.now()}` } } }, headers: { accept: 'application/json' } })]);
        for (const [what, request] of requests) {
          const answer = await request();
          const anomaly = anomalyOf(what, answer, [200, 401, 503]);
          if (anomaly) anomalies.push(anomaly);
          count(answer);
          if (answer.status === 401) {
            cookie = undefined;
            break;
          }
          if (answer.status === 503) await pause(20);
        }
      } catch (error) {
        anomalies.push(`no answer: ${String((error as Error).cause ?? error)}`);
        await pause(50);
      }
    }
  };
  const done = Promise.all(Array.from({ length: clients }, (_, n) => client(n)));

  return {
    phase(name) {
      current = name;
      tally(name);
    },
    tally: (name) => ({ ...tally(name) }),
    async until(which, n) {
      const name = current;
      while (tally(name)[which] < n) {
        if (!running) throw new Error('the load has stopped');
        // Fail with the reason at once rather than wait for the suite's time limit.
        if (anomalies.length) throw new Error(`while waiting for ${n} ${which} in "${name}": ${anomalies.slice(0, 5).join(' | ')}`);
        await pause(20);
      }
    },
    anomalies,
    async stop() {
      running = false;
      await done;
    },
  };
}

/**
 * Polls the core's `/ready` (at origin `ready`) until it is 200 (`up`) or not, then expects its
 * `check` to say so; the core's reconnection takes a moment, so one poll is not enough.
 */
export async function readyBecomes(ready: string, check: string, up: boolean): Promise<void> {
  for (;;) {
    const answer = await send(`${ready}/ready`);
    if ((answer.status === 200) === up) {
      expect(answer.json).toMatchObject({ checks: { [check]: up ? 'up' : 'down' } });
      return;
    }
    await pause(50);
  }
}

/**
 * One outage under `load`: under phase `during`, `takeAway()` the service until clients get 503s and
 * `/ready` says it is down (`readyIs`); then `bringBack()` and, under phase `after`, wait until
 * `/ready` says it is up and clients are served again.
 */
export async function outageAndRecovery(
  load: OutageLoad,
  phases: { during: string; after: string },
  fault: { takeAway: () => unknown; bringBack: () => unknown },
  readyIs: (up: boolean) => Promise<void>,
): Promise<void> {
  load.phase(phases.during);
  await fault.takeAway();
  await load.until('unavailable', 10);
  await readyIs(false);
  await fault.bringBack();
  load.phase(phases.after);
  await readyIs(true);
  await load.until('ok', 30);
}
