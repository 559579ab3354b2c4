import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const RUNNER = join(__dirname, '..', '..', 'dist', 'bench', 'run.js');

/**
 * The benchmark runner works end to end: `--smoke` (about a second per row) on two cheap scenarios
 * (the bare express baseline and the check, which needs it; the check through the gateway; the
 * session-memory child). It needs the
 * build (`pretest` runs it). No timing is asserted: CI machines differ.
 */
describe('bench --smoke', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-bench-test-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([['--only', 'nope'], ['--frobnicate']])('%s %s: exit 2, the mistake and the usage, no stack trace', async (...args) => {
    const refused = await run(process.execPath, [RUNNER, ...args]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.stderr).toMatch(/^(unknown scenario "nope"|Unknown option '--frobnicate'.*)\nusage: node dist\/bench\/run\.js /);
    expect(refused?.stderr).toContain('scenarios: bare-http, bare-express, check');
    expect(refused?.stderr).not.toMatch(/\n\s+at /);
  });

  it('prints a table and writes results JSON with the expected keys', async () => {
    expect(existsSync(RUNNER)).toBe(true);
    const out = join(dir, 'results.json');
    const { stdout } = await run(process.execPath, [RUNNER, '--smoke', '--only', 'check', '--only', 'gateway', '--only', 'portal', '--only', 'session-memory', '--connections', '4', '--out', out], {
      timeout: 180_000,
      maxBuffer: 4 * 1024 * 1024,
    });

    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^\| scenario +\| +throughput \| +p50 ms \| +p99 ms \| +ratio \| target +\| met +\|$/);
    expect(stdout).toContain('bare express GET');
    expect(stdout).toContain('check form 1: HEAD');
    expect(stdout).toContain('memory per idle session');

    const results = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(results).sort()).toEqual(['date', 'failures', 'machine', 'options', 'rows', 'scenarios']);
    expect(results.failures).toEqual([]);
    expect(results.scenarios).toEqual(['bare-express', 'check', 'gateway', 'portal', 'session-memory']);
    expect(results.options).toMatchObject({ smoke: true, duration: 1, connections: 4 });
    const rows = results.rows as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.name)).toEqual([
      'bare express GET',
      'bare express HEAD (keep-alive loop)',
      'bare express HEAD (undici loop, reconnects)',
      'check form 1: HEAD + X-Operation READ (USER)',
      'check form 1 over undici (reconnects)',
      'check form 2: PUT ?isAllowed=UPDATE (USER)',
      'check form 3: GET ?isAllowed=READ (USER)',
      'check form 4: GET /authz/... (USER)',
      'check form 3 direct, raw loop, 16 connections (USER bob)',
      'check form 3 through the gateway, 16 connections (USER bob)',
      'check form 3 direct, raw loop, 4 connections (USER bob)',
      'check form 3 through the gateway, 4 connections (USER bob)',
      'check form 3 through the gateway, 16 connections (USER bob)',
      'portal home page (Self-Service), bob, 16 connections',
      'portal Administration (User Admin, 20 results), alice, 16 connections',
      'memory per idle session (memory store, 10,000)',
    ]);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(expect.arrayContaining(['name', 'throughput', 'unit', 'p50Ms', 'p99Ms', 'ratio', 'against', 'target', 'met']));
      expect(row.met === null || typeof row.met === 'boolean').toBe(true);
    }
    // Every measured row got answers (a broken route would show as zero throughput or failures).
    for (const row of rows.filter((r) => r.throughput !== null)) {
      expect(row.throughput as number).toBeGreaterThan(0);
      expect(row.note ?? '').not.toMatch(/failed/);
    }
  }, 210_000);
});
