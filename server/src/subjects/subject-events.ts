/**
 * Subject events (SPEC 10.4, beyond the seed): the audit events about one subject, kept in its
 * subject store beside it, newest first, within a bounded retention (`events.retentionDays`, at most
 * `events.maxPerSubject` per subject) that a job applies (`pruneEvents`). An LDAP context's directory
 * has no place for them: its store keeps them in svc's own `events.sqlite` (events-file.ts). A
 * subject's deletion drops its events (`forget`), so a new subject of the same id starts with none.
 */
import type { AuditRecord } from '../audit';
import { principalNameOf } from '../../../common/src/principal-name';
import type { SubjectEvent, SubjectEventPage } from '../../../common/src/wire/subject-event';

export type { SubjectEvent, SubjectEventPage };

export interface SubjectEvents {
  append(context: string, uniqueId: string, event: SubjectEvent): Promise<void>;
  /** Newest first. */
  list(context: string, uniqueId: string, offset: number, quantity: number): Promise<SubjectEventPage>;
  /** Drops events older than `before` (ISO 8601) and all but the newest `keep` of each subject; says how many went. */
  prune(before: string, keep: number): Promise<number>;
  /** Drops every event of one subject (it was deleted); says how many went. */
  forget(context: string, uniqueId: string): Promise<number>;
}

const ABOUT_SUBJECTS = new Set(['login', 'lockout', 'subject_write', 'session_end', 'second_factor']);

/** The events a record is about: which subjects (`{contextId, uniqueId}`), and the event each keeps. */
export function subjectEventsOf(record: AuditRecord, at: string): Array<{ contextId: string; uniqueId: string; event: SubjectEvent }> {
  if (!ABOUT_SUBJECTS.has(record.event)) return [];
  // `subject` names who it is about (one or several keys), else a login's or password's principal.
  const about = typeof record.subject === 'string' ? record.subject.split(' ') : record.principal ? [record.principal] : [];
  const acting = record.principal;
  const attributes = Array.isArray(record.attributes) ? `: ${record.attributes.filter((a) => typeof a === 'string').join(', ')}` : '';
  const detail = `${record.outcome}${record.reason ? ` ${record.reason}` : ''}${attributes}`;
  return about.flatMap((key) => {
    const slash = key.indexOf('/');
    const name = slash > 0 ? principalNameOf({ contextId: key.slice(0, slash), uniqueId: key.slice(slash + 1) }) : undefined;
    return name ? [{ ...name, event: { at, type: record.event, client: record.client, principal: acting, peer: record.peer, detail } }] : [];
  });
}
