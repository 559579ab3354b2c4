/**
 * Reads a password: from a terminal in raw mode without echo, else one line of stdin (so scripts and
 * tests can pipe it). Never from the command line, where the process list would show it.
 */
import { StringDecoder } from 'node:string_decoder';

export interface PromptIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stderr: { write(text: string): unknown };
}

export class Interrupted extends Error {}

const MAX_LINE = 4096;

export function readPassword(io: PromptIo, label = 'Password: '): Promise<string> {
  return io.stdin.isTTY && io.stdin.setRawMode ? promptHidden(io, label) : readLine(io.stdin);
}

/** One line (without its CR LF), or everything up to the end of input. */
function readLine(stdin: PromptIo['stdin']): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.off('end', finish);
      stdin.off('error', finish);
      stdin.pause();
      if (error) return reject(error);
      return resolve(Buffer.concat(chunks).toString('utf8').replace(/\r$/, ''));
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      const newline = bytes.indexOf(0x0a);
      chunks.push(newline >= 0 ? bytes.subarray(0, newline) : bytes);
      size += bytes.length;
      if (newline >= 0) finish();
      else if (size > MAX_LINE) finish(new Error('the password line is too long'));
    };
    stdin.on('data', onData);
    stdin.on('end', finish);
    stdin.on('error', finish);
    stdin.resume();
  });
}

function promptHidden(io: PromptIo, label: string): Promise<string> {
  const { stdin } = io;
  io.stderr.write(label);
  stdin.setRawMode?.(true);
  const decoder = new StringDecoder('utf8');
  return new Promise((resolve, reject) => {
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
    const onEnd = () => done(new Interrupted('interrupted'));
    const onData = (chunk: Buffer | string) => {
      for (const ch of typeof chunk === 'string' ? chunk : decoder.write(chunk)) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new Interrupted('interrupted')); // Ctrl-C: raw mode swallows SIGINT
        if (ch === '\u0004') return done(chars.length ? undefined : new Interrupted('interrupted')); // Ctrl-D
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
