import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export interface LogLines {
  /** A logger whose JSON lines are kept (level info, so that audit lines are). */
  logger: Logger;
  /** Every audit line so far, parsed. */
  audits(): Record<string, unknown>[];
}

/** A process logger whose output a test can read back: the audit trail of a real server. */
export function logLines(): LogLines {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, sink),
    audits: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.audit === true),
  };
}
