import { connect } from 'node:net';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { sessionCookie } from '../helpers/sessions';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

/** One raw HTTP/1.1 request, so that the request target is sent exactly as written; the status and body. */
function raw(target: string, cookie: string): Promise<{ status: number; body: string }> {
  const { hostname, port, host } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve({ status: Number(text.slice(9, 12)), body: text.slice(text.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`);
  });
}

test('the REST API accepts the absolute form of a request target (RFC 9112 3.2.2) as the origin form', async () => {
  const cookie = await sessionCookie(server, 'USER', { uniqueId: 'bob', contextId: 'employees' });
  const origin = await raw('/svc/resources/contexts/employees/subjects/bob', cookie);
  const absolute = await raw(`${server.url}/svc/resources/contexts/employees/subjects/bob`, cookie);
  expect(origin.status).toBe(200);
  expect(absolute.status).toBe(200);
  expect(JSON.parse(absolute.body)).toEqual(JSON.parse(origin.body));
});
