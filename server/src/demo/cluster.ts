/**
 * The local cluster of SPEC section 12 (`npm run demo:cluster`): two cores, two gateways and the demo
 * portal, each a real `svc` child process, on the local PostgreSQL (subjects) and Redis (the cores'
 * sessions, nonces and counters; the gateways' replay cache and core-session map), seeded like the
 * demo and with the demo's credentials file. The cores start first, then the gateways (given both
 * cores), then the portal (given both gateways); each is ready when it logs that it listens.
 *
 * Mail (SPEC 16) goes to one development mailbox (mailbox.ts) that this process runs, as `svc demo`
 * does: both cores have the demo's `mail` with its queue in PostgreSQL (`mail.queue: "postgres"`), so
 * either core may send a message the other queued, each message is claimed by one core only (the
 * store's claim is one UPDATE of a row locked with SKIP LOCKED), and a link's token, kept there too,
 * is taken through either core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from '../../../common/src/log';
import { buildConfig } from '../config/load';
import { Core } from '../core';
import { PasswordHasher } from '../passwords/password-hasher';
import { demoMail, prepareDemo, seedDemo, withChosenPorts } from './demo';
import { demoConfigDocument, type DemoCredentials } from './demo-config';
import { demoPortalDocument } from './demo-portal';
import { MAILBOX_HOST, startMailbox, type RunningMailbox } from './mailbox';

/** The built `svc` command the children run. */
const SVC_BIN = resolve(__dirname, '../../../bin/svc.js');

export interface ClusterOptions {
  dataDir: string;
  host: string;
  /** 0: any free port. */
  ports: { cores: [number, number]; gateways: [number, number]; portal: number };
  /** The development mailbox's SMTP port (its page on the next one); 0: any free one. */
  mailPort: number;
  postgresUrl: string;
  redisUrl: string;
  /** Given to the children in their environment only (the files say `${SVC_REDIS_PASSWORD}`). */
  redisPassword?: string;
  /** The cores' keys; the gateways' are under `<prefix>gw:`. */
  redisPrefix: string;
  /** The built descriptor of the four portlets (PORTLETS_DESCRIPTOR). */
  descriptor: string;
  log: Logger;
  /** Every line a child writes to stdout (its JSON log), e.g. to pass it on. */
  onLine?: (line: string) => void;
}

export interface ClusterProcess {
  name: string;
  pid: number;
  /** Its origin, from its own "listening" line. */
  url: string;
}

export interface RunningCluster {
  /** `{base}` of each core. */
  cores: string[];
  /** `{gw}` of each gateway. */
  gateways: string[];
  /** `{portal}`. */
  portal: string;
  /** The development mailbox's page, `http://127.0.0.1:PORT/` (its JSON at `messages`). */
  mailbox: string;
  /** Where the cores send their mail: `127.0.0.1:PORT`. */
  smtp: string;
  credentials: string;
  processes: ClusterProcess[];
  /**
   * Resolves when a child exits without being asked to by stop(): its name and exit code (0 when it
   * stopped cleanly on a signal of its own, as a terminal's Ctrl-C sends to every process of the group).
   */
  failed: Promise<{ name: string; code: number | null }>;
  /** SIGTERM to every child, the portal first, the cores last, then the mailbox closes; resolves when all have. */
  stop(): Promise<void>;
}

export async function startCluster(given: ClusterOptions): Promise<RunningCluster> {
  const { dataDir, host, log } = given;
  // The links in the mail are built from the first core's port (mail.publicBase) and the portal's
  // (mail.linkOrigins), written into the cores' files before any child listens: a 0 among those two
  // is made a free port now, as `svc demo` does (withChosenPorts), rather than starting the cores
  // without mail and reloading them once the portal has said its port.
  const chosen = await withChosenPorts({ dataDir, host, port: given.ports.cores[0], portalPort: given.ports.portal });
  const options: ClusterOptions = { ...given, ports: { ...given.ports, cores: [chosen.port, given.ports.cores[1]], portal: chosen.portalPort } };
  // Only the credentials: the cores' configuration is clusterCoreDocument's.
  const { credentials } = await prepareDemo({ dataDir, host, port: options.ports.cores[0], portalPort: options.ports.portal }, log);
  const files = join(dataDir, 'cluster');
  mkdirSync(files, { recursive: true, mode: 0o700 });
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_REDIS_PASSWORD: options.redisPassword };
  // The children's ports and folders are in their files and arguments, never the parent's settings.
  for (const name of ['SVC_DATA_DIR', 'SVC_PORT', 'SVC_HOST', 'SVC_CONFIG', 'SVC_GATEWAY_PORT', 'SVC_GATEWAY_CONFIG', 'SVC_PORTAL_PORT', 'SVC_PORTAL_CONFIG']) delete env[name];
  if (options.redisPassword === undefined) delete env.SVC_REDIS_PASSWORD;

  const children: Array<{ name: string; child: ChildProcess }> = [];
  let stopping = false;
  let reportFailure: (failure: { name: string; code: number | null }) => void = () => {};
  const failed = new Promise<{ name: string; code: number | null }>((resolvePromise) => (reportFailure = resolvePromise));

  /** Starts `svc ARGS` and resolves its URL from the first log line with message `ready`. */
  const start = (name: string, args: string[], ready: string) =>
    new Promise<ClusterProcess>((resolvePromise, reject) => {
      const child = spawn(process.execPath, [SVC_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
      children.push({ name, child });
      let listening = false;
      child.once('exit', (code) => {
        if (!listening) reject(new Error(`${name} exited with ${code} before it listened (its log is above)`));
        else if (!stopping) reportFailure({ name, code: code ?? 1 });
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        options.onLine?.(line);
        if (listening) return;
        let entry: { msg?: unknown; url?: unknown };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          return;
        }
        if (entry.msg === ready && typeof entry.url === 'string') {
          listening = true;
          resolvePromise({ name, pid: child.pid!, url: entry.url });
        }
      });
    });

  let mailbox: RunningMailbox | undefined;
  const stop = async () => {
    stopping = true;
    for (const { child } of [...children].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise));
      child.kill('SIGTERM');
      await exited;
    }
    // After the cores: a core that stops mid-send still reaches it.
    await mailbox?.close();
    mailbox = undefined;
  };

  try {
    mailbox = await startMailbox({ smtpPort: options.mailPort, log });
    const coreDocument = await clusterCoreDocument(options, credentials, mailbox.smtpPort);
    await seed(coreDocument, credentials, options.redisPassword, log);
    const cores: ClusterProcess[] = [];
    for (const [i, port] of options.ports.cores.entries()) {
      const name = `core-${'ab'[i]}`;
      // One data directory for both cores, as a cluster's shared volume: what a core keeps in files
      // (the second factors' otp.sqlite and otp.key, SPEC 15) must be the same on each, or a factor
      // enrolled through one core would not be asked for by the other.
      const file = writeConfig(files, `${name}.json`, { ...coreDocument, server: { ...(coreDocument.server as object), port, dataDir: join(dataDir, 'cores') } });
      cores.push(await start(name, ['server', '--config', file, '--port', String(port)], 'core server listening'));
    }
    const coreBases = cores.map((core) => `${core.url}/svc`);
    const gateways: ClusterProcess[] = [];
    for (const [i, port] of options.ports.gateways.entries()) {
      const name = `gateway-${'ab'[i]}`;
      const file = writeConfig(files, `${name}.json`, clusterGatewayDocument(options, credentials, coreBases, port));
      gateways.push(await start(name, ['gateway', '--config', file], 'gateway listening'));
    }
    const gatewayBases = gateways.map((gateway) => `${gateway.url}/gw`);
    const portalDocument = demoPortalDocument({ credentials, host, gateway: gatewayBases, dataDir: join(dataDir, 'portal'), descriptor: options.descriptor });
    mkdirSync(join(dataDir, 'portal'), { recursive: true, mode: 0o700 });
    const portalFile = writeConfig(files, 'portal.json', { portal: { ...portalDocument.portal, port: options.ports.portal } });
    const portal = await start('portal', ['portal', '--config', portalFile], 'portal listening');
    return {
      cores: coreBases,
      gateways: gatewayBases,
      portal: `${portal.url}/portal`,
      mailbox: `${mailbox.pageUrl}/`,
      smtp: `${MAILBOX_HOST}:${mailbox.smtpPort}`,
      credentials: join(dataDir, 'demo-credentials.json'),
      processes: [...cores, ...gateways, portal],
      failed,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The demo's core configuration with its subjects in PostgreSQL and its sessions in Redis, and its
 * mail to the cluster's mailbox with the queue in PostgreSQL. Both cores' links start with the first
 * core's `{base}` (`mail.publicBase`: the cluster has no load balancer in front) or the portal's origin.
 */
async function clusterCoreDocument(options: ClusterOptions, credentials: DemoCredentials, smtpPort: number): Promise<Record<string, unknown>> {
  const hasher = new PasswordHasher({ precomputeDummy: false });
  const systemPasswordHash = await hasher.hash(credentials.users.svcadmin);
  const mail = demoMail(options.host, smtpPort, options.ports.portal);
  const document = demoConfigDocument({ credentials, systemPasswordHash, dataDir: options.dataDir, host: options.host, port: options.ports.cores[0], mail });
  // One queue and one set of tokens for both cores where the rest of the cluster's shared state is
  // (the default, mail.sqlite in the data directory, would hold only while the cores share a folder).
  document.mail = { ...(document.mail as object), queue: 'postgres' };
  for (const context of document.contexts as Array<Record<string, unknown>>) context.store = 'postgres';
  document.stores = { postgres: { url: options.postgresUrl } };
  const password = options.redisPassword === undefined ? {} : { password: '${SVC_REDIS_PASSWORD}' };
  document.sessions = { store: 'redis', redis: { url: options.redisUrl, prefix: options.redisPrefix, ...password } };
  return document;
}

function clusterGatewayDocument(options: ClusterOptions, credentials: DemoCredentials, cores: string[], port: number): Record<string, unknown> {
  const password = options.redisPassword === undefined ? {} : { password: '${SVC_REDIS_PASSWORD}' };
  return {
    gateway: {
      host: options.host,
      port,
      cores,
      clientId: 'portal-gateway',
      secret: credentials.clients['portal-gateway'],
      portals: [{ id: 'demo-portal', secret: credentials.portals['demo-portal'] }],
      redis: { url: options.redisUrl, prefix: `${options.redisPrefix}gw:`, ...password },
    },
  };
}

/**
 * Seeds alice and bob as the demo does (when the context is empty) with a core in this process on the
 * same configuration; opening it applies the PostgreSQL migrations before the cores start.
 */
async function seed(document: Record<string, unknown>, credentials: DemoCredentials, redisPassword: string | undefined, log: Logger): Promise<void> {
  const config = buildConfig(document, { SVC_REDIS_PASSWORD: redisPassword });
  const core = new Core(config, { logger: log });
  try {
    await core.open();
    await seedDemo(core, credentials);
  } finally {
    await core.close();
  }
}

/** Configuration files hold secrets: readable by their owner only. */
function writeConfig(folder: string, name: string, document: unknown): string {
  const file = join(folder, name);
  writeFileSync(file, JSON.stringify(document, null, 2) + '\n', { mode: 0o600 });
  return file;
}
