import { Router, type Request, type Response } from 'express';
import { MalformedBody, MethodNotAllowed, NotFound, SvcError } from '../../../common/src/errors';
import { principalName, samePrincipal } from '../../../common/src/principal-name';
import type { WireDocument } from '../../../common/src/wire/xml';
import { partiesOf } from '../audit';
import type { Core } from '../core';
import {
  decisionAnswer,
  errorAnswer,
  parseEvaluation,
  parseEvaluations,
  stopsAfter,
  type EvaluationAnswer,
  type EvaluationQuery,
} from '../policy/authzen';
import type { Principal, Session } from '../sessions/session';
import { decide, denial, isPrivileged } from './authorize';
import { documentBody, rawBody } from './body';
import type { RequestState } from './request-state';
import { sendDocument } from './respond';

/** An evaluation is small; a full batch of 500 with long ids fits, and nothing bigger is read. */
const ACCESS_BODY_LIMIT = 256 * 1024;

/**
 * The session an evaluation is decided for. Another principal than the caller's may be named only
 * by a SYSTEM session (SPEC section 6); it is then decided as that user's USER session through the
 * caller's client, with the roles the store holds for it now.
 */
async function sessionFor(core: Core, state: RequestState, subject: Principal | undefined): Promise<Session | undefined> {
  if (!subject || samePrincipal(subject, state.session.principal)) return undefined;
  if (state.session.type !== 'SYSTEM') {
    core.audit.record({ ...partiesOf(state.session, state.peer), event: 'access_denied', outcome: 'failure', reason: 'foreign_subject' });
    throw denial(core, state);
  }
  const stored = await core.subjects.context(subject.contextId).store.get(subject.contextId, subject.uniqueId);
  if (!stored) throw new NotFound(`subject ${principalName(subject)} not found`);
  const now = core.now();
  return { handle: state.session.handle, type: 'USER', clientId: state.session.clientId, principal: subject, level: 2, authenticator: 'authzen', created: now, lastAccess: now, stateless: true };
}

/** One evaluation through the same PDP call as the REST check (audited and counted alike). */
async function evaluate(core: Core, state: RequestState, query: EvaluationQuery): Promise<EvaluationAnswer> {
  core.subjects.context(query.contextId); // an unknown context is 404, as the REST check answers
  const as = await sessionFor(core, state, query.subject);
  const result = await decide(core, state, query.operation, query.target, { as });
  const allowed = result.decision === 'ALLOW';
  const privileged = await isPrivileged(core, state.session, query.target);
  return decisionAnswer(allowed, privileged ? result.policy : allowed ? 'allowed' : 'denied');
}

/** Client errors become per-item answers; anything else (a store failure) fails the request. */
async function evaluateItem(core: Core, state: RequestState, item: EvaluationQuery | SvcError): Promise<EvaluationAnswer> {
  if (item instanceof SvcError) return errorAnswer(item);
  try {
    return await evaluate(core, state, item);
  } catch (error) {
    if (error instanceof SvcError && error.expose && error.status < 500) return errorAnswer(error);
    throw error;
  }
}

function bodyOf(req: Request): WireDocument {
  const doc = documentBody(req);
  if (!doc) throw new MalformedBody('an evaluation body is required');
  return doc;
}

function send(req: Request, res: Response, body: object, xmlRoot?: string): void {
  res.setHeader('Cache-Control', 'no-store');
  sendDocument(req, res, 200, body as unknown as WireDocument, xmlRoot ? { xmlRoot } : {});
}

/**
 * `POST {base}/access/v1/evaluation` and `/evaluations`: the OpenID AuthZEN Authorization API 1.0
 * over svc's policy decision point (SPEC section 6, beyond the seed). The domain translation is in
 * policy/authzen.ts; this is only the transport.
 */
export function accessRoutes(core: Core): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const body = rawBody(Math.min(core.config.settings.bodyLimitBytes, ACCESS_BODY_LIMIT));

  router.post('/access/v1/evaluation', body, async (req, res) => {
    const answer = await evaluate(core, req.svc, parseEvaluation(bodyOf(req)));
    res.setHeader('X-Svc-Decision', answer.decision ? 'ALLOW' : 'DENY');
    send(req, res, answer, 'evaluation');
  });

  router.post('/access/v1/evaluations', body, async (req, res) => {
    const batch = parseEvaluations(bodyOf(req));
    if (batch.single) return send(req, res, await evaluate(core, req.svc, batch.single), 'evaluation');
    const evaluations: EvaluationAnswer[] = [];
    // In order, one at a time: the answers keep the request's order and the store sees no burst.
    for (const item of batch.items ?? []) {
      const answer = await evaluateItem(core, req.svc, item);
      evaluations.push(answer);
      if (stopsAfter(batch.semantic, answer)) break;
    }
    send(req, res, { evaluations });
  });

  router.all(['/access/v1/evaluation', '/access/v1/evaluations'], (_req, res) => {
    res.setHeader('Allow', 'POST');
    throw new MethodNotAllowed('evaluations are POSTed');
  });
  return router;
}
