/**
 * The doc test: every shell example of README.md, SECURITY.md and docs/*.md runs, as a newcomer would
 * run it, against a real demo (`svc demo`, what `npm start` runs) started on free ports, and must exit
 * 0; where the page shows the output (a ```text output block right after the example), the output
 * must match it, `…` standing for what differs from run to run. So the documentation cannot drift
 * from what svc does.
 *
 * What a page's fence says after `sh` (or `bash`):
 * - nothing: run it with the demo running;
 * - `prelude`: the variables every example uses (the README's tour defines them); run before each;
 * - `after-demo`: run once the demo has stopped (a command that needs its data directory to itself);
 * - `postgres`: needs the local PostgreSQL (a schema of its own; skipped without one, or failing
 *   under SVC_TEST_REQUIRE_ALL=1); the `after-demo` examples run there, so each says `postgres` too;
 * - `no-run`: never run; each one is listed below with the reason.
 *
 * Each example runs in `bash -e -o pipefail` (with what the page's earlier examples exported), in a
 * working directory of its own that looks like a checkout (package.json, dist and node_modules linked
 * in; the demo's data in ./data, where npm start keeps it), with `svc` on the PATH as `npm link` would
 * put it, and HOME there too, so nothing of the machine's user takes part.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, resolve } from 'node:path';
import { adminQuery, schemaName, urlWithSchema } from '../helpers/postgres';
import { describeWithService, postgresRequirement } from '../helpers/services';
import { BIN, startDemo, stopSvc, type Running } from '../helpers/svc-process';

const ROOT = resolve(__dirname, '..', '..');
const PAGES = ['README.md', 'SECURITY.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

/** The examples that never run, and why; a new one must be added here with its reason. */
const NOT_RUN: Record<string, string> = {
  'README.md: npm install     # once: installs the locked versions and builds the native SQLite binding':
    'the two commands themselves: npm start runs until stopped, and npm test runs this test',
  'docs/api.md: curl --cacert server-ca.pem --cert job.pem --key job.key -X POST -c jar https://127.0.0.1:8080/svc/login':
    'needs a core serving HTTPS with clientCA and a PKI of its own, which test/certificates/ makes and logs in with',
  'README.md: npm pack --workspace client                      # builds the client, writes svc-client-0.1.0.tgz':
    'installs into a project outside this checkout, from the registry: test/packaging/client-package.test.ts packs and installs the client that way',
  'docs/client.md: svc cli reset-link bob --base-url "$SVC" --client-id svc-web          # the same answer for any name':
    "TOKEN stands for a mailed link's token: test/mail/mail-client.test.ts runs these commands with real ones (the README's mail tour does the REST calls against the demo)",
  'docs/operations.md: npm run build':
    'a benchmark (two runs of 10 s each against servers of its own, from a full checkout): measurements, not an example; npm run bench runs it',
};

/**
 * An example runs commands one after the other on a machine shared with other suites (svc cli starts
 * node for each): jest's default of 30 s is too short for the longest, so each gets this. It is no
 * claim about speed; nothing here is timed.
 */
const EXAMPLE_TIMEOUT_MS = 180_000;

const MARKERS = new Set(['prelude', 'after-demo', 'postgres', 'no-run']);

interface Example {
  page: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  markers: Set<string>;
  script: string;
  /** The ```text output block that follows it, if any. */
  output?: string;
}

/** The fenced shell blocks of a page (fences at the start of a line), with the output block after each. */
function examplesOf(page: string): Example[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
  const blocks: Array<{ line: number; info: string[]; body: string; endLine: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && lines[end] !== '```') end++;
    blocks.push({ line: start + 1, info: [open[1], ...open[2].trim().split(/\s+/).filter(Boolean)], body: lines.slice(start + 1, end).join('\n'), endLine: end });
    i = end;
  }
  const examples: Example[] = [];
  blocks.forEach((block, index) => {
    if (block.info[0] !== 'sh' && block.info[0] !== 'bash') return;
    const next = blocks[index + 1];
    const between = next ? lines.slice(block.endLine + 1, next.line - 1) : [];
    const output = next && next.info[0] === 'text' && next.info.includes('output') && between.every((line) => line.trim() === '') ? next.body : undefined;
    examples.push({ page, line: block.line, markers: new Set(block.info.slice(1)), script: block.body, output });
  });
  return examples;
}

const EXAMPLES = PAGES.flatMap(examplesOf);
const PRELUDE = EXAMPLES.filter((example) => example.markers.has('prelude')).map((example) => example.script).join('\n');
const name = (example: Example) => `${example.page}:${example.line}: ${example.script.split('\n')[0].slice(0, 90)}`;
const runnable = (example: Example) => !example.markers.has('no-run') && !example.markers.has('prelude');

/** Output as the page shows it: `…` is anything; line breaks do not count (curl ends no line). */
function matchesShownOutput(actual: string, shown: string): boolean {
  const flat = (text: string) => text.split('\n').map((line) => line.trimEnd()).join('').trim();
  const pattern = flat(shown).split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(flat(actual));
}

let workdir: string;
let demo: (Running & { core: string; gateway: string; portal: string; mailbox: string }) | undefined;
let environment: NodeJS.ProcessEnv;

/** A port free now (for the examples that start a server of their own). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Runs one example after the prelude; its exit code and what it wrote. A reader runs a page's examples
 * in one terminal, so what an example exports (`export SVC_API_SECRET=…`) is there for the page's
 * later examples: it is kept in a file per page.
 */
function run(example: Example, extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const exported = join(workdir, `.exported-${example.page.replace(/\W/g, '_')}`);
  const script = [`if [ -f '${exported}' ]; then . '${exported}'; fi`, PRELUDE, `trap "export -p > '${exported}'" EXIT`, example.script].join('\n');
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: workdir, env: { ...environment, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolveRun, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

async function expectToRun(example: Example, extra: NodeJS.ProcessEnv = {}): Promise<void> {
  const result = await run(example, extra);
  // One comparison, so that a failure shows the example, its exit code and both outputs together.
  expect({ example: name(example), code: result.code, stderr: result.code === 0 ? '' : result.stderr, stdout: result.stdout }).toEqual({
    example: name(example),
    code: 0,
    stderr: '',
    stdout: example.output === undefined || matchesShownOutput(result.stdout, example.output) ? result.stdout : `the output shown on the page:\n${example.output}`,
  });
}

beforeAll(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'svc-doc-examples-'));
  for (const entry of ['package.json', 'dist', 'node_modules']) symlinkSync(join(ROOT, entry), join(workdir, entry));
  mkdirSync(join(workdir, 'bin'));
  writeFileSync(join(workdir, 'bin', 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
  const dataDir = join(workdir, 'data');
  demo = await startDemo(dataDir);
  environment = {
    PATH: `${join(workdir, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: workdir,
    LANG: 'C.UTF-8',
    SVC: demo.core,
    GW: demo.gateway,
    PORTAL: demo.portal,
    MAILBOX: demo.mailbox.replace(/\/$/, ''),
    SPARE_PORT: String(await freePort()),
  };
}, EXAMPLE_TIMEOUT_MS);

afterAll(async () => {
  if (demo) await stopSvc(demo);
  rmSync(workdir, { recursive: true, force: true });
});

test('every shell example is run, or listed here with the reason it is not', () => {
  const unknown = EXAMPLES.flatMap((example) => [...example.markers].filter((marker) => !MARKERS.has(marker)).map((marker) => `${name(example)}: ${marker}`));
  expect(unknown).toEqual([]);
  const notRun = EXAMPLES.filter((example) => example.markers.has('no-run')).map((example) => `${example.page}: ${example.script.split('\n')[0]}`);
  expect(notRun.sort()).toEqual(Object.keys(NOT_RUN).sort());
  expect(EXAMPLES.filter(runnable).length).toBeGreaterThanOrEqual(20);
  expect(EXAMPLES.filter((example) => example.markers.has('after-demo') && !example.markers.has('postgres')).map(name)).toEqual([]);
});

test('every relative link of the documentation names a file that exists, and an anchor it has', () => {
  const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-');
  const anchors = new Map<string, Set<string>>();
  const prose = (page: string) => readFileSync(join(ROOT, page), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
  for (const page of PAGES) anchors.set(normalize(page), new Set([...prose(page).matchAll(/^#+ (.*)$/gm)].map(([, heading]) => slug(heading))));
  const broken: string[] = [];
  for (const page of PAGES) {
    for (const [, target] of prose(page).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path, anchor] = target.split('#');
      const file = path ? normalize(join(dirname(page), path)) : normalize(page);
      if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no such file)`);
      else if (anchor && file.endsWith('.md') && !anchors.get(file)?.has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

describe.each(PAGES.filter((page) => EXAMPLES.some((example) => example.page === page && runnable(example) && !example.markers.has('after-demo'))))('%s', (page) => {
  test.each(EXAMPLES.filter((example) => example.page === page && runnable(example) && !example.markers.has('after-demo')).map((example) => [name(example), example] as const))(
    '%s',
    async (_name, example) => {
      await expectToRun(example);
    },
    EXAMPLE_TIMEOUT_MS,
  );
});

const afterDemo = EXAMPLES.filter((example) => runnable(example) && example.markers.has('after-demo'));
describeWithService(postgresRequirement(), 'with the demo stopped, on PostgreSQL', () => {
  let schema: string;
  beforeAll(async () => {
    if (demo) await stopSvc(demo);
    demo = undefined;
    schema = schemaName('docs');
    await adminQuery(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });
  test.each(afterDemo.map((example) => [name(example), example] as const))('%s', async (_name, example) => {
    await expectToRun(example, { SVC_PG_URL: urlWithSchema(schema) });
  }, EXAMPLE_TIMEOUT_MS);
});
