/**
 * A server child's memory after full garbage collections, on request: the child (run with
 * --expose-gc) answers each SIGUSR2 with one JSON line (`MemoryReport`, plus what `extra` adds);
 * the parent sends the signal and reads the line, one at a time (the lines carry no request id).
 */
import type { MemoryReport } from '../servers/core-shared';
import { report, type RunningChild } from './child';

/** Child side: without --expose-gc, nothing (the parent's request would time out). */
export function reportMemoryOnSignal(extra: () => Record<string, number> = () => ({})): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  process.on('SIGUSR2', () => {
    for (let i = 0; i < 3; i++) gc();
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
    report({ rss, heapUsed, heapTotal, external, ...extra() });
  });
}

/** Parent side: asks `child` for its memory. */
export function memoryOf<M extends MemoryReport = MemoryReport>(child: RunningChild<unknown>): () => Promise<M> {
  let last: Promise<unknown> = Promise.resolve();
  return () => {
    const next = last.then(() => {
      child.process.kill('SIGUSR2');
      return child.nextLine() as Promise<M>;
    });
    last = next.catch(() => undefined);
    return next;
  };
}
