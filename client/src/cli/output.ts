/** What the CLI prints: aligned tables for people, JSON (`--json`) for scripts. */
import type { CheckDecision, SearchPage, SessionInfo, Subject, SubjectEventPage, SubjectRead } from '../types';

export type Row = string[];

export function table(header: Row | undefined, rows: Row[]): string {
  const all = header ? [header, ...rows] : rows;
  const widths = all.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
  const line = (row: Row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd();
  return all.map(line).join('\n') + '\n';
}

const show = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : (value ?? ''));

export function sessionTable(session: SessionInfo): string {
  return table(undefined, [
    ['type', session.type],
    ['user', session.principal ? `${session.principal.uniqueId} (${session.principal.contextId})` : '-'],
    ['client', session.clientId || '-'],
    ['level', String(session.level)],
    ['session', session.uniqueId],
    ...(session.message ? [['message', session.message]] : []),
  ]);
}

export function subjectTable(subject: Subject): string {
  const names = Object.keys(subject.attributes).sort();
  return table(undefined, [['uniqueId', subject.uniqueId], ...names.map((n) => [n, show(subject.attributes[n])])]);
}

/** A READ and the parts its `--include` brought (a part the session may not read is absent: not shown). */
export function readTable(read: SubjectRead): string {
  const parts: string[] = [subjectTable(read)];
  if (read.otp) parts.push(table(undefined, [['two-step sign-in', read.otp.state], ['recovery codes left', String(read.otp.recoveryCodesLeft)]]));
  if (read.mailPending !== undefined) parts.push(table(undefined, [['pending address', read.mailPending ? `${read.mailPending.mail} (until ${read.mailPending.expires})` : '-']]));
  if (read.lockout) {
    const locked = read.lockout.locked ? `yes${read.lockout.lockedUntil ? `, until ${read.lockout.lockedUntil}` : ''}` : 'no';
    parts.push(table(undefined, [['locked', locked], ['failures', String(read.lockout.failures)]]));
  }
  if (read.events) parts.push(eventsTable(read.events));
  return parts.join('\n');
}

/** A page of a subject's events, newest first, and how many of how many. */
export function eventsTable(page: SubjectEventPage): string {
  return table(['at', 'type', 'detail', 'principal', 'peer'], page.events.map((e) => [e.at, e.type, e.detail, e.principal ?? '', e.peer ?? ''])) + `${page.events.length} of ${page.total}\n`;
}

export function searchTable(page: SearchPage): string {
  const names = [...new Set(page.results.flatMap((s) => Object.keys(s.attributes)))].sort();
  const rows = page.results.map((s) => [s.uniqueId, ...names.map((n) => show(s.attributes[n]))]);
  const last = page.offset + page.results.length;
  const summary = page.total === 0 ? 'no subjects\n' : `${page.offset + 1}-${last} of ${page.total}\n`;
  return (rows.length ? table(['uniqueId', ...names], rows) : '') + summary;
}

export function decisionLine(check: CheckDecision): string {
  const exists = check.exists === undefined ? '' : check.exists ? ', exists' : ', does not exist';
  return `${check.decision} ${check.operation} ${check.resource} (${check.reason}${exists})\n`;
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
