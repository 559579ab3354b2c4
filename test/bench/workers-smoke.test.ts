import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describeWithService, postgresRequirement, redisRequirement } from '../helpers/services';

const run = promisify(execFile);
const RUNNER = join(__dirname, '..', '..', 'dist', 'bench', 'run.js');

/**
 * The workers scenario works end to end (`--smoke --only workers`): the real `svc server`, as one
 * process and as `--workers 2`, on the local PostgreSQL and Redis, answers every check, and each row
 * says where the CPU went. No timing or ratio is asserted: CI machines differ. Skipped with a message
 * without PostgreSQL or Redis, unless SVC_TEST_REQUIRE_ALL=1.
 */
describeWithService(redisRequirement(), 'bench --smoke --only workers', () => {
  describeWithService(postgresRequirement(), 'on PostgreSQL and Redis', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'svc-bench-workers-test-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('measures both modes, with the CPU of each part per 1000 checks', async () => {
      const out = join(dir, 'results.json');
      await run(process.execPath, [RUNNER, '--smoke', '--only', 'workers', '--connections', '4', '--out', out], { timeout: 180_000, maxBuffer: 4 * 1024 * 1024 });
      const results = JSON.parse(readFileSync(out, 'utf8')) as { failures: unknown[]; rows: Array<{ name: string; throughput: number; note?: string; against: string | null }> };
      expect(results.failures).toEqual([]);
      expect(results.rows.map((r) => r.name)).toEqual([
        'check form 1: HEAD + X-Operation READ (PG+Redis) one process',
        'check form 1: HEAD + X-Operation READ (PG+Redis) --workers 2',
        'check form 3: GET ?isAllowed=READ (PG+Redis) one process',
        'check form 3: GET ?isAllowed=READ (PG+Redis) --workers 2',
      ]);
      expect(results.rows[1].against).toBe(results.rows[0].name);
      for (const row of results.rows) {
        expect(row.throughput).toBeGreaterThan(0);
        expect(row.note).toMatch(/^rounds [\d,]+ req\/s; CPU s per 1000 checks: svc [\d.]+, load generator [\d.]+, Redis [\d.]+, PostgreSQL [\d.]+, other [\d.]+; machine \d+ % busy$/);
      }
    }, 210_000);
  });
});
