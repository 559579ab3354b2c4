/**
 * SEARCH as `text/csv` (SPEC 3): every matching subject, streamed a page at a time with the socket's
 * backpressure, so memory stays flat whatever the context's size. RFC 4180: CRLF line ends, a header
 * row, a field quoted when it holds a comma, a quote or a line break (quotes doubled). Columns:
 * `uniqueId`, then the definition's readable attributes in its order; a list's values are one field,
 * separated by line breaks (no value holds one: control characters are refused at every write).
 * A field starting with `=`, `+`, `-`, `@` gets a leading `'` (OWASP's CSV injection rule), so a
 * spreadsheet opening the file computes nothing an attribute value says.
 */
import type { Request, Response } from 'express';
import { InvalidRequest } from '../../../common/src/errors';
import type { ContextConfig } from '../config/types';
import { valuesOf, type Subject } from '../subjects/subject';
import { queryParam } from './body';

export const CSV_TYPE = 'text/csv';

/** `format=csv`, or an Accept that prefers text/csv to JSON and XML; another `format` is 400. */
export function wantsCsv(req: Request): boolean {
  const format = queryParam(req, 'format');
  if (format !== undefined && format !== 'csv') throw new InvalidRequest('format must be csv', { errors: [{ path: 'format', message: 'not csv' }] });
  if (format === 'csv') return true;
  const accept = req.headers.accept;
  if (!accept || !accept.includes(CSV_TYPE)) return false;
  return req.accepts(['application/json', 'application/xml', CSV_TYPE]) === CSV_TYPE;
}

/** The columns of a context's export: uniqueId and every attribute a reader may see. */
export function csvColumns(config: ContextConfig): string[] {
  const defined = config.definition.attributes;
  return ['uniqueId', ...Object.keys(defined).filter((name) => name !== 'uniqueId' && defined[name].mutability !== 'writeOnly')];
}

function field(value: string): string {
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const line = (fields: string[]) => `${fields.map(field).join(',')}\r\n`;

/** One row per subject. */
export function csvRows(columns: string[], subjects: Subject[]): string {
  return subjects.map((s) => line(columns.map((name) => (name === 'uniqueId' ? s.uniqueId : valuesOf(s.attributes[name]).join('\n'))))).join('');
}

/** Writes `chunk`, waiting for the socket to drain when its buffer is full (the reader sets the pace). */
function write(res: Response, chunk: string): Promise<void> {
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      res.off('drain', done);
      res.off('close', closed);
      if (error) reject(error);
      else resolve();
    };
    const closed = () => done(new Error('the client went away'));
    res.once('drain', done);
    res.once('close', closed);
  });
}

/**
 * Streams the export. The first page is read before the status is sent, so a store error is still an
 * ordinary problem answer; an error after it ends the connection (a truncated file, never a 200 that
 * looks whole: there is no trailing row count to trust, so the body is cut, not ended).
 */
export async function sendCsv(req: Request, res: Response, contextId: string, columns: string[], pages: AsyncGenerator<Subject[]>): Promise<void> {
  const first = await pages.next();
  res.statusCode = 200;
  res.setHeader('Content-Type', `${CSV_TYPE}; charset=utf-8; header=present`);
  res.setHeader('Content-Disposition', `attachment; filename="${contextId}-subjects.csv"`);
  res.setHeader('Cache-Control', 'no-store');
  if (req.method === 'HEAD') {
    await pages.return(undefined);
    res.end();
    return;
  }
  try {
    await write(res, line(columns) + (first.done ? '' : csvRows(columns, first.value)));
    if (!first.done) for await (const page of pages) await write(res, csvRows(columns, page));
    res.end();
  } catch (error) {
    res.destroy(error instanceof Error ? error : undefined);
  }
}
