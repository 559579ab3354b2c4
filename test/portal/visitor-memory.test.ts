import http from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestPortal, type TestPortal } from './portal-helpers';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after full collections (several: finalizers free more on the next pass). */
function settledHeap(): number {
  for (let i = 0; i < 4; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** `count` first requests of visitors without cookies, `parallel` at a time, on keep-alive connections. */
async function visitors(portal: TestPortal, count: number, parallel = 16): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
  const { hostname, port } = new URL(portal.url);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await new Promise<void>((resolve, reject) => {
        http
          .get({ hostname, port, path: '/portal/page/home', agent }, (res) => {
            if (res.statusCode !== 200 || !res.headers['set-cookie']?.some((c) => c.startsWith('SVCPORTALVISITOR='))) reject(new Error(`status ${res.statusCode}`));
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      });
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  agent.destroy();
}

test('10 000 visitors\' first requests leave the portal\'s memory flat: no server state per visitor', async () => {
  const portal = await startTestPortal({ pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }, { id: 'b', portlet: 'counter' }] }] });
  try {
    // Warm-up: the first few thousand requests also fill V8's caches (inline caches, compiled regexps).
    await visitors(portal, 3000);
    const before = settledHeap();
    await visitors(portal, 10_000);
    const after = settledHeap();
    expect(portal.deps.sessions.size).toBe(0);
    // Anything kept per visitor would be well over 100 bytes each: 10 000 of them, over 1 MB.
    expect(after - before).toBeLessThan(1024 * 1024);
    console.log(`heap after 3 000 visitors ${(before / 1048576).toFixed(1)} MiB, after 10 000 more ${(after / 1048576).toFixed(1)} MiB (${((after - before) / 1024).toFixed(0)} KiB)`);
  } finally {
    await portal.stop();
  }
}, 180_000);
