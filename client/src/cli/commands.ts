/** The CLI's commands: each resolves to an exit code, or throws (main.ts prints one line). */
import { loadClientConfig } from '../config';
import { Connection } from '../connection';
import { SvcLoginError, SvcSessionError } from '../errors';
import type { Credentials } from '../login';
import { OPERATIONS, operationNamed } from '../../../common/src/wire/operations';
import { HintedError, UsageError, parseAttributes } from './attributes';
import type { CliIo } from './main';
import { decisionLine, eventsTable, json, readTable, searchTable, sessionTable, subjectTable, table } from './output';
import { READ_INCLUDES, type ReadInclude } from '../../../common/src/wire/subject-parts';
import { readPassword } from '../../../common/src/tty/prompt';
import { readSession, removeSession, writeSession, type CliSession } from './session-file';
import type { TransportOptions } from '../http-transport';
import { readFileSync } from 'node:fs';

export interface CliValues {
  'base-url'?: string;
  'client-id'?: string;
  context?: string;
  user?: string;
  json?: boolean;
  trusted?: boolean;
  anonymous?: boolean;
  cert?: string;
  key?: string;
  ca?: string;
  filter?: string;
  sort?: string;
  order?: string;
  csv?: boolean;
  offset?: string;
  quantity?: string;
  'if-match'?: string;
  include?: string;
  'set-password'?: boolean;
}

export interface CliContext {
  io: CliIo;
  values: CliValues;
  positionals: string[];
  sessionPath: string;
  configFile: string | undefined;
}

type Command = (ctx: CliContext) => Promise<number>;

function args(ctx: CliContext, min: number, max: number, usage: string): string[] {
  const given = ctx.positionals.length;
  if (given < min) throw new UsageError(`missing ${min - given === 1 ? 'an argument' : 'arguments'}: svc cli ${usage}`);
  if (given > max) throw new UsageError(`${max === 0 ? 'no arguments expected' : 'too many arguments'}: svc cli ${usage}`);
  return ctx.positionals;
}

/**
 * The client's settings from --base-url/--client-id, the environment and the config file. Missing
 * or malformed ones are the command line's mistake (exit 2), named by the flag that gives them.
 */
function clientConfig(ctx: CliContext) {
  const { values, io } = ctx;
  try {
    return loadClientConfig({ config: { baseUrl: values['base-url'], clientId: values['client-id'] }, env: io.env, file: ctx.configFile });
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    // The library names its settings (baseUrl, SVC_BASE_URL); a CLI user gives flags.
    if (/baseUrl is required/.test(error.message)) throw new UsageError('no core given: --base-url URL (or SVC_BASE_URL), e.g. --base-url http://127.0.0.1:8080/svc');
    throw new UsageError(error.message.replace(/^svc client: /, '').replace(/\bbaseUrl\b/g, '--base-url').replace(/\bclientId\b/g, '--client-id'));
  }
}

function print<T>(ctx: CliContext, value: T, human: (v: T) => string): void {
  ctx.io.stdout.write(ctx.values.json ? json(value) : human(value));
}

function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

async function password(ctx: CliContext, envName: string, label: string): Promise<string> {
  const given = ctx.io.env[envName] || (await readPassword(ctx.io, label));
  if (given === '') throw new UsageError('no password given');
  return given;
}

/** The code of the user's authenticator app: SVC_OTP, or a prompt (it lives 30 s: never a flag). */
async function secondFactorCode(ctx: CliContext): Promise<string> {
  const given = ctx.io.env.SVC_OTP || (await readPassword(ctx.io, 'Code: '));
  if (given.trim() === '') throw new UsageError('no code given');
  return given.trim();
}

/** The PEM files given by path (paths are kept in the session file, contents never). */
function tlsFiles(paths: CliSession['tls']): TransportOptions['tls'] {
  if (!paths) return undefined;
  const read = (path: string | undefined) => (path === undefined ? undefined : readFileSync(path));
  return { ca: read(paths.ca), cert: read(paths.cert), key: read(paths.key) };
}

const login: Command = async (ctx) => {
  args(ctx, 0, 0, 'login [--user ID] [--trusted | --anonymous] | login --cert FILE --key FILE');
  const { values, io } = ctx;
  const config = clientConfig(ctx);
  const user = values.user ?? io.env.SVC_USER;
  if ((values.cert === undefined) !== (values.key === undefined)) throw new UsageError('--cert and --key go together');
  if (values.cert !== undefined && (values.user !== undefined || values.trusted || values.anonymous)) throw new UsageError('--cert takes no --user, --trusted or --anonymous');
  const tlsPaths = values.cert !== undefined || values.ca !== undefined ? { ca: values.ca, cert: values.cert, key: values.key } : undefined;
  const tls = tlsFiles(tlsPaths);
  let credentials: Credentials;
  if (values.cert !== undefined) credentials = { kind: 'certificate', cert: tls!.cert!, key: tls!.key!, ...(tls?.ca ? { ca: tls.ca } : {}) };
  else if (values.anonymous) credentials = { kind: 'anonymous' };
  else if (!user) throw new UsageError('give --user ID (or SVC_USER), or --anonymous');
  else if (values.trusted) credentials = { kind: 'principal', user };
  // The code of a second factor is asked for only when the server wants one (SPEC 15).
  else credentials = { kind: 'password', user, password: await password(ctx, 'SVC_PASSWORD', 'Password: '), otp: () => secondFactorCode(ctx) };
  await endSaved(ctx); // one CLI session at a time: the old one is ended, not left to idle out
  let conn: Connection;
  try {
    conn = await Connection.open(credentials, { config, contextId: values.context, tls });
  } catch (error) {
    // No client named: the core's default client answered, which usually takes no passwords.
    if (error instanceof SvcLoginError && config.clientId === undefined && credentials.kind !== 'anonymous') {
      throw new HintedError(error, 'no client was named, so the core\'s default client was used: name one with --client-id ID (or SVC_CLIENT_ID)');
    }
    throw error;
  }
  try {
    const session = await conn.session();
    writeSession(ctx.sessionPath, { ...conn.exportSession(), ...(user && !values.anonymous && !values.cert ? { user } : {}), ...(tlsPaths ? { tls: tlsPaths } : {}) });
    print(ctx, session, sessionTable);
  } finally {
    await conn.detach();
  }
  return 0;
};

/** Runs `work` on the saved session, writes back a renewed cookie, and forgets an ended session. */
async function withSession(ctx: CliContext, work: (conn: Connection) => Promise<number>): Promise<number> {
  const saved = readSession(ctx.sessionPath);
  if (!saved) throw new Error('not logged in; run "svc cli login"');
  const wanted = ctx.values['base-url'] ?? ctx.io.env.SVC_BASE_URL;
  if (wanted !== undefined && wanted.replace(/\/+$/, '') !== saved.baseUrl) throw new Error(`the saved session is for ${saved.baseUrl}; run "svc cli login" for ${wanted}`);
  let conn: Connection | undefined;
  try {
    conn = await Connection.resume(saved, { contextId: ctx.values.context, tls: tlsFiles(saved.tls) });
    const code = await work(conn);
    const now = conn.exportSession();
    if (now.cookie !== saved.cookie) writeSession(ctx.sessionPath, { ...saved, cookie: now.cookie });
    return code;
  } catch (error) {
    if (error instanceof SvcSessionError) removeSession(ctx.sessionPath);
    throw error;
  } finally {
    await conn?.detach();
  }
}

/** Logs out the saved session, if any; an already ended one is simply forgotten. */
async function endSaved(ctx: CliContext): Promise<boolean> {
  const saved = readSession(ctx.sessionPath);
  if (!saved) return false;
  try {
    const conn = await Connection.resume(saved, { tls: tlsFiles(saved.tls) });
    await conn.close();
  } catch (error) {
    if (!(error instanceof SvcSessionError)) throw error;
  }
  removeSession(ctx.sessionPath);
  return true;
}

const whoami: Command = (ctx) => {
  args(ctx, 0, 0, 'whoami');
  return withSession(ctx, async (conn) => {
    print(ctx, { ...(await conn.session()), contextId: conn.contextId }, (s) => sessionTable(s) + table(undefined, [['context', s.contextId]]));
    return 0;
  });
};

const contexts: Command = (ctx) => {
  args(ctx, 0, 0, 'contexts');
  return withSession(ctx, async (conn) => {
    print(ctx, await conn.contexts(), (list) => table(['id', 'default'], list.map((c) => [c.id, c.default ? 'yes' : ''])));
    return 0;
  });
};

const GET_USAGE = `get ID [--include ${READ_INCLUDES.join(',')}]`;

const get: Command = (ctx) => {
  const [id] = args(ctx, 1, 1, GET_USAGE);
  const include = ctx.values.include?.split(',').map((name) => name.trim());
  if (include?.some((name) => !(READ_INCLUDES as readonly string[]).includes(name))) throw new UsageError(`--include names some of ${READ_INCLUDES.join(', ')}: svc cli ${GET_USAGE}`);
  return withSession(ctx, async (conn) => {
    print(ctx, await conn.get(id, { include: include as ReadInclude[] | undefined }), readTable);
    return 0;
  });
};

const SEARCH_USAGE = 'search [TEXT] [--filter F] [--sort ATTR] [--order asc|desc] [--offset N] [--quantity N] [--csv]';

const search: Command = (ctx) => {
  const [text] = args(ctx, 0, 1, SEARCH_USAGE);
  const { filter, sort, order, csv } = ctx.values;
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw new UsageError(`--order is asc or desc: svc cli ${SEARCH_USAGE}`);
  if (csv && (ctx.values.offset !== undefined || ctx.values.quantity !== undefined || ctx.values.json)) {
    throw new UsageError(`--csv writes every match as CSV: no --offset, --quantity or --json: svc cli ${SEARCH_USAGE}`);
  }
  return withSession(ctx, async (conn) => {
    if (csv) {
      // Written as it arrives: an export of a large context never sits in memory.
      for await (const chunk of conn.searchCsv({ search: text, filter, sort, order })) ctx.io.stdout.write(chunk);
      return 0;
    }
    const page = await conn.search({ search: text, filter, sort, order, offset: integer(ctx.values.offset, 'offset'), quantity: integer(ctx.values.quantity, 'quantity') });
    print(ctx, page, searchTable);
    return 0;
  });
};

const events: Command = (ctx) => {
  const [id] = args(ctx, 1, 1, 'events ID [--offset N] [--quantity N]');
  return withSession(ctx, async (conn) => {
    const page = await conn.events(id, { offset: integer(ctx.values.offset, 'offset'), quantity: integer(ctx.values.quantity, 'quantity') });
    print(ctx, page, eventsTable);
    return 0;
  });
};

const create: Command = (ctx) => {
  const [id, ...rest] = args(ctx, 1, Infinity, 'create ID name=value... [--set-password]');
  return withSession(ctx, async (conn) => {
    const attributes = parseAttributes(rest);
    if (ctx.values['set-password']) attributes.password = await password(ctx, 'SVC_NEW_PASSWORD', `Password for ${id}: `);
    const values = Object.fromEntries(Object.entries(attributes).filter((e): e is [string, string | string[]] => e[1] !== null));
    // An anonymous session registers: in a context that verifies addresses the answer is the same whether it was new or taken (SPEC 16).
    const created = conn.kind === 'anonymous' ? await conn.register({ uniqueId: id, attributes: values }) : await conn.create({ uniqueId: id, attributes: values });
    if ('status' in created) print(ctx, created, () => 'registered: check the mail of that address for the link that confirms it\n');
    else print(ctx, created, subjectTable);
    return 0;
  });
};

/**
 * The mailed-link flows of a visitor (SPEC 16) on a connection of their own: an anonymous session
 * of the configured client (no saved session is used or changed).
 */
async function asVisitor(ctx: CliContext, work: (conn: Connection) => Promise<number>): Promise<number> {
  const conn = await Connection.open({ kind: 'anonymous' }, { config: clientConfig(ctx), contextId: ctx.values.context });
  try {
    return await work(conn);
  } finally {
    await conn.close();
  }
}

const resetLink: Command = (ctx) => {
  const [name] = args(ctx, 1, 1, 'reset-link NAME [--context C]');
  return asVisitor(ctx, async (conn) => {
    const message = await conn.requestPasswordReset(name);
    print(ctx, { message }, (m) => `${m.message}\n`);
    return 0;
  });
};

const resetPassword: Command = (ctx) => {
  const [token] = args(ctx, 1, 1, 'reset-password TOKEN');
  return asVisitor(ctx, async (conn) => {
    await conn.resetPassword(token, await password(ctx, 'SVC_NEW_PASSWORD', 'New password: '));
    print(ctx, { reset: true }, () => 'password changed; every session of the account was ended\n');
    return 0;
  });
};

const verifyEmail: Command = (ctx) => {
  const [token] = args(ctx, 1, 1, 'verify-email TOKEN');
  return asVisitor(ctx, async (conn) => {
    await conn.verifyEmail(token);
    print(ctx, { verified: true }, () => 'address confirmed\n');
    return 0;
  });
};

const resendVerification: Command = (ctx) => {
  const [name] = args(ctx, 1, 1, 'resend-verification NAME [--context C]');
  return asVisitor(ctx, async (conn) => {
    const message = await conn.resendVerification(name);
    print(ctx, { message }, (m) => `${m.message}\n`);
    return 0;
  });
};

const changeMail: Command = (ctx) => {
  const [address] = args(ctx, 1, 1, 'change-mail ADDRESS');
  return withSession(ctx, async (conn) => {
    const principal = (await conn.session()).principal;
    if (!principal) throw new UsageError('log in as the subject whose address changes: svc cli login --user ID');
    await conn.changeMail(principal.uniqueId, address, await password(ctx, 'SVC_PASSWORD', 'Password: '));
    print(ctx, { status: 'verification_sent', mail: address }, (a) => `check the mail of ${a.mail}: your address changes when its link is followed\n`);
    return 0;
  });
};

const update: Command = (ctx) => {
  const [id, ...rest] = args(ctx, 2, Infinity, 'update ID name=value... [--if-match ETAG]');
  return withSession(ctx, async (conn) => {
    print(ctx, await conn.update(id, parseAttributes(rest), { ifMatch: ctx.values['if-match'] }), subjectTable);
    return 0;
  });
};

const remove: Command = (ctx) => {
  const [id] = args(ctx, 1, 1, 'delete ID');
  return withSession(ctx, async (conn) => {
    await conn.delete(id);
    print(ctx, { deleted: id, contextId: conn.contextId }, (d) => `deleted ${d.deleted} from ${d.contextId}\n`);
    return 0;
  });
};

/** The check's operations on one subject (READ ID); the others address the collection (SEARCH). */
const ON_A_SUBJECT: readonly string[] = ['READ', 'UPDATE', 'DELETE'];

const can: Command = (ctx) => {
  const [op, id] = args(ctx, 1, 2, 'can OP [ID]');
  const operation = operationNamed(op.toUpperCase());
  if (!operation) throw new UsageError(`OP is one of ${OPERATIONS.join(', ')}`);
  if (ON_A_SUBJECT.includes(operation) && id === undefined) throw new UsageError(`${operation} is checked on a subject: svc cli can ${operation} ID`);
  if (!ON_A_SUBJECT.includes(operation) && id !== undefined) throw new UsageError(`${operation} is checked on the context, not a subject: svc cli can ${operation}`);
  return withSession(ctx, async (conn) => {
    const check = await conn.check(operation, id);
    print(ctx, check, decisionLine);
    return check.allowed ? 0 : 1;
  });
};

const logout: Command = async (ctx) => {
  args(ctx, 0, 0, 'logout');
  const ended = await endSaved(ctx);
  if (!ctx.values.json) ctx.io.stdout.write(ended ? 'logged out\n' : 'not logged in\n');
  else ctx.io.stdout.write(json({ loggedOut: ended }));
  return 0;
};

export const COMMANDS: Record<string, Command> = {
  login,
  whoami,
  contexts,
  get,
  search,
  events,
  create,
  update,
  delete: remove,
  can,
  logout,
  'reset-link': resetLink,
  'reset-password': resetPassword,
  'verify-email': verifyEmail,
  'resend-verification': resendVerification,
  'change-mail': changeMail,
};
