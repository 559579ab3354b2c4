/**
 * Slow and many clients against a real core (issue 16). The attacker connects from 127.0.0.2, a
 * second loopback address standing for another client; the legitimate client uses 127.0.0.1.
 * Short timeouts (server.timeouts) and a small server.maxConnections keep the test quick; the
 * defaults are in server/src/config/defaults.ts. No timing is asserted: a slow client is cut off
 * when it is closed before it could send what it meant to.
 */
// Real sockets and servers with short timeouts; on two busy cores a case can pass 30 s.
jest.setTimeout(120_000);
import type { Socket } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { rawRequest } from '../hostile/raw-http';
import { idleConnections, trickle } from './slow-client';

const ATTACKER = '127.0.0.2';

async function healthy(server: TestServer): Promise<number> {
  return (await fetch(`${server.url}/health`)).status;
}

describe('slow clients are cut off by the server timeouts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      configure: (doc) => Object.assign(doc.server as object, { timeouts: { headers: 1, request: 2, keepAlive: 1 } }),
    });
  });
  afterAll(() => server.stop());

  test('slowloris headers: a header line every 100 ms (meant to last 60 s) is cut off with a 408 problem', async () => {
    const lines = [`GET ${new URL(server.baseUrl).pathname}/resources/session HTTP/1.1\r\nHost: x\r\n`, ...Array.from({ length: 600 }, (_, i) => `X-Slow-${i}: y\r\n`)];
    const slow = trickle(server.url, lines, 100, ATTACKER);
    // Meanwhile another client is served.
    expect(await healthy(server)).toBe(200);
    const { sent, answer } = await slow;
    expect(sent).toBeLessThan(lines.length);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"request_timeout"');
    expect(await healthy(server)).toBe(200);
  });

  test('slow body: a declared 10 000-byte login body sent a byte every 100 ms is cut off', async () => {
    const head = `POST ${new URL(server.baseUrl).pathname}/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\n`;
    const slow = trickle(server.url, [head, ...'user=bob&password='.split(''), ...Array.from({ length: 10_000 }, () => 'x')], 100, ATTACKER);
    expect(await healthy(server)).toBe(200);
    const { sent } = await slow;
    expect(sent).toBeLessThan(10_000);
    expect(await healthy(server)).toBe(200);
  });

  test('an idle connection that never sends a byte is closed too', async () => {
    const [socket] = await idleConnections(server.url, 1, ATTACKER);
    await new Promise((resolve) => (socket.destroyed ? resolve(undefined) : socket.once('close', resolve)));
    expect(socket.destroyed).toBe(true);
  });
});

describe('a connection flood is bounded by server.maxConnections', () => {
  const MAX = 20;
  let server: TestServer;
  let flood: Socket[] = [];
  beforeAll(async () => {
    server = await startTestServer({ configure: (doc) => Object.assign(doc.server as object, { maxConnections: MAX }) });
  });
  afterAll(async () => {
    for (const socket of flood) socket.destroy();
    await server.stop();
  });

  const openOnServer = () => new Promise<number>((resolve, reject) => server.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

  test(`${MAX * 5} connections from another address: ${MAX} are held, the rest closed at once; the server answers again as soon as they go`, async () => {
    flood = await idleConnections(server.url, MAX * 5, ATTACKER);
    // The server closes every connection beyond its limit as soon as it accepts it.
    await new Promise<void>((resolve) => {
      const check = () => (flood.filter((s) => s.destroyed).length >= MAX * 4 ? resolve() : setTimeout(check, 20));
      check();
    });
    expect(flood.filter((s) => !s.destroyed)).toHaveLength(MAX);
    expect(await openOnServer()).toBe(MAX);
    // While it is full, one more connection is refused as well: that is the bound.
    expect((await rawRequest(server.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n')).status).toBe(0);

    const gone = Date.now();
    for (const socket of flood) socket.destroy();
    await new Promise<void>((resolve) => {
      const check = async () => ((await openOnServer()) === 0 ? resolve() : setTimeout(check, 5));
      void check();
    });
    expect(await healthy(server)).toBe(200);
    // The figure for the README (not asserted): from the flood's end to the first answer.
    console.log(`flood of ${MAX * 5}: ${MAX} held, ${MAX * 4} closed at once; answered again ${Date.now() - gone} ms after the flood went`);
  });
});
