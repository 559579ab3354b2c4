/**
 * `npm run fuzz -- --runs N`: the fuzz suites (test/fuzz) with N cases per in-process property and
 * N / 10 per HTTP one (each is a round trip through real servers), instead of the bounded numbers
 * `npm test` uses. A failure prints fast-check's seed and path, and the shrunk counterexample.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

function runsArgument(argv: string[]): number {
  const at = argv.indexOf('--runs');
  const value = at >= 0 ? Number(argv[at + 1]) : 10_000;
  if (!Number.isSafeInteger(value) || value < 1) throw new Error('usage: npm run fuzz -- --runs N (a whole number of cases, at least 1)');
  return value;
}

const runs = runsArgument(process.argv.slice(2));
const root = resolve(__dirname, '../..');
const jest = spawnSync(process.execPath, [resolve(root, 'node_modules/jest/bin/jest.js'), 'test/fuzz', '--testTimeout', String(runs * 200)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, SVC_FUZZ_RUNS: String(runs) },
});
process.exitCode = jest.status ?? 1;
