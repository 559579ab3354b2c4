/**
 * Memory per idle session: creates `--sessions N` USER sessions (distinct principals) through
 * SessionManager on the memory store in two halves, forcing GC after each (run with --expose-gc),
 * and prints {"sessions","rssBefore","rssAfter","heapBefore","heapAfter","bytesPerSession",
 * "heapBytesPerSession","totalBytesPerSession"}. The cookie values are dropped, as a server drops
 * them once the answer is sent.
 *
 * `bytesPerSession` is the slope over the second half: what one more idle session costs. The first
 * half also pays V8's one-time growth of its young generation and heap reserves (tens of MiB,
 * whatever the count), which `totalBytesPerSession` (from an empty store) includes.
 */
import { parseArgs } from 'node:util';
import { MemorySessionStore } from '../../server/src/sessions/memory-session-store';
import { SessionManager } from '../../server/src/sessions/session-manager';
import { report } from '../lib/child';

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 3; i++) gc();
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sessions: { type: 'string', default: '100000' } } });
  const count = Number(values.sessions);
  const store = new MemorySessionStore({ maxSessions: count, sweepIntervalMs: 0 });
  const sessions = new SessionManager({ store, idleSeconds: 1800, absoluteSeconds: 43_200 });
  // Warm the code paths (and their allocations) once, then measure from a collected heap.
  const warm = await sessions.create({ type: 'USER', clientId: 'svc-web', principal: { uniqueId: 'warm', contextId: 'employees' }, level: 2, authenticator: 'employees-password' });
  await sessions.end(warm.cookieValue);
  collect();
  const before = process.memoryUsage();
  const createMany = async (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      await sessions.create({
        type: 'USER',
        clientId: 'svc-web',
        principal: { uniqueId: `user${String(i).padStart(6, '0')}`, contextId: 'employees' },
        level: 2,
        authenticator: 'employees-password',
      });
    }
  };
  const half = Math.floor(count / 2);
  await createMany(0, half);
  collect();
  const middle = process.memoryUsage();
  await createMany(half, count);
  collect();
  const after = process.memoryUsage();
  report({
    sessions: count,
    rssBefore: before.rss,
    rssAfter: after.rss,
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
    bytesPerSession: (after.rss - middle.rss) / (count - half),
    heapBytesPerSession: (after.heapUsed - middle.heapUsed) / (count - half),
    totalBytesPerSession: (after.rss - before.rss) / count,
  });
  await sessions.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
