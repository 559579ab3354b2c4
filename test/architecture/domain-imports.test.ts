/**
 * Imports run one way: the transport (server/src/http/) and the demo (server/src/demo/) use the
 * domain, never the reverse. Only server.ts, which puts a core behind its HTTP listener, may import
 * http/; the demo is for bin/ and tests alone. A domain file that needs a type of the transport
 * takes it from the domain instead (certificates/presented-certificate.ts), and a command that falls
 * back on the demo is handed it (TransferIo.defaultConfig).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SERVER = resolve(__dirname, '..', '..', 'server', 'src');
/** The files that wire the transport to the domain. */
const WIRING = new Set(['server.ts']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every relative module a file imports (static, type-only, re-exports and `import()`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'(\.[^']*)'/gm)].map((m) => m[1]);
  return specifiers.map((specifier) => resolve(dirname(file), specifier));
}

const outside = (folder: string) => (path: string) => relative(join(SERVER, folder), path).startsWith('..');

test('no domain file imports server/src/http/ or server/src/demo/', () => {
  const domain = files(SERVER).filter((file) => outside('http')(file) && outside('demo')(file) && !WIRING.has(relative(SERVER, file)));
  expect(domain.length).toBeGreaterThan(50);
  const wrong = domain.flatMap((file) =>
    importsOf(file)
      .filter((target) => !outside('http')(target) || !outside('demo')(target))
      .map((target) => `${relative(SERVER, file)} → ${relative(SERVER, target)}`),
  );
  expect(wrong).toEqual([]);
});

test('the transport reaches the core in one place: only http/services.ts imports core.ts (issue 26: no handler receives Core)', () => {
  const core = join(SERVER, 'core');
  const transport = files(join(SERVER, 'http'));
  expect(transport.length).toBeGreaterThan(20);
  const importing = transport.filter((file) => importsOf(file).includes(core)).map((file) => relative(SERVER, file));
  expect(importing).toEqual(['http/services.ts']);
});
