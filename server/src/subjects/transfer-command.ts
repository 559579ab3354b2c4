import { once } from 'node:events';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { progressBar, type ProgressStream } from '../../../common/src/tty/progress';
import { loadConfigFile } from '../config/load';
import type { ContextConfig, SvcConfig } from '../config/types';
import { PasswordHasher } from '../passwords/password-hasher';
import type { SubjectStore } from './store';
import { createSubjectStore } from './stores';
import { fold } from './subject';
import { SubjectService } from './subject-service';
import { FactorStore } from '../otp/factor-store';
import { exportLine, groupLine, groupsOf, importLines, subjectsOf, type FactorTarget } from './transfer';

/** The streams a data command uses; process.stdin/stdout/stderr in real use. */
export interface TransferIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: ProgressStream;
  env: NodeJS.ProcessEnv;
  /** The configuration without --config or SVC_CONFIG: bin/svc.ts gives the demo's (the domain knows no demo). */
  defaultConfig?: (env: NodeJS.ProcessEnv) => Promise<SvcConfig>;
}

export const EXPORT_USAGE = `Usage: svc export [--config FILE] --context C > C.jsonl

Writes the subjects of context C as JSON lines on stdout, ordered by uniqueId, every attribute
included (password and answer hashes too, so users keep their passwords: keep the file as secret as
the database), and each second factor still sealed under the data directory's otp.key (an import
needs that same otp.key). Then the context's SCIM groups, one line each ({"group":{…}}: id,
displayName, timestamps, version), so that an import keeps the ids identity providers hold.
Without --config (or SVC_CONFIG), the demo's data directory (SVC_DATA_DIR, ./data).
A SQLite store belongs to one process: stop the server first.
`;

export const IMPORT_USAGE = `Usage: svc import [--config FILE] --context C [--replace] [FILE]

Reads JSON lines as svc export writes them (from FILE, or stdin) into context C, whatever its store.
All or nothing: an invalid line, a uniqueId given twice, or a uniqueId that exists refuses the whole
import (--replace replaces existing subjects instead, second factors included: a replaced subject
whose line has none has none). SCIM groups keep their ids: a group id that exists, or a displayName
another group of the context has, refuses the import too (--replace: the file's group replaces the
one of its id and takes the name from the other, whose id is dropped); a file without group lines
leaves the groups as they are. A second factor is taken only when it opens under the data
directory's otp.key, the one the export was sealed under. A progress bar shows on a terminal.
Without --config (or SVC_CONFIG), the demo's data directory (SVC_DATA_DIR, ./data).
`;

class UsageError extends Error {}

const OPTIONS = {
  config: { type: 'string' },
  context: { type: 'string' },
  replace: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

async function loadConfig(path: string | undefined, io: TransferIo): Promise<SvcConfig> {
  const file = path ?? io.env.SVC_CONFIG;
  if (file) return loadConfigFile(file, io.env);
  if (!io.defaultConfig) throw new UsageError('name the configuration: --config FILE or SVC_CONFIG');
  return io.defaultConfig(io.env);
}

/**
 * svc's own second-factor store and key in the data directory (SPEC 15), as the core keeps them:
 * `otp.sqlite`, opened only when there is one or a factor is written, and `otp.key`, never made here.
 */
class DataDirectoryFactors implements FactorTarget {
  #store: FactorStore | undefined;

  constructor(private readonly dataDir: string) {}

  key(): Buffer | undefined {
    const file = join(this.dataDir, 'otp.key');
    return existsSync(file) ? readFileSync(file) : undefined;
  }

  /** The store, or undefined when the data directory has none (nothing to export). */
  existing(): FactorStore | undefined {
    return this.#store ?? (existsSync(join(this.dataDir, 'otp.sqlite')) ? (this.#store = new FactorStore(join(this.dataDir, 'otp.sqlite'))) : undefined);
  }

  put(contextId: string, uniqueId: string, factor: Parameters<FactorStore['put']>[2]): void {
    (this.#store ??= new FactorStore(join(this.dataDir, 'otp.sqlite'))).put(contextId, uniqueId, factor);
  }

  remove(contextId: string, uniqueId: string): void {
    this.existing()?.remove(contextId, uniqueId);
  }

  close(): void {
    this.#store?.close();
  }
}

/** The context's store, opened (for PostgreSQL: the schema checked or migrated as `migrate` says), and a service over it. */
async function openContext(config: SvcConfig, contextId: string): Promise<{ service: SubjectService; store: SubjectStore; factors: DataDirectoryFactors }> {
  const context: ContextConfig | undefined = config.contexts.find((c) => c.id === contextId);
  if (!context) throw new UsageError(`unknown context "${contextId}"; the configuration has ${config.contexts.map((c) => c.id).join(', ')}`);
  if (context.store === 'memory') throw new UsageError(`context ${contextId} is on the memory store, which lives and dies with its server process`);
  const store = createSubjectStore(context.store, config);
  try {
    await store.open?.();
  } catch (error) {
    await store.close();
    throw error;
  }
  const reserved = new Set([...config.reservedIds, ...(config.system ? [config.system.userId] : [])].map(fold));
  const hasher = new PasswordHasher({ ...config.passwords, precomputeDummy: false });
  return { service: new SubjectService(new Map([[contextId, { config: context, store }]]), hasher, () => reserved), store, factors: new DataDirectoryFactors(config.server.dataDir) };
}

/** Parses the arguments, runs `body` on the opened context, and turns every failure into a message and an exit code. */
async function run(
  name: 'export' | 'import',
  usage: string,
  argv: readonly string[],
  io: TransferIo,
  body: (opened: { service: SubjectService; store: SubjectStore; factors: DataDirectoryFactors }, contextId: string, args: { replace: boolean; file?: string }) => Promise<void>,
): Promise<number> {
  let opened: { service: SubjectService; store: SubjectStore; factors: DataDirectoryFactors } | undefined;
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: name === 'import' });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout.write(usage);
      return 0;
    }
    if (!values.context) throw new UsageError('--context is required');
    if (name === 'export' && values.replace) throw new UsageError('--replace is an import option');
    if (positionals.length > 1) throw new UsageError('at most one input file');
    opened = await openContext(await loadConfig(values.config, io), values.context);
    await body(opened, values.context, { replace: values.replace, file: positionals[0] });
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`svc ${name}: ${error.message}\n\n${usage}`);
      return 2;
    }
    io.stderr.write(`svc ${name}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    opened?.factors.close();
    await opened?.store.close();
  }
}

/** `svc export`: the context's subjects as JSON lines on stdout. Returns the exit code. */
export function runExport(argv: readonly string[], io: TransferIo): Promise<number> {
  return run('export', EXPORT_USAGE, argv, io, async ({ store, factors }, contextId) => {
    // SPEC 13: the directory keeps the passwords; an export carries none, and says so.
    if (store.passwords) io.stderr.write(`svc export: ${contextId} is on a directory (${store.kind}), which keeps the passwords: no password is exported\n`);
    const bar = progressBar(io.stderr, `export ${contextId}`, await store.count(contextId));
    let done = 0;
    const factorStore = factors.existing();
    for await (const subject of subjectsOf(store, contextId)) {
      if (!io.stdout.write(exportLine(subject, factorStore?.get(contextId, subject.uniqueId)) + '\n')) await once(io.stdout, 'drain');
      bar.update(++done);
    }
    // Then the context's SCIM groups (SPEC 14), so that an import keeps the ids identity providers hold.
    for (const group of await groupsOf(store, contextId)) if (!io.stdout.write(groupLine(group) + '\n')) await once(io.stdout, 'drain');
    bar.finish();
  });
}

/** `svc import`: JSON lines from FILE or stdin into the context, all or nothing. Returns the exit code. */
export function runImport(argv: readonly string[], io: TransferIo): Promise<number> {
  return run('import', IMPORT_USAGE, argv, io, async ({ service, factors }, contextId, { replace, file }) => {
    const input = file ? createReadStream(file) : io.stdin;
    const reading = progressBar(io.stderr, `read ${contextId}`);
    const writing = progressBar(io.stderr, `import ${contextId}`);
    try {
      const imported = await importLines(service, contextId, createInterface({ input, crlfDelay: Infinity }), {
        replace,
        factors,
        onRead: (n) => reading.update(n),
        onProgress: (done, total) => {
          reading.finish();
          writing.update(done, total);
        },
      });
      writing.finish();
      const groups = imported.groups ? ` and ${imported.groups} SCIM groups` : '';
      io.stderr.write(`svc import: ${imported.subjects} subjects${groups} written to ${contextId}\n`);
      if (service.directoryPasswords(contextId)) io.stderr.write(`svc import: ${contextId} is on a directory, which keeps the passwords: no password was imported\n`);
    } finally {
      reading.finish();
      writing.finish();
    }
  });
}
