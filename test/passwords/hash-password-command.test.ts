import { PassThrough } from 'node:stream';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { runHashPassword, type HashPasswordIo } from '../../server/src/passwords/hash-password-command';
import { parsePhc } from '../../server/src/passwords/phc';

const FAST = { argon2: { memoryCost: 1024, timeCost: 1, parallelism: 1 }, scrypt: { ln: 10, r: 8, p: 1 } };

class Sink {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

function fakeIo(input: string | null, tty = false) {
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  const rawModes: boolean[] = [];
  if (tty) {
    stdin.isTTY = true;
    stdin.setRawMode = (raw: boolean) => rawModes.push(raw);
  }
  if (input !== null) stdin.end(input);
  const stdout = new Sink();
  const stderr = new Sink();
  const io: HashPasswordIo = { stdin, stdout, stderr };
  return { io, stdin, stdout, stderr, rawModes };
}

async function verify(phcLine: string, password: string): Promise<boolean> {
  const hasher = new PasswordHasher({ ...FAST, precomputeDummy: false });
  return (await hasher.verify(phcLine.trim(), password)).ok;
}

describe('svc hash-password', () => {
  it('hashes one line from stdin with argon2id', async () => {
    const { io, stdout, stderr } = fakeIo('my-secret-pass\nignored second line\n');
    await expect(runHashPassword([], io, FAST)).resolves.toBe(0);
    expect(stdout.text).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$[^\s]+\n$/);
    expect(stderr.text).toBe('');
    await expect(verify(stdout.text, 'my-secret-pass')).resolves.toBe(true);
  });

  it('uses the OWASP defaults when nothing is lowered', async () => {
    const { io, stdout } = fakeIo('my-secret-pass\n');
    await expect(runHashPassword([], io)).resolves.toBe(0);
    expect(parsePhc(stdout.text.trim())).toMatchObject({ params: { memoryCost: 19456, timeCost: 2, parallelism: 1 } });
  });

  it('selects scrypt with --scrypt, takes a last line without newline and drops a CR', async () => {
    const { io, stdout } = fakeIo('crlf-pass-word\r\n');
    await expect(runHashPassword(['--scrypt'], io, FAST)).resolves.toBe(0);
    expect(stdout.text).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$/);
    await expect(verify(stdout.text, 'crlf-pass-word')).resolves.toBe(true);

    const noNewline = fakeIo('no-newline-pass');
    await expect(runHashPassword([], noNewline.io, FAST)).resolves.toBe(0);
    await expect(verify(noNewline.stdout.text, 'no-newline-pass')).resolves.toBe(true);
  });

  it('keeps multi-byte characters split across chunks intact', async () => {
    const { io, stdin, stdout } = fakeIo(null);
    const bytes = Buffer.from('pässwörd-日本語\n');
    const run = runHashPassword([], io, FAST);
    stdin.write(bytes.subarray(0, 2)); // splits "ä"
    stdin.end(bytes.subarray(2));
    await expect(run).resolves.toBe(0);
    await expect(verify(stdout.text, 'pässwörd-日本語')).resolves.toBe(true);
  });

  it('never takes the password from argv', async () => {
    const { io, stdout, stderr } = fakeIo('x\n');
    await expect(runHashPassword(['hunter2hunter2'], io, FAST)).resolves.toBe(2);
    expect(stdout.text).toBe('');
    expect(stderr.text).toMatch(/not taken from the command line/);
    expect(stderr.text).not.toContain('hunter2hunter2');
  });

  it('refuses unknown options and prints help', async () => {
    const bad = fakeIo('x\n');
    await expect(runHashPassword(['--bcrypt'], bad.io, FAST)).resolves.toBe(2);
    expect(bad.stderr.text).toMatch(/unknown option --bcrypt/);
    const help = fakeIo(null);
    await expect(runHashPassword(['--help'], help.io, FAST)).resolves.toBe(0);
    expect(help.stdout.text).toMatch(/^Usage: svc hash-password/);
  });

  it('fails on an empty password or empty input', async () => {
    for (const input of ['\n', '']) {
      const { io, stdout, stderr } = fakeIo(input);
      await expect(runHashPassword([], io, FAST)).resolves.toBe(1);
      expect(stdout.text).toBe('');
      expect(stderr.text).toMatch(/no password given/);
    }
  });

  it('fails on a password over 1024 bytes', async () => {
    const { io, stdout, stderr } = fakeIo(`${'x'.repeat(1025)}\n`);
    await expect(runHashPassword([], io, FAST)).resolves.toBe(1);
    expect(stdout.text).toBe('');
    expect(stderr.text).toMatch(/longer than 1024 bytes/);
  });

  it('warns about a weak password but still hashes it', async () => {
    const { io, stdout, stderr } = fakeIo('password\n');
    await expect(runHashPassword([], io, FAST)).resolves.toBe(0);
    expect(stderr.text).toMatch(/warning: the password is too common/);
    expect(stderr.text).not.toMatch(/\bpassword\n/);
    await expect(verify(stdout.text, 'password')).resolves.toBe(true);
  });

  describe('on a terminal', () => {
    it('prompts twice without echo, in raw mode, and handles backspace', async () => {
      const { io, stdin, stdout, stderr, rawModes } = fakeIo(null, true);
      const run = runHashPassword([], io, FAST);
      stdin.write('tty-secrex\u007ft\r');
      await new Promise((r) => setImmediate(r));
      stdin.write('tty-secret\r');
      await expect(run).resolves.toBe(0);
      expect(stderr.text).toBe('Password: \nRepeat password: \n');
      expect(rawModes).toEqual([true, false, true, false]);
      await expect(verify(stdout.text, 'tty-secret')).resolves.toBe(true);
    });

    it('fails when the two entries differ', async () => {
      const { io, stdin, stdout, stderr } = fakeIo(null, true);
      const run = runHashPassword([], io, FAST);
      stdin.write('first-entry\r');
      await new Promise((r) => setImmediate(r));
      stdin.write('second-entry\r');
      await expect(run).resolves.toBe(1);
      expect(stdout.text).toBe('');
      expect(stderr.text).toMatch(/do not match/);
    });

    it('stops on Ctrl-C and leaves raw mode', async () => {
      const { io, stdin, stdout, rawModes } = fakeIo(null, true);
      const run = runHashPassword([], io, FAST);
      stdin.write('abc\u0003');
      await expect(run).resolves.toBe(130);
      expect(stdout.text).toBe('');
      expect(rawModes).toEqual([true, false]);
    });
  });
});
