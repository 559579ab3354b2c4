/**
 * The gateway's replay cache refuses rather than evicts, and is sized for the gateway's peak rate
 * over a nonce's retention, so that a flood of visitors at that rate gets no 503 from it (SPEC 9,
 * 10.2; issue 24). The peak is what one gateway process served in the bench (bench/results.json);
 * the sizing rule is tested at a smaller rate with a clock of its own (the rule is linear).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ASSERTION_NONCE_RETENTION_SECONDS } from '../../common/src/assertion/principal-assertion';
import { ServiceUnavailable } from '../../common/src/errors';
import { MemoryNonceStore } from '../../common/src/memory-nonce-store';
import { GATEWAY_DEFAULTS } from '../../gateway/src/config';

/** Each nonce is held to the whole second after its retention. */
const HELD_SECONDS = ASSERTION_NONCE_RETENTION_SECONDS + 1;

/** `rate` new nonces a second for `seconds`, spread evenly; resolves how many were refused. */
async function flood(store: MemoryNonceStore, clock: { now: number }, rate: number, seconds: number): Promise<number> {
  let refused = 0;
  for (let i = 0; i < rate * seconds; i++) {
    clock.now += 1000 / rate;
    try {
      if (!(await store.rememberOnce(`assertion|demo-portal|n${i}`, ASSERTION_NONCE_RETENTION_SECONDS))) throw new Error(`nonce ${i} read as a replay`);
    } catch (error) {
      if (!(error instanceof ServiceUnavailable)) throw error;
      refused++;
    }
  }
  return refused;
}

test('a cache of rate × 181 nonces takes a flood at that rate for as long as it lasts, and never forgets a live nonce', async () => {
  const rate = 500;
  const clock = { now: 1_800_000_000_000 };
  const store = new MemoryNonceStore({ maxEntries: rate * HELD_SECONDS, clock: () => clock.now });
  expect(await flood(store, clock, rate, 2.5 * ASSERTION_NONCE_RETENTION_SECONDS)).toBe(0);
  // A nonce of the last 180 s is still refused as a replay.
  expect(await store.rememberOnce(`assertion|demo-portal|n${rate * 2.5 * ASSERTION_NONCE_RETENTION_SECONDS - 1}`, ASSERTION_NONCE_RETENTION_SECONDS)).toBe(false);
  // Past the rate it refuses (503) rather than evict.
  const small = new MemoryNonceStore({ maxEntries: rate * HELD_SECONDS, clock: () => clock.now });
  expect(await flood(small, clock, rate * 2, ASSERTION_NONCE_RETENTION_SECONDS)).toBeGreaterThan(0);
});

test("the gateway's default holds its peak rate (the bench's fastest gateway row) for a nonce's whole retention", () => {
  const { rows } = JSON.parse(readFileSync(resolve(__dirname, '../../bench/results.json'), 'utf8')) as { rows: { name: string; throughput: number }[] };
  const peak = Math.max(...rows.filter((row) => row.name.includes('through the gateway')).map((row) => row.throughput));
  expect(peak).toBeGreaterThan(1000);
  expect(GATEWAY_DEFAULTS.nonceCacheSize).toBeGreaterThanOrEqual(Math.ceil(peak * HELD_SECONDS));
});
