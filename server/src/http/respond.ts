import type { Request, Response } from 'express';
import { NotAcceptable } from '../../../common/src/errors';
import { MEDIA, type WireFormat } from '../../../common/src/wire/media';
import { problemXml } from '../../../common/src/wire/problem-xml';
import { toXml, type WireDocument } from '../../../common/src/wire/xml';

/** Browsers get pages and redirects; programs get problem details (SPEC section 4). */
export function wantsPage(req: Request): boolean {
  return req.accepts(['application/json', 'application/xml', 'text/html']) === 'text/html' && Boolean(req.headers.accept?.includes('text/html'));
}

/** Whether `If-None-Match` names this entity tag (weak comparison, RFC 9110 13.1.2): the answer is then 304. */
export function notModified(req: Request, etag: string): boolean {
  const match = req.headers['if-none-match'];
  return match !== undefined && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** JSON unless the client asks for XML; `*\/*` or no Accept means JSON; anything else is 406. */
export function responseFormat(req: Request): WireFormat {
  const accept = req.headers.accept;
  // The common cases need no negotiation (and every request asks this once or twice).
  if (!accept || accept === '*/*' || accept === MEDIA.json) return 'json';
  if (accept === MEDIA.xml) return 'xml';
  const chosen = req.accepts([MEDIA.json, MEDIA.xml, MEDIA.problemJson, MEDIA.problemXml]);
  if (chosen === MEDIA.xml || chosen === MEDIA.problemXml) return 'xml';
  if (chosen) return 'json';
  throw new NotAcceptable('this resource is available as application/json or application/xml');
}

export interface SendOptions {
  /**
   * The XML root element for bodies whose JSON has several top-level members (search results,
   * check decisions); without it the body's single member is the root (`subject`).
   */
  xmlRoot?: string;
  /** A problem: `application/problem+*`, and in XML RFC 9457's format (problem-xml.ts), not the REST mapping. */
  problem?: boolean;
}

/** The Content-Type of each answer, with the charset express would add: computed once, not per answer. */
const CONTENT_TYPE = {
  json: `${MEDIA.json}; charset=utf-8`,
  xml: `${MEDIA.xml}; charset=utf-8`,
  problemJson: `${MEDIA.problemJson}; charset=utf-8`,
  problemXml: `${MEDIA.problemXml}; charset=utf-8`,
} as const;

/**
 * Writes a document in the negotiated format straight to node's response, in one write: the REST
 * API's answers need none of express's send (no ETag of its own, no freshness, no charset guess).
 */
export function sendDocument(req: Request, res: Response, status: number, body: object, options: SendOptions = {}): void {
  let format: WireFormat;
  try {
    format = responseFormat(req);
  } catch {
    format = 'json'; // an error answer to a client that accepts nothing we speak still has to be said
  }
  res.statusCode = status;
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const xml = format === 'xml';
  const text = !xml ? JSON.stringify(body) : options.problem ? problemXml(body as WireDocument) : toXml((options.xmlRoot ? { [options.xmlRoot]: body } : body) as WireDocument);
  res.setHeader('Content-Type', options.problem ? (xml ? CONTENT_TYPE.problemXml : CONTENT_TYPE.problemJson) : xml ? CONTENT_TYPE.xml : CONTENT_TYPE.json);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
