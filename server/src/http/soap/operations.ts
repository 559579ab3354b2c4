/**
 * The service's operations (SPEC 13), each the REST resource's twin: the same parameter checks, the
 * same policy decision point (authorize, or decideCheck for isAllowed), the same transport-free
 * subject operations and audit. Messages mirror the REST XML documents: a response's members are
 * the REST body's (`subject`, the search page, the check answer, `session`).
 */
import { InvalidOperation, InvalidRequest } from '../../../../common/src/errors';
import type { WireDocument, WireValue } from '../../../../common/src/wire/xml';
import { OPERATIONS, operationNamed, type Operation } from '../../../../common/src/wire/operations';
import type { Core } from '../../core';
import { sessionView } from '../../sessions/session';
import type { StoredSubject } from '../../subjects/subject';
import { assertSubjectId } from '../../subjects/subject-id';
import * as subjects from '../../subjects/subject-operations';
import { authorize } from '../authorize';
import type { RequestState } from '../request-state';
import { decideCheck } from '../rest/check';

type Members = Record<string, WireValue>;

/** An operation: its parameters (required or not), and what it does once they are checked. */
interface SoapOperation {
  required: readonly string[];
  optional: readonly string[];
  perform(core: Core, state: RequestState, p: Members): Promise<WireDocument>;
}

export const OPERATION_NAMES = ['create', 'read', 'update', 'delete', 'search', 'isAllowed', 'getSession'] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];

const text = (p: Members, name: string): string => p[name] as string;
const optionalText = (p: Members, name: string): string | undefined => (p[name] === undefined ? undefined : text(p, name));

/** A context that exists (404 otherwise), and a subject id of the right syntax: before authorization, as in REST. */
function contextOf(core: Core, p: Members): string {
  const contextId = text(p, 'contextId');
  core.subjects.context(contextId);
  return contextId;
}

function subjectIdOf(p: Members): string {
  return assertSubjectId(text(p, 'subjectId'), 'subjectId');
}

function integer(p: Members, name: string): number | undefined {
  const value = optionalText(p, name);
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new InvalidRequest(`${name} must be a non-negative integer`, { errors: [{ path: name, message: 'not a non-negative integer' }] });
  return Number(value);
}

const collection = (contextId: string) => `contexts/${contextId}/subjects`;
const one = (contextId: string, subjectId: string) => `contexts/${contextId}/subjects/${subjectId}`;

function subjectAnswer(core: Core, contextId: string, subject: StoredSubject): WireDocument {
  return { subject: core.subjects.view(contextId, subject) as unknown as WireValue, etag: subjects.etagOf(subject) };
}

/**
 * A subject message: as the REST XML's, except that an empty element stands for an empty object
 * where the schema says one (a client writes `attributes: {}` as `<attributes/>`).
 */
function subjectOf(value: WireValue | undefined): subjects.SubjectInput {
  const subject = value === '' ? {} : value;
  if (subject && typeof subject === 'object' && !Array.isArray(subject) && subject.attributes === '') return subjects.subjectInput({ ...subject, attributes: {} });
  return subjects.subjectInput(subject);
}

/** The operations a check may name for a collection and for one subject (REST's FITS). */
const ON_COLLECTION: readonly Operation[] = ['CREATE', 'SEARCH'];

const OPS: Record<OperationName, SoapOperation> = {
  create: {
    required: ['contextId', 'subject'],
    optional: [],
    async perform(core, state, p) {
      const contextId = contextOf(core, p);
      await authorize(core, state, 'CREATE', collection(contextId));
      return subjectAnswer(core, contextId, await subjects.createSubject(core, state, contextId, subjectOf(p.subject)));
    },
  },
  read: {
    required: ['contextId', 'subjectId'],
    optional: [],
    async perform(core, state, p) {
      const subjectId = subjectIdOf(p);
      const contextId = contextOf(core, p);
      await authorize(core, state, 'READ', one(contextId, subjectId));
      return subjectAnswer(core, contextId, await subjects.readSubject(core, contextId, subjectId));
    },
  },
  update: {
    required: ['contextId', 'subjectId', 'subject'],
    optional: ['ifMatch'],
    async perform(core, state, p) {
      const subjectId = subjectIdOf(p);
      const contextId = contextOf(core, p);
      await authorize(core, state, 'UPDATE', one(contextId, subjectId));
      const updated = await subjects.updateSubject(core, state, contextId, subjectId, subjectOf(p.subject), optionalText(p, 'ifMatch'));
      return subjectAnswer(core, contextId, updated);
    },
  },
  delete: {
    required: ['contextId', 'subjectId'],
    optional: [],
    async perform(core, state, p) {
      const subjectId = subjectIdOf(p);
      const contextId = contextOf(core, p);
      await authorize(core, state, 'DELETE', one(contextId, subjectId));
      await subjects.deleteSubject(core, state, contextId, subjectId);
      return {};
    },
  },
  search: {
    required: ['contextId'],
    optional: ['search', 'filter', 'offset', 'quantity'],
    async perform(core, state, p) {
      const contextId = contextOf(core, p);
      await authorize(core, state, 'SEARCH', collection(contextId));
      const input = { search: optionalText(p, 'search'), filter: optionalText(p, 'filter'), offset: integer(p, 'offset'), quantity: integer(p, 'quantity') };
      return (await subjects.searchSubjects(core, contextId, input)) as unknown as WireDocument;
    },
  },
  isAllowed: {
    required: ['operation', 'contextId'],
    optional: ['subjectId'],
    async perform(core, state, p) {
      const asked = text(p, 'operation');
      const operation = operationNamed(asked);
      if (!operation) throw new InvalidOperation(`unknown operation "${asked.slice(0, 32)}"; use one of ${OPERATIONS.join(', ')}`);
      const subjectId = p.subjectId === undefined ? undefined : subjectIdOf(p);
      const contextId = contextOf(core, p);
      if (ON_COLLECTION.includes(operation) !== (subjectId === undefined)) {
        throw new InvalidOperation(`${operation} does not fit ${subjectId === undefined ? 'a collection' : 'a subject'}`);
      }
      const target = subjectId === undefined ? collection(contextId) : one(contextId, subjectId);
      return (await decideCheck(core, state, operation, target, contextId, subjectId)) as unknown as WireDocument;
    },
  },
  getSession: {
    required: [],
    optional: [],
    async perform(core, state) {
      await authorize(core, state, 'READ', 'session');
      return { session: sessionView(state.session) as unknown as WireValue };
    },
  },
};

export function isOperationName(name: string): name is OperationName {
  return (OPERATION_NAMES as readonly string[]).includes(name);
}

/** Checks the members against the operation's parameters (all text but `subject`), then performs it. */
export function performOperation(core: Core, state: RequestState, name: OperationName, members: Members): Promise<WireDocument> {
  const op = OPS[name];
  const unknown = Object.keys(members).filter((k) => !op.required.includes(k) && !op.optional.includes(k));
  if (unknown.length) throw new InvalidRequest(`${name} has no parameter ${unknown[0].slice(0, 32)}`, { errors: unknown.map((k) => ({ path: `${name}.${k.slice(0, 32)}`, message: 'unknown member' })) });
  const missing = op.required.filter((k) => members[k] === undefined);
  if (missing.length) throw new InvalidRequest(`${name} needs ${missing.join(', ')}`, { errors: missing.map((k) => ({ path: `${name}.${k}`, message: 'required' })) });
  for (const [k, v] of Object.entries(members)) {
    if (k !== 'subject' && typeof v !== 'string') throw new InvalidRequest(`${name}.${k} must be text`, { errors: [{ path: `${name}.${k}`, message: 'not text' }] });
  }
  return op.perform(core, state, members);
}
