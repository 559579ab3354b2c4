import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** The built `svc` command (tests of child processes use dist: `npm test` builds first). */
export const SVC_BIN = resolve(__dirname, '../../dist/bin/svc.js');

export interface SvcProcess {
  child: ChildProcess;
  /** The log line that said the process is ready. */
  ready: Record<string, unknown>;
  /** Every JSON log line so far. */
  lines: Record<string, unknown>[];
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
}

/** Runs `svc <args>` until it logs `readyMessage`; rejects with its output if it exits first. */
export function startSvc(args: string[], env: Record<string, string>, readyMessage: string): Promise<SvcProcess> {
  const child = spawn(process.execPath, [SVC_BIN, ...args], { env: { ...process.env, SVC_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = () =>
    new Promise<number | null>((resolvePromise) => {
      if (child.exitCode !== null) return resolvePromise(child.exitCode);
      child.removeAllListeners('exit');
      child.once('exit', (code) => resolvePromise(code));
      child.kill('SIGTERM');
    });
  return new Promise((resolvePromise, reject) => {
    child.once('exit', (code) => reject(new Error(`svc ${args[0]} exited with ${code}: ${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      lines.push(entry);
      if (entry.msg === readyMessage) resolvePromise({ child, ready: entry, lines, stop });
    });
  });
}
