import type { Request, Response } from 'express';
import { InvalidRequest, MalformedBody, UnsupportedMediaType } from '../../../common/src/errors';
import { hasBody, readRequestBody } from '../../../common/src/http/request-body';
import { formatOfContentType } from '../../../common/src/wire/media';
import { parseJson } from '../../../common/src/wire/json';
import { parseXml, type WireDocument } from '../../../common/src/wire/xml';
import type { SvcConfig } from '../config/types';
import { step, type Step } from './exchange';

/**
 * Reads any body as bytes up to the limit (a `Content-Encoding` decoded, the limit holding for the
 * decoded bytes too) into `req.body`; parsing is ours, so every failure is a precise 4xx. Over the
 * limit is a 413 at once, and the rest of the body is discarded before the connection closes (SPEC 3,
 * common/src/http/request-body.ts). No body at all leaves `req.body` undefined.
 */
export function readRawBody(req: Request, res: Response, limit: number): Promise<void> {
  if (!hasBody(req)) return Promise.resolve();
  return readRequestBody(req, res, limit, { decode: true }).then((body) => {
    req.body = body;
  });
}

/** readRawBody as a route's step: the limit is fixed, or the configuration's (`body.limit`). */
export function readBody(limit: number | ((config: SvcConfig) => number)): Step {
  return step('readBody', ({ req, res, config }) => (hasBody(req) ? readRawBody(req, res, typeof limit === 'number' ? limit : limit(config)) : undefined));
}

/** A request body read by rawBody, as UTF-8 text; invalid UTF-8 is a MalformedBody. */
export function bodyText(req: Request): string {
  const body = req.body as unknown;
  if (!Buffer.isBuffer(body)) return '';
  const decoded = body.toString('utf8');
  if (decoded.includes('\uFFFD') && !Buffer.from(decoded, 'utf8').equals(body)) throw new MalformedBody('the body is not valid UTF-8');
  return decoded;
}

/** The JSON or XML document of a request body, by Content-Type; undefined when there is none. */
export function documentBody(req: Request): WireDocument | undefined {
  const raw = bodyText(req);
  if (raw.length === 0) return undefined;
  const format = formatOfContentType(req.headers['content-type']);
  if (!format) throw new UnsupportedMediaType('send application/json or application/xml');
  return format === 'xml' ? parseXml(raw) : parseJson(raw);
}

/** Form parameters of a login or logout POST (form-encoded, or a JSON object of strings). */
export function formBody(req: Request): Record<string, string> {
  const raw = bodyText(req);
  if (raw.length === 0) return {};
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const out: Record<string, string> = Object.create(null);
  if (type === 'application/x-www-form-urlencoded') {
    for (const [key, value] of new URLSearchParams(raw)) {
      if (key in out) throw new InvalidRequest(`parameter ${key} is repeated`);
      out[key] = value;
    }
    return out;
  }
  const doc = documentBody(req) ?? {};
  for (const [key, value] of Object.entries(doc)) {
    if (typeof value !== 'string') throw new InvalidRequest(`parameter ${key} must be a string`);
    out[key] = value;
  }
  return out;
}

/** One query parameter; a repeated parameter is refused rather than guessed at. */
export function queryParam(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidRequest(`query parameter ${name} must be given once`);
  return value;
}

/** Strict non-negative integer query parameter. */
export function integerParam(req: Request, name: string, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  const value = queryParam(req, name);
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value)) throw new InvalidRequest(`${name} must be a non-negative integer`, { errors: [{ path: name, message: 'not a non-negative integer' }] });
  return Math.min(Number(value), max);
}
