/**
 * Baseline: bare password-hash verifications per second through PasswordHasher at its defaults
 * (argon2id m=19456 t=2 p=1, concurrency os.availableParallelism()). Runs `--seconds N` after a warmup
 * of `--warmup N` and prints {"throughput","p50Ms","p99Ms","total","failures"}.
 */
import { parseArgs } from 'node:util';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { Latencies } from '../lib/percentiles';
import { report } from '../lib/child';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, warmup: { type: 'string', default: '2' } } });
  const hasher = new PasswordHasher({ precomputeDummy: false });
  const password = 'Bob-pass-1234';
  const phc = await hasher.hash(password);
  // As many callers as the hasher runs at once, plus as many waiting: the pool is always busy.
  const callers = hasher.maxConcurrent * 2;

  const measure = async (seconds: number) => {
    const latencies = new Latencies();
    let ok = 0;
    let failures = 0;
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(Math.round(seconds * 1e9));
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (process.hrtime.bigint() < deadline) {
          const t0 = process.hrtime.bigint();
          const result = await hasher.verify(phc, password);
          if (result.ok) {
            ok++;
            latencies.record(Number(process.hrtime.bigint() - t0) / 1e6);
          } else failures++;
        }
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    return { throughput: ok / elapsed, ...latencies.summary(), total: ok + failures, failures, params: hasher.argon2, concurrency: hasher.maxConcurrent };
  };

  const warmup = Number(values.warmup);
  if (warmup > 0) await measure(warmup);
  report(await measure(Number(values.seconds)));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
