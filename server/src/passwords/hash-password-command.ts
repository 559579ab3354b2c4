import { SvcError } from '../../../common/src/errors';
import { Interrupted, readPassword } from '../../../common/src/tty/prompt';
import { PasswordHasher, type PasswordHasherOptions } from './password-hasher';
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

class UsageError extends Error {}

/** From a terminal: twice, without echo, and both must match; else one line of stdin. */
async function readNewPassword(io: HashPasswordIo): Promise<string> {
  const first = await readPassword(io, 'Password: ');
  if (io.stdin.isTTY && io.stdin.setRawMode) {
    const second = await readPassword(io, 'Repeat password: ');
    if (first !== second) throw new UsageError('the passwords do not match');
  }
  return first;
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
    const password = await readNewPassword(io);
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
