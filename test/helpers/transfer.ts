import { Readable, Writable } from 'node:stream';
import type { runExport, TransferIo } from '../../server/src/subjects/transfer-command';

/** What `svc export` or `svc import` printed and answered, run in this process. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `svc export` or `svc import` (`runExport`, `runImport`) in this process with its output
 * collected; `stdin` is the file an import reads, `tty` makes stderr claim to be a terminal (the
 * progress bar), `defaultConfig` is what the command uses without --config.
 */
export async function runTransfer(
  command: typeof runExport,
  argv: string[],
  options: { stdin?: string; tty?: boolean; env?: NodeJS.ProcessEnv; defaultConfig?: TransferIo['defaultConfig'] } = {},
): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const io: TransferIo = {
    stdin: Readable.from(options.stdin === undefined ? [] : [options.stdin]),
    stdout: new Writable({
      write(chunk, _encoding, done) {
        stdout += String(chunk);
        done();
      },
    }),
    stderr: { write: (text: string) => (stderr += text), isTTY: options.tty ?? false },
    env: options.env ?? {},
    ...(options.defaultConfig ? { defaultConfig: options.defaultConfig } : {}),
  };
  const code = await command(argv, io);
  return { code, stdout, stderr };
}
