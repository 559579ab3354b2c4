/**
 * The fault-injecting proxy the outage suites rely on, against a real echo server: it forwards, a cut
 * closes every connection and resets new ones, a stall forwards nothing (and delivers what it held
 * on restore), and restore forwards again.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy';

let echo: Server;
const echoed = new Set<Socket>();
let proxy: FaultProxy;

beforeAll(async () => {
  echo = createServer((socket) => {
    echoed.add(socket);
    socket.on('close', () => echoed.delete(socket));
    socket.on('error', () => {});
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  proxy = await startFaultProxy((echo.address() as { port: number }).port);
});

afterAll(async () => {
  await proxy.close();
  for (const socket of echoed) socket.destroy();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

/** A connection through the proxy, with what it received so far and how it ended. */
async function open(): Promise<{ socket: Socket; received: () => string; ended: Promise<string> }> {
  const socket = connect({ host: '127.0.0.1', port: proxy.port });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const ended = new Promise<string>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.on('close', () => resolve('closed'));
  });
  // A refused connection may be reset before node reports it connected.
  await Promise.race([new Promise<void>((resolve) => socket.once('connect', () => resolve())), ended]);
  return { socket, received: () => text, ended };
}

async function receives(connection: { received: () => string }, text: string): Promise<void> {
  while (!connection.received().includes(text)) await new Promise((resolve) => setTimeout(resolve, 10));
}

test('forwards both ways', async () => {
  const c = await open();
  c.socket.write('hello');
  await receives(c, 'hello');
  c.socket.destroy();
});

test('cut: open connections are closed, new ones reset; restore: forwards again', async () => {
  const c = await open();
  proxy.cut();
  expect(await c.ended).toBe('closed');
  const refused = await open();
  expect(await refused.ended).toBe('ECONNRESET');
  proxy.restore();
  const again = await open();
  again.socket.write('back');
  await receives(again, 'back');
  again.socket.destroy();
});

test('stall: nothing passes, new connections are accepted; restore delivers what was held', async () => {
  const held = await open();
  proxy.stall();
  held.socket.write('held');
  const fresh = await open();
  fresh.socket.write('fresh');
  // Nothing comes back while stalled: the echo would answer at once (checked after restore below).
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect([held.received(), fresh.received()]).toEqual(['', '']);
  proxy.restore();
  await receives(held, 'held');
  await receives(fresh, 'fresh');
  held.socket.destroy();
  fresh.socket.destroy();
});
