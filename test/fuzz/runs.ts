/**
 * How many cases each fuzz property tries. `npm test` runs a bounded number (the figure after each
 * property); `npm run fuzz -- --runs N` sets SVC_FUZZ_RUNS and every property tries N cases (the
 * HTTP ones N / 10: each of their cases is a round trip through real servers).
 */
export function runs(inTests: number, perCase = 1): number {
  const asked = Number(process.env.SVC_FUZZ_RUNS);
  return Number.isSafeInteger(asked) && asked > 0 ? Math.max(1, Math.floor(asked / perCase)) : inTests;
}

/** Long runs must not hit jest's per-test limit: the limit grows with the runs asked. */
export function timeoutFor(inTests: number, msPerRun: number): number {
  return Math.max(30_000, runs(inTests) * msPerRun * 2);
}
