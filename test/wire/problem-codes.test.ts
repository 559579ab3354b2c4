/**
 * One list of problem codes (common/src/wire/problem-codes.ts), and three things kept equal to it:
 * the codes the processes can emit (the error hierarchy's classes and every code spelled in the
 * sources of the core, the gateway, the portal and the client), the client library's
 * `SvcErrorCode` list, and the table of docs/api.md (Errors). A code added in one place and not the
 * others fails here (and, for the error hierarchy, in the type check first).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as errors from '../../common/src/errors';
import { CLIENT_FAILURE_CODES, PROBLEM_CODES } from '../../common/src/wire/problem-codes';
import { SVC_ERROR_CODES } from '../../client/src/errors';

const ROOT = join(__dirname, '..', '..');
const SOURCES = ['common/src', 'server/src', 'gateway/src', 'portlet-adapter/src', 'client/src', 'bin'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Where a process spells a code it emits: a class of the hierarchy, an SvcError, a problem body, the client's own failures. */
const EMITTING = [
  /\bmake\(\s*\d+,\s*'([a-z_]+)'/g,
  /\bnew SvcError\([^,]+,\s*'([a-z_]+)'/g,
  /urn:svc:problem:([a-z_]+)/g,
  /\bcode:\s*'([a-z_]+)'/g,
  /\bclientFailure\(\s*'([a-z_]+)'/g,
];

/** code → the files that spell it as emitted. */
function spelledCodes(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of SOURCES.flatMap(sourceFiles)) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const pattern of EMITTING) {
      for (const match of text.matchAll(pattern)) found.set(match[1], [...(found.get(match[1]) ?? []), relative(ROOT, join(ROOT, file))]);
    }
  }
  return found;
}

/** Every instance the error hierarchy can make, with the status each has. */
function hierarchyInstances(): errors.SvcError[] {
  const instances: errors.SvcError[] = [
    new errors.AccessDenied(401, false),
    new errors.AccessDenied(403, false),
    new errors.AccessDenied(401, true),
    new errors.AccessDenied(403, true),
    new errors.StepUpRequired(401),
    new errors.StepUpRequired(403),
  ];
  for (const value of Object.values(errors)) {
    if (typeof value !== 'function' || value === errors.SvcError || value === errors.AccessDenied || value === errors.StepUpRequired) continue;
    if (!(value.prototype instanceof errors.SvcError)) continue;
    instances.push(new (value as new () => errors.SvcError)());
  }
  return instances;
}

/** `| \`code\` | status | when |` rows of one table of docs/api.md → code → its status cell. */
function documentedTable(section: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const match = /^\| `([a-z_]+)` \| ([^|]+) \|/.exec(line);
    if (match) rows.set(match[1], match[2].trim());
  }
  return rows;
}

const api = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
const errorsSection = api.slice(api.indexOf('\n## Errors\n'), api.indexOf('\n## ', api.indexOf('\n## Errors\n') + 1));
const split = errorsSection.indexOf('adds two codes of\nits own');
const documented = documentedTable(errorsSection.slice(0, split));
const documentedClient = documentedTable(errorsSection.slice(split));

describe('problem codes: one list', () => {
  it('has no code twice', () => {
    expect(new Set([...PROBLEM_CODES, ...CLIENT_FAILURE_CODES]).size).toBe(PROBLEM_CODES.length + CLIENT_FAILURE_CODES.length);
  });

  it('holds every code the error hierarchy makes', () => {
    const made = new Set(hierarchyInstances().map((error) => error.code));
    expect([...made].filter((code) => !(PROBLEM_CODES as readonly string[]).includes(code))).toEqual([]);
  });

  it('holds every code a process spells, and each listed code is emitted somewhere', () => {
    const spelled = spelledCodes();
    const listed = new Set<string>([...PROBLEM_CODES, ...CLIENT_FAILURE_CODES]);
    const unlisted = [...spelled].filter(([code]) => !listed.has(code)).map(([code, files]) => `${code} (${files.join(', ')})`);
    expect(unlisted).toEqual([]);
    const emitted = new Set([...spelled.keys(), ...hierarchyInstances().map((error) => error.code)]);
    expect([...listed].filter((code) => !emitted.has(code))).toEqual([]);
  });

  it('is the client library\'s list, with its own two codes', () => {
    expect([...SVC_ERROR_CODES].sort()).toEqual([...PROBLEM_CODES, ...CLIENT_FAILURE_CODES].sort());
  });

  it('is the table of docs/api.md (Errors), row for row, and each status there is the one the hierarchy gives', () => {
    expect([...documented.keys()].sort()).toEqual([...PROBLEM_CODES].sort());
    expect([...documentedClient.keys()].sort()).toEqual([...CLIENT_FAILURE_CODES].sort());
    for (const error of hierarchyInstances()) expect({ code: error.code, status: documented.get(error.code) }).toEqual({ code: error.code, status: expect.stringContaining(String(error.status)) });
  });
});
