/**
 * Refusals every process makes alike (issue 24, SPEC 3), against a real core, gateway and portal:
 * - a body over the limit is answered 413 while the client is still sending, and the client reads
 *   it (20 of 20 with node's fetch, 5 MiB against 1 MiB), never EPIPE or a reset: the server reads
 *   and discards the rest before it closes;
 * - a path whose percent-escapes do not decode is 400, never a 500 with a URIError in the log.
 */
import { connect } from 'node:net';
import type { RunningGateway } from '../../gateway/src/index';
import { signPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import { sessionCookies } from '../authorization/helpers';
import { employee, PORTAL, PORTAL_SECRET, startTestGateway } from '../gateway/gateway-helpers';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { attributeOf, Browser, startTestPortal, type TestPortal } from '../portal/portal-helpers';

let core: TestServer;
let gateway: RunningGateway;
let portal: TestPortal;
let admin: string;

beforeAll(async () => {
  core = await startTestServer();
  gateway = await startTestGateway([core.baseUrl]);
  portal = await startTestPortal({ pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }] }] });
  admin = (await sessionCookies(core)).ALICE;
});
afterAll(async () => {
  await portal.stop();
  await gateway.close();
  await core.stop();
});

const FIVE_MIB = 5 * 1024 * 1024;
const TRIES = 20;

/** What came back for each of `TRIES` sends: a status, or the error's code (EPIPE, ECONNRESET, …). */
async function outcomes(send: () => Promise<Response>): Promise<(number | string)[]> {
  const seen: (number | string)[] = [];
  for (let i = 0; i < TRIES; i++) {
    try {
      const answer = await send();
      await answer.arrayBuffer();
      seen.push(answer.status);
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      seen.push(cause?.code ?? cause?.message ?? String(error));
    }
  }
  return seen;
}

const all413 = Array<number>(TRIES).fill(413);

describe('a 5 MiB body is answered 413, 20 times in 20', () => {
  const json = JSON.stringify({ subject: { uniqueId: 'big', attributes: { mail: 'big@example.com', givenName: 'x'.repeat(FIVE_MIB) } } });

  test('the core (REST, a logged-in admin)', async () => {
    const url = `${core.baseUrl}/resources/contexts/employees/subjects`;
    expect(await outcomes(() => fetch(url, { method: 'POST', headers: { cookie: admin, 'content-type': 'application/json' }, body: json }))).toEqual(all413);
  });

  test('the core (SOAP)', async () => {
    const envelope = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><v:read xmlns:v="urn:svc:soap:v1"><v:contextId>${'x'.repeat(FIVE_MIB)}</v:contextId></v:read></s:Body></s:Envelope>`;
    const url = `${core.baseUrl}/services/SubjectService`;
    expect(await outcomes(() => fetch(url, { method: 'POST', headers: { cookie: admin, 'content-type': 'text/xml; charset=utf-8' }, body: envelope }))).toEqual(all413);
  });

  test('the gateway (a signed portal request)', async () => {
    const path = '/gw/api/contexts/employees/subjects';
    const url = new URL(path, gateway.url).href;
    const send = () => {
      const assertion = signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('alice'), visitor: 'big-body', address: null, method: 'POST', pathAndQuery: path });
      return fetch(url, { method: 'POST', headers: { 'x-svc-principal': assertion, 'content-type': 'application/json' }, body: json });
    };
    expect(await outcomes(send)).toEqual(all413);
  });

  test('the portal (a form post to a window)', async () => {
    const browser = new Browser(portal);
    const page = await browser.get('/portal/page/home');
    // The window's form action carries the session's CSRF token.
    const action = attributeOf(page.text, 'svc_a_form', 'action');
    expect(action).toMatch(/^\/portal\/page\/home\/action\/a\?.*_csrf=/);
    const form = new URLSearchParams({ big: 'x'.repeat(FIVE_MIB) }).toString();
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const send = () => fetch(`${portal.url}${action!}`, { method: 'POST', redirect: 'manual', headers: { cookie, origin: portal.url, 'content-type': 'application/x-www-form-urlencoded' }, body: form });
    expect(await outcomes(send)).toEqual(all413);
  });

  test('a chunked body (no length announced) is refused as soon as it passes the limit, not after the whole body', async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const answer = await fetch(`${core.baseUrl}/resources/contexts/employees/subjects`, { method: 'POST', headers: { cookie: admin, 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    const sentWhenAnswered = sent;
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { code: string }).code).toBe('payload_too_large');
    expect(sentWhenAnswered).toBeLessThan(6 * 1024 * 1024);
  });
});

/**
 * One raw connection: the request's head announcing `length` body bytes, then the answer read
 * before any body byte is sent; then the body, written in 64 KiB pieces for as long as the
 * connection takes them; then, if it is still open, `GET /health` on the same connection.
 */
async function refusedThenSent(origin: string, head: string[], length: number): Promise<{ status: number; written: number; closed: boolean; next?: number }> {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname, port: Number(port) });
  let received = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('close', () => (closed = true));
  socket.on('error', () => (closed = true));
  const answered = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (closed || received.split('HTTP/1.1 ').length > count) return resolve();
        socket.once('data', check);
        socket.once('close', check);
      };
      check();
    });
  socket.write([...head, `Content-Length: ${length}`, '', ''].join('\r\n'));
  await answered(1);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
  const piece = Buffer.alloc(64 * 1024, 0x20);
  let written = 0;
  while (written < length && !closed) {
    const ok = await new Promise<boolean>((resolve) => socket.write(piece.subarray(0, Math.min(piece.length, length - written)), (error) => resolve(!error)));
    if (!ok) break;
    written += Math.min(piece.length, length - written);
  }
  let next: number | undefined;
  if (!closed) {
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await answered(2);
    next = Number(/HTTP\/1\.1 (\d{3})/.exec(received.slice(received.indexOf('HTTP/1.1 ', 1)))?.[1] ?? 0) || undefined;
  }
  socket.destroy();
  return { status, written, closed, next };
}

describe('after a 413 the rest of the body is read and discarded, up to 5× the limit', () => {
  const MIB = 1024 * 1024;
  const heads: [string, () => Promise<{ origin: string; head: string[] }>][] = [
    ['the core', async () => ({ origin: core.url, head: ['POST /svc/resources/contexts/employees/subjects HTTP/1.1', 'Host: x', `Cookie: ${admin}`, 'Content-Type: application/json'] })],
    [
      'the gateway',
      async () => {
        const path = '/gw/api/contexts/employees/subjects';
        const assertion = signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('alice'), visitor: 'raw-body', address: null, method: 'POST', pathAndQuery: path });
        return { origin: gateway.url, head: [`POST ${path} HTTP/1.1`, 'Host: x', `X-Svc-Principal: ${assertion}`, 'Content-Type: application/json'] };
      },
    ],
    [
      'the portal',
      async () => {
        const browser = new Browser(portal);
        const page = await browser.get('/portal/page/home');
        const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
        return { origin: portal.url, head: [`POST ${attributeOf(page.text, 'svc_a_form', 'action')!} HTTP/1.1`, 'Host: x', `Cookie: ${cookie}`, `Origin: ${portal.url}`, 'Content-Type: application/x-www-form-urlencoded'] };
      },
    ],
  ];

  test.each(heads)('%s: a client that goes on sending 3 MiB reads the 413, and its connection then serves the next request', async (_process, request) => {
    const { origin, head } = await request();
    expect(await refusedThenSent(origin, head, 3 * MIB)).toEqual({ status: 413, written: 3 * MIB, closed: false, next: 200 });
  });

  test.each(heads)('%s: a client that goes on sending past 5× the limit has its connection closed', async (_process, request) => {
    const { origin, head } = await request();
    const outcome = await refusedThenSent(origin, head, 200 * MIB);
    expect({ status: outcome.status, closed: outcome.closed }).toEqual({ status: 413, closed: true });
    // What the client handed to its kernel: 5 MiB read by the server, the rest in socket buffers.
    expect(outcome.written).toBeLessThan(100 * MIB);
  });
});

describe('a malformed percent-escape in a path is 400 on every process', () => {
  const paths = (root: string) => [`${root}/%`, `${root}/%E0%A4%A`, `${root}/%FF`];

  test('the core: REST, pages and SOAP', async () => {
    for (const path of [...paths('/svc/resources/contexts/employees/subjects'), ...paths('/svc/login'), '/svc/services/SubjectService%', '/svc/%/config']) {
      const answer = await fetch(`${core.url}${path}`, { headers: { cookie: admin } });
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
      expect(await answer.text()).not.toMatch(/URIError|\n\s+at /);
    }
  });

  test('the gateway, before anything reaches the core', async () => {
    for (const path of paths('/gw/api/contexts/employees/subjects')) {
      const assertion = signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('alice'), visitor: 'escapes', address: null, method: 'GET', pathAndQuery: path });
      const answer = await fetch(`${gateway.url.replace(/\/gw$/, '')}${path}`, { headers: { 'x-svc-principal': assertion } });
      expect({ path, status: answer.status }).toEqual({ path, status: 400 });
    }
  });

  test('the portal: pages (an HTML page), an action before its CSRF check, and the REST pass-through (a problem)', async () => {
    const browser = new Browser(portal);
    for (const path of [...paths('/portal/page'), '/portal/page/%/action/x', '/portal/page/home/action/%E0%A4%A']) {
      const answer = path.includes('/action/') ? await browser.post(path, { x: '1' }) : await browser.get(path);
      expect({ path, status: answer.status, type: answer.headers.get('content-type') }).toEqual({ path, status: 400, type: expect.stringContaining('text/html') });
      expect(answer.text).not.toMatch(/URIError|\n\s+at /);
    }
    const api = await browser.get('/portal/api/contexts/%');
    expect({ status: api.status, type: api.headers.get('content-type') }).toEqual({ status: 400, type: expect.stringContaining('application/problem+json') });
  });
});
