/**
 * The CLI's session between invocations. The file holds the session cookie, a credential, so it is
 * written owner-only (0600, directory 0700) through a temporary file and a rename: never a moment
 * where it exists with wider rights or half written.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SavedSession } from '../connection';

export interface CliSession extends SavedSession {
  /** The user id given at login, for messages only. */
  user?: string;
  /** Paths (never contents) of --ca, --cert and --key, so later commands reach the core the same way. */
  tls?: { ca?: string; cert?: string; key?: string };
}

export function sessionFilePath(env: Record<string, string | undefined>): string {
  return env.SVC_CLI_SESSION || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc', 'session.json');
}

export function readSession(path: string): CliSession | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) throw new Error(`${path} is readable by others; remove it and log in again`);
  const doc = JSON.parse(text) as Partial<CliSession>;
  if (typeof doc.baseUrl !== 'string' || typeof doc.cookie !== 'string' || typeof doc.contextId !== 'string' || typeof doc.kind !== 'string') {
    throw new Error(`${path} is not a svc session file; remove it and log in again`);
  }
  return doc as CliSession;
}

export function writeSession(path: string, session: CliSession): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(session, null, 2) + '\n', { mode: 0o600 });
  chmodSync(temporary, 0o600); // an umask cannot widen it, but a leftover file of that name could be wider
  renameSync(temporary, path);
}

export function removeSession(path: string): void {
  rmSync(path, { force: true });
}
