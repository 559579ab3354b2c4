import type { Request, Response } from 'express';
import { hasBody, readRequestBody } from '../../common/src/http/request-body';

/**
 * The whole request body, up to `limit` bytes, so that a renewal can send it again; more is a 413 at
 * once, the rest discarded before the connection closes (SPEC 3). No body at all is `undefined`.
 * Encoded bodies pass as they are: the core decodes them.
 */
export async function bufferBody(req: Request, res: Response, limit: number): Promise<Buffer | undefined> {
  if (!hasBody(req)) return undefined;
  return readRequestBody(req, res, limit);
}
