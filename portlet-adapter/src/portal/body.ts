import type { Request } from 'express';
import { PayloadTooLarge } from '../../../common/src/errors';

export interface PostedBody {
  bytes: Buffer;
  contentType: string | null;
  /** `application/x-www-form-urlencoded`: the fields, in order, repeated names kept. */
  form?: URLSearchParams;
}

/** Reads a request body up to `limit` bytes (413 beyond, at once); a form body is parsed. */
export async function readBody(req: Request, limit: number): Promise<PostedBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLarge(`bodies are limited to ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new PayloadTooLarge(`bodies are limited to ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  const contentType = typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : null;
  const isForm = contentType !== null && contentType.split(';')[0].trim().toLowerCase() === 'application/x-www-form-urlencoded';
  return isForm ? { bytes: Buffer.alloc(0), contentType, form: new URLSearchParams(bytes.toString('utf8')) } : { bytes, contentType };
}

/** The first value of a form field, or undefined. */
export function field(body: PostedBody, name: string): string | undefined {
  return body.form?.get(name) ?? undefined;
}
