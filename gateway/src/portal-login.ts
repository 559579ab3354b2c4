/**
 * `POST {gw}/api/login` (SPEC sections 9 and 15): a person logs in with an svc name and password,
 * and, for a subject with a second factor, a second step. The gateway logs the person in to a core
 * with its own sealed UserPass login, carrying the visitor's address so that the core's lockout and
 * throttles count the visitor.
 *
 * - `{"user","password"}`: the password step. The assertion names no user (a login: its `visitor` is
 *   the handle of the portal session the portal will make) or the portal user (a step-up: the current
 *   portal session's handle), and then the login must be of that same user.
 * - The core's `otp_required` is answered 401 `otp_required` with a `pending` the gateway sealed to
 *   the assertion's handle and user (pending-seal.ts).
 * - `{"pending","otp"}`: the second step, only under the same handle and user.
 *
 * Success answers the session structure and the subject's roles, and the new core session becomes
 * the session held for (portal, user, handle), replacing (and ending) any held there: a step-up's
 * level 3 session replaces that portal session's level 1 or 2 one. The visitor's ANON session was
 * never held: it travels with the visitor, and the portal drops it at login. A refusal is the core's
 * (`login_failed`, 429 with Retry-After, 503).
 */
import type { Request, Response } from 'express';
import type { VerifiedPrincipal } from '../../common/src/assertion/principal-assertion';
import { InvalidRequest, LoginFailed, MalformedBody, OtpRequired, UnsupportedMediaType, type SvcError } from '../../common/src/errors';
import { formatPrincipalName, samePrincipal } from '../../common/src/principal-name';
import { MAX_SEALED_LENGTH } from '../../common/src/clientcred/format';
import { bufferBody } from './body';
import { CoreUnreachable, toGatewayError } from './core-errors';
import { CoreOtpRequired, type CoreLogin, type PasswordLogin } from './core-login';
import type { CorePool } from './core-pool';
import type { CoreSessions } from './core-sessions';
import { audit, type GatewayMetrics, type Logger } from './observability';
import type { PendingSeals } from './pending-seal';
import { sendDocument } from './problem';

export interface PortalLoginDeps {
  bodyLimit: number;
  login: CoreLogin;
  pool: CorePool;
  sessions: CoreSessions;
  /** Seals the pending of an otp_required to the assertion's handle and user. */
  pendings: PendingSeals;
  log: Logger;
  metrics: GatewayMetrics;
}

/** A login body is two short strings; the core takes parameters of at most this length. */
const MAX_FIELD_LENGTH = MAX_SEALED_LENGTH / 4;
/** Two short strings in JSON; anything near the general body limit is not a login. */
const MAX_LOGIN_BODY = 64 * 1024;

type LoginBody = { step: 'password'; user: string; password: string } | { step: 'code'; pending: string; otp: string };

export async function portalLogin(deps: PortalLoginDeps, req: Request, res: Response, asserted: VerifiedPrincipal): Promise<void> {
  const body = credentialsOf(req, await bufferBody(req, res, Math.min(deps.bodyLimit, MAX_LOGIN_BODY)));
  const stepUp = asserted.user !== null;
  const who = { portal: asserted.portalId, visitor: asserted.visitor, peer: asserted.address, ...(stepUp ? { stepUp: true } : {}) };
  const refused = (reason: string) => {
    deps.metrics.coreLogins.inc({ kind: 'password', outcome: 'failure' });
    // The name is not logged: it may be a password typed into the wrong field.
    audit(deps.log, { event: 'portal_login', outcome: 'failure', reason, ...who });
  };
  let login: PasswordLogin;
  let core: string;
  try {
    if (body.step === 'password') {
      ({ login, core } = await onSomeCore(deps.pool, undefined, (base) => deps.login.password(base, body.user, body.password, asserted.address)));
    } else {
      const held = deps.pendings.open(asserted, body.pending);
      // Sealed for another portal session, another user, or not by a gateway: as the core says of a spent token.
      if (held === undefined) throw new LoginFailed();
      ({ login, core } = await onSomeCore(deps.pool, held.core, (base) => deps.login.secondStep(base, held.pending, body.otp, asserted.address)));
    }
  } catch (error) {
    if (error instanceof CoreOtpRequired) {
      refused('otp_required');
      throw new OtpRequired(deps.pendings.seal(asserted, { core: error.core, pending: error.pending }));
    }
    refused((error as SvcError).code ?? 'error');
    throw error;
  }
  // A step-up proves the portal user again: a login of anyone else is no step-up of theirs.
  if (asserted.user !== null && !samePrincipal(asserted.user, login.user)) {
    await deps.login.logout(core, login.cookie).catch(() => undefined);
    refused('another_user');
    throw new LoginFailed();
  }
  const portalUser: VerifiedPrincipal = { ...asserted, user: login.user };
  const replaced = await deps.sessions.put(core, portalUser, login.cookie);
  await Promise.all(replaced.map((s) => deps.login.logout(s.core, s.cookie).catch(() => undefined)));
  deps.metrics.coreLogins.inc({ kind: 'password', outcome: 'success' });
  audit(deps.log, { event: 'portal_login', outcome: 'success', user: formatPrincipalName(login.user), session: login.session.uniqueId, level: login.session.level, core, ...who });
  res.setHeader('cache-control', 'no-store');
  const { session } = login;
  const principal = session.principal && { uniqueId: session.principal.uniqueId, contextId: session.principal.contextId };
  sendDocument(res, 200, { session: { uniqueId: session.uniqueId, type: session.type, clientId: session.clientId, principal, level: session.level, message: session.message }, roles: login.roles }, req.headers.accept);
}

/** `{"user","password"}` or `{"pending","otp"}`: two non-empty strings, nothing else. */
function credentialsOf(req: Request, body: Buffer | undefined): LoginBody {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new UnsupportedMediaType('a login is a JSON document {"user","password"} or {"pending","otp"}');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body?.toString('utf8') ?? '');
  } catch {
    throw new MalformedBody('the body is not a JSON document');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MalformedBody('the body is not a JSON object');
  const fields = parsed as Record<string, unknown>;
  const names = Object.hasOwn(fields, 'pending') || Object.hasOwn(fields, 'otp') ? ['pending', 'otp'] : ['user', 'password'];
  const errors = names
    .filter((name) => typeof fields[name] !== 'string' || fields[name] === '' || (fields[name] as string).length > MAX_FIELD_LENGTH)
    .map((path) => ({ path, message: `a non-empty string of at most ${MAX_FIELD_LENGTH} characters` }));
  for (const name of Object.keys(fields)) if (!names.includes(name)) errors.push({ path: name, message: 'not a field of this login step' });
  if (errors.length) throw new InvalidRequest('a login is {"user","password"}, or its second step {"pending","otp"}', { errors });
  return names[0] === 'user'
    ? { step: 'password', user: fields.user as string, password: fields.password as string }
    : { step: 'code', pending: fields.pending as string, otp: fields.otp as string };
}

/**
 * Runs `attempt` on a healthy core (`preferred` first when it is healthy: the core that issued a
 * pending token, whose replay cache and key certainly know it); a core that could not be reached
 * before anything was sent is skipped and the next one tried (a login that may have reached a core
 * is not sent twice). A CoreOtpRequired is given the core that answered it.
 */
async function onSomeCore<T>(pool: CorePool, preferred: string | undefined, attempt: (core: string) => Promise<T>): Promise<{ login: T; core: string }> {
  const tried = new Set<string>();
  for (;;) {
    const core = preferred !== undefined && !tried.has(preferred) && pool.healthy.includes(preferred) ? preferred : pool.pick(tried);
    try {
      return { login: await attempt(core), core };
    } catch (caught) {
      if (caught instanceof CoreOtpRequired) {
        caught.core = core;
        throw caught;
      }
      const error = toGatewayError(caught);
      if (!(error instanceof CoreUnreachable)) throw error;
      pool.markFailed(core);
      tried.add(core);
      if (!error.notSent || pool.healthy.every((c) => tried.has(c))) throw error;
    }
  }
}
