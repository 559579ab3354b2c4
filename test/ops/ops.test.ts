import { Writable } from 'node:stream';
import pino from 'pino';
import { startTestServer, type TestServer } from '../helpers/core-server';

let server: TestServer;
const lines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  server = await startTestServer({ logger: pino({ level: 'info' }, destination) });
});
afterAll(() => server.stop());

test('health, readiness and Prometheus metrics need no session', async () => {
  expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
  expect((await fetch(`${server.url}/ready`)).status).toBe(200);
  await fetch(`${server.baseUrl}/resources/session`);
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  expect(metrics).toContain('svc_http_request_duration_seconds_count');
  expect(metrics).toContain('process_resident_memory_bytes');
});

test('one JSON log line per request, with the request id the client sees, and no query string', async () => {
  const res = await fetch(`${server.baseUrl}/resources/contexts/employees/subjects?search=secret-text`);
  const id = res.headers.get('x-request-id');
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await new Promise((r) => setImmediate(r));
  const entry = lines.find((line) => line.reqId === id);
  expect(entry).toMatchObject({ msg: 'request', method: 'GET', path: '/svc/resources/contexts/employees/subjects', status: 401 });
  expect(JSON.stringify(lines)).not.toContain('secret-text');
});

test('readiness follows the stores', async () => {
  const store = server.core.subjects.context('employees').store;
  await store.close();
  expect((await fetch(`${server.url}/ready`)).status).toBe(503);
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
});
