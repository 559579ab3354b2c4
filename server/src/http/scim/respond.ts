import type { Request, Response } from 'express';
import { NotAcceptable, UnsupportedMediaType } from '../../../../common/src/errors';
import { scimError } from '../../../../common/src/scim-error';
import { parseJson } from '../../../../common/src/wire/json';
import { SCIM_MEDIA_TYPE } from '../../scim/schema';
import { bodyText } from '../body';

const CONTENT_TYPE = `${SCIM_MEDIA_TYPE}; charset=utf-8`;

/** A SCIM answer: `application/scim+json` (RFC 7644 §3.1), one write. */
export function sendScim(req: Request, res: Response, status: number, body: object | undefined, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  if (body === undefined || req.method === 'HEAD') {
    if (body !== undefined) res.setHeader('Content-Type', CONTENT_TYPE);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.setHeader('Content-Type', CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** Any error of a SCIM request as a SCIM error (common/src/scim-error.ts: the one mapping from svc's errors). */
export function sendScimError(req: Request, res: Response, error: unknown): void {
  const { status, headers, body } = scimError(error);
  sendScim(req, res, status, body, headers);
}

/** 406 unless the client takes SCIM's media type or JSON (RFC 7644 §3.1: both are served). */
export function negotiateScim(req: Request): void {
  const accept = req.headers.accept;
  if (!accept || accept === '*/*' || accept.includes('application/scim+json') || accept.includes('application/json')) return;
  if (!req.accepts([SCIM_MEDIA_TYPE, 'application/json'])) throw new NotAcceptable('SCIM answers application/scim+json (or application/json)');
}

/** The JSON body of a SCIM request (`application/scim+json` or `application/json`), or undefined when there is none. */
export function scimBody(req: Request): Record<string, unknown> | undefined {
  const raw = bodyText(req);
  if (raw.length === 0) return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== SCIM_MEDIA_TYPE && type !== 'application/json') throw new UnsupportedMediaType('send application/scim+json (or application/json)');
  return parseJson(raw) as Record<string, unknown>;
}
