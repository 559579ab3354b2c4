import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** Something a suite needs that this machine may lack: a service to reach, or a program to run. */
export interface Requirement {
  name: string;
  /** Where it was looked for: a URL for a service, a path for a program. */
  url: string;
  reachable: boolean;
  reason?: string;
  /** A program is "not installed"; a service (the default) is "not reachable". */
  kind?: 'service' | 'program';
}

/**
 * Suites that need something this machine may lack (PostgreSQL, Redis, Chromium). When it is there,
 * the suite runs. When it is not, the suite is skipped with a message naming it — unless
 * SVC_TEST_REQUIRE_ALL=1 (set by .ci/run, which installs and starts them), where the absence is
 * itself a failing test. The one place that decides between skipping and failing.
 */
export function describeWithService(service: Requirement, title: string, suite: () => void): void {
  if (service.reachable) {
    describe(title, suite);
    return;
  }
  const there = service.kind === 'program' ? 'installed' : 'reachable';
  const message = `${service.name} is not ${there} at ${service.url}${service.reason ? ` (${service.reason})` : ''}: "${title}" needs it`;
  if (process.env.SVC_TEST_REQUIRE_ALL === '1') {
    test(`${service.name} is ${there} (SVC_TEST_REQUIRE_ALL=1)`, () => {
      throw new Error(`${message}, and SVC_TEST_REQUIRE_ALL=1 forbids skipping`);
    });
    return;
  }
  console.warn(`${message}; skipped (set SVC_TEST_REQUIRE_ALL=1 to fail instead).`);
  describe.skip(title, suite);
}

/** Debian's Chromium, which the real-browser suites drive with playwright-core. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Chromium as a requirement: there when its executable is. */
export function chromiumRequirement(path = CHROMIUM_PATH): Requirement {
  try {
    accessSync(path, constants.X_OK);
    return { name: 'Chromium', url: path, reachable: true, kind: 'program' };
  } catch {
    return { name: 'Chromium', url: path, reachable: false, reason: 'apt-get install -y chromium', kind: 'program' };
  }
}

/** Debian's xmllint (libxml2-utils): an XML Schema validator that is not ours, for what svc writes. */
export const XMLLINT_PATH = '/usr/bin/xmllint';

/** xmllint as a requirement: there when its executable is. */
export function xmllintRequirement(path = XMLLINT_PATH): Requirement {
  try {
    accessSync(path, constants.X_OK);
    return { name: 'xmllint', url: path, reachable: true, kind: 'program' };
  } catch {
    return { name: 'xmllint', url: path, reachable: false, reason: 'apt-get install -y libxml2-utils', kind: 'program' };
  }
}

/**
 * Validates `xml` against the XML Schema at `schemaPath` with xmllint: undefined when it is valid,
 * else xmllint's complaint (for the test's message).
 */
export function xmllintInvalidity(xml: string, schemaPath: string, path = XMLLINT_PATH): string | undefined {
  const run = spawnSync(path, ['--noout', '--nonet', '--schema', schemaPath, '-'], { input: xml, encoding: 'utf8' });
  if (run.status === 0) return undefined;
  return `${run.stderr || run.stdout || `exit ${String(run.status)}`}\n--- document ---\n${xml}`;
}

/** Debian's promtool (package prometheus), which checks the exposition format of every /metrics. */
export const PROMTOOL_PATH = '/usr/bin/promtool';

/** promtool as a requirement: there when its executable is. */
export function promtoolRequirement(path = PROMTOOL_PATH): Requirement {
  try {
    accessSync(path, constants.X_OK);
    return { name: 'promtool', url: path, reachable: true, kind: 'program' };
  } catch {
    return { name: 'promtool', url: path, reachable: false, reason: 'apt-get install -y prometheus', kind: 'program' };
  }
}

/** The Redis the suites use: redis://127.0.0.1:6379, or SVC_TEST_REDIS_URL. */
export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Redis as a requirement: a synchronous PING (jest decides which suites run before any await), in a child process. */
export function redisRequirement(url = REDIS_URL): Requirement {
  const { hostname, port } = new URL(url);
  const script = `
    const socket = require('node:net').connect(${Number(port || 6379)}, ${JSON.stringify(hostname || '127.0.0.1')});
    socket.setTimeout(2000, () => process.exit(1));
    socket.on('error', () => process.exit(1));
    socket.on('connect', () => socket.write('PING\\r\\n'));
    socket.on('data', (d) => process.exit(String(d).startsWith('+PONG') || String(d).startsWith('-NOAUTH') ? 0 : 1));`;
  const result = spawnSync(process.execPath, ['-e', script], { timeout: 5000 });
  return { name: 'Redis', url, reachable: result.status === 0 };
}

/** The PostgreSQL the suites use: the local `test` database, or SVC_TEST_PG_URL. */
export const PG_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** PostgreSQL as a requirement: a synchronous connect and SELECT 1 (jest decides which suites run before any await), in a child process. */
export function postgresRequirement(url = PG_URL): Requirement {
  const script = `
    const { Client } = require(${JSON.stringify(require.resolve('pg'))});
    const c = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
    c.connect().then(() => c.query('SELECT 1')).then(() => c.end()).then(
      () => process.exit(0),
      (e) => { process.stderr.write(String(e && e.message)); process.exit(1); });`;
  const result = spawnSync(process.execPath, ['-e', script, url], { encoding: 'utf8', timeout: 10000 });
  if (result.status === 0) return { name: 'PostgreSQL', url, reachable: true };
  return { name: 'PostgreSQL', url, reachable: false, reason: result.error ? result.error.message : result.stderr.trim() || `exit ${String(result.status)}` };
}
