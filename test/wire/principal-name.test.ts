/**
 * `contextId/uniqueId` (SPEC sections 4 and 9): one spelling, written and read only by
 * common/src/principal-name.ts, and a scan that no other file spells or splits it by hand.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { formatPrincipalName, parsePrincipalName, principalName, principalNameOf, samePrincipal, splitPrincipalName } from '../../common/src/principal-name';

const ROOT = join(__dirname, '../..');
const CODE = ['server/src', 'gateway/src', 'portlet-adapter/src', 'client/src', 'common/src', 'bin'];
const HELPER = 'common/src/principal-name.ts';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|js)$/.test(name) ? [path] : [];
  });
}

/** `${…contextId…}/${…}`: a principal spelled by hand (`contexts/${c}/subjects/${s}`, a target, is not one). */
const SPELLED = /\$\{[^}]*contextId[^}]*\}\/\$\{/;
/** A portlet reading the svc user back out of the portal's principal name. */
const PARSED_BACK = /getUserPrincipal\(\)\??\.getName\(\)/;

function handWritten(path: string, text: string): string[] {
  const portlet = path.startsWith('portlet-adapter/src/portlets/');
  return text.split('\n').flatMap((line, i) => (SPELLED.test(line) || (portlet && PARSED_BACK.test(line)) ? [`${path}:${i + 1}: ${line.trim()}`] : []));
}

test('no file but principal-name.ts spells or parses contextId/uniqueId by hand', () => {
  const paths = CODE.flatMap((dir) => files(join(ROOT, dir))).map((path) => relative(ROOT, path)).filter((path) => path !== HELPER);
  expect(paths.flatMap((path) => handWritten(path, readFileSync(join(ROOT, path), 'utf8')))).toEqual([]);
  // What the scan catches: lines the code held as of 119b3c4.
  for (const line of [
    'const key = `${session.principal.contextId}/${session.principal.uniqueId}`;',
    "principal: `${contextId}/${uniqueId}`, sessions: ended",
  ]) expect(handWritten('x.ts', line)).toHaveLength(1);
  expect(handWritten('portlet-adapter/src/portlets/self-service/x.ts', 'const name = request.getUserPrincipal()?.getName();')).toHaveLength(1);
  expect(handWritten('x.ts', 'const target = `contexts/${contextId}/subjects/${subjectId}`;')).toEqual([]);
});

describe('the helper', () => {
  test('principalName spells what it is given; formatPrincipalName checks both halves first', () => {
    expect(principalName({ contextId: 'employees', uniqueId: 'bob' })).toBe('employees/bob');
    expect(principalName({ contextId: '', uniqueId: 'svcadmin' })).toBe('/svcadmin'); // SYSTEM's, in audit lines
    expect(formatPrincipalName({ contextId: 'employees', uniqueId: 'bob' })).toBe('employees/bob');
    expect(() => formatPrincipalName({ contextId: '', uniqueId: 'svcadmin' })).toThrow(TypeError);
    expect(() => formatPrincipalName({ contextId: 'employees', uniqueId: 'a/b' })).toThrow(TypeError);
  });

  test('splitPrincipalName takes exactly one slash, unchecked; parsePrincipalName checks the halves', () => {
    expect(splitPrincipalName('employees/bob')).toEqual({ contextId: 'employees', uniqueId: 'bob' });
    expect(splitPrincipalName('/bob')).toEqual({ contextId: '', uniqueId: 'bob' });
    expect(splitPrincipalName('employees/../x')).toBeUndefined();
    expect(splitPrincipalName('bob')).toBeUndefined();
    expect(parsePrincipalName('employees/bob')).toEqual({ contextId: 'employees', uniqueId: 'bob' });
    for (const text of ['/bob', 'employees/', 'employees/.x', 'employees/a b', ' employees/bob', 'a/b/c', 42]) expect(parsePrincipalName(text)).toBeUndefined();
  });

  test('principalNameOf checks a received {contextId, uniqueId} as strictly, and keeps only those two members', () => {
    expect(principalNameOf({ contextId: 'employees', uniqueId: 'bob', extra: 1 })).toEqual({ contextId: 'employees', uniqueId: 'bob' });
    for (const value of [null, undefined, 'employees/bob', { contextId: '', uniqueId: 'svcadmin' }, { contextId: 'employees' }, { contextId: 'employees', uniqueId: 7 }]) {
      expect(principalNameOf(value)).toBeUndefined();
    }
  });

  test('samePrincipal compares both halves exactly', () => {
    const bob = { contextId: 'employees', uniqueId: 'bob' };
    expect(samePrincipal(bob, { contextId: 'employees', uniqueId: 'bob' })).toBe(true);
    expect(samePrincipal(bob, { contextId: 'customers', uniqueId: 'bob' })).toBe(false);
    expect(samePrincipal(bob, { contextId: 'employees', uniqueId: 'Bob' })).toBe(false);
    expect(samePrincipal(bob, null)).toBe(false);
  });
});
