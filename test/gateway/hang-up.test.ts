import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signPrincipalAssertion } from '../../common/src/assertion/principal-assertion';
import { startTestServer } from '../helpers/core-server';
import { PORTAL, PORTAL_SECRET, employee, send, startTestGateway } from './gateway-helpers';

/**
 * A portal that hangs up before the core answers must not take the core out of the pool: the
 * gateway's pipe to the closed portal connection fails, and that is not the core's fault.
 */
test('a portal hanging up mid-request leaves the core in the pool', async () => {
  const core = await startTestServer();
  // A real core behind a relay that holds /resources/session answers until released.
  const held: Array<() => void> = [];
  const relay = http.createServer(async (req, res) => {
    if (req.url?.includes('/resources/session')) await new Promise<void>((release) => held.push(release));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstream = await fetch(new URL(req.url!, core.url), {
      method: req.method,
      headers: Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'connection')) as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const headers: Record<string, string | string[]> = Object.fromEntries(upstream.headers);
    const cookies = upstream.headers.getSetCookie();
    if (cookies.length) headers['set-cookie'] = cookies;
    delete headers['content-encoding'];
    delete headers['content-length'];
    res.writeHead(upstream.status, headers);
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', () => r()));
  const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/svc`;
  const gateway = await startTestGateway([relayUrl]);
  try {
    // Log bob in first (through the relay, unheld), so the held request is the session read itself.
    const warm = send(gateway, '/gw/api/session', { user: employee('bob') });
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    held.shift()!();
    expect((await warm).status).toBe(200);

    // The portal sends a request and hangs up while the core's answer is held.
    const path = '/gw/api/session';
    const url = new URL(gateway.url);
    const hungUp = http.request({
      host: url.hostname,
      port: url.port,
      path,
      agent: false,
      headers: { 'x-svc-principal': signPrincipalAssertion({ portalId: PORTAL, secret: PORTAL_SECRET, user: employee('bob'), visitor: 'v1', method: 'GET', pathAndQuery: path }) },
    });
    hungUp.on('error', () => undefined);
    hungUp.end();
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    hungUp.destroy();
    await new Promise((r) => setTimeout(r, 20));
    held.shift()!();
    await new Promise((r) => setTimeout(r, 50));

    const next = send(gateway, '/gw/api/contexts', { user: employee('bob') });
    expect((await next).status).toBe(200);
    expect((await send(gateway, '/ready', { assertion: false })).status).toBe(200);
  } finally {
    for (const release of held) release();
    await gateway.close();
    relay.closeAllConnections();
    await new Promise((r) => relay.close(r));
    await core.stop();
  }
});
