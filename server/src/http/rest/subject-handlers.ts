import type { Request, Response } from 'express';
import { MalformedBody } from '../../../../common/src/errors';
import type { WireDocument } from '../../../../common/src/wire/xml';
import type { Core } from '../../core';
import type { StoredSubject } from '../../subjects/subject';
import * as operations from '../../subjects/subject-operations';
import { etagOf, subjectInput, type SubjectInput } from '../../subjects/subject-operations';
import { documentBody, integerParam, queryParam } from '../body';
import { sendDocument } from '../respond';

/** `{"subject":{"uniqueId":…,"attributes":{…}}}` and nothing else. */
function subjectBody(req: Request): SubjectInput {
  const doc = documentBody(req);
  if (!doc) throw new MalformedBody('a subject body is required');
  const keys = Object.keys(doc);
  if (keys.length !== 1 || keys[0] !== 'subject') throw new MalformedBody('the body must be {"subject": {...}}', { errors: keys.filter((k) => k !== 'subject').map((k) => ({ path: k, message: 'unknown member' })) });
  return subjectInput(doc.subject);
}

function sendSubject(core: Core, req: Request, res: Response, status: number, contextId: string, subject: StoredSubject): void {
  res.setHeader('ETag', etagOf(subject));
  sendDocument(req, res, status, { subject: core.subjects.view(contextId, subject) } as unknown as WireDocument);
}

export async function createSubject(core: Core, req: Request, res: Response, contextId: string): Promise<void> {
  const created = await operations.createSubject(core, req.svc, contextId, subjectBody(req));
  res.setHeader('Location', `${req.baseUrl}/contexts/${encodeURIComponent(contextId)}/subjects/${encodeURIComponent(created.uniqueId)}`);
  sendSubject(core, req, res, 201, contextId, created);
}

export async function readSubject(core: Core, req: Request, res: Response, contextId: string, subjectId: string): Promise<void> {
  const subject = await operations.readSubject(core, contextId, subjectId);
  const match = req.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etagOf(subject))) {
    res.setHeader('ETag', etagOf(subject));
    res.status(304).end();
    return;
  }
  sendSubject(core, req, res, 200, contextId, subject);
}

export async function updateSubject(core: Core, req: Request, res: Response, contextId: string, subjectId: string): Promise<void> {
  const body = subjectBody(req);
  const updated = await operations.updateSubject(core, req.svc, contextId, subjectId, body, req.headers['if-match']);
  sendSubject(core, req, res, 200, contextId, updated);
}

export async function deleteSubject(core: Core, req: Request, res: Response, contextId: string, subjectId: string): Promise<void> {
  await operations.deleteSubject(core, req.svc, contextId, subjectId);
  res.status(204).end();
}

export async function searchSubjects(core: Core, req: Request, res: Response, contextId: string): Promise<void> {
  const max = core.config.settings.search.maxQuantity;
  const offset = integerParam(req, 'offset', 0);
  const quantity = integerParam(req, 'quantity', core.config.settings.search.defaultQuantity, max);
  const body = await operations.searchSubjects(core, contextId, { search: queryParam(req, 'search'), filter: queryParam(req, 'filter'), offset, quantity });
  sendDocument(req, res, 200, body as unknown as WireDocument, { xmlRoot: 'search' });
}
