import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningGateway } from '../../gateway/src/index';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { employee, send, startTestGateway } from './gateway-helpers';

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('faults', () => {
  it('core unreachable: 502 problem details', async () => {
    const closed = http.createServer();
    const url = await listen(closed);
    await close(closed);
    const gateway = await startTestGateway([`${url}/svc`]);
    try {
      const answer = await send(gateway, '/gw/api/session');
      expect(answer.status).toBe(502);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.json()).toMatchObject({ status: 502, code: 'bad_gateway' });
      expect((await send(gateway, '/ready', { assertion: false })).status).toBe(503);
    } finally {
      await gateway.close();
    }
  });

  it('core slower than the limit: 504 problem details', async () => {
    const timers = new Set<NodeJS.Timeout>();
    const slow = http.createServer((_req, res) => {
      timers.add(setTimeout(() => res.end('{}'), 5_000));
    });
    const url = await listen(slow);
    const gateway = await startTestGateway([`${url}/svc`], { coreTimeoutMs: 200 });
    try {
      const answer = await send(gateway, '/gw/api/session');
      expect(answer.status).toBe(504);
      expect(answer.json()).toMatchObject({ status: 504, code: 'gateway_timeout' });
      // Warm now: the limit decides, not the core's 5 s.
      expect((await send(gateway, '/gw/api/contexts')).status).toBe(504);
    } finally {
      await gateway.close();
      for (const timer of timers) clearTimeout(timer);
      await close(slow);
    }
  });

  describe('two cores', () => {
    let first: TestServer;
    let second: TestServer;
    let gateway: RunningGateway;
    const hits = new Map<string, number>();

    beforeAll(async () => {
      [first, second] = await Promise.all([startTestServer(), startTestServer()]);
      for (const core of [first, second]) {
        core.server.prependListener('request', () => hits.set(core.baseUrl, (hits.get(core.baseUrl) ?? 0) + 1));
      }
      gateway = await startTestGateway([first.baseUrl, second.baseUrl]);
    });

    afterAll(async () => {
      await gateway.close();
      await Promise.all([first.stop(), second.stop()]);
    });

    it('spreads requests, and keeps succeeding when one core stops mid-run', async () => {
      for (let i = 0; i < 4; i++) expect((await send(gateway, '/gw/api/session')).status).toBe(200);
      expect(hits.get(first.baseUrl)).toBeGreaterThan(0);
      expect(hits.get(second.baseUrl)).toBeGreaterThan(0);

      await first.close();
      for (let i = 0; i < 6; i++) {
        const answer = await send(gateway, '/gw/api/session', { user: employee(i % 2 ? 'alice' : 'bob') });
        expect(answer.status).toBe(200);
        expect(answer.json()).toMatchObject({ session: { type: 'USER' } });
      }
      expect(gateway.pool.healthy).toEqual([second.baseUrl]);
      expect((await send(gateway, '/ready', { assertion: false })).status).toBe(200);
    });
  });
});
