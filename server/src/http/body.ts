import express, { type NextFunction, type Request, type Response } from 'express';
import { InvalidRequest, MalformedBody, PayloadTooLarge, UnsupportedMediaType } from '../../../common/src/errors';
import { formatOfContentType } from '../../../common/src/wire/media';
import { parseJson } from '../../../common/src/wire/json';
import { parseXml, type WireDocument } from '../../../common/src/wire/xml';

/**
 * A declared length over the limit is refused before any byte is read, and the connection closed:
 * body-parser would first wait for the whole declared body (it drains before answering), so a client
 * announcing 100 MB and sending nothing would hold the request until the server's timeout.
 */
function refuseDeclaredOverLimit(req: Request, limit: number): PayloadTooLarge | undefined {
  const declared = Number(req.headers['content-length'] ?? 0);
  return declared > limit ? new PayloadTooLarge('the request body exceeds the configured limit', { headers: { Connection: 'close' } }) : undefined;
}

/** Reads any body as bytes up to the limit; parsing is ours, so every failure is a precise 4xx. */
export function rawBody(limit: number) {
  const read = express.raw({ type: () => true, limit });
  return (req: Request, res: Response, next: NextFunction) => {
    const refused = refuseDeclaredOverLimit(req, limit);
    if (refused) return next(refused);
    read(req, res, next);
  };
}

const rawBodyByLimit = new Map<number, ReturnType<typeof rawBody>>();

/** rawBody outside express's middleware chain (the REST router): resolves once `req.body` is read. */
export function readRawBody(req: Request, res: Response, limit: number): Promise<void> {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return Promise.resolve();
  let read = rawBodyByLimit.get(limit);
  if (!read) rawBodyByLimit.set(limit, (read = rawBody(limit)));
  const parser = read;
  return new Promise((resolve, reject) => parser(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
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
