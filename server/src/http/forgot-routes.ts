import { Router, type Request, type Response } from 'express';
import { MalformedBody } from '../../../common/src/errors';
import type { WireDocument } from '../../../common/src/wire/xml';
import type { Core } from '../core';
import { forgottenPasswordOf, type FlowSession } from '../flows/forgotten-password';
import { assertSubjectId } from '../subjects/subject-id';
import { documentBody, rawBody } from './body';
import { setSessionCookie } from './cookies';
import { responseFormat, sendDocument } from './respond';

const PATHS = ['/resources/contexts/:contextId/subjects/:subjectId/password/forgot', '/contexts/:contextId/subjects/:subjectId/password/forgot'];

/** `{"answers":["…"]}` or `{"password":"…"}`, and nothing else. */
function forgotBody(req: Request): { answers: string[] } | { password: string } {
  const doc = documentBody(req) ?? {};
  const keys = Object.keys(doc);
  if (keys.length === 1 && keys[0] === 'answers' && Array.isArray(doc.answers) && doc.answers.length <= 10 && doc.answers.every((a) => typeof a === 'string' && a.length <= 1024)) {
    return { answers: doc.answers as string[] };
  }
  if (keys.length === 1 && keys[0] === 'password' && typeof doc.password === 'string') return { password: doc.password };
  throw new MalformedBody('send {"answers": ["…", …]} or {"password": "…"}');
}

/** The visitor's flow, as the authentication filter left it. */
const flowOf = (req: Request): FlowSession => ({ session: req.svc.session, cookieValue: req.svc.cookieValue, peer: req.svc.peer });

/** Sets the cookie that carries the flow's new state, when it changed. */
function adopt(core: Core, req: Request, res: Response, cookieValue: string | undefined): void {
  if (cookieValue !== undefined && cookieValue !== req.svc.cookieValue) setSessionCookie(core, req, res, cookieValue);
}

/**
 * The forgotten-password flow's HTTP face (SPEC section 7), a not-enforced URI on both mounts:
 * GET the questions, PUT the answers, then PUT the new password.
 */
export function forgotRoutes(core: Core): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const flow = forgottenPasswordOf(core);
  router.get(PATHS, async (req, res) => {
    const { contextId, subjectId } = req.params as Record<string, string>;
    assertSubjectId(subjectId, 'subjectId');
    responseFormat(req);
    const outcome = await flow.questions(flowOf(req), contextId, subjectId);
    adopt(core, req, res, outcome.cookieValue);
    res.setHeader('Cache-Control', 'no-store');
    sendDocument(req, res, 200, { questions: outcome.result } as WireDocument, { xmlRoot: 'forgot' });
  });
  router.put(PATHS, rawBody(core.config.settings.bodyLimitBytes), async (req, res) => {
    const { contextId, subjectId } = req.params as Record<string, string>;
    assertSubjectId(subjectId, 'subjectId');
    responseFormat(req);
    const body = forgotBody(req);
    res.setHeader('Cache-Control', 'no-store');
    if ('answers' in body) {
      adopt(core, req, res, (await flow.answer(flowOf(req), contextId, subjectId, body.answers)).cookieValue);
      sendDocument(req, res, 200, { answered: true } as WireDocument, { xmlRoot: 'forgot' });
    } else {
      adopt(core, req, res, (await flow.reset(flowOf(req), contextId, subjectId, body.password)).cookieValue);
      res.status(204).end();
    }
  });
  return router;
}
