import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { expressServerOptions } from '../../common/src/http/express-prototypes';

/** What the requests of a server built with expressServerOptions look like to express's own routes. */
test('requests are born with the app prototype, so express never swaps it and its helpers still work', async () => {
  const app = express();
  const options = expressServerOptions(app);
  const seen: Array<Record<string, unknown>> = [];
  app.get('/things/:id', (req, res) => {
    seen.push({ sameRequest: Object.getPrototypeOf(req) === app.request, sameResponse: Object.getPrototypeOf(res) === app.response, id: req.params.id, query: req.query, path: req.path });
    res.status(201).json({ ok: true });
  });
  const server = http.createServer(options, app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/things/a%20b?x=1`);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({ ok: true });
    expect(seen).toEqual([{ sameRequest: true, sameResponse: true, id: 'a b', query: { x: '1' }, path: '/things/a%20b' }]);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
