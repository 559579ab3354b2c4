/**
 * The client package as an integrator gets it (issue 27 item 1): `npm pack` of the `@svc/client`
 * workspace, its tarball installed into an empty scratch project (the registry serves only the
 * client's own dependencies), then a strict `module: nodenext` TypeScript program — CommonJS (.ts)
 * and ESM (.mts) — and a plain ESM `.mjs` consumer that each log in, check and search against a
 * running demo (`svc demo` on free ports, what `npm start` runs). The install must stay small: at
 * most 15 packages, under 10 MB, and nothing built natively.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDemo, stopSvc, type Running } from '../helpers/svc-process';

const ROOT = resolve(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const MAX_PACKAGES = 15;
const MAX_BYTES = 10 * 1024 * 1024;

/**
 * A hang guard, not a claim about speed: packing builds the client, and the install fetches its
 * dependencies from the registry, on a machine other suites share. Nothing here is timed.
 */
const HANG_GUARD_MS = 600_000;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `command args` in `cwd` with exactly `env`, to its end. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Finished> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/**
 * This process's environment for npm and tsc, without npm's own npm_* variables: under `npm test`
 * they name this checkout, and a child npm would take them as its configuration (its prefix among them).
 */
function toolEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
}

/** `run`, failing with what the command wrote unless it exits 0. */
async function succeed(command: string, args: string[], cwd: string): Promise<string> {
  const finished = await run(command, args, cwd, toolEnv());
  if (finished.code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${finished.code}:\n${finished.stdout}${finished.stderr}`);
  return finished.stdout;
}

/** Every file under `dir` (symbolic links not followed), with its size. */
function filesUnder(dir: string): Array<{ path: string; bytes: number }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return [{ path, bytes: lstatSync(path).size }];
  });
}

/** What the consumers print: the decisions and results the demo gave them. */
interface ConsumerReport {
  session: { type: string; principal: string };
  context: string;
  canSearch: boolean;
  mayDeleteAlice: boolean;
  found: string[];
  wrongPassword: { isLoginError: boolean; code: string };
}

/**
 * The program a TypeScript integrator writes: strict types from the package's .d.ts (a wrong name or
 * type fails the compile), a sealed login (svc-api has a secret: node-forge runs), the check, a search.
 */
const TYPESCRIPT_CONSUMER = `
import { Connection, SvcClientError, SvcLoginError, type CheckDecision, type SearchPage, type SvcErrorCode } from '@svc/client';

const baseUrl = process.env.SVC_BASE_URL!;
const secret = process.env.SVC_CLIENT_SECRET!;
const config = { baseUrl, clientId: 'svc-api', secret };

async function main(): Promise<void> {
  const alice = await Connection.open({ kind: 'password', user: 'alice', password: process.env.SVC_PASSWORD! }, { config, contextId: 'employees' });
  try {
    const session = await alice.session();
    const canSearch: boolean = await alice.isAllowed('SEARCH');
    const deleteAlice: CheckDecision = await alice.check('DELETE', 'alice');
    const page: SearchPage = await alice.search({ search: 'alice', quantity: 10 });
    let wrongPassword: { isLoginError: boolean; code: SvcErrorCode | string } = { isLoginError: false, code: 'none' };
    try {
      await Connection.open({ kind: 'password', user: 'alice', password: 'not-her-password' }, { config, contextId: 'employees' });
    } catch (error) {
      if (!(error instanceof SvcClientError)) throw error;
      wrongPassword = { isLoginError: error instanceof SvcLoginError, code: error.code };
    }
    const principal = session.principal === null ? 'none' : \`\${session.principal.contextId}/\${session.principal.uniqueId}\`;
    console.log(JSON.stringify({
      session: { type: session.type, principal },
      context: alice.contextId,
      canSearch,
      mayDeleteAlice: deleteAlice.allowed,
      found: page.results.map((subject) => subject.uniqueId),
      wrongPassword,
    }));
  } finally {
    await alice.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

/** The same program as plain ESM JavaScript, importing the CommonJS package by its named exports. */
const ESM_CONSUMER = `
import { Connection, SvcClientError, SvcLoginError } from '@svc/client';

const config = { baseUrl: process.env.SVC_BASE_URL, clientId: 'svc-api', secret: process.env.SVC_CLIENT_SECRET };
const alice = await Connection.open({ kind: 'password', user: 'alice', password: process.env.SVC_PASSWORD }, { config, contextId: 'employees' });
try {
  const session = await alice.session();
  const canSearch = await alice.isAllowed('SEARCH');
  const deleteAlice = await alice.check('DELETE', 'alice');
  const page = await alice.search({ search: 'alice', quantity: 10 });
  let wrongPassword = { isLoginError: false, code: 'none' };
  try {
    await Connection.open({ kind: 'password', user: 'alice', password: 'not-her-password' }, { config, contextId: 'employees' });
  } catch (error) {
    if (!(error instanceof SvcClientError)) throw error;
    wrongPassword = { isLoginError: error instanceof SvcLoginError, code: error.code };
  }
  console.log(JSON.stringify({
    session: { type: session.type, principal: \`\${session.principal.contextId}/\${session.principal.uniqueId}\` },
    context: alice.contextId,
    canSearch,
    mayDeleteAlice: deleteAlice.allowed,
    found: page.results.map((subject) => subject.uniqueId),
    wrongPassword,
  }));
} finally {
  await alice.close();
}
`;

let scratch: string;
let dataDir: string;
let demo: (Running & { core: string; credentials: string }) | undefined;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'svc-client-consumer-'));
  dataDir = mkdtempSync(join(tmpdir(), 'svc-client-demo-'));
}, HANG_GUARD_MS);

afterAll(async () => {
  if (demo) await stopSvc(demo);
  rmSync(scratch, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

test(
  'the packed @svc/client installs alone into an empty project, small and without a native build, and strict nodenext TypeScript and ESM consumers log in, check and search against the demo',
  async () => {
    // Built from this checkout's sources first; pack then skips the workspace's prepack, whose output
    // would mix with the JSON it prints.
    await succeed('npm', ['run', 'build', '--workspace', 'client'], ROOT);
    const packDir = join(scratch, 'pack');
    mkdirSync(packDir);
    const packed = JSON.parse(await succeed('npm', ['pack', '--workspace', 'client', '--ignore-scripts', '--pack-destination', packDir, '--json'], ROOT)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(packed).toHaveLength(1);
    const shipped = packed[0].files.map((file) => file.path);
    // Only the package's manifest and its built JS and declarations: no sources, tests, bench or CI.
    for (const path of shipped) expect(path === 'package.json' || /^dist\/.+\.(js|d\.ts)$/.test(path)).toBe(true);
    expect(shipped).toContain('dist/client/src/index.js');
    expect(shipped).toContain('dist/client/src/index.d.ts');
    // The shared wire code travels inside the package; nothing of the servers does.
    expect(shipped).toContain('dist/common/src/wire/problem-codes.js');
    expect(shipped.filter((path) => /^dist\/(server|gateway|portlet-adapter|bin)\//.test(path))).toEqual([]);

    const project = join(scratch, 'consumer');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'svc-client-consumer', version: '1.0.0', private: true, type: 'commonjs' }, null, 2));
    await succeed('npm', ['install', '--no-audit', '--no-fund', join(packDir, packed[0].filename)], project);

    const lock = JSON.parse(readFileSync(join(project, 'node_modules', '.package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const installed = Object.keys(lock.packages);
    expect(installed).toContain('node_modules/@svc/client');
    expect(installed.length).toBeLessThanOrEqual(MAX_PACKAGES);
    expect(installed.filter((name) => lock.packages[name].hasInstallScript)).toEqual([]);
    const files = filesUnder(join(project, 'node_modules'));
    expect(files.filter((file) => file.path.endsWith('binding.gyp') || file.path.endsWith('.node'))).toEqual([]);
    const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
    expect(bytes).toBeLessThan(MAX_BYTES);
    console.info(`@svc/client installs ${installed.length} packages, ${(bytes / 1024 / 1024).toFixed(2)} MB: ${installed.map((name) => name.replace(/^node_modules\//, '')).join(', ')}`);

    // A strict nodenext compile of the TypeScript consumer, CommonJS and ESM, against the installed
    // package's declarations (no skipLibCheck: the package's .d.ts are checked too). Node's types come
    // from this checkout, so the registry serves only the client's dependencies.
    writeFileSync(join(project, 'consumer.ts'), TYPESCRIPT_CONSUMER);
    writeFileSync(join(project, 'consumer.mts'), TYPESCRIPT_CONSUMER);
    writeFileSync(join(project, 'consumer.mjs'), ESM_CONSUMER);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023'],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noEmitOnError: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          outDir: 'out',
        },
        files: ['consumer.ts', 'consumer.mts'],
      }),
    );
    await succeed(process.execPath, [TSC, '-p', 'tsconfig.json'], project);
    expect(existsSync(join(project, 'out', 'consumer.js'))).toBe(true);
    expect(existsSync(join(project, 'out', 'consumer.mjs'))).toBe(true);

    demo = await startDemo(dataDir);
    const credentials = JSON.parse(readFileSync(demo.credentials, 'utf8')) as { users: { alice: string }; clients: { 'svc-api': string } };
    // A bare environment: nothing of this checkout (NODE_PATH, jest's) reaches the consumers.
    const env = { PATH: process.env.PATH ?? '', HOME: project, SVC_BASE_URL: demo.core, SVC_CLIENT_SECRET: credentials.clients['svc-api'], SVC_PASSWORD: credentials.users.alice };
    const expected: ConsumerReport = {
      session: { type: 'USER', principal: 'employees/alice' },
      context: 'employees',
      canSearch: true,
      mayDeleteAlice: true,
      found: ['alice'],
      wrongPassword: { isLoginError: true, code: 'login_failed' },
    };
    for (const program of [join('out', 'consumer.js'), join('out', 'consumer.mjs'), 'consumer.mjs']) {
      const finished = await run(process.execPath, [program], project, env);
      expect({ program, code: finished.code, stderr: finished.stderr }).toEqual({ program, code: 0, stderr: '' });
      expect(JSON.parse(finished.stdout) as ConsumerReport).toEqual(expected);
    }

    // The package's command, svc-cli, is `svc cli` without the servers (its session file in HOME).
    const cli = join(project, 'node_modules', '.bin', 'svc-cli');
    const login = await run(cli, ['login', '--base-url', demo.core, '--client-id', 'svc-api', '--user', 'alice', '--context', 'employees'], project, env);
    expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 0, stderr: '' });
    const search = await run(cli, ['search', 'alice', '--json'], project, env);
    expect(search.code).toBe(0);
    expect((JSON.parse(search.stdout) as { results: Array<{ uniqueId: string }> }).results.map((subject) => subject.uniqueId)).toEqual(['alice']);
    expect((await run(cli, ['can', 'SEARCH'], project, env)).code).toBe(0);
    expect((await run(cli, ['logout'], project, env)).code).toBe(0);
  },
  HANG_GUARD_MS,
);

/** The files `npm pack` would put in a workspace's tarball (the root's with no workspace). */
async function packedFiles(workspace?: string): Promise<string[]> {
  const args = ['pack', '--dry-run', '--ignore-scripts', '--json', ...(workspace ? ['--workspace', workspace] : [])];
  const packed = JSON.parse(await succeed('npm', args, ROOT)) as Array<{ files: Array<{ path: string }> }>;
  return packed[0].files.map((file) => file.path);
}

test(
  'the portlet API and the servers ship their built code only: no sources, tests, bench or CI; the portlet API without the portal',
  async () => {
    // The portlet API built from this checkout's sources, as the client is above; the servers' dist is
    // the root's build, which `npm test` runs first.
    await succeed('npm', ['run', 'build', '--workspace', 'portlet-adapter'], ROOT);
    const portletApi = await packedFiles('portlet-adapter');
    for (const path of portletApi) expect(path === 'package.json' || /^dist\/.+\.(js|d\.ts)$/.test(path)).toBe(true);
    expect(portletApi).toContain('dist/portlet-adapter/src/portlet-api.d.ts');
    expect(portletApi).toContain('dist/portlet-adapter/src/gateway-client.js');
    expect(portletApi.filter((path) => /^dist\/(server|gateway|bin)\/|^dist\/portlet-adapter\/src\/(portal|container|portlets)\//.test(path))).toEqual([]);
    // What its code requires: itself, node's modules and its one dependency, nothing of the servers'.
    const required = portletApi
      .filter((path) => path.endsWith('.js'))
      .flatMap((path) => [...readFileSync(join(ROOT, 'portlet-adapter', path), 'utf8').matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]));
    expect([...new Set(required.filter((name) => !name.startsWith('.') && !name.startsWith('node:')))]).toEqual(['undici']);

    const servers = await packedFiles();
    for (const path of servers) expect(['package.json', 'README.md'].includes(path) || /^dist\/(bin|server|gateway|portlet-adapter|common|client)\/.+\.(js|d\.ts|json)$/.test(path)).toBe(true);
    expect(servers).toContain('dist/bin/svc.js');
    expect(servers).toContain('dist/portlet-adapter/src/portlets/portlet.json');
  },
  HANG_GUARD_MS,
);
