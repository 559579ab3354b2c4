import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fold } from '../subjects/subject';

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
 * (lower-cased) name with a key kept in the data directory, so every spelling of a name gets the same
 * questions, and so does the same name across restarts, as a real subject would.
 */
export class DecoyQuestions {
  private readonly key: Buffer;

  constructor(dataDir: string) {
    const file = join(dataDir, 'decoy.key');
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
    }
    this.key = readFileSync(file);
  }

  for(contextId: string, uniqueId: string): [string, string] {
    const digest = createHmac('sha256', this.key).update(`${contextId}\u0000${fold(uniqueId)}`).digest();
    const first = digest[0] % QUESTIONS.length;
    const second = (first + 1 + (digest[1] % (QUESTIONS.length - 1))) % QUESTIONS.length;
    return [QUESTIONS[first], QUESTIONS[second]];
  }
}
