/** The password prompt: raw mode and no echo on a terminal, one line otherwise. */
import { PassThrough } from 'node:stream';
import { Interrupted, readPassword, type PromptIo } from '../../common/src/tty/prompt';

function terminal(): { io: PromptIo; input: PassThrough; written: string[]; raw: boolean[] } {
  const input = new PassThrough();
  const raw: boolean[] = [];
  const written: string[] = [];
  const stdin = Object.assign(input, { isTTY: true, setRawMode: (on: boolean) => raw.push(on) });
  return { io: { stdin, stderr: { write: (t: string) => written.push(t) } }, input, written, raw };
}

describe('readPassword', () => {
  it('reads a terminal in raw mode, honours backspace and echoes nothing', async () => {
    const t = terminal();
    const answer = readPassword(t.io, 'Password: ');
    t.input.write('sec\u007fcr');
    t.input.write('et\r');
    await expect(answer).resolves.toBe('secret');
    expect(t.raw).toEqual([true, false]);
    expect(t.written.join('')).toBe('Password: \n');
  });

  it('Ctrl-C interrupts and leaves raw mode', async () => {
    const t = terminal();
    const answer = readPassword(t.io);
    t.input.write('ab\u0003');
    await expect(answer).rejects.toBeInstanceOf(Interrupted);
    expect(t.raw).toEqual([true, false]);
  });

  it('reads one line from a pipe', async () => {
    const input = new PassThrough();
    const answer = readPassword({ stdin: input, stderr: { write: () => true } });
    input.end('pässwort\r\nnext line\n');
    await expect(answer).resolves.toBe('pässwort');
  });
});
