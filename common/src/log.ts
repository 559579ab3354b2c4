import cluster from 'node:cluster';
import { fstatSync } from 'node:fs';
import pino from 'pino';

/**
 * Linux's PIPE_BUF: a write this size or smaller to a pipe is never interleaved with another
 * process's. Workers of `--workers N` share the primary's stdout; when it is a pipe, the logger
 * writes whole lines in chunks of at most this many bytes, so lines from two workers never mix. (A
 * regular file needs no limit: Linux does not interleave writes to one file, and smaller chunks
 * cost more write calls per line.)
 */
const PIPE_BUF = 4096;

function stdoutIsPipe(): boolean {
  try {
    return fstatSync(1).isFIFO();
  } catch {
    return false;
  }
}

export type Logger = pino.Logger;

/**
 * One JSON line per event on stdout, for every process (the core names itself `svc`, the gateway
 * `svc-gateway`). The redaction list is a second line of defence: secrets, cookies, tokens and
 * assertions are never passed to the logger in the first place.
 */
export function createLogger(options: { level?: string; destination?: pino.DestinationStream; name?: string } = {}): Logger {
  return pino(
    {
      name: options.name ?? 'svc',
      level: options.level ?? process.env.SVC_LOG_LEVEL ?? 'info',
      base: { pid: process.pid },
      // Epoch milliseconds (pino's default): an ISO string costs a Date formatting on every request line.
      timestamp: pino.stdTimeFunctions.epochTime,
      redact: { paths: ['password', '*.password', 'secret', '*.secret', 'clientcred', '*.clientcred', 'cookie', '*.cookie', 'token', '*.token', 'assertion', '*.assertion'], censor: '[redacted]' },
    },
    options.destination ?? stdoutDestination(),
  );
}

/**
 * Asynchronous writes to stdout. Loggers of one process that name themselves apart (the demo's core,
 * gateway and portal) share one: a child logger cannot rename itself (pino would write `name` twice).
 */
export function stdoutDestination(): pino.DestinationStream {
  return pino.destination({ sync: false, ...(cluster.isWorker && stdoutIsPipe() ? { maxWrite: PIPE_BUF } : {}) });
}
