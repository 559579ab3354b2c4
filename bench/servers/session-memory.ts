/**
 * Memory per idle session: creates `--sessions N` USER sessions (distinct principals) through
 * SessionManager on the memory store, forces GC (run with --expose-gc) and prints
 * {"sessions","rssBefore","rssAfter","heapBefore","heapAfter","bytesPerSession","heapBytesPerSession"}.
 * The cookie values are dropped, as a server drops them once the answer is sent.
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
  for (let i = 0; i < count; i++) {
    await sessions.create({
      type: 'USER',
      clientId: 'svc-web',
      principal: { uniqueId: `user${String(i).padStart(6, '0')}`, contextId: 'employees' },
      level: 2,
      authenticator: 'employees-password',
    });
  }
  collect();
  const after = process.memoryUsage();
  report({
    sessions: count,
    rssBefore: before.rss,
    rssAfter: after.rss,
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
    bytesPerSession: (after.rss - before.rss) / count,
    heapBytesPerSession: (after.heapUsed - before.heapUsed) / count,
  });
  await sessions.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
