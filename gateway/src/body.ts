import type { Request } from 'express';
import { PayloadTooLarge } from '../../common/src/errors';

/**
 * The whole request body, up to `limit` bytes (more is 413), so that a renewal can send it again.
 * No body at all is `undefined`.
 */
export async function bufferBody(req: Request, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new PayloadTooLarge('the request body exceeds the configured limit');
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLarge('the request body exceeds the configured limit');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
