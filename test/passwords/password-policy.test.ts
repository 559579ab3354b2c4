import { WeakPassword } from '../../common/src/errors';
import { COMMON_PASSWORDS } from '../../server/src/passwords/common-passwords';
import { checkPasswordPolicy, passwordPolicyErrors } from '../../server/src/passwords/password-policy';

function failure(fn: () => void): WeakPassword {
  try {
    fn();
  } catch (error) {
    if (error instanceof WeakPassword) return error;
    throw error;
  }
  throw new Error('expected WeakPassword');
}

describe('password policy', () => {
  it('accepts a reasonable password', () => {
    expect(() => checkPasswordPolicy('violet-harbour-42')).not.toThrow();
    expect(() => checkPasswordPolicy('violet-harbour-42', { userId: 'jdoe', attributes: { mail: 'j@x.org' } })).not.toThrow();
  });

  it('needs 8 to 256 characters, counted as code points', () => {
    expect(failure(() => checkPasswordPolicy('Ab3$xyz')).errors).toEqual([
      { path: 'password', message: 'must be at least 8 characters' },
    ]);
    expect(() => checkPasswordPolicy('Ab3$xyzq')).not.toThrow();
    expect(() => checkPasswordPolicy('')).toThrow(WeakPassword);
    // Four emoji are 8 UTF-16 units but only 4 characters.
    expect(() => checkPasswordPolicy('😀😺🚀🌍')).toThrow(/at least 8/);
    expect(() => checkPasswordPolicy('😀😺🚀🌍😀😺🚀🌍')).not.toThrow();
    expect(() => checkPasswordPolicy('x'.repeat(255) + 'y')).not.toThrow();
    expect(failure(() => checkPasswordPolicy('x'.repeat(256) + 'y')).errors).toEqual([
      { path: 'password', message: 'must be at most 256 characters' },
    ]);
    // 256 emoji are 512 UTF-16 units but 256 characters: allowed.
    expect(() => checkPasswordPolicy('🚀'.repeat(256))).not.toThrow();
  });

  it('refuses common passwords whatever their case', () => {
    for (const pw of ['password', 'PASSWORD1', 'Password123', '12345678', 'qwertyuiop', 'iloveyou1', 'P@ssw0rd']) {
      const error = failure(() => checkPasswordPolicy(pw));
      expect(error.status).toBe(400);
      expect(error.code).toBe('weak_password');
      expect(error.errors).toEqual([{ path: 'password', message: 'is too common' }]);
    }
  });

  it('ships a few hundred common passwords, all lower-case and at least 8 long', () => {
    expect(COMMON_PASSWORDS.size).toBeGreaterThanOrEqual(300);
    for (const pw of COMMON_PASSWORDS) {
      expect(pw).toBe(pw.toLowerCase());
      expect([...pw].length).toBeGreaterThanOrEqual(8);
    }
  });

  it('refuses the user id and the mail address, case-insensitively', () => {
    const context = { userId: 'johnathan.doe', attributes: { mail: ['John.Doe@Example.org', 'jd@x.org'] } };
    expect(failure(() => checkPasswordPolicy('Johnathan.Doe', context)).errors).toEqual([
      { path: 'password', message: 'must not be the user id' },
    ]);
    expect(failure(() => checkPasswordPolicy('john.doe@example.org', context)).errors).toEqual([
      { path: 'password', message: 'must not be the mail address' },
    ]);
    expect(() => checkPasswordPolicy('john.doe@example.org', { attributes: { mail: 'john.doe@example.org' } })).toThrow(
      /mail address/,
    );
    expect(() => checkPasswordPolicy('johnathan.doe2', context)).not.toThrow();
  });

  it('lists every failure', () => {
    expect(passwordPolicyErrors('password', { userId: 'password' }).map((e) => e.message)).toEqual([
      'is too common',
      'must not be the user id',
    ]);
    expect(passwordPolicyErrors('fine-password-here')).toEqual([]);
  });
});
