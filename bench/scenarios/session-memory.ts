import { withChild } from '../lib/child';
import type { Scenario } from '../lib/scenario';

interface MemoryReport {
  sessions: number;
  bytesPerSession: number;
  heapBytesPerSession: number;
  totalBytesPerSession: number;
}

const LIMIT = 1024;

/** RSS per idle USER session in the memory store, 100 000 sessions, after forced GC (own process). */
export const sessionMemory: Scenario = {
  name: 'session-memory',
  run: async (ctx) => {
    const sessions = ctx.smoke ? 10_000 : 100_000;
    const r = await withChild<MemoryReport, MemoryReport>('servers/session-memory', ['--sessions', String(sessions)], async ({ ready }) => ready, {
      nodeArgs: ['--expose-gc'],
    });
    return [
      {
        name: `memory per idle session (memory store, ${sessions.toLocaleString('en-US')})`,
        throughput: null,
        unit: 'B/session',
        p50Ms: null,
        p99Ms: null,
        ratio: r.bytesPerSession / LIMIT,
        against: '1 KiB',
        target: '≤ 1 KiB RSS per session',
        met: r.bytesPerSession <= LIMIT,
        note: `${Math.round(r.bytesPerSession)} B RSS and ${Math.round(r.heapBytesPerSession)} B heap per added session; ${Math.round(r.totalBytesPerSession)} B RSS from empty, with V8's one-time growth`,
      },
    ];
  },
};
