/**
 * docs/configuration.md's reference is what `svc config-schema` validates against: every key of the
 * four schemas is in it and it has no other key, with the defaults the loaders fill in. When a schema
 * changes, `npm run docs:config` writes the reference again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REFERENCE_BEGIN, REFERENCE_END, REFERENCE_FILES, configurationReference, referenceRows } from '../../bin/config-reference';

const document = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
const section = document.slice(document.indexOf(REFERENCE_BEGIN), document.indexOf(REFERENCE_END) + REFERENCE_END.length);

/** Every property name a schema declares, found by walking it independently of the generator. */
function propertyNames(node: unknown, names = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) propertyNames(item, names);
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties' && value !== null && typeof value === 'object') for (const name of Object.keys(value)) if (name !== '$schema') names.add(name);
      if (key !== 'default' && key !== 'enum') propertyNames(value, names);
    }
  }
  return names;
}

/** `a.b[].c` → `c`; `global["session.idle"]` → `session.idle`; `a.<name>` → `<name>`. */
function lastName(path: string): string {
  const quoted = /\["([^"]+)"\]$/.exec(path);
  return quoted ? quoted[1] : path.replace(/\[\]$/, '').split('.').pop() ?? path;
}

test('the file has the markers of its generated reference', () => {
  expect(document.indexOf(REFERENCE_BEGIN)).toBeGreaterThan(0);
  expect(document.indexOf(REFERENCE_END)).toBeGreaterThan(document.indexOf(REFERENCE_BEGIN));
});

test('the reference in docs/configuration.md is the one the schemas generate (npm run docs:config)', () => {
  expect(section).toBe(configurationReference());
});

test.each(REFERENCE_FILES.map((file) => [file.command, file] as const))('%s: every property is in the reference, and nothing else', (_command, file) => {
  const start = section.indexOf(`### ${file.title}`);
  const end = section.indexOf('\n### ', start + 1);
  const table = section.slice(start, end < 0 ? undefined : end);
  const documented = new Set(
    [...table.matchAll(/^\| `([^`]+)` \|/gm)]
      .map(([, path]) => lastName(path))
      .filter((name) => name !== '<name>'),
  );
  expect([...documented].sort()).toEqual([...propertyNames(file.schema)].sort());
});

test('every key says what it means (bin/config-reference-meanings.ts)', () => {
  const unexplained = REFERENCE_FILES.flatMap((file) => referenceRows(file.schema, file.filled).filter((row) => row.meaning === '').map((row) => row.path));
  expect(unexplained).toEqual([]);
});
