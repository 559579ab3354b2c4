import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON when it is a problem or JSON document. */
  json?: Record<string, unknown>;
}

/**
 * Sends bytes exactly as given (no client library would send most hostile shapes) and reads the
 * first answer. A server that closes without answering resolves status 0. `localAddress` (e.g.
 * 127.0.0.2) makes the request come from another client as far as the server can tell.
 */
export function rawRequest(url: string, bytes: Buffer | string, timeoutMs = 10_000, localAddress?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in time'));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      resolve(parse(Buffer.concat(chunks)));
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const answer = complete(Buffer.concat(chunks));
      if (answer) {
        clearTimeout(timer);
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('end', finish);
    socket.on('error', finish);
    socket.write(bytes);
  });
}

function complete(buffer: Buffer): RawAnswer | undefined {
  const answer = parse(buffer);
  if (!answer.status) return undefined;
  const length = answer.headers['content-length'];
  if (length !== undefined && Buffer.byteLength(answer.body) >= Number(length)) return answer;
  return undefined;
}

function parse(buffer: Buffer): RawAnswer {
  const text = buffer.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: '' };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]) || 0, headers, body, json };
}
