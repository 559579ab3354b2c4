import { createHmac, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fold } from '../subjects/subject';

const KEY_BYTES = 32;

const QUESTIONS = [
  'What was the name of your first pet?',
  'In which city were you born?',
  'What was the name of your first school?',
  "What is your mother's maiden name?",
  'What was the make of your first car?',
  'What was your childhood nickname?',
  'In which street did you grow up?',
  'What is the name of your favourite teacher?',
];

/**
 * Plausible questions for a subject that does not exist, is disabled or has none, so that the
 * forgotten-password flow does not reveal which ids exist. They are derived from the folded
 * (lower-cased) name with a key kept in the data directory or, with sessions in Redis, in Redis, so every spelling of a name gets the same
 * questions, and so does the same name across restarts, as a real subject would.
 */
export class DecoyQuestions {
  private readonly key: () => Buffer;

  /**
   * `key`: 32 bytes, the same on every core that must give the same questions (Core.decoyKey); a
   * function, since a key shared in Redis can be replaced by another core's after a Redis restart.
   */
  constructor(key: Buffer | (() => Buffer)) {
    this.key = typeof key === 'function' ? key : () => key;
  }

  for(contextId: string, uniqueId: string): [string, string] {
    const digest = createHmac('sha256', this.key()).update(`${contextId}\u0000${fold(uniqueId)}`).digest();
    const first = digest[0] % QUESTIONS.length;
    const second = (first + 1 + (digest[1] % (QUESTIONS.length - 1))) % QUESTIONS.length;
    return [QUESTIONS[first], QUESTIONS[second]];
  }
}

/**
 * The key in `file`, made on first use. Several processes may start at once on one data directory
 * (`svc server --workers N`): the key is written whole to a file of this process's own, then linked
 * into place, which fails if another process linked first; every process then reads the one winner,
 * never a half-written file.
 */
export function readOrCreateKey(file: string): Buffer {
  try {
    return readKey(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const own = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(own, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(own, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(own);
  }
  return readKey(file);
}

function readKey(file: string): Buffer {
  const key = readFileSync(file);
  if (key.length !== KEY_BYTES) throw new Error(`${file} is not a key of ${KEY_BYTES} bytes; remove it to make a new one`);
  return key;
}
