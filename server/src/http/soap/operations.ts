/**
 * The service's operations (SPEC 13), each the REST resource's twin: the same parameter checks, the
 * same policy decision point (authorize, or the check for isAllowed), the same transport-free
 * subject operations and audit. Messages mirror the REST XML documents: a response's members are
 * the REST body's (`subject`, the search page, the check answer, `session`).
 */
import { addStatus, includesStatus } from '../routes/subject-status';
import { InvalidOperation, InvalidRequest } from '../../../../common/src/errors';
import type { WireValue } from '../../../../common/src/wire/xml';
import { OPERATIONS, operationNamed, type Operation } from '../../../../common/src/wire/operations';
import { sessionView } from '../../sessions/session';
import type { StoredSubject } from '../../subjects/subject';
import { assertSubjectId } from '../../subjects/subject-id';
import { etagOf, subjectInput, type SubjectInput } from '../../subjects/subject-operations';
import type { RequestState } from '../request-state';
import type { HttpServices } from '../services';

/** What the operations use. */
export type SoapServices = Pick<HttpServices, 'decisions' | 'subjects' | 'subjectOperations' | 'accounts'>;

type Members = Record<string, WireValue>;

/** An operation: its parameters (required or not), and what it does once they are checked. */
interface SoapOperation {
  required: readonly string[];
  optional: readonly string[];
  perform(s: SoapServices, state: RequestState, p: Members): Promise<object>;
}

export const OPERATION_NAMES = ['create', 'read', 'update', 'delete', 'search', 'isAllowed', 'getSession'] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];

const text = (p: Members, name: string): string => p[name] as string;
const optionalText = (p: Members, name: string): string | undefined => (p[name] === undefined ? undefined : text(p, name));

/** A context that exists (404 otherwise), and a subject id of the right syntax: before authorization, as in REST. */
function contextOf(s: SoapServices, p: Members): string {
  const contextId = text(p, 'contextId');
  s.subjects.context(contextId);
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

function subjectAnswer(s: SoapServices, contextId: string, subject: StoredSubject): object {
  return { subject: s.subjects.view(contextId, subject), etag: etagOf(subject) };
}

/**
 * A subject message: as the REST XML's, except that an empty element stands for an empty object
 * where the schema says one (a client writes `attributes: {}` as `<attributes/>`).
 */
function subjectOf(value: WireValue | undefined): SubjectInput {
  const subject = value === '' ? {} : value;
  if (subject && typeof subject === 'object' && !Array.isArray(subject) && subject.attributes === '') return subjectInput({ ...subject, attributes: {} });
  return subjectInput(subject);
}

/** The operations a check may name for a collection and for one subject (REST's FITS). */
const ON_COLLECTION: readonly Operation[] = ['CREATE', 'SEARCH'];

const OPS: Record<OperationName, SoapOperation> = {
  create: {
    required: ['contextId', 'subject'],
    optional: [],
    async perform(s, state, p) {
      const contextId = contextOf(s, p);
      await s.decisions.authorize(state, 'CREATE', collection(contextId));
      // SPEC 16: a registration that verifies its address answers no subject (REST's 202, the page): not a SOAP answer.
      const visitor = !state.session.principal && state.session.type !== 'SYSTEM';
      if (visitor && s.subjects.context(contextId).config.registration.verifyEmail) throw new InvalidRequest('this context verifies a registrant\'s address: register through REST or the registration page');
      const created = await s.subjectOperations.create(state, contextId, subjectOf(p.subject));
      if (!('uniqueId' in created)) throw new InvalidRequest('this context verifies a registrant\'s address: register through REST or the registration page');
      return subjectAnswer(s, contextId, created);
    },
  },
  read: {
    required: ['contextId', 'subjectId'],
    optional: [],
    async perform(s, state, p) {
      const subjectId = subjectIdOf(p);
      const contextId = contextOf(s, p);
      await s.decisions.authorize(state, 'READ', one(contextId, subjectId));
      return subjectAnswer(s, contextId, await s.subjects.read(contextId, subjectId));
    },
  },
  update: {
    required: ['contextId', 'subjectId', 'subject'],
    optional: ['ifMatch'],
    async perform(s, state, p) {
      const subjectId = subjectIdOf(p);
      const contextId = contextOf(s, p);
      await s.decisions.authorize(state, 'UPDATE', one(contextId, subjectId));
      const updated = await s.subjectOperations.update(state, contextId, subjectId, subjectOf(p.subject), optionalText(p, 'ifMatch'));
      return subjectAnswer(s, contextId, updated);
    },
  },
  delete: {
    required: ['contextId', 'subjectId'],
    optional: [],
    async perform(s, state, p) {
      const subjectId = subjectIdOf(p);
      const contextId = contextOf(s, p);
      await s.decisions.authorize(state, 'DELETE', one(contextId, subjectId));
      await s.subjectOperations.delete(state, contextId, subjectId);
      return {};
    },
  },
  search: {
    required: ['contextId'],
    optional: ['search', 'filter', 'offset', 'quantity', 'sort', 'order', 'include'],
    async perform(s, state, p) {
      const contextId = contextOf(s, p);
      await s.decisions.authorize(state, 'SEARCH', collection(contextId));
      const withStatus = includesStatus(optionalText(p, 'include'));
      const input = {
        search: optionalText(p, 'search'),
        filter: optionalText(p, 'filter'),
        sort: optionalText(p, 'sort'),
        order: optionalText(p, 'order'),
        offset: integer(p, 'offset'),
        quantity: integer(p, 'quantity'),
      };
      const answer = await s.subjectOperations.search(contextId, input);
      return withStatus ? addStatus(s, state, contextId, answer) : answer;
    },
  },
  isAllowed: {
    required: ['operation', 'contextId'],
    optional: ['subjectId'],
    async perform(s, state, p) {
      const asked = text(p, 'operation');
      const operation = operationNamed(asked);
      if (!operation) throw new InvalidOperation(`unknown operation "${asked.slice(0, 32)}"; use one of ${OPERATIONS.join(', ')}`);
      const subjectId = p.subjectId === undefined ? undefined : subjectIdOf(p);
      const contextId = contextOf(s, p);
      if (ON_COLLECTION.includes(operation) !== (subjectId === undefined)) {
        throw new InvalidOperation(`${operation} does not fit ${subjectId === undefined ? 'a collection' : 'a subject'}`);
      }
      const target = subjectId === undefined ? collection(contextId) : one(contextId, subjectId);
      return s.decisions.check(state, operation, target, contextId, subjectId);
    },
  },
  getSession: {
    required: [],
    optional: [],
    async perform(s, state) {
      await s.decisions.authorize(state, 'READ', 'session');
      return { session: sessionView(state.session) };
    },
  },
};

export function isOperationName(name: string): name is OperationName {
  return (OPERATION_NAMES as readonly string[]).includes(name);
}

/** Checks the members against the operation's parameters (all text but `subject`), then performs it. */
export function performOperation(s: SoapServices, state: RequestState, name: OperationName, members: Members): Promise<object> {
  const op = OPS[name];
  const unknown = Object.keys(members).filter((k) => !op.required.includes(k) && !op.optional.includes(k));
  if (unknown.length) throw new InvalidRequest(`${name} has no parameter ${unknown[0].slice(0, 32)}`, { errors: unknown.map((k) => ({ path: `${name}.${k.slice(0, 32)}`, message: 'unknown member' })) });
  const missing = op.required.filter((k) => members[k] === undefined);
  if (missing.length) throw new InvalidRequest(`${name} needs ${missing.join(', ')}`, { errors: missing.map((k) => ({ path: `${name}.${k}`, message: 'required' })) });
  for (const [k, v] of Object.entries(members)) {
    if (k !== 'subject' && typeof v !== 'string') throw new InvalidRequest(`${name}.${k} must be text`, { errors: [{ path: `${name}.${k}`, message: 'not text' }] });
  }
  return op.perform(s, state, members);
}
