import { InvalidSubjectId } from '../../../common/src/errors';
import { isSubjectId } from '../../../common/src/principal-name';

/** 1–256 letters, digits and `. _ @ + -`, not starting with `.` (SPEC section 3); shared with the assertion. */
export { isSubjectId };

/** Checked before any other processing of a path or body; never echoes control characters back. */
export function assertSubjectId(value: unknown, where = 'uniqueId'): string {
  if (isSubjectId(value)) return value;
  throw new InvalidSubjectId('a subject id is 1 to 256 letters, digits and . _ @ + -, not starting with "."', {
    errors: [{ path: where, message: 'invalid subject id' }],
  });
}
