import { autocannonLoad } from './autocannon';
import type { CoreUnderTest } from './core';
import type { Measurement, RunOptions } from './scenario';

/** GETs of the employees context's subjects plus `path` (`/bob`, `?query`) with `user`'s session; an answer other than 200 fails. */
export function subjectsLoad(run: RunOptions, core: CoreUnderTest, path: string, user: 'alice' | 'bob', connections: number): Promise<Measurement> {
  return autocannonLoad({
    url: `${core.url}/svc/resources/contexts/employees/subjects${path}`,
    headers: { Cookie: core.cookie(user), Accept: 'application/json' },
    connections,
    duration: run.duration,
    warmup: run.warmup,
    timeout: 60,
    expectStatus: 200,
  });
}

/**
 * What the store scenarios compare: READ of bob's own subject (as bob), then each of `searches`
 * (label, query string) as alice, the core settled before each. Keyed `READ` and by the labels.
 */
export async function readAndSearches(run: RunOptions, core: CoreUnderTest, searches: ReadonlyArray<[string, string]>): Promise<Map<string, Measurement>> {
  const measured = new Map<string, Measurement>();
  await core.settle();
  measured.set('READ', await subjectsLoad(run, core, '/bob', 'bob', run.connections));
  // Fewer connections for searches, as in search.ts: a slow query under many connections only measures the queue.
  for (const [label, query] of searches) {
    await core.settle();
    measured.set(label, await subjectsLoad(run, core, `?${query}`, 'alice', Math.min(run.connections, 4)));
  }
  return measured;
}
