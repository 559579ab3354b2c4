import { withChild } from '../lib/child';
import { loadRow, type Measurement, type Scenario } from '../lib/scenario';
import { BARE_HASH } from './names';

/** Baseline: password-hash verifications per second through PasswordHasher at its defaults, in a child process. */
export const hash: Scenario = {
  name: 'hash',
  run: (ctx) =>
    withChild<Measurement & { concurrency: number }, ReturnType<typeof loadRow>[]>(
      'servers/hash',
      ['--seconds', String(ctx.duration), '--warmup', String(ctx.warmup)],
      async ({ ready }) => [loadRow(BARE_HASH, ready, { unit: 'verify/s', target: 'baseline', note: `${ready.concurrency} at once` })],
      { timeoutMs: (ctx.duration + ctx.warmup) * 1000 + 60_000 },
    ),
};
