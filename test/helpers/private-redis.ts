import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createServer } from 'node:net';
import Redis from 'ioredis';
import type { Requirement } from './services';

/** A redis-server of a suite's own on a spare loopback port, for settings the shared one must keep. */
export interface PrivateRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
  /**
   * Starts it again on the same port and settings after `stop()` (an outage): empty, as a Redis
   * without persistence comes back after a restart.
   */
  start(): Promise<void>;
}

/** Debian's redis-server. */
export const REDIS_SERVER = '/usr/bin/redis-server';

async function sparePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** redis-server as a requirement (a program): suites that start their own need it installed. */
export function redisServerRequirement(): Requirement {
  try {
    accessSync(REDIS_SERVER, constants.X_OK);
    return { name: 'redis-server', url: REDIS_SERVER, reachable: true, kind: 'program' };
  } catch {
    return { name: 'redis-server', url: REDIS_SERVER, reachable: false, reason: 'apt-get install -y redis-server', kind: 'program' };
  }
}

/** Starts `redis-server` with `args` (e.g. `--maxmemory-policy allkeys-lru`), no persistence, and waits until it answers. */
export async function startPrivateRedis(args: string[], password?: string): Promise<PrivateRedis> {
  const port = await sparePort();
  const url = `redis://127.0.0.1:${port}`;
  let running = await spawnRedis(port, args, password);
  return {
    url,
    port,
    async stop() {
      await running.stop();
    },
    async start() {
      running = await spawnRedis(port, args, password);
    },
  };
}

async function spawnRedis(port: number, args: string[], password: string | undefined): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...(password ? ['--requirepass', password] : []), ...args], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  // Ready once it answers a PING; it starts in a few milliseconds, but give a loaded machine time.
  for (let attempt = 0; ; attempt++) {
    const probe = new Redis(url, { password, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (error) {
      if (attempt >= 200 || child.exitCode !== null) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      probe.disconnect();
    }
  }
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
