import type { CoreReady, MemoryReport } from '../servers/core-shared';
import { withChild } from './child';
import { memoryOf } from './memory-signal';

export interface CoreUnderTest extends CoreReady {
  /** `Cookie` header value of a USER session. */
  cookie(user: 'alice' | 'bob'): string;
  /**
   * Waits until the server answers GET /health within 50 ms: requests a previous load left queued
   * (a load generator's timeouts do not stop the server working on them) must not burden the next.
   */
  settle(): Promise<void>;
  /** The process's memory after full GCs (SIGUSR2); only when started with `nodeArgs: ['--expose-gc']`. */
  memory(): Promise<MemoryReport>;
  /** The core process (its CPU time: lib/cpu.ts). */
  pid: number;
}

/** Waits until `${url}/health` answers within 50 ms (see `CoreUnderTest.settle`); the gateway has /health at its origin too. */
export async function settle(url: string): Promise<void> {
  const until = Date.now() + 120_000;
  while (Date.now() < until) {
    const t0 = performance.now();
    try {
      const response = await fetch(`${url}/health`);
      await response.arrayBuffer();
      if (performance.now() - t0 < 50) return;
    } catch {
      // not answering yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the server did not become idle within 120 s');
}

/** Runs `body` against a fresh core server process (servers/core.ts) on the given store (SQLite by default), stopped afterwards. */
export function withCore<R>(
  options: {
    subjects?: number;
    store?: 'sqlite' | 'postgres' | 'ldap';
    nodeArgs?: string[];
    tls?: Record<string, string>;
    /** Another build's dist/bench (the `versus` scenario: an earlier commit's core in the same run). */
    dir?: string;
  },
  body: (core: CoreUnderTest) => Promise<R>,
): Promise<R> {
  const args = [
    ...(options.subjects ? ['--subjects', String(options.subjects)] : []),
    ...(options.store ? ['--store', options.store] : []),
    // HTTPS with client certificates: server.tls and the certificate clients (bench/lib/pki.ts).
    ...(options.tls ? ['--tls', JSON.stringify(options.tls)] : []),
  ];
  return withChild<CoreReady, R>(
    'servers/core',
    args,
    (child) => {
      const memory = memoryOf(child);
      return body({ ...child.ready, cookie: (user) => `${child.ready.cookieName}=${child.ready.cookies[user]}`, settle: () => settle(child.ready.url), memory, pid: child.process.pid! });
    },
    { nodeArgs: options.nodeArgs, dir: options.dir },
  );
}
