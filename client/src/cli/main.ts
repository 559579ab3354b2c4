/**
 * `svc cli <command>`: the seed's command-line client (1.5: the end user supplies user id and
 * password). Returns the exit code: 0 done (or ALLOW), 1 failed (or DENY, as `kubectl auth can-i`),
 * 2 usage, 130 interrupted. A failure is one line on stderr.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SvcClientError, SvcSessionError } from '../errors';
import { HintedError, UsageError } from './attributes';
import { COMMANDS, type CliContext } from './commands';
import { Interrupted, type PromptIo } from '../../../common/src/tty/prompt';
import { sessionFilePath } from './session-file';

export interface CliIo extends PromptIo {
  stdout: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

export const CLI_USAGE = `usage: svc cli <command> [options]

commands:
  login [--user ID] [--trusted | --anonymous]   open a session (prompts for the password)
  login --cert FILE --key FILE [--ca FILE]       open a session with an X.509 client certificate
  whoami                                         the session structure
  contexts                                       the contexts this client may use
  get ID [--include otp,mail,lockout,events]     read a subject, with the parts named that the session
                                                 may read (second factor, pending address, lockout, last 20 events)
  search [TEXT] [--filter F] [--sort ATTR] [--order asc|desc] [--offset N] [--quantity N]
  search [TEXT] [--filter F] [--sort ATTR] [--order asc|desc] --csv
                                                 every match as CSV, written as it arrives
  events ID [--offset N] [--quantity N]          what happened to a subject, newest first
  create ID name=value... [--set-password]       (name[]=v for a list; repeat a name for more values)
  update ID name=value... [--if-match ETAG]      (name= removes an attribute)
  delete ID
  can OP [ID]                                    the check: exit 0 ALLOW, 1 DENY
  logout                                         end the session
  change-mail ADDRESS                            one's own new address (the password from SVC_PASSWORD
                                                 or a prompt); it changes when the link mailed there is followed

mailed links (SPEC 16), as a visitor (no login; --context for the account's context):
  reset-link NAME                                ask for a password reset link (the same answer for any name)
  reset-password TOKEN                           a reset link's token; the new password from SVC_NEW_PASSWORD or a prompt
  verify-email TOKEN                             confirm an address with its link's token
  resend-verification NAME                       a new link for an unconfirmed registration

options:
  --base-url URL      {base} of the core (SVC_BASE_URL)
  --client-id ID      the client (SVC_CLIENT_ID); its secret only from SVC_CLIENT_SECRET or a 0600
                      config file (SVC_CLIENT_CONFIG, default ~/.config/svc/client.json)
  --context ID        the context to work in (default: the client's default)
  --user ID           the user at login (SVC_USER); the password from SVC_PASSWORD, a prompt or stdin;
                      a second factor's code, when the server asks for one, from SVC_OTP or a prompt;
                      with --trusted (a client principal) ID is CONTEXT/UNIQUEID, e.g. employees/bob
  --cert FILE, --key FILE
                      a client certificate and its key (PEM) for login: the certificate names the
                      client (--client-id, if given, must match) and no password is asked for
  --ca FILE           the CA (PEM) that signed the core's HTTPS certificate, when not a public one
  --json              JSON instead of tables
session file: $SVC_CLI_SESSION or ~/.config/svc/session.json (mode 0600)`;

const OPTIONS = {
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  context: { type: 'string' },
  user: { type: 'string' },
  json: { type: 'boolean' },
  trusted: { type: 'boolean' },
  anonymous: { type: 'boolean' },
  cert: { type: 'string' },
  key: { type: 'string' },
  ca: { type: 'string' },
  filter: { type: 'string' },
  sort: { type: 'string' },
  order: { type: 'string' },
  csv: { type: 'boolean' },
  offset: { type: 'string' },
  quantity: { type: 'string' },
  'if-match': { type: 'string' },
  include: { type: 'string' },
  'set-password': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Commands whose argument is a mailed link's token: base64url, which begins with "-" one time in 32,
 * and would then be read as an option. Right after such a command, an argument that is not one of
 * the options is the token, whatever its first character.
 */
const TOKEN_COMMANDS: ReadonlySet<string> = new Set(['reset-password', 'verify-email']);

const isOption = (arg: string): boolean => arg === '-h' || (arg.startsWith('--') && Object.hasOwn(OPTIONS, arg.slice(2).split('=')[0]));

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const token = TOKEN_COMMANDS.has(argv[0]) && argv[1] !== undefined && !isOption(argv[1]) ? argv[1] : undefined;
  let parsed;
  try {
    parsed = parseArgs({ args: token === undefined ? [...argv] : [argv[0], ...argv.slice(2)], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.stderr.write(`svc cli: ${(error as Error).message}\n\n${CLI_USAGE}\n`);
    return 2;
  }
  const [name, ...rest] = parsed.positionals;
  const positionals = token === undefined ? rest : [token, ...rest];
  if (parsed.values.help || name === 'help') {
    io.stdout.write(CLI_USAGE + '\n');
    return 0;
  }
  if (name === undefined) {
    io.stderr.write(`svc cli: no command given\n\n${CLI_USAGE}\n`);
    return 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`svc cli: unknown command "${name}"\n\n${CLI_USAGE}\n`);
    return 2;
  }
  const defaultConfig = join(io.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc', 'client.json');
  const ctx: CliContext = {
    io,
    values: parsed.values,
    positionals,
    sessionPath: sessionFilePath(io.env),
    configFile: io.env.SVC_CLIENT_CONFIG || (existsSync(defaultConfig) ? defaultConfig : undefined),
  };
  try {
    return await command(ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`svc cli: ${reason(error)}\n\n${CLI_USAGE}\n`);
      return 2;
    }
    io.stderr.write(`svc cli: ${reason(error)}\n`);
    return error instanceof Interrupted ? 130 : 1;
  }
}

/** One line: the server's code and detail, or the local reason. Never a cookie or a password. */
function reason(error: unknown): string {
  if (error instanceof HintedError) return `${reason(error.failure)}; ${error.hint}`;
  if (error instanceof SvcSessionError) return `${error.code}: the session has ended; run "svc cli login"`;
  if (error instanceof SvcClientError) {
    const fields = error.problem.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
    return `${error.code} (${error.status || 'no answer'}): ${error.message}${fields ? ` [${fields}]` : ''}`.replace(/\s*\n\s*/g, ' ');
  }
  return (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
}
