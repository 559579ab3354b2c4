import { Router, type Request } from 'express';
import { MalformedBody } from '../../../common/src/errors';
import type { WireDocument } from '../../../common/src/wire/xml';
import type { Core } from '../core';
import { forgottenPasswordOf } from '../flows/forgotten-password';
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
    const outcome = await flow.questions({ session: req.svc.session, cookieValue: req.svc.cookieValue }, contextId, subjectId);
    if (outcome.cookieValue && outcome.cookieValue !== req.svc.cookieValue) setSessionCookie(core, req, res, outcome.cookieValue);
    res.setHeader('Cache-Control', 'no-store');
    sendDocument(req, res, 200, { questions: outcome.result } as WireDocument, { xmlRoot: 'forgot' });
  });
  router.put(PATHS, rawBody(core.config.global['body.limit']), async (req, res) => {
    const { contextId, subjectId } = req.params as Record<string, string>;
    assertSubjectId(subjectId, 'subjectId');
    responseFormat(req);
    const body = forgotBody(req);
    const current = { session: req.svc.session, cookieValue: req.svc.cookieValue };
    if ('answers' in body) {
      await flow.answer(current, contextId, subjectId, body.answers);
      sendDocument(req, res, 200, { answered: true } as WireDocument, { xmlRoot: 'forgot' });
    } else {
      await flow.reset(current, contextId, subjectId, body.password);
      res.status(204).end();
    }
  });
  return router;
}
