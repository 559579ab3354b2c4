/** Baseline server: bare node:http answering a constant JSON body. Prints {"url"} when listening. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { onStop, report } from '../lib/child';

const body = Buffer.from(JSON.stringify({ hello: 'world' }));

const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  report({ url: `http://127.0.0.1:${port}` });
});
onStop(() => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined));
