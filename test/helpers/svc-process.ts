/** The built `svc` command (dist/bin/svc.js) as real child processes: one-shot commands and the demo. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const BIN = resolve(__dirname, '../../dist/bin/svc.js');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc ARGS` to its end, with `stdin` written to it (or none). */
export function runSvc(args: string[], options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Finished> {
  return runToEnd(args, { ...process.env, ...options.env }, options.stdin);
}

/**
 * Runs `svc cli ARGS` to its end in a bare environment: PATH, and HOME and the session file in
 * `home`, so that no saved session or setting of the machine's user takes part; `env` adds to it.
 * A child killed by a signal has code -1.
 */
export async function runCli(home: string, args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Finished & { code: number }> {
  const env = { PATH: process.env.PATH ?? '', HOME: home, SVC_CLI_SESSION: join(home, 'session.json'), ...options.env };
  const finished = await runToEnd(['cli', ...args], env, options.stdin);
  return { ...finished, code: finished.code ?? -1 };
}

/** `svc ARGS` with exactly the environment `env`, `stdin` written to it, run to its end. */
function runToEnd(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<Finished> {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  child.stdin.end(stdin);
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** A long-running svc process, with the JSON lines it logged so far. */
export interface Running {
  child: ChildProcess;
  log: string[];
}

/**
 * Starts `svc ARGS` and resolves with the first log entry `ready(entry)` accepts (a process that
 * exits first rejects, with its log).
 */
export function startSvc<T>(args: string[], env: NodeJS.ProcessEnv, ready: (entry: Record<string, unknown>) => T | undefined): Promise<Running & { ready: T }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, SVC_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolvePromise, reject) => {
    child.once('exit', (code) => reject(new Error(`svc ${args[0]} exited with ${code}: ${log.join('\n')}${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      log.push(line);
      const found = ready(JSON.parse(line) as Record<string, unknown>);
      if (found !== undefined) resolvePromise({ child, log, ready: found });
    });
  });
}

/**
 * The last log entry of `running` that `matches`, once it is there: a process writes its lines in
 * batches (at most 100 ms late, common/src/log.ts), so a line about a request may follow its answer.
 */
export async function loggedEntry(running: Running, matches: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (let waited = 0; ; waited += 20) {
    const found = running.log.map((line) => JSON.parse(line) as Record<string, unknown>).filter(matches).pop();
    if (found) return found;
    if (waited >= 10_000) throw new Error('no such log line within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `svc server --config FILE --port PORT` (0: an ephemeral one), once it listens; `ready` is its origin. */
export function startCoreProcess(configFile: string, port = '0'): Promise<Running & { ready: string }> {
  return startSvc(['server', '--config', configFile, '--port', port], {}, (entry) => (entry.msg === 'core server listening' ? String(entry.url) : undefined));
}

/** Whether a process with this pid exists (signal 0 checks without sending). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, and the exit code. */
export function stopSvc(running: Running): Promise<number | null> {
  return new Promise((resolvePromise) => {
    running.child.removeAllListeners('exit');
    if (running.child.exitCode !== null) return resolvePromise(running.child.exitCode);
    running.child.once('exit', (code) => resolvePromise(code));
    running.child.kill('SIGTERM');
  });
}

/** `svc demo` (what `npm start` runs) on ephemeral ports in `dataDir`, until it says it is ready. */
export function startDemo(dataDir: string): Promise<Running & { core: string; gateway: string; portal: string; credentials: string; mailbox: string }> {
  return startSvc(['demo'], { SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_GATEWAY_PORT: '0', SVC_PORTAL_PORT: '0', SVC_MAIL_PORT: '0' }, (entry) =>
    entry.msg === 'svc demo ready'
      ? { core: entry.core as string, gateway: entry.gateway as string, portal: entry.portal as string, credentials: entry.credentials as string, mailbox: entry.mailbox as string }
      : undefined,
  ).then((running) => ({ ...running, ...running.ready }));
}
