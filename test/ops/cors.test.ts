import { startTestServer, type TestServer } from '../helpers/core-server';

let server: TestServer;
afterEach(() => server.stop());

test('CORS is off unless origins are configured', async () => {
  server = await startTestServer();
  const res = await fetch(`${server.baseUrl}/resources/session`, { headers: { origin: 'https://app.example' } });
  expect(res.headers.get('access-control-allow-origin')).toBeNull();
});

test('a configured origin gets credentials and a preflight; another origin gets nothing', async () => {
  server = await startTestServer({ configure: (doc) => Object.assign(doc.server as object, { corsOrigins: ['https://app.example'] }) });
  const preflight = await fetch(`${server.baseUrl}/resources/contexts/employees/subjects/bob`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
  expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
  expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');

  const simple = await fetch(`${server.baseUrl}/resources/session`, { headers: { origin: 'https://app.example' } });
  expect(simple.headers.get('access-control-expose-headers')).toContain('X-Svc-Decision');
  expect(simple.headers.get('vary')).toContain('Origin');

  const foreign = await fetch(`${server.baseUrl}/resources/session`, { headers: { origin: 'https://evil.example' } });
  expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
});
