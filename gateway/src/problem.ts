import type { Response } from 'express';
import { problemDetails } from '../../common/src/problem';
import { formatOfContentType } from '../../common/src/wire/media';
import { toXml, type WireDocument } from '../../common/src/wire/xml';
import { problemDocument } from '../../common/src/problem';

/**
 * The gateway's one place where an error becomes an answer: RFC 9457 problem details through the
 * shared `problemDetails()`, JSON unless the portal asked for XML.
 */
export function sendProblem(res: Response, error: unknown, accept?: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, headers, body } = problemDetails(error);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  const xml = accept !== undefined && !/json/i.test(accept) && formatOfContentType(accept.split(',')[0]) === 'xml';
  res.status(status);
  if (xml) res.type('application/problem+xml').send(toXml(problemDocument(body) as WireDocument));
  else res.type('application/problem+json').send(JSON.stringify(body));
}
