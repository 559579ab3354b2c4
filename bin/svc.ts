#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError, buildConfig, readConfigDocument } from '../server/src/config/load';
import { configSchema } from '../server/src/config/schema';
import { acceptingPlaceholders } from '../common/src/config/published-schema';
import { generateScimToken } from '../server/src/scim/tokens';
import { demoConfigOfEnvironment, demoEnvironment, prepareDemo, seedDemo, withChosenPorts, type DemoEnvironment } from '../server/src/demo/demo';
import type { DemoCredentials } from '../server/src/demo/demo-config';
import { demoPortalDocument } from '../server/src/demo/demo-portal';
import { createLogger, stdoutDestination, type Logger } from '../common/src/log';
import { runHashPassword } from '../server/src/passwords/hash-password-command';
import { startServer, type RunningServer } from '../server/src/server';
import { buildGatewayConfig, loadGatewayConfigFile, startGateway } from '../gateway/src/index';
import { createGatewayLogger } from '../gateway/src/observability';
import { ignoreInterruptInWorker, isWorker, workerReloaded, workerStarted } from '../common/src/workers/supervisor';

const USAGE = `usage: svc <command> [options]      (svc <command> --help: the command's own usage)

commands:
  demo                 the core server, the gateway and the demo portal in one process, on embedded defaults
  server               the core server: --config PATH (or SVC_CONFIG), --host, --port, --workers N (shared stores only)
  gateway              the portal-facing gateway: --config PATH (or SVC_GATEWAY_CONFIG), --host, --port (or SVC_GATEWAY_PORT), --workers N
  portal               the portal driver hosting portlets: --config PATH (or SVC_PORTAL_CONFIG), --host, --port (or SVC_PORTAL_PORT)
  hash-password        print a PHC hash of a password read from stdin or a prompt (--scrypt)
  gen-secret           print a new client or portal secret (32 random bytes, base64url)
  config-schema        print the JSON Schema of a configuration file: core (default), gateway, portal or portlet (portlet.json)
  migrate              apply the PostgreSQL subject store's schema migrations: --config FILE
  export               a context's subjects as JSON lines on stdout: [--config FILE] --context C
  import               JSON lines into a context, all or nothing: [--config FILE] --context C [--replace] [FILE]
  cli                  the command-line client: login, whoami, get, search, create, update, delete, can, contexts, logout`;

const SERVER_USAGE = `usage: svc server [--config FILE] [--host HOST] [--port PORT] [--workers N]

The core server. --config FILE (or SVC_CONFIG): its configuration file (\`svc config-schema core\`);
without one, the core alone on the embedded demo configuration (\`svc demo\` adds the gateway and
the portal). --host, --port (or SVC_HOST, SVC_PORT) override the file's server.host and server.port;
SVC_DATA_DIR its server.dataDir. --workers N (1 to 256): N processes on one port, for configurations
whose stores are all shared (PostgreSQL or LDAP subjects, Redis sessions). SIGHUP reloads the file.
`;

const GATEWAY_USAGE = `usage: svc gateway --config FILE [--host HOST] [--port PORT] [--workers N]

The portal-facing gateway. --config FILE (or SVC_GATEWAY_CONFIG): its configuration file
(\`svc config-schema gateway\`). --host, --port (or SVC_GATEWAY_PORT) override gateway.host and
gateway.port. --workers N (1 to 256): N processes on one port, with gateway.redis configured.
`;

const PORTAL_USAGE = `usage: svc portal --config FILE [--host HOST] [--port PORT]

The portal driver hosting portlets. --config FILE (or SVC_PORTAL_CONFIG): its configuration file
(\`svc config-schema portal\`). --host, --port (or SVC_PORTAL_PORT) override portal.host and portal.port.
`;

const DEMO_USAGE = `usage: svc demo

The core server, the gateway and the demo portal in one process, on the embedded demo configuration
on SVC_HOST (127.0.0.1): the core on SVC_PORT (8080), the gateway on 8081, the portal on
SVC_PORTAL_PORT (8082); the development mailbox, which catches the mail svc sends, with SMTP on
SVC_MAIL_PORT (8025) and its page on the next port (8026), both on 127.0.0.1 whatever SVC_HOST says.
Takes no options. Its data, and the passwords it generated (demo-credentials.json), are in
SVC_DATA_DIR (./data).
`;

const GEN_SECRET_USAGE = `usage: svc gen-secret [--scim]

Prints a new client or portal secret: 32 random bytes, base64url (43 characters).
With --scim, a SCIM provisioning token (svcscim_ and 43 characters) on the first line, and on the
second the SHA-256 (hex) that scim.clients[].tokenSha256 takes: give the token to the identity
provider, the hash to the configuration.
`;

const CONFIG_SCHEMA_USAGE = `usage: svc config-schema [core | gateway | portal | portlet]

Prints the JSON Schema of a file: the core's configuration (the default), the gateway's, the
portal's, or a portlet application's portlet.json. The three configuration schemas accept a \${NAME}
placeholder in any string field: the loader checks the value it stands for when the file is read.
`;

/** A mistake in the command line: exit 2, the mistake and the command's usage on stderr. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

/**
 * node's parseArgs with --help/-h: undefined when help was asked for (the usage is then printed on
 * stdout); a mistake (an unknown option, a missing value, an unexpected argument) is a UsageError.
 */
function parseCommandArgs<O extends Record<string, { type: 'string' } | { type: 'boolean' }>>(argv: string[], options: O, usage: string): { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string } | undefined {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError((error as Error).message, usage);
  }
  if (values.help) {
    process.stdout.write(usage);
    return undefined;
  }
  return values as { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };
}

/** `--port`: a whole number from 0 to 65535; undefined when not given. */
function portOption(value: string | undefined, usage: string): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535, not "${value}"`, usage);
  return port;
}

/**
 * Stops cleanly on SIGTERM/SIGINT (the processes in front of the core first: the demo's portal, then
 * its gateway); SIGHUP reloads the configuration file when there is one.
 */
function handleSignals(running: RunningServer, configPath?: string, front: Array<{ close(): Promise<void> }> = []): void {
  const stop = async (signal: string) => {
    running.core.log.info({ signal }, 'stopping');
    for (const server of front) await server.close();
    await running.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  if (isWorker()) ignoreInterruptInWorker();
  else process.once('SIGINT', () => void stop('SIGINT'));
  process.on('SIGHUP', () => {
    if (!configPath) return running.core.log.warn('SIGHUP ignored: no configuration file to reload');
    const result = running.reload();
    if (result.ok) running.core.log.info({ file: configPath }, 'configuration reloaded');
    else running.core.log.error({ file: configPath, problems: result.problems }, 'reload refused; the running configuration stays');
  });
}

/** `--workers N`: a whole number from 1; undefined when not given. */
function workerCount(value: string | undefined, usage: string): number | undefined {
  if (value === undefined) return undefined;
  const workers = Number(value);
  if (!/^\d+$/.test(value) || workers < 1 || workers > 256) throw new UsageError(`--workers must be a whole number from 1 to 256, not "${value}"`, usage);
  return workers;
}

const WORKERS_OPTION = { workers: { type: 'string' } } as const;

async function server(argv: string[]): Promise<void> {
  const values = parseCommandArgs(argv, { config: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, ...WORKERS_OPTION }, SERVER_USAGE);
  if (!values) return;
  const path = values.config ?? process.env.SVC_CONFIG;
  const workers = workerCount(values.workers, SERVER_USAGE);
  const port = portOption(values.port, SERVER_USAGE);
  const log = createLogger();
  let config;
  let document: unknown;
  if (path) config = buildConfig((document = readConfigDocument(path)));
  else if (workers !== undefined) throw new UsageError('svc server --workers needs --config FILE: the embedded demo keeps its subjects in SQLite and its sessions in memory', SERVER_USAGE);
  else {
    log.info('no --config given: the core alone on the embedded demo configuration (`svc demo` adds the gateway and the portal)');
    const environment = demoEnvironment();
    const { running, mailbox } = await startDemoCore({ ...environment, host: values.host ?? environment.host, port: port ?? environment.port }, log);
    return handleSignals(running, undefined, [mailbox]);
  }
  const overrides = {
    host: values.host ?? process.env.SVC_HOST ?? config.server.host,
    port: port ?? Number(process.env.SVC_PORT ?? config.server.port),
    dataDir: process.env.SVC_DATA_DIR ?? config.server.dataDir,
  };
  // The file again with the overrides: a built configuration is no document (its `global` is `settings`).
  const file = document as Record<string, unknown>;
  config = buildConfig({ ...file, server: { ...(file.server as object | undefined), ...overrides } });
  if (workers !== undefined) {
    const { assertCoreStoresShared, superviseCoreWorkers } = await import('../server/src/workers');
    // The primary supervises; each worker runs this same command and serves (a changed file is checked again).
    if (!isWorker()) return void (await superviseCoreWorkers(config, workers, log));
    assertCoreStoresShared(config, workers);
  }
  const running = await startServer(config, { logger: log, configPath: path, onHttpReload: workerReloaded, workers });
  handleSignals(running, path);
  workerStarted(running.baseUrl);
}

/**
 * The core on the embedded demo configuration, its data directory prepared and seeded (SPEC 11), and
 * the development mailbox it sends its mail to (SMTP on SVC_MAIL_PORT, its page on the next port).
 */
async function startDemoCore(given: DemoEnvironment, log: Logger) {
  const environment = await withChosenPorts(given);
  const { startMailbox } = await import('../server/src/demo/mailbox');
  const mailbox = await startMailbox({ smtpPort: environment.mailPort ?? 8025, log });
  const { config, credentials } = await prepareDemo({ ...environment, mailPort: mailbox.smtpPort }, log);
  const running = await startServer(config, { logger: log });
  await seedDemo(running.core, credentials);
  log.info({ smtp: `127.0.0.1:${mailbox.smtpPort}`, page: `${mailbox.pageUrl}/` }, 'demo mailbox ready');
  return { running, config, credentials, mailbox, environment };
}

async function demo(argv: string[]): Promise<void> {
  if (!parseCommandArgs(argv, {}, DEMO_USAGE)) return;
  const destination = stdoutDestination();
  const log = createLogger({ destination });
  const { running, config, credentials, mailbox, environment } = await startDemoCore(demoEnvironment(), log);
  const gatewayConfig = buildGatewayConfig(
    {
      gateway: {
        host: config.server.host,
        port: 8081,
        cores: [running.baseUrl],
        clientId: 'portal-gateway',
        secret: credentials.clients['portal-gateway'],
        portals: [{ id: 'demo-portal', secret: credentials.portals['demo-portal'] }],
      },
    },
    process.env,
  );
  const gateway = await startGateway(gatewayConfig, { logger: createLogger({ name: 'svc-gateway', destination }) });
  const portal = await startDemoPortal(config.server.host, config.server.dataDir, credentials, gateway.baseUrl, createLogger({ name: 'svc-portal', destination }), environment.portalPort);
  const credentialsFile = `${config.server.dataDir}/demo-credentials.json`;
  log.info({ core: running.baseUrl, gateway: gateway.baseUrl, portal: portal.baseUrl, mailbox: `${mailbox.pageUrl}/`, smtp: `127.0.0.1:${mailbox.smtpPort}`, credentials: credentialsFile }, 'svc demo ready');
  // For the person who ran `npm start` (stdout stays JSON lines): where to go, and where the passwords are.
  process.stderr.write(
    `\nsvc demo is running:\n  portal   ${portal.baseUrl}/\n  core     ${running.baseUrl}/\n  gateway  ${gateway.baseUrl}\n` +
      `  mailbox  ${mailbox.pageUrl}/  (the messages svc sent to SMTP 127.0.0.1:${mailbox.smtpPort}; JSON at ${mailbox.pageUrl}/messages)\n` +
      `Passwords (alice, bob, svcadmin) are in ${credentialsFile}.\n\n`,
  );
  handleSignals(running, undefined, [portal, gateway, mailbox]);
}

/** The demo portal (SPEC 11) in front of the demo's gateway, through the portal's own loader. */
async function startDemoPortal(host: string, dataDir: string, credentials: DemoCredentials, gatewayUrl: string, logger: Logger, port: number) {
  const { buildPortalConfig, startPortal } = await import('../portlet-adapter/src/portal');
  const { PORTLETS_DESCRIPTOR } = await import('../portlet-adapter/src/portlets');
  const document = demoPortalDocument({ credentials, host, gateway: gatewayUrl, dataDir, descriptor: PORTLETS_DESCRIPTOR });
  // The port the core's links to the portal were built with (SVC_PORTAL_PORT, a free one for 0).
  return startPortal(buildPortalConfig(document, { env: { ...process.env, SVC_PORTAL_PORT: String(port) } }), { logger });
}

async function gateway(argv: string[]): Promise<void> {
  const values = parseCommandArgs(argv, { config: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, ...WORKERS_OPTION }, GATEWAY_USAGE);
  if (!values) return;
  const path = values.config ?? process.env.SVC_GATEWAY_CONFIG;
  if (!path) throw new UsageError('svc gateway needs --config FILE (or SVC_GATEWAY_CONFIG)', GATEWAY_USAGE);
  const workers = workerCount(values.workers, GATEWAY_USAGE);
  const port = portOption(values.port, GATEWAY_USAGE);
  let config = loadGatewayConfigFile(path, process.env);
  if (values.host !== undefined || port !== undefined) {
    config = buildGatewayConfig({ gateway: { ...config, host: values.host ?? config.host, port: port ?? config.port } });
  }
  if (workers !== undefined) {
    const { assertGatewayStoresShared, superviseGatewayWorkers } = await import('../gateway/src/workers');
    if (!isWorker()) return void (await superviseGatewayWorkers(config, workers, createGatewayLogger()));
    assertGatewayStoresShared(config, workers);
  }
  const running = await startGateway(config);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  if (isWorker()) ignoreInterruptInWorker();
  else process.once('SIGINT', stop);
  workerStarted(running.baseUrl);
}

async function portal(argv: string[]): Promise<void> {
  const values = parseCommandArgs(argv, { config: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' } }, PORTAL_USAGE);
  if (!values) return;
  const path = values.config ?? process.env.SVC_PORTAL_CONFIG;
  if (!path) throw new UsageError('svc portal needs --config FILE (or SVC_PORTAL_CONFIG)', PORTAL_USAGE);
  const port = portOption(values.port, PORTAL_USAGE);
  // Loaded on demand: the other commands need neither the container nor the portlets.
  const { loadPortalConfigFile, startPortal } = await import('../portlet-adapter/src/portal');
  const config = loadPortalConfigFile(path, process.env, { host: values.host, port });
  const running = await startPortal(config);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * `svc config-schema [which]`: the published JSON Schema of a file. The three configuration files
 * take `${NAME}` placeholders, which their published schemas accept (the loaders check the
 * substituted value strictly); portlet.json takes none.
 */
async function printSchema(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return void process.stdout.write(CONFIG_SCHEMA_USAGE);
  if (argv.length > 1) throw new UsageError(`one file at most, not ${argv.length}`, CONFIG_SCHEMA_USAGE);
  const which = argv[0];
  let schema: object;
  if (which === undefined || which === 'core') schema = acceptingPlaceholders(configSchema);
  else if (which === 'gateway') schema = acceptingPlaceholders((await import('../gateway/src/config')).gatewaySchema);
  else if (which === 'portal') schema = acceptingPlaceholders((await import('../portlet-adapter/src/portal/config/schema')).portalConfigSchema);
  else if (which === 'portlet') schema = (await import('../portlet-adapter/src/container/descriptor/schema')).portletDescriptorSchema;
  else throw new UsageError(`unknown file "${which}" (core, gateway, portal or portlet)`, CONFIG_SCHEMA_USAGE);
  process.stdout.write(JSON.stringify(schema, null, 2) + '\n');
}

/** Each command's usage, for `svc help COMMAND` (the commands with their own parser print theirs). */
async function usageOf(command: string): Promise<string | undefined> {
  switch (command) {
    case 'demo':
      return DEMO_USAGE;
    case 'server':
      return SERVER_USAGE;
    case 'gateway':
      return GATEWAY_USAGE;
    case 'portal':
      return PORTAL_USAGE;
    case 'gen-secret':
      return GEN_SECRET_USAGE;
    case 'config-schema':
      return CONFIG_SCHEMA_USAGE;
    case 'hash-password':
      return (await import('../server/src/passwords/hash-password-command')).HASH_PASSWORD_USAGE;
    case 'migrate':
      return (await import('../server/src/subjects/migrate-command')).MIGRATE_USAGE;
    case 'export':
      return (await import('../server/src/subjects/transfer-command')).EXPORT_USAGE;
    case 'import':
      return (await import('../server/src/subjects/transfer-command')).IMPORT_USAGE;
    case 'cli':
      return (await import('../client/src/cli/main')).CLI_USAGE + '\n';
    default:
      return undefined;
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case 'demo':
      return demo(rest);
    case 'server':
      return server(rest);
    case 'gateway':
      return gateway(rest);
    case 'portal':
      return portal(rest);
    case 'hash-password':
      process.exitCode = await runHashPassword(rest, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
      return;
    case 'gen-secret':
    {
      const values = parseCommandArgs(rest, { scim: { type: 'boolean' } }, GEN_SECRET_USAGE);
      if (!values) return;
      if (values.scim) {
        const { token, sha256 } = generateScimToken();
        process.stdout.write(`${token}\n${sha256}\n`);
      } else process.stdout.write(randomBytes(32).toString('base64url') + '\n');
      return;
    }
    case 'cli': {
      // Loaded on demand: the server commands need neither undici nor the CLI.
      const { runCli } = await import('../client/src/cli/main');
      process.exitCode = await runCli(rest, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
      return;
    }
    case 'migrate':
    case 'export':
    case 'import': {
      // Loaded on demand, like the CLI: the server commands do not need them.
      const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env };
      if (command === 'migrate') process.exitCode = await (await import('../server/src/subjects/migrate-command')).runMigrate(rest, io);
      else {
        const { runExport, runImport } = await import('../server/src/subjects/transfer-command');
        process.exitCode = await (command === 'export' ? runExport : runImport)(rest, { ...io, defaultConfig: demoConfigOfEnvironment });
      }
      return;
    }
    case 'config-schema':
      return printSchema(rest);
    case 'help':
    case '--help':
    case '-h': {
      // `svc help COMMAND`: that command's usage; `svc help`, `svc --help`: the list of commands.
      const usage = rest[0] === undefined ? USAGE + '\n' : await usageOf(rest[0]);
      if (usage === undefined) throw new UsageError(`unknown command "${rest[0]}"`, USAGE + '\n');
      process.stdout.write(usage);
      return;
    }
    case undefined:
      throw new UsageError('no command given', USAGE + '\n');
    default:
      throw new UsageError(`unknown command "${command}"`, USAGE + '\n');
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`svc: ${error.message}\n\n${error.usage}`);
    process.exit(2);
  }
  if (error instanceof ConfigError) process.stderr.write(`svc: ${error.message}\n`);
  else process.stderr.write(`svc: ${(error as Error).message}\n`);
  process.exit(1);
});
