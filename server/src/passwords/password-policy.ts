import { WeakPassword, type FieldError } from '../../../common/src/errors';
import { COMMON_PASSWORDS } from './common-passwords';

/** SPEC section 7: 8 to 256 characters, counted as Unicode code points. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

export interface PasswordPolicyContext {
  /** The subject's uniqueId. */
  userId?: string;
  /** The subject's attributes; `mail` (one value or a list) may not be the password either. */
  attributes?: Record<string, unknown>;
}

function mails(attributes: Record<string, unknown> | undefined): string[] {
  const mail = attributes?.mail;
  if (typeof mail === 'string') return [mail];
  if (Array.isArray(mail)) return mail.filter((m): m is string => typeof m === 'string');
  return [];
}

/** The policy failures of a password, empty when it is acceptable. */
export function passwordPolicyErrors(password: string, context: PasswordPolicyContext = {}): FieldError[] {
  if (typeof password !== 'string') return [{ path: 'password', message: 'must be a string' }];
  const errors: FieldError[] = [];
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    errors.push({ path: 'password', message: `must be at least ${MIN_PASSWORD_LENGTH} characters` });
  }
  if (length > MAX_PASSWORD_LENGTH) {
    errors.push({ path: 'password', message: `must be at most ${MAX_PASSWORD_LENGTH} characters` });
  }
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) errors.push({ path: 'password', message: 'is too common' });
  if (context.userId !== undefined && context.userId !== '' && lower === context.userId.toLowerCase()) {
    errors.push({ path: 'password', message: 'must not be the user id' });
  }
  if (mails(context.attributes).some((mail) => mail !== '' && lower === mail.toLowerCase())) {
    errors.push({ path: 'password', message: 'must not be the mail address' });
  }
  return errors;
}

/** Throws WeakPassword (400 `weak_password`) listing every failure under path `password`. */
export function checkPasswordPolicy(password: string, context: PasswordPolicyContext = {}): void {
  const errors = passwordPolicyErrors(password, context);
  if (errors.length > 0) {
    throw new WeakPassword(`Password ${errors.map((e) => e.message).join('; ')}`, { errors });
  }
}
