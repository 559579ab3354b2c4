/**
 * Moving a context's subjects between stores (SPEC section 12, "Moving data"): `svc export` writes
 * them as JSON lines, `svc import` reads them back into any store. A line holds every attribute,
 * password and answer hashes included, so users keep their passwords; it is canonical (members in a
 * fixed order, attribute names sorted), so exports of the same subjects are the same bytes whatever
 * store they came from. The version (the ETag) is the store's own: an imported subject starts anew.
 * A subject's second factor (SPEC 15) travels as `secondFactor`: its secret still sealed under
 * `otp.key` (bound to its context and subject), whether it is confirmed, and the SHA-256 of each
 * unused recovery code. An import takes it only when it opens under the data directory's `otp.key`.
 *
 * After the subjects come the context's SCIM groups (SPEC 14), one line each, `{"group":{…}}`: the
 * id an identity provider keeps, the displayName, created, modified, the version (its ETag) and
 * `kept` (made or changed over SCIM), so an import restores them under the same ids. A group's
 * members are the subjects holding its role: they travel in the subjects' `roles`, not twice. A file
 * without group lines (from an svc before them) imports as it did, leaving the groups as they are.
 */
import { MalformedBody, SvcError } from '../../../common/src/errors';
import { parseJson } from '../../../common/src/wire/json';
import { parsePhc } from '../passwords/phc';
import { openSecret } from '../otp/factor-cipher';
import type { StoredFactor } from '../otp/factor-store';
import { checkAttributes, missingRequired } from './attributes';
import type { ImportedSubject, SubjectStore } from './store';
import { fold, valuesOf, type Attributes, type StoredSubject } from './subject';
import { byFoldedName, GROUP_ID, groupNameProblem, type StoredGroup } from './subject-groups';
import type { SubjectService } from './subject-service';
import { assertSubjectId } from './subject-id';

/** What one line of an export is. */
export interface ExportedSubject {
  uniqueId: string;
  attributes: Attributes;
  created: string;
  modified: string;
  /** The subject's second factor, its secret still sealed (SPEC 15); absent when it has none. */
  secondFactor?: StoredFactor;
}

const MEMBERS = new Set(['uniqueId', 'attributes', 'created', 'modified', 'secondFactor']);
/** A recovery code's SHA-256, base64url. */
const RECOVERY_HASH = /^[A-Za-z0-9_-]{43}$/;
/** Errors listed before an import gives up reading. */
const MAX_PROBLEMS = 20;

/** One subject as its export line (without the newline), with its second factor when it has one. */
export function exportLine(subject: StoredSubject, factor?: StoredFactor): string {
  const names = Object.keys(subject.attributes).sort();
  const attributes = Object.fromEntries(names.map((name) => [name, subject.attributes[name]]));
  const line: ExportedSubject = { uniqueId: subject.uniqueId, attributes, created: subject.created, modified: subject.modified };
  if (factor) line.secondFactor = { secret: factor.secret, confirmed: factor.confirmed, recovery: [...factor.recovery] };
  return JSON.stringify(line);
}

/** What a group line holds: `{"group": ExportedGroup}`. */
export interface ExportedGroup {
  id: string;
  displayName: string;
  created: string;
  modified: string;
  version: number;
  kept: boolean;
}

const GROUP_MEMBERS = new Set(['id', 'displayName', 'created', 'modified', 'version', 'kept']);
/** PostgreSQL's `integer`, where every store's version fits. */
const MAX_VERSION = 2 ** 31 - 1;

/** The context's groups as export writes them (after its subjects): by folded displayName, then id, whatever the store. */
export async function groupsOf(store: SubjectStore, contextId: string): Promise<StoredGroup[]> {
  return (await store.groups.list(contextId)).sort(byFoldedName);
}

/** One group as its export line (without the newline). */
export function groupLine(group: StoredGroup): string {
  const exported: ExportedGroup = { id: group.id, displayName: group.name, created: group.created, modified: group.modified, version: group.version, kept: group.kept };
  return JSON.stringify({ group: exported });
}

/** A group line's `group`: its id and displayName as SCIM would take them, its timestamps ISO 8601. */
function readGroup(value: unknown, now: string): StoredGroup {
  const g = value as Partial<Record<keyof ExportedGroup, unknown>> | null;
  if (!g || typeof g !== 'object' || Array.isArray(g)) throw new MalformedBody('group must be an object');
  const unknown = Object.keys(g).filter((name) => !GROUP_MEMBERS.has(name));
  if (unknown.length) throw new MalformedBody(`unknown members of group: ${unknown.join(', ')}`);
  if (typeof g.id !== 'string' || !GROUP_ID.test(g.id)) throw new MalformedBody('group.id must be 1 to 128 letters, digits, ".", "_", "~" or "-"');
  const problem = groupNameProblem(g.displayName);
  if (problem !== undefined) throw new MalformedBody(`group.${problem}`);
  const version = g.version ?? 1;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > MAX_VERSION) throw new MalformedBody('group.version must be a positive integer');
  const kept = g.kept ?? true;
  if (typeof kept !== 'boolean') throw new MalformedBody('group.kept must be true or false');
  const created = timestamp(g.created, 'group.created', now);
  return { id: g.id, name: g.displayName as string, created, modified: timestamp(g.modified, 'group.modified', created), version, kept };
}

/** Where an import finds `otp.key` and puts second factors (svc's own otp.sqlite). */
export interface FactorTarget {
  /** `otp.key` of the data directory, or undefined when there is none. */
  key(): Buffer | undefined;
  put(contextId: string, uniqueId: string, factor: StoredFactor): void;
  remove(contextId: string, uniqueId: string): void;
}

/** A line's `secondFactor`: well formed, and its secret opens under this `otp.key` for this subject. */
function readFactor(value: unknown, contextId: string, uniqueId: string, factors: FactorTarget | undefined): StoredFactor {
  const f = value as Partial<StoredFactor> | null;
  if (!f || typeof f !== 'object' || Array.isArray(f) || Object.keys(f).some((k) => !['secret', 'confirmed', 'recovery'].includes(k))) throw new MalformedBody('secondFactor must be {"secret","confirmed","recovery"}');
  if (typeof f.secret !== 'string' || typeof f.confirmed !== 'boolean' || !Array.isArray(f.recovery) || f.recovery.some((h) => typeof h !== 'string' || !RECOVERY_HASH.test(h))) {
    throw new MalformedBody('secondFactor must hold a sealed secret, confirmed (true or false) and the recovery codes\' SHA-256 hashes');
  }
  const key = factors?.key();
  if (key === undefined) throw new MalformedBody('secondFactor needs the otp.key it was sealed under in the data directory (copy it with the export)');
  try {
    openSecret(key, contextId, uniqueId, f.secret);
  } catch {
    throw new MalformedBody('secondFactor was sealed under another otp.key, or for another subject or context');
  }
  return { secret: f.secret, confirmed: f.confirmed, recovery: [...(f.recovery as string[])] };
}

/** Every subject of a context, ordered by uniqueId, a keyset page at a time. */
export async function* subjectsOf(store: SubjectStore, contextId: string, pageSize = 1000): AsyncGenerator<StoredSubject> {
  let after: string | undefined;
  for (;;) {
    const page = await store.list(contextId, after, pageSize);
    yield* page;
    if (page.length < pageSize) return;
    after = page[page.length - 1].uniqueId;
  }
}

/** An import refused: each problem names its line. Nothing was written. */
export class ImportRefused extends Error {
  constructor(readonly problems: string[]) {
    super(`import refused, nothing written:\n  ${problems.join('\n  ')}`);
    this.name = 'ImportRefused';
  }
}

const describe = (error: unknown): string => {
  if (error instanceof SvcError) {
    const details = (error.errors ?? []).map((e) => `${e.path}: ${e.message}`);
    return [error.message, ...details].join('; ');
  }
  return error instanceof Error ? error.message : String(error);
};

function timestamp(value: unknown, name: string, fallback: string): string {
  if (value === undefined) return fallback;
  const time = typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) throw new MalformedBody(`${name} is not an ISO 8601 timestamp`);
  return new Date(time).toISOString();
}

/**
 * Reads one line against the context's definition as an admin's CREATE would be checked, except
 * that secrets are taken as the hashes they must already be (never hashed again, never plain).
 */
export function readLine(service: SubjectService, contextId: string, document: Record<string, unknown>, now: string, factors?: FactorTarget): ImportedSubject & { factor?: StoredFactor } {
  const unknown = Object.keys(document).filter((name) => !MEMBERS.has(name));
  if (unknown.length) throw new MalformedBody(`unknown members: ${unknown.join(', ')}`);
  const { config } = service.context(contextId);
  const uniqueId = assertSubjectId(document.uniqueId, 'uniqueId');
  if (service.isReserved(uniqueId)) throw new MalformedBody(`${uniqueId} is a reserved id`);
  const given = document.attributes;
  if (!given || typeof given !== 'object' || Array.isArray(given)) throw new MalformedBody('attributes must be an object');
  const attributes = checkAttributes(config, given as Record<string, unknown>, 'admin', true) as Attributes;
  const missing = missingRequired(config, attributes);
  if (missing.length) throw new MalformedBody(`required attributes are missing: ${missing.map((m) => m.path).join(', ')}`);
  const secrets = [config.definition.password, config.forgottenPassword.enabled ? config.forgottenPassword.answersAttribute : undefined];
  for (const name of secrets) {
    for (const value of name ? valuesOf(attributes[name]) : []) {
      try {
        parsePhc(value);
      } catch {
        throw new MalformedBody(`${name} must hold PHC hashes (an export's), never a plain secret`);
      }
      // A hash nobody may make a login compute is refused here, not found at the first login (issue 24, item 10).
      const tooCostly = service.hashCostProblem(value);
      if (tooCostly !== undefined) throw new MalformedBody(`${name}: ${tooCostly}`);
    }
  }
  const created = timestamp(document.created, 'created', now);
  const factor = document.secondFactor === undefined ? undefined : readFactor(document.secondFactor, contextId, uniqueId, factors);
  return { write: service.toWrite(config, uniqueId, attributes), created, modified: timestamp(document.modified, 'modified', created), ...(factor ? { factor } : {}) };
}

/** A line's kind: a group's (its one member `group`) or a subject's. */
function readDocument(text: string): { group: unknown } | { subject: Record<string, unknown> } {
  const document = parseJson(text);
  if (!document || typeof document !== 'object' || Array.isArray(document)) throw new MalformedBody('a line must be a JSON object');
  const members = document as Record<string, unknown>;
  if (!('group' in members)) return { subject: members };
  const others = Object.keys(members).filter((name) => name !== 'group');
  if (others.length) throw new MalformedBody(`a group line holds "group" alone; unknown members: ${others.join(', ')}`);
  return { group: members.group };
}

/** What an import wrote. */
export interface Imported {
  subjects: number;
  groups: number;
}

/**
 * Reads every line, then writes all subjects and groups in one store call (all or nothing). An
 * invalid line, a uniqueId, group id or group displayName given twice, or (without `replace`) a
 * subject or group that exists refuses the whole import with the lines at fault.
 */
export async function importLines(
  service: SubjectService,
  contextId: string,
  lines: AsyncIterable<string>,
  options: { replace: boolean; onRead?: (count: number) => void; onProgress?: (done: number, total: number) => void; factors?: FactorTarget },
): Promise<Imported> {
  const subjects: Array<ImportedSubject & { factor?: StoredFactor }> = [];
  const groups: StoredGroup[] = [];
  const lineOf = new Map<string, number>();
  const groupLineOf = new Map<string, number>();
  const groupNameLineOf = new Map<string, number>();
  const problems: string[] = [];
  const now = new Date().toISOString();
  let number = 0;
  for await (const text of lines) {
    number++;
    if (!text.trim()) continue;
    try {
      const document = readDocument(text);
      if ('group' in document) {
        const group = readGroup(document.group, now);
        const sameId = groupLineOf.get(group.id);
        if (sameId !== undefined) throw new MalformedBody(`group ${group.id} is already on line ${sameId}`);
        const sameName = groupNameLineOf.get(fold(group.name));
        if (sameName !== undefined) throw new MalformedBody(`the group displayName ${group.name} is already on line ${sameName}`);
        groupLineOf.set(group.id, number);
        groupNameLineOf.set(fold(group.name), number);
        groups.push(group);
        continue;
      }
      const subject = readLine(service, contextId, document.subject, now, options.factors);
      const folded = fold(subject.write.uniqueId);
      const first = lineOf.get(folded);
      if (first !== undefined) throw new MalformedBody(`${subject.write.uniqueId} is already on line ${first}`);
      lineOf.set(folded, number);
      subjects.push(subject);
      options.onRead?.(subjects.length);
    } catch (error) {
      problems.push(`line ${number}: ${describe(error)}`);
      if (problems.length >= MAX_PROBLEMS) break;
    }
  }
  if (problems.length) throw new ImportRefused(problems);
  const { store } = service.context(contextId);
  try {
    await store.importSubjects(contextId, subjects, { replace: options.replace, groups, onProgress: (done) => options.onProgress?.(done, subjects.length) });
  } catch (error) {
    const { uniqueId, groupId } = error instanceof SvcError ? error.extensions : {};
    const line = typeof uniqueId === 'string' ? lineOf.get(fold(uniqueId)) : typeof groupId === 'string' ? groupLineOf.get(groupId) : undefined;
    if (line === undefined) throw error;
    // A subject that exists, a group whose id exists or whose displayName another group has: what --replace overrides.
    const replaceable = error instanceof SvcError && error.status === 409 && (/exists$/.test(error.message) || typeof groupId === 'string');
    throw new ImportRefused([`line ${line}: ${describe(error)}${replaceable && !options.replace ? ' (--replace replaces it)' : ''}`]);
  }
  // The subjects are written: their factors follow, each as its line says (with --replace, a
  // replaced subject whose line has none keeps none: the file is what the subject is).
  for (const subject of subjects) {
    if (subject.factor) options.factors!.put(contextId, subject.write.uniqueId, subject.factor);
    else if (options.replace) options.factors?.remove(contextId, subject.write.uniqueId);
  }
  return { subjects: subjects.length, groups: groups.length };
}
