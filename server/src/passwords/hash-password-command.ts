import { StringDecoder } from 'node:string_decoder';
import { SvcError } from '../../../common/src/errors';
import { MAX_PASSWORD_BYTES, PasswordHasher, type PasswordHasherOptions } from './password-hasher';
import { passwordPolicyErrors } from './password-policy';

/** The streams the command uses; process.stdin/stdout/stderr in real use, fakes in tests. */
export interface HashPasswordIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export const HASH_PASSWORD_USAGE = `Usage: svc hash-password [--scrypt]

Reads a password and prints its PHC hash (argon2id by default, scrypt with --scrypt), e.g. for the
"system" superuser of the configuration file. The password is read from stdin (one line) or, when
stdin is a terminal, prompted for twice without echo. It is never taken from the command line,
where other users could see it in the process list.
`;

class Interrupted extends Error {}
class UsageError extends Error {}

/** Reads up to the first newline (or the end of input) as UTF-8; a trailing CR is dropped. */
function readLine(stdin: HashPasswordIo['stdin']): Promise<string> {
  const limit = MAX_PASSWORD_BYTES * 4;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      stdin.pause();
    };
    const onEnd = () => {
      cleanup();
      const line = Buffer.concat(chunks).toString('utf8');
      resolve(line.endsWith('\r') ? line.slice(0, -1) : line);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      const newline = bytes.indexOf(0x0a);
      chunks.push(newline >= 0 ? bytes.subarray(0, newline) : bytes);
      size += bytes.length;
      if (newline >= 0) onEnd();
      else if (size > limit) onError(new UsageError('the input line is too long'));
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
}

/** Prompts on stderr and reads a line from a terminal in raw mode, echoing nothing. */
function promptHidden(io: HashPasswordIo, label: string): Promise<string> {
  const { stdin } = io;
  io.stderr.write(label);
  stdin.setRawMode?.(true);
  const decoder = new StringDecoder('utf8');
  return new Promise<string>((resolve, reject) => {
    let chars: string[] = [];
    const done = (error?: Error) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr.write('\n');
      if (error) reject(error);
      else resolve(chars.join(''));
    };
    const onEnd = () => done(new Interrupted());
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (const ch of text) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new Interrupted()); // Ctrl-C
        if (ch === '\u0004') return chars.length === 0 ? done(new Interrupted()) : done(); // Ctrl-D
        if (ch === '\u007f' || ch === '\b') chars.pop();
        else if (ch === '\u0015') chars = []; // Ctrl-U
        else chars.push(ch);
      }
      return undefined;
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}

async function readPassword(io: HashPasswordIo): Promise<string> {
  if (io.stdin.isTTY && io.stdin.setRawMode) {
    const first = await promptHidden(io, 'Password: ');
    const second = await promptHidden(io, 'Repeat password: ');
    if (first !== second) throw new UsageError('the passwords do not match');
    return first;
  }
  return readLine(io.stdin);
}

/**
 * `svc hash-password [--scrypt]`: prints the PHC hash of a password read from stdin. Returns the
 * exit code (0 done, 1 failed, 2 usage, 130 interrupted). `hasherOptions` lets tests lower the cost.
 */
export async function runHashPassword(
  argv: readonly string[],
  io: HashPasswordIo,
  hasherOptions: PasswordHasherOptions = {},
): Promise<number> {
  let algorithm: 'argon2id' | 'scrypt' = 'argon2id';
  for (const arg of argv) {
    if (arg === '--help' || arg === '-h') {
      io.stdout.write(HASH_PASSWORD_USAGE);
      return 0;
    }
    if (arg === '--scrypt') algorithm = 'scrypt';
    else if (arg === '--argon2id') algorithm = 'argon2id';
    else {
      const problem = arg.startsWith('-')
        ? `unknown option ${arg}`
        : 'the password is not taken from the command line (process lists show it); give it on stdin';
      io.stderr.write(`svc hash-password: ${problem}\n\n${HASH_PASSWORD_USAGE}`);
      return 2;
    }
  }
  try {
    const password = await readPassword(io);
    if (password === '') throw new UsageError('no password given');
    for (const problem of passwordPolicyErrors(password)) {
      io.stderr.write(`svc hash-password: warning: the password ${problem.message}\n`);
    }
    const hasher = new PasswordHasher({ ...hasherOptions, algorithm, precomputeDummy: false });
    io.stdout.write(`${await hasher.hash(password)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof Interrupted) {
      io.stderr.write('svc hash-password: interrupted\n');
      return 130;
    }
    if (error instanceof UsageError || error instanceof SvcError) {
      io.stderr.write(`svc hash-password: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
