import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { HeadersTooLarge, InvalidRequest, RequestTimeout, type SvcError } from '../errors';
import { problemDetails } from '../problem';

/** node's parser errors, in our hierarchy. */
function errorOf(code: string | undefined): SvcError {
  if (code === 'HPE_HEADER_OVERFLOW') return new HeadersTooLarge('the request line and headers exceed the server\'s limit');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return new RequestTimeout('the request was not received in time');
  return new InvalidRequest('the request is not valid HTTP/1.1');
}

/**
 * Requests that node's HTTP parser refuses never reach a listener; node would answer them with a
 * bare status line. This answers them as problem details like every other refusal (the body from
 * problemDetails, the one place), and closes the connection, since the stream cannot be trusted.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const { status, body } = problemDetails(errorOf(error.code));
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `Cache-Control: no-store\r\nConnection: close\r\n\r\n${text}`,
    );
  });
}
