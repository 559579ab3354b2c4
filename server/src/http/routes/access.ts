import type { Request, Response } from 'express';
import { MalformedBody, MethodNotAllowed, NotFound, SvcError } from '../../../../common/src/errors';
import { principalName, samePrincipal } from '../../../../common/src/principal-name';
import type { WireDocument } from '../../../../common/src/wire/xml';
import { partiesOf } from '../../audit';
import {
  decisionAnswer,
  errorAnswer,
  parseEvaluation,
  parseEvaluations,
  stopsAfter,
  type EvaluationAnswer,
  type EvaluationQuery,
} from '../../policy/authzen';
import type { Principal, Session } from '../../sessions/session';
import { documentBody, readBody } from '../body';
import { step } from '../exchange';
import type { RequestState } from '../request-state';
import { sendDocument } from '../respond';
import type { HttpServices } from '../services';

type Services = Pick<HttpServices, 'decisions' | 'subjects' | 'audit' | 'now'>;

/** An evaluation is small; a full batch of 500 with long ids fits, and nothing bigger is read. */
const ACCESS_BODY_LIMIT = 256 * 1024;

/**
 * The session an evaluation is decided for. Another principal than the caller's may be named only
 * by a SYSTEM session (SPEC section 6); it is then decided as that user's USER session through the
 * caller's client, with the roles the store holds for it now.
 */
async function sessionFor(s: Services, state: RequestState, subject: Principal | undefined): Promise<Session | undefined> {
  if (!subject || samePrincipal(subject, state.session.principal)) return undefined;
  if (state.session.type !== 'SYSTEM') {
    s.audit.record({ ...partiesOf(state.session, state.peer), event: 'access_denied', outcome: 'failure', reason: 'foreign_subject' });
    throw s.decisions.denial(state);
  }
  const stored = await s.subjects.context(subject.contextId).store.get(subject.contextId, subject.uniqueId);
  if (!stored) throw new NotFound(`subject ${principalName(subject)} not found`);
  const now = s.now();
  return { handle: state.session.handle, type: 'USER', clientId: state.session.clientId, principal: subject, level: 2, authenticator: 'authzen', created: now, lastAccess: now, stateless: true };
}

/** One evaluation through the same PDP call as the REST check (audited and counted alike). */
async function evaluate(s: Services, state: RequestState, query: EvaluationQuery): Promise<EvaluationAnswer> {
  s.subjects.context(query.contextId); // an unknown context is 404, as the REST check answers
  const as = await sessionFor(s, state, query.subject);
  const result = await s.decisions.decide(state, query.operation, query.target, { as });
  return decisionAnswer(result.decision === 'ALLOW', await s.decisions.reason(state, result, query.target));
}

/** Client errors become per-item answers; anything else (a store failure) fails the request. */
async function evaluateItem(s: Services, state: RequestState, item: EvaluationQuery | SvcError): Promise<EvaluationAnswer> {
  if (item instanceof SvcError) return errorAnswer(item);
  try {
    return await evaluate(s, state, item);
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
  sendDocument(req, res, 200, body, xmlRoot ? { xmlRoot } : {});
}

const onlyPost = step('onlyPost', ({ res }) => {
  res.setHeader('Allow', 'POST');
  throw new MethodNotAllowed('evaluations are POSTed');
});

/**
 * `POST {base}/access/v1/evaluation` and `/evaluations`: the OpenID AuthZEN Authorization API 1.0
 * over svc's policy decision point (SPEC section 6, beyond the seed), by method. The domain
 * translation is in policy/authzen.ts; this is only the transport.
 */
export function accessRoutes(s: Services) {
  const body = readBody((config) => Math.min(config.settings.bodyLimitBytes, ACCESS_BODY_LIMIT));
  return {
    evaluation: {
      POST: [
        body,
        step('evaluation', async ({ req, res, state }) => {
          const answer = await evaluate(s, state, parseEvaluation(bodyOf(req)));
          res.setHeader('X-Svc-Decision', answer.decision ? 'ALLOW' : 'DENY');
          send(req, res, answer, 'evaluation');
        }),
      ],
      otherwise: [onlyPost],
    },
    evaluations: {
      POST: [
        body,
        step('evaluations', async ({ req, res, state }) => {
          const batch = parseEvaluations(bodyOf(req));
          if (batch.single) return send(req, res, await evaluate(s, state, batch.single), 'evaluation');
          const evaluations: EvaluationAnswer[] = [];
          // In order, one at a time: the answers keep the request's order and the store sees no burst.
          for (const item of batch.items ?? []) {
            const answer = await evaluateItem(s, state, item);
            evaluations.push(answer);
            if (stopsAfter(batch.semantic, answer)) break;
          }
          send(req, res, { evaluations });
        }),
      ],
      otherwise: [onlyPost],
    },
  };
}
