import type { Request, Response } from 'express';
import { hasBody, readRequestBody } from '../../../common/src/http/request-body';

export interface PostedBody {
  bytes: Buffer;
  contentType: string | null;
  /** `application/x-www-form-urlencoded`: the fields, in order, repeated names kept. */
  form?: URLSearchParams;
}

/**
 * Reads a request body up to `limit` bytes (413 beyond, at once, the rest discarded before the
 * connection closes: SPEC 3); a form body is parsed.
 */
export async function readBody(req: Request, res: Response, limit: number): Promise<PostedBody> {
  const bytes = hasBody(req) ? await readRequestBody(req, res, limit) : Buffer.alloc(0);
  const contentType = typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : null;
  const isForm = contentType !== null && contentType.split(';')[0].trim().toLowerCase() === 'application/x-www-form-urlencoded';
  return isForm ? { bytes: Buffer.alloc(0), contentType, form: new URLSearchParams(bytes.toString('utf8')) } : { bytes, contentType };
}

/** The first value of a form field, or undefined. */
export function field(body: PostedBody, name: string): string | undefined {
  return body.form?.get(name) ?? undefined;
}
