/**
 * Every `svc` command answers --help and -h with its usage on stdout and exit 0, and a mistake in
 * its command line with exit 2, the mistake and its usage on stderr (issue 27 item 2: `svc server
 * --help` was "Unknown option", exit 1, and `svc demo --help` started the demo). The built command,
 * as real child processes.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { runSvc } from '../helpers/svc-process';

const ROOT = join(__dirname, '..', '..');

// Each case starts a node process that loads the command; on two shared cores that takes seconds.
jest.setTimeout(120_000);

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT });
}, 180_000);

/** No configuration from the machine's environment takes part. */
const env = { SVC_CONFIG: '', SVC_GATEWAY_CONFIG: '', SVC_PORTAL_CONFIG: '', SVC_BASE_URL: '' };

const COMMANDS = ['demo', 'server', 'gateway', 'portal', 'hash-password', 'gen-secret', 'config-schema', 'migrate', 'export', 'import', 'cli'];

/** Each command with --help; -h for the commands that had no help, and the CLI's subcommands. */
const HELP: string[][] = [
  ...COMMANDS.map((command) => [command, '--help']),
  ...['demo', 'server', 'gateway', 'portal', 'gen-secret', 'config-schema'].map((command) => [command, '-h']),
  ['cli', 'login', '--help'],
  ['cli', 'can', '-h'],
];

test.each(HELP.map((args) => [args.join(' '), args] as const))('svc %s: its usage on stdout, exit 0', async (_line, args) => {
  const answer = await runSvc([...args], { env });
  expect(answer).toMatchObject({ code: 0, stderr: '' });
  expect(answer.stdout).toMatch(new RegExp(`^usage: svc ${args[0]}\\b`, 'i'));
});

test('svc --help, svc help and svc help COMMAND: on stdout, exit 0', async () => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const answer = await runSvc(args, { env });
    expect(answer).toMatchObject({ code: 0, stderr: '' });
    expect(answer.stdout).toMatch(/^usage: svc <command>/);
    for (const command of COMMANDS) expect(answer.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  }
  const server = await runSvc(['help', 'server'], { env });
  expect(server).toMatchObject({ code: 0, stderr: '' });
  expect(server.stdout).toMatch(/^usage: svc server /);
});

/** A mistake in each command's line, and what the message names. */
const MISTAKES: Array<[string[], RegExp]> = [
  [[], /no command given/],
  [['frobnicate'], /unknown command "frobnicate"/],
  [['help', 'frobnicate'], /unknown command "frobnicate"/],
  [['demo', '--port', '1'], /Unknown option '--port'/],
  [['server', '--bogus'], /Unknown option '--bogus'/],
  [['server', '--port', 'eighty'], /--port must be a whole number from 0 to 65535, not "eighty"/],
  [['server', 'extra'], /Unexpected argument 'extra'/],
  [['gateway'], /svc gateway needs --config FILE \(or SVC_GATEWAY_CONFIG\)/],
  [['gateway', '--config'], /Option '--config <value>' argument missing/],
  [['portal'], /svc portal needs --config FILE \(or SVC_PORTAL_CONFIG\)/],
  [['hash-password', '--bogus'], /unknown option --bogus/],
  [['gen-secret', '--length', '12'], /Unknown option '--length'/],
  [['config-schema', 'nginx'], /unknown file "nginx"/],
  [['migrate'], /--config is required/],
  [['export'], /--context is required/],
  [['import', '--context', 'employees', 'a', 'b'], /at most one input file/],
  [['cli'], /no command given/],
  [['cli', 'frob'], /unknown command "frob"/],
];

test.each(MISTAKES)('svc %j: the mistake and the usage on stderr, exit 2', async (args, mistake) => {
  const answer = await runSvc(args, { env });
  expect(answer.code).toBe(2);
  expect(answer.stdout).toBe('');
  expect(answer.stderr).toMatch(mistake);
  expect(answer.stderr).toMatch(/^usage: svc /im);
});
