import type { Request, Response } from 'express';
import { InvalidAttributes, InvalidRequest, MalformedBody, PreconditionFailed } from '../../../../common/src/errors';
import type { WireDocument } from '../../../../common/src/wire/xml';
import type { Core } from '../../core';
import type { Writer } from '../../subjects/attributes';
import { register } from '../../flows/registration';
import type { StoredSubject } from '../../subjects/subject';
import { documentBody, integerParam, queryParam } from '../body';
import { sendDocument } from '../respond';

interface SubjectBody {
  uniqueId?: unknown;
  attributes: Record<string, unknown>;
}

/** `{"subject":{"uniqueId":…,"attributes":{…}}}` and nothing else. */
function subjectBody(req: Request): SubjectBody {
  const doc = documentBody(req);
  if (!doc) throw new MalformedBody('a subject body is required');
  const keys = Object.keys(doc);
  if (keys.length !== 1 || keys[0] !== 'subject') throw new MalformedBody('the body must be {"subject": {...}}', { errors: keys.filter((k) => k !== 'subject').map((k) => ({ path: k, message: 'unknown member' })) });
  const subject = doc.subject;
  if (!subject || typeof subject !== 'object' || Array.isArray(subject)) throw new MalformedBody('subject must be an object');
  const unknown = Object.keys(subject).filter((k) => k !== 'uniqueId' && k !== 'attributes');
  if (unknown.length) throw new InvalidAttributes('unknown members in subject', { errors: unknown.map((k) => ({ path: `subject.${k}`, message: 'unknown member' })) });
  const attributes = subject.attributes ?? {};
  if (typeof attributes !== 'object' || Array.isArray(attributes)) throw new MalformedBody('subject.attributes must be an object');
  return { uniqueId: subject.uniqueId, attributes: attributes as Record<string, unknown> };
}

/** Who writes decides which attributes may be written (SPEC section 3, mutability). */
async function writerOf(core: Core, req: Request, contextId: string, subjectId?: string): Promise<Writer> {
  const session = req.svc.session;
  if (session.type === 'SYSTEM') return 'admin';
  if (session.type === 'ANON' || session.type === 'INTERNAL' || !session.principal) return 'registrant';
  if (session.principal.contextId === contextId && (await core.rolesOf(session)).includes('admin')) return 'admin';
  return subjectId !== undefined && session.principal.uniqueId === subjectId ? 'self' : 'registrant';
}

const etag = (subject: StoredSubject) => `"${subject.version}"`;

function expectedVersion(req: Request): number | undefined {
  const header = req.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"(\d{1,15})"\s*$/.exec(header);
  if (!match) throw new PreconditionFailed('If-Match must be one ETag of this subject');
  return Number(match[1]);
}

function sendSubject(core: Core, req: Request, res: Response, status: number, contextId: string, subject: StoredSubject): void {
  res.setHeader('ETag', etag(subject));
  sendDocument(req, res, status, { subject: core.subjects.view(contextId, subject) } as unknown as WireDocument);
}

export async function createSubject(core: Core, req: Request, res: Response, contextId: string): Promise<void> {
  const body = subjectBody(req);
  const writer = await writerOf(core, req, contextId);
  const { session, peer } = req.svc;
  let created: StoredSubject;
  if (writer === 'registrant') {
    created = await register(core, { contextId, uniqueId: body.uniqueId, attributes: body.attributes, session, peer });
  } else {
    created = await core.subjects.create(contextId, body.uniqueId, body.attributes, writer);
    core.audit.record({ event: 'subject_write', outcome: 'success', reason: 'create', subject: `${contextId}/${created.uniqueId}`, session: session.handle, peer });
  }
  res.setHeader('Location', `${req.baseUrl}/contexts/${encodeURIComponent(contextId)}/subjects/${encodeURIComponent(created.uniqueId)}`);
  sendSubject(core, req, res, 201, contextId, created);
}

export async function readSubject(core: Core, req: Request, res: Response, contextId: string, subjectId: string): Promise<void> {
  const subject = await core.subjects.read(contextId, subjectId);
  const match = req.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag(subject))) {
    res.setHeader('ETag', etag(subject));
    res.status(304).end();
    return;
  }
  sendSubject(core, req, res, 200, contextId, subject);
}

export async function updateSubject(core: Core, req: Request, res: Response, contextId: string, subjectId: string): Promise<void> {
  const body = subjectBody(req);
  if (body.uniqueId !== undefined && body.uniqueId !== subjectId) {
    throw new InvalidRequest('uniqueId cannot be changed', { errors: [{ path: 'subject.uniqueId', message: 'differs from the path' }] });
  }
  const version = expectedVersion(req);
  const writer = await writerOf(core, req, contextId, subjectId);
  const updated = await core.subjects.update(contextId, subjectId, body.attributes, writer, version);
  core.audit.record({ event: 'subject_write', outcome: 'success', reason: 'update', subject: `${contextId}/${subjectId}`, attributes: Object.keys(body.attributes), session: req.svc.session.handle, peer: req.svc.peer });
  sendSubject(core, req, res, 200, contextId, updated);
}

export async function deleteSubject(core: Core, req: Request, res: Response, contextId: string, subjectId: string): Promise<void> {
  await core.subjects.delete(contextId, subjectId);
  core.audit.record({ event: 'subject_write', outcome: 'success', reason: 'delete', subject: `${contextId}/${subjectId}`, session: req.svc.session.handle, peer: req.svc.peer });
  res.status(204).end();
}

export async function searchSubjects(core: Core, req: Request, res: Response, contextId: string): Promise<void> {
  const max = core.config.global['search.maxQuantity'];
  const offset = integerParam(req, 'offset', 0);
  const quantity = integerParam(req, 'quantity', core.config.global['search.defaultQuantity'], max);
  const page = await core.subjects.search(contextId, { search: queryParam(req, 'search'), filter: queryParam(req, 'filter'), offset, quantity });
  const body = {
    results: page.results.map((s) => core.subjects.view(contextId, s)),
    offset,
    quantity,
    total: page.total,
  };
  sendDocument(req, res, 200, body as unknown as WireDocument, { xmlRoot: 'search' });
}
