#!/usr/bin/env node
/**
 * `npm run demo:cluster` (SPEC section 12): two cores, two gateways and the demo portal as child
 * processes on the local PostgreSQL and Redis, seeded like the demo (server/src/demo/cluster.ts).
 *
 * Environment: SVC_POSTGRES_URL (postgres://postgres@127.0.0.1:5432/test), SVC_REDIS_URL
 * (redis://127.0.0.1:6379), SVC_REDIS_PASSWORD (none), SVC_REDIS_PREFIX (svc-demo:), SVC_DATA_DIR
 * (./data-cluster), SVC_HOST (127.0.0.1), SVC_PORT (the first core, 8080; the second is 3 more),
 * SVC_GATEWAY_PORT (8081, and 8084), SVC_PORTAL_PORT (8082), SVC_MAIL_PORT (8025: the development
 * mailbox's SMTP, its page on the next port, both on 127.0.0.1); a port of 0 means any free one.
 * Ctrl-C (or SIGTERM) stops every child; a child that dies stops the others and exits 1.
 */
import { resolve } from 'node:path';
import { createLogger } from '../common/src/log';
import { startCluster } from '../server/src/demo/cluster';

/** The first instance's port, and the second's 3 above it (both 0 for any free port). */
function pair(value: string | undefined, fallback: number): [number, number] {
  const first = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(first) || first < 0 || first > 65532) throw new Error(`not a port: ${value}`);
  return [first, first === 0 ? 0 : first + 3];
}

/** The mailbox's SMTP port (its page takes the next one). */
function mailPort(value: string | undefined): number {
  const port = value === undefined ? 8025 : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65534) throw new Error(`not a port: ${value}`);
  return port;
}

async function main(): Promise<void> {
  const env = process.env;
  const log = createLogger({ name: 'svc-demo-cluster' });
  const { PORTLETS_DESCRIPTOR } = await import('../portlet-adapter/src/portlets');
  const cluster = await startCluster({
    dataDir: resolve(env.SVC_DATA_DIR ?? './data-cluster'),
    host: env.SVC_HOST ?? '127.0.0.1',
    ports: { cores: pair(env.SVC_PORT, 8080), gateways: pair(env.SVC_GATEWAY_PORT, 8081), portal: Number(env.SVC_PORTAL_PORT ?? 8082) },
    mailPort: mailPort(env.SVC_MAIL_PORT),
    postgresUrl: env.SVC_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    redisUrl: env.SVC_REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPassword: env.SVC_REDIS_PASSWORD || undefined,
    redisPrefix: env.SVC_REDIS_PREFIX ?? 'svc-demo:',
    descriptor: PORTLETS_DESCRIPTOR,
    log,
    onLine: (line) => process.stdout.write(line + '\n'),
  });
  const { cores, gateways, portal, mailbox, smtp, credentials, processes } = cluster;
  log.info({ cores, gateways, portal, mailbox, smtp, credentials, processes }, 'svc demo cluster ready');
  process.stderr.write(
    `\nsvc demo cluster is running:\n  portal    ${portal}/\n  cores     ${cores.join('  ')}\n  gateways  ${gateways.join('  ')}\n` +
      `  mailbox   ${mailbox}  (the messages both cores sent to SMTP ${smtp}; JSON at ${mailbox}messages)\n` +
      `Passwords (alice, bob, svcadmin) are in ${credentials}. Ctrl-C stops all.\n\n`,
  );
  const stop = (signal: string) => {
    log.info({ signal }, 'stopping the cluster');
    void cluster.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // A child that stopped cleanly had a signal of its own (Ctrl-C reaches the whole process group);
  // one that died is an error. Either way the others stop too.
  void cluster.failed.then(({ name, code }) => {
    if (code === 0) log.info({ process: name }, 'a cluster process stopped; stopping the others');
    else log.error({ process: name, code }, 'a cluster process died; stopping the others');
    void cluster.stop().then(() => process.exit(code === 0 ? 0 : 1));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`svc demo:cluster: ${(error as Error).message}\n`);
  process.exit(1);
});
