/**
 * `POST {gw}/api/login` (SPEC section 9): a visitor logs in with an svc name and password. The
 * assertion names no user (it is the visitor's); the body is `{"user","password"}`. The gateway logs
 * the person in to a core with its own sealed UserPass login, carrying the visitor's address so that
 * the core's lockout and throttles count the visitor. Success answers the session structure and the
 * subject's roles, and the new core session becomes that user's held session (the visitor's ANON
 * session was never held: it travels with the visitor, and the portal drops it at login). A refusal is the core's (`login_failed`, 429 with Retry-After, 503).
 */
import type { Request, Response } from 'express';
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { InvalidRequest, MalformedBody, UnsupportedMediaType, type SvcError } from '../../common/src/errors';
import { formatPrincipalName } from '../../common/src/principal-name';
import { MAX_SEALED_LENGTH } from '../../common/src/clientcred/format';
import { bufferBody } from './body';
import { CoreUnreachable, toGatewayError } from './core-errors';
import type { CoreLogin, PasswordLogin } from './core-login';
import type { CorePool } from './core-pool';
import type { CoreSessions } from './core-sessions';
import { audit, type GatewayMetrics, type Logger } from './observability';
import { sendDocument } from './problem';

export interface PortalLoginDeps {
  bodyLimit: number;
  login: CoreLogin;
  pool: CorePool;
  sessions: CoreSessions;
  log: Logger;
  metrics: GatewayMetrics;
}

/** A login body is two short strings; the core takes parameters of at most this length. */
const MAX_FIELD_LENGTH = MAX_SEALED_LENGTH / 4;
/** Two short strings in JSON; anything near the general body limit is not a login. */
const MAX_LOGIN_BODY = 64 * 1024;

export async function portalLogin(deps: PortalLoginDeps, req: Request, res: Response, visitor: VerifiedPrincipal): Promise<void> {
  if (visitor.user !== null) throw new InvalidRequest('a login is asserted for the visitor: the assertion must name no user');
  const { user, password } = credentialsOf(req, await bufferBody(req, res, Math.min(deps.bodyLimit, MAX_LOGIN_BODY)));
  const who = { portal: visitor.portalId, visitor: visitor.visitor, peer: visitor.address };
  let login: PasswordLogin;
  let core: string;
  try {
    ({ login, core } = await onSomeCore(deps.pool, (base) => deps.login.password(base, user, password, visitor.address)));
  } catch (error) {
    const refusal = error as SvcError;
    deps.metrics.coreLogins.inc({ kind: 'password', outcome: 'failure' });
    // The name is not logged: it may be a password typed into the wrong field.
    audit(deps.log, { event: 'portal_login', outcome: 'failure', reason: refusal.code ?? 'error', ...who });
    throw error;
  }
  const portalUser: VerifiedPrincipal = { ...visitor, user: login.user };
  const replaced = await deps.sessions.put(core, portalUser, login.cookie);
  await Promise.all(replaced.map((s) => deps.login.logout(s.core, s.cookie).catch(() => undefined)));
  deps.metrics.coreLogins.inc({ kind: 'password', outcome: 'success' });
  audit(deps.log, { event: 'portal_login', outcome: 'success', user: formatPrincipalName(login.user), session: login.session.uniqueId, core, ...who });
  res.setHeader('cache-control', 'no-store');
  const { session } = login;
  const principal = session.principal && { uniqueId: session.principal.uniqueId, contextId: session.principal.contextId };
  sendDocument(res, 200, { session: { uniqueId: session.uniqueId, type: session.type, clientId: session.clientId, principal, level: session.level, message: session.message }, roles: login.roles }, req.headers.accept);
}

/** `{"user","password"}`: two non-empty strings, nothing else. */
function credentialsOf(req: Request, body: Buffer | undefined): { user: string; password: string } {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new UnsupportedMediaType('a login is a JSON document {"user","password"}');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body?.toString('utf8') ?? '');
  } catch {
    throw new MalformedBody('the body is not a JSON document');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MalformedBody('the body is not a JSON object');
  const fields = parsed as Record<string, unknown>;
  const errors = ['user', 'password']
    .filter((name) => typeof fields[name] !== 'string' || fields[name] === '' || (fields[name] as string).length > MAX_FIELD_LENGTH)
    .map((path) => ({ path, message: `a non-empty string of at most ${MAX_FIELD_LENGTH} characters` }));
  for (const name of Object.keys(fields)) if (name !== 'user' && name !== 'password') errors.push({ path: name, message: 'not a login field' });
  if (errors.length) throw new InvalidRequest('a login is {"user","password"}', { errors });
  return { user: fields.user as string, password: fields.password as string };
}

/**
 * Runs `attempt` on a healthy core; a core that could not be reached before anything was sent is
 * skipped and the next one tried (a login that may have reached a core is not sent twice).
 */
async function onSomeCore<T>(pool: CorePool, attempt: (core: string) => Promise<T>): Promise<{ login: T; core: string }> {
  const tried = new Set<string>();
  for (;;) {
    const core = pool.pick(tried);
    try {
      return { login: await attempt(core), core };
    } catch (caught) {
      const error = toGatewayError(caught);
      if (!(error instanceof CoreUnreachable)) throw error;
      pool.markFailed(core);
      tried.add(core);
      if (!error.notSent || pool.healthy.every((c) => tried.has(c))) throw error;
    }
  }
}
