import { InvalidOperation, InvalidRequest, SvcError } from '../../../common/src/errors';
import { splitPrincipalName } from '../../../common/src/principal-name';
import { OPERATIONS, operationNamed, type Operation } from '../../../common/src/wire/operations';
import type { Principal } from '../sessions/session';
import { assertSubjectId } from '../subjects/subject-id';

/**
 * The OpenID AuthZEN Authorization API 1.0 shape translated to svc's own terms (SPEC section 6,
 * beyond the seed), free of HTTP so that it can be tested and reused as it is. A request names
 * `subject` (optional), `action.name` (one of the five operations) and `resource`
 * (`{"type":"subject","id":"CONTEXT/SUBJECT"}`, `{"type":"subjects","id":"CONTEXT"}`, or
 * `subject.password` / `subject.lockout` / `subject.otp` / `subject.mail` with a subject's id for
 * UPDATE of that part, `subject.lockout` / `subject.events` for READ of `…/lockout` and `…/events`); the answer
 * is `{"decision":bool,"context":{"reason":…}}`.
 */

/**
 * More than this many evaluations in one batch is refused as a whole (bounded work per request). A
 * portlet asks for every control of a render in one batch: the User Admin's 100 rows of four
 * buttons each, plus the page's own.
 */
export const MAX_EVALUATIONS = 500;

/** The resource types naming a part of one subject (SPEC 10.3), and the target segment each adds. */
const SUBJECT_PARTS: Readonly<Record<string, string>> = { 'subject.password': 'password', 'subject.lockout': 'lockout', 'subject.otp': 'otp', 'subject.events': 'events', 'subject.mail': 'mail' };

/** The operations each part takes, as its REST resource does (SPEC 6): UPDATE, and READ of `…/lockout` and `…/events`. */
const PART_OPERATIONS: Readonly<Record<string, readonly Operation[]>> = { lockout: ['UPDATE', 'READ'], events: ['READ'] };

export interface EvaluationQuery {
  /** The principal to decide for, when the request names one; otherwise the current principal. */
  subject?: Principal;
  operation: Operation;
  /** The canonical PDP target (`contexts/c/subjects/s`), as the REST router would build it. */
  target: string;
  contextId: string;
  subjectId?: string;
}

export type EvaluationSemantic = 'execute_all' | 'deny_on_first_deny' | 'permit_on_first_permit';

export interface EvaluationAnswer {
  decision: boolean;
  context: { reason: string } | { error: { status: number; code: string; detail: string } };
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function object(value: unknown, path: string): Json {
  if (!isObject(value)) throw new InvalidRequest(`${path} must be an object`, { errors: [{ path, message: 'not an object' }] });
  return value;
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 600) {
    throw new InvalidRequest(`${path} must be a non-empty string`, { errors: [{ path, message: 'not a non-empty string' }] });
  }
  return value;
}

/** `CONTEXT/SUBJECT` → its two parts, the subject id checked as a path's would be (SPEC section 3). */
function contextAndSubject(id: string, path: string): { contextId: string; subjectId: string } {
  const name = splitPrincipalName(id);
  if (!name || !name.contextId) throw new InvalidRequest(`${path} must be CONTEXT/SUBJECT`, { errors: [{ path, message: 'not CONTEXT/SUBJECT' }] });
  return { contextId: name.contextId, subjectId: assertSubjectId(name.uniqueId, path) };
}

function operationOf(action: unknown): Operation {
  const name = text(object(action, 'action').name, 'action.name');
  const operation = operationNamed(name);
  if (!operation) throw new InvalidOperation(`unknown action "${name.slice(0, 32)}"; use one of ${OPERATIONS.join(', ')}`);
  return operation;
}

function subjectOf(subject: unknown): Principal | undefined {
  if (subject === undefined) return undefined;
  const s = object(subject, 'subject');
  if (s.type !== 'user') throw new InvalidRequest('subject.type must be "user"', { errors: [{ path: 'subject.type', message: 'not "user"' }] });
  const { contextId, subjectId } = contextAndSubject(text(s.id, 'subject.id'), 'subject.id');
  return { contextId, uniqueId: subjectId };
}

/** One evaluation; `defaults` are the batch's top-level members, which an item's own members replace. */
export function parseEvaluation(doc: unknown, defaults: Json = {}): EvaluationQuery {
  const item = { ...defaults, ...object(doc, 'evaluation') };
  const operation = operationOf(item.action);
  const resource = object(item.resource, 'resource');
  const id = text(resource.id, 'resource.id');
  const query: EvaluationQuery = { subject: subjectOf(item.subject), operation, target: '', contextId: '' };
  if (resource.type === 'subject') {
    if (operation === 'CREATE' || operation === 'SEARCH') throw new InvalidOperation(`${operation} addresses a "subjects" resource, not one subject`);
    const { contextId, subjectId } = contextAndSubject(id, 'resource.id');
    return { ...query, contextId, subjectId, target: `contexts/${contextId}/subjects/${subjectId}` };
  }
  const part = SUBJECT_PARTS[String(resource.type)];
  if (part !== undefined) {
    // Each part takes the operations its REST resource serves: …/lockout UPDATE (lifting) and READ, …/events READ, the others UPDATE.
    const operations = PART_OPERATIONS[part] ?? ['UPDATE'];
    if (!operations.includes(operation)) throw new InvalidOperation(`a "${String(resource.type)}" resource takes ${operations.join(' or ')} only`);
    const { contextId, subjectId } = contextAndSubject(id, 'resource.id');
    return { ...query, contextId, subjectId, target: `contexts/${contextId}/subjects/${subjectId}/${part}` };
  }
  if (resource.type === 'subjects') {
    if (operation !== 'CREATE' && operation !== 'SEARCH') throw new InvalidOperation(`${operation} addresses one "subject", not the collection`);
    if (id.includes('/')) throw new InvalidRequest('resource.id of "subjects" is a context id', { errors: [{ path: 'resource.id', message: 'not a context id' }] });
    return { ...query, contextId: id, target: `contexts/${id}/subjects` };
  }
  throw new InvalidRequest('resource.type must be "subject", "subjects", "subject.password", "subject.lockout", "subject.otp", "subject.events" or "subject.mail"', {
    errors: [{ path: 'resource.type', message: 'unknown type' }],
  });
}

export interface EvaluationsRequest {
  /** Absent when the batch has no `evaluations`: AuthZEN then treats it as one evaluation. */
  items?: Array<EvaluationQuery | SvcError>;
  single?: EvaluationQuery;
  semantic: EvaluationSemantic;
}

/**
 * A batch. Items that do not parse become per-item errors so that the others are still answered in
 * order; only a malformed envelope or an oversized batch fails the whole request.
 */
export function parseEvaluations(doc: unknown): EvaluationsRequest {
  const { evaluations, options, ...defaults } = object(doc, 'body');
  const semantic = semanticOf(options);
  if (evaluations === undefined || (Array.isArray(evaluations) && evaluations.length === 0)) return { single: parseEvaluation(defaults), semantic };
  if (!Array.isArray(evaluations)) throw new InvalidRequest('evaluations must be an array', { errors: [{ path: 'evaluations', message: 'not an array' }] });
  if (evaluations.length > MAX_EVALUATIONS) throw new InvalidRequest(`at most ${MAX_EVALUATIONS} evaluations per request`, { errors: [{ path: 'evaluations', message: 'too many' }] });
  const items = evaluations.map((item: unknown) => {
    try {
      return parseEvaluation(item, defaults);
    } catch (error) {
      if (error instanceof SvcError) return error;
      throw error;
    }
  });
  return { items, semantic };
}

function semanticOf(options: unknown): EvaluationSemantic {
  if (options === undefined) return 'execute_all';
  const value = object(options, 'options').evaluations_semantic ?? 'execute_all';
  if (value === 'execute_all' || value === 'deny_on_first_deny' || value === 'permit_on_first_permit') return value;
  throw new InvalidRequest('options.evaluations_semantic must be execute_all, deny_on_first_deny or permit_on_first_permit', {
    errors: [{ path: 'options.evaluations_semantic', message: 'unknown semantic' }],
  });
}

/** Whether a batch with this semantic stops after this answer (the answer itself is still given). */
export function stopsAfter(semantic: EvaluationSemantic, answer: EvaluationAnswer): boolean {
  if (semantic === 'deny_on_first_deny') return !answer.decision;
  if (semantic === 'permit_on_first_permit') return answer.decision;
  return false;
}

export function decisionAnswer(allowed: boolean, reason: string): EvaluationAnswer {
  return { decision: allowed, context: { reason } };
}

/** A per-item error: never a decision of true, and the problem's status, code and detail. */
export function errorAnswer(error: SvcError): EvaluationAnswer {
  return { decision: false, context: { error: { status: error.status, code: error.code, detail: error.message } } };
}
