/** Baseline server: bare express answering a constant JSON body (GET, and HEAD through express). */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { onStop, report } from '../lib/child';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  report({ url: `http://127.0.0.1:${port}` });
});
server.keepAliveTimeout = 65_000;
onStop(() => new Promise<void>((resolve) => server.close(() => resolve())));
