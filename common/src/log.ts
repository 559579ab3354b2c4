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
 * How log lines reach their file descriptor: asynchronously, in writes of at least BUFFERED_BYTES
 * (a request line is 200–300 bytes, so one write carries some thirty), and at the latest
 * FLUSH_EVERY_MS after a line was logged, so an audit line on a quiet server still shows at once to
 * a person. A write a line cost about a tenth of a gateway's busy time; writes of 2 KB still
 * 7–12 %, writes of 8 KB 3 % (issue 28: the gateway's `.cpuprofile` under the check through it,
 * node's fs.write). pino flushes what is buffered when the process exits.
 */
const BUFFERED_BYTES = 8192;
const FLUSH_EVERY_MS = 100;

/** A buffered, asynchronous log destination (see BUFFERED_BYTES): stdout, or a file for the benches. */
export function logDestination(dest: string | number = 1): pino.DestinationStream {
  // A worker's stdout shared as a pipe: whole lines in writes of at most PIPE_BUF, so a smaller buffer.
  const shared = dest === 1 && cluster.isWorker && stdoutIsPipe();
  const size = shared ? { maxWrite: PIPE_BUF, minLength: PIPE_BUF - 1 } : { minLength: BUFFERED_BYTES };
  return pino.destination({ dest, sync: false, periodicFlush: FLUSH_EVERY_MS, ...size });
}

/**
 * Asynchronous buffered writes to stdout. Loggers of one process that name themselves apart (the
 * demo's core, gateway and portal) share one: a child logger cannot rename itself (pino would write
 * `name` twice).
 */
export function stdoutDestination(): pino.DestinationStream {
  return logDestination(1);
}
