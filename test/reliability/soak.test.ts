import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SoakSummary } from '../../bench/soak';

const run = promisify(execFile);
const SOAK = join(__dirname, '..', '..', 'dist', 'bench', 'soak.js');
/** Generous: a leak shows in minutes, not in 20 s; this catches a gross one (sessions, caches). */
const HEAP_BOUND = 1.5;

/**
 * The soak runner, for 20 s, against a real core, gateway and portal (child processes of the built
 * dist; `pretest` builds): every kind of request was answered without a 5xx, and the core's heap
 * after full GCs at the end is within a generous bound of its level after warm-up. No timing asserted.
 */
describe('soak, 20 seconds', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-soak-test-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers every kind without a 5xx and keeps the heap bounded', async () => {
    const out = join(dir, 'soak.json');
    const { stdout } = await run(process.execPath, [SOAK, '--seconds', '20', '--out', out], { timeout: 180_000, maxBuffer: 4 * 1024 * 1024 });
    expect(stdout).toContain('core heap used after full GC');

    const summary = JSON.parse(readFileSync(out, 'utf8')) as SoakSummary;
    expect(summary.kinds).toHaveLength(10);
    for (const kind of summary.kinds) {
      expect({ kind: kind.kind, serverErrors: kind.serverErrors, failures: kind.failures }).toEqual({ kind: kind.kind, serverErrors: 0, failures: 0 });
      expect(kind.requests).toBeGreaterThan(0);
    }
    expect(summary.serverErrors).toBe(0);
    expect(summary.memory.length).toBeGreaterThanOrEqual(3);
    expect(summary.atEnd.heapUsed).toBeLessThanOrEqual(summary.afterWarmup.heapUsed * HEAP_BOUND);
  }, 200_000);
});
