/**
 * Wire documents to typed results. XML carries every value as text, an empty list or object as an
 * empty element, and `null` as `nil="true"` (common/src/wire/xml.ts), so "25" becomes 25, "true"
 * becomes true and "" in a list's place becomes []. A document of another shape is a bad_response.
 */
import { SHOWN_SESSION_TYPES } from '../../common/src/wire/session-view';
import { READ_XML_ROOT, type LockoutState, type MailPending, type OtpState } from '../../common/src/wire/subject-parts';
import type { WireDocument, WireValue } from '../../common/src/wire/xml';
import { clientFailure, type ProblemInfo } from './errors';
import { OPERATIONS, type AttributeValue, type CheckDecision, type ContextInfo, type Operation, type SearchPage, type SessionInfo, type SubjectEventPage, type SessionType, type Subject, type SubjectRead } from './types';

type WireObject = { [key: string]: WireValue };

function fail(path: string, expected: string): never {
  throw clientFailure('bad_response', `${path}: expected ${expected}`);
}

function object(value: WireValue | undefined, path: string): WireObject {
  if (value === '') return {}; // <attributes/>
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(path, 'an object');
  return value;
}

function list(value: WireValue | undefined, path: string): WireValue[] {
  if (value === '' || value === undefined) return []; // <results/>
  if (!Array.isArray(value)) return fail(path, 'a list');
  return value;
}

function text(value: WireValue | undefined, path: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value); // a JSON answer
  return fail(path, 'text');
}

function integer(value: WireValue | undefined, path: string): number {
  const n = typeof value === 'number' ? value : Number(text(value, path));
  if (!Number.isSafeInteger(n)) return fail(path, 'an integer');
  return n;
}

function boolean(value: WireValue | undefined, path: string): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return fail(path, 'true or false');
}

function oneOf<T extends string>(value: WireValue | undefined, allowed: readonly T[], path: string): T {
  const s = text(value, path);
  return (allowed as readonly string[]).includes(s) ? (s as T) : fail(path, allowed.join(' or '));
}

/** The XML root, or the JSON body itself for answers whose JSON has several members (search, check). */
function root(doc: WireDocument | undefined, name: string): WireObject {
  if (!doc) return fail(name, 'a body');
  return object(name in doc ? doc[name] : doc, name);
}

export function decodeSubjectValue(value: WireValue, path: string): Subject {
  const s = object(value, path);
  const attributes: Record<string, AttributeValue> = {};
  for (const [name, v] of Object.entries(object(s.attributes ?? '', `${path}.attributes`))) {
    attributes[name] = Array.isArray(v) ? v.map((item, i) => text(item, `${path}.attributes.${name}[${i}]`)) : text(v, `${path}.attributes.${name}`);
  }
  return { uniqueId: text(s.uniqueId, `${path}.uniqueId`), attributes };
}

export function decodeSubject(doc: WireDocument | undefined): Subject {
  return decodeSubjectValue(root(doc, 'subject'), 'subject');
}

export function decodeSearch(doc: WireDocument | undefined): SearchPage {
  const s = root(doc, 'search');
  return {
    results: list(s.results, 'search.results').map((r, i) => decodeSubjectValue(r, `search.results[${i}]`)),
    offset: integer(s.offset, 'search.offset'),
    quantity: integer(s.quantity, 'search.quantity'),
    total: integer(s.total, 'search.total'),
  };
}

const nullableText = (value: WireValue | undefined, path: string): string | null => (value === null || value === undefined ? null : text(value, path));

function decodeEventPage(value: WireValue | undefined, path: string): SubjectEventPage {
  const s = object(value, path);
  return {
    events: list(s.events, `${path}.events`).map((item, i) => {
      const e = object(item, `${path}.events[${i}]`);
      const at = `${path}.events[${i}]`;
      return { at: text(e.at, `${at}.at`), type: text(e.type, `${at}.type`), client: nullableText(e.client, `${at}.client`), principal: nullableText(e.principal, `${at}.principal`), peer: nullableText(e.peer, `${at}.peer`), detail: text(e.detail, `${at}.detail`) };
    }),
    total: integer(s.total, `${path}.total`),
  };
}

export function decodeEvents(doc: WireDocument | undefined): SubjectEventPage {
  return decodeEventPage(root(doc, 'subjectEvents'), 'subjectEvents');
}

function decodeOtp(value: WireValue | undefined, path: string): OtpState {
  const o = object(value, path);
  return { state: oneOf(o.state, ['none', 'pending', 'confirmed'] as const, `${path}.state`), recoveryCodesLeft: integer(o.recoveryCodesLeft, `${path}.recoveryCodesLeft`) };
}

function decodeMailPending(value: WireValue | undefined, path: string): MailPending | null {
  if (value === null) return null;
  const m = object(value, path);
  return { mail: text(m.mail, `${path}.mail`), expires: text(m.expires, `${path}.expires`) };
}

function decodeLockout(value: WireValue | undefined, path: string): LockoutState {
  const l = object(value, path);
  return { locked: boolean(l.locked, `${path}.locked`), lockedUntil: nullableText(l.lockedUntil, `${path}.lockedUntil`), failures: integer(l.failures, `${path}.failures`) };
}

/** A READ with `include`: `<read>` (JSON: the members beside "subject"), each part only when the answer has it. */
export function decodeRead(doc: WireDocument | undefined): SubjectRead {
  const r = root(doc, READ_XML_ROOT);
  return {
    ...decodeSubjectValue(r.subject, `${READ_XML_ROOT}.subject`),
    ...(r.otp !== undefined && { otp: decodeOtp(r.otp, `${READ_XML_ROOT}.otp`) }),
    ...(r.mailPending !== undefined && { mailPending: decodeMailPending(r.mailPending, `${READ_XML_ROOT}.mailPending`) }),
    ...(r.lockout !== undefined && { lockout: decodeLockout(r.lockout, `${READ_XML_ROOT}.lockout`) }),
    ...(r.events !== undefined && { events: decodeEventPage(r.events, `${READ_XML_ROOT}.events`) }),
  };
}

export function decodeSession(doc: WireDocument | undefined): SessionInfo {
  const s = root(doc, 'session');
  const p = s.principal === null || s.principal === undefined ? null : object(s.principal, 'session.principal');
  const level = integer(s.level, 'session.level');
  if (level !== 0 && level !== 1 && level !== 2 && level !== 3) return fail('session.level', '0, 1, 2 or 3');
  return {
    uniqueId: text(s.uniqueId, 'session.uniqueId'),
    type: oneOf<SessionType>(s.type, SHOWN_SESSION_TYPES, 'session.type'),
    clientId: s.clientId === undefined ? '' : text(s.clientId, 'session.clientId'),
    principal: p && { uniqueId: text(p.uniqueId, 'session.principal.uniqueId'), contextId: text(p.contextId, 'session.principal.contextId') },
    level,
    message: s.message === undefined ? '' : text(s.message, 'session.message'),
  };
}

export function decodeContexts(doc: WireDocument | undefined): ContextInfo[] {
  if (!doc || !('contexts' in doc)) return fail('contexts', 'a contexts document');
  return list(doc.contexts, 'contexts').map((c, i) => {
    const o = object(c, `contexts[${i}]`);
    return { id: text(o.id, `contexts[${i}].id`), default: o.default === undefined ? false : boolean(o.default, `contexts[${i}].default`) };
  });
}

export function decodeCheck(doc: WireDocument | undefined): CheckDecision {
  const c = root(doc, 'check');
  const decision = oneOf(c.decision, ['ALLOW', 'DENY'] as const, 'check.decision');
  const result: CheckDecision = {
    allowed: decision === 'ALLOW',
    decision,
    operation: oneOf<Operation>(c.operation, OPERATIONS, 'check.operation'),
    resource: text(c.resource, 'check.resource'),
    sessionType: oneOf<SessionType>(c.sessionType, SHOWN_SESSION_TYPES, 'check.sessionType'),
    reason: c.reason === undefined ? '' : text(c.reason, 'check.reason'),
  };
  if (c.exists !== undefined) result.exists = boolean(c.exists, 'check.exists');
  return result;
}

/** A problem body, numbers restored; anything unreadable still yields a problem with the status. */
export function decodeProblem(doc: WireDocument | undefined, status: number): ProblemInfo {
  const body = doc && typeof doc.problem === 'object' && doc.problem !== null && !Array.isArray(doc.problem) ? doc.problem : doc;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { status, title: `HTTP ${status}` };
  const problem: ProblemInfo = { ...(body as WireObject) };
  problem.status = Number.isSafeInteger(Number(problem.status)) ? Number(problem.status) : status;
  if (problem.errors !== undefined) {
    const errors = list(problem.errors as WireValue, 'problem.errors');
    problem.errors = errors.map((e, i) => {
      const o = object(e, `problem.errors[${i}]`);
      return { path: text(o.path ?? '', `problem.errors[${i}].path`), message: text(o.message ?? '', `problem.errors[${i}].message`) };
    });
  }
  return problem;
}
