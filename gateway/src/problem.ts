import type { Response } from 'express';
import { problemDetails } from '../../common/src/problem';
import { formatOfContentType } from '../../common/src/wire/media';
import { problemXml } from '../../common/src/wire/problem-xml';
import { toXml, type WireDocument } from '../../common/src/wire/xml';

/**
 * The gateway's one place where an error becomes an answer: RFC 9457 problem details through the
 * shared `problemDetails()`, JSON unless the portal asked for XML (then RFC 9457's XML format).
 */
export function sendProblem(res: Response, error: unknown, accept?: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, headers, body } = problemDetails(error);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status);
  if (prefersXml(accept)) res.type('application/problem+xml').send(problemXml(body));
  else res.type('application/problem+json').send(JSON.stringify(body));
}

/** The gateway's own documents (the login's answer): JSON unless the portal asked for XML. */
export function sendDocument(res: Response, status: number, document: WireDocument, accept?: string): void {
  res.status(status);
  if (prefersXml(accept)) res.type('application/xml').send(toXml(document));
  else res.type('application/json').send(JSON.stringify(document));
}

/** XML only when the first type the portal accepts is XML and it does not mention JSON. */
function prefersXml(accept: string | undefined): boolean {
  return accept !== undefined && !/json/i.test(accept) && formatOfContentType(accept.split(',')[0]) === 'xml';
}
