import { InvalidSubjectId } from '../../../common/src/errors';

/** 1–256 letters, digits and `. _ @ + -`, not starting with `.` (SPEC section 3). */
const SUBJECT_ID = /^(?!\.)[A-Za-z0-9._@+-]{1,256}$/;

export function isSubjectId(value: unknown): value is string {
  return typeof value === 'string' && SUBJECT_ID.test(value);
}

/** Checked before any other processing of a path or body; never echoes control characters back. */
export function assertSubjectId(value: unknown, where = 'uniqueId'): string {
  if (isSubjectId(value)) return value;
  throw new InvalidSubjectId('a subject id is 1 to 256 letters, digits and . _ @ + -, not starting with "."', {
    errors: [{ path: where, message: 'invalid subject id' }],
  });
}
