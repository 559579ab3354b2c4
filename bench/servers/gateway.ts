/**
 * The gateway under test (SPEC 9), as its own process pointed at a core that runs in another one (so
 * that the gateway and the core never share an event loop): client portal-gateway with the bench's
 * fixed secret, one portal (demo-portal) with its secret, on 127.0.0.1 port 0, logging at `info` to
 * a file in a temporary directory (as a deployment would log).
 *
 *   node dist/bench/servers/gateway.js --core {base} [--log info|silent] [--redis URL --prefix P]
 *   (--redis: `gateway.redis`, the replay cache and core sessions shared in Redis)
 *   BENCH_GATEWAY_LOG=stderr  logs to stderr instead (to see what the gateway says during a run)
 *
 * Prints one JSON line (`GatewayReady`) on stdout. Run with --expose-gc, it answers each SIGUSR2 with
 * one more line (`GatewayMemoryReport`): its memory after full collections and the nonces its replay
 * cache holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { logDestination } from '../../common/src/log';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import { buildGatewayConfig, startGateway } from '../../gateway/src/index';
import { onStop, report } from '../lib/child';
import { reportMemoryOnSignal } from '../lib/memory-signal';
import { BENCH_CREDENTIALS, BENCH_GATEWAY_CLIENT, BENCH_PORTAL, type GatewayReady } from './core-shared';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { core: { type: 'string' }, log: { type: 'string', default: 'info' }, redis: { type: 'string' }, prefix: { type: 'string' } } });
  if (!values.core) throw new Error('--core {base} is required');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-gw-'));
  const config = buildGatewayConfig({
    gateway: {
      host: '127.0.0.1',
      port: 0,
      root: '/gw',
      cores: [values.core],
      clientId: BENCH_GATEWAY_CLIENT,
      secret: BENCH_CREDENTIALS.clients[BENCH_GATEWAY_CLIENT],
      portals: [{ id: BENCH_PORTAL, secret: BENCH_CREDENTIALS.portals[BENCH_PORTAL] }],
      ...(values.redis ? { redis: { url: values.redis, ...(values.prefix ? { prefix: values.prefix } : {}) } } : {}),
    },
  });
  const destination = process.env.BENCH_GATEWAY_LOG === 'stderr' ? pino.destination(2) : logDestination(join(dir, 'gateway.log'));
  const logger =
    values.log === 'silent'
      ? pino({ level: 'silent' })
      : pino({ name: 'svc-gateway', level: values.log, timestamp: pino.stdTimeFunctions.isoTime }, destination);
  // The gateway's own replay cache (as startGateway would make it), held here to report its size.
  const nonces = config.redis ? undefined : new MemoryNonceStore({ maxEntries: config.nonceCacheSize });
  const running = await startGateway(config, { logger, nonces });
  reportMemoryOnSignal(() => ({ nonces: nonces?.size ?? 0 }));
  onStop(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const ready: GatewayReady = {
    url: running.url,
    base: running.baseUrl,
    root: config.root,
    core: values.core,
    portal: BENCH_PORTAL,
    secret: BENCH_CREDENTIALS.portals[BENCH_PORTAL],
  };
  report(ready);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
