import type { Request } from 'express';
import { MalformedBody } from '../../../../common/src/errors';
import { assertSubjectId } from '../../subjects/subject-id';
import { documentBody, readBody } from '../body';
import { setSessionCookie } from '../cookies';
import { step, type Exchange } from '../exchange';
import { responseFormat, sendDocument } from '../respond';
import type { HttpServices } from '../services';

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

/** Sets the cookie that carries the flow's new state, when it changed. */
function adopt(x: Exchange, cookieValue: string | undefined): void {
  if (cookieValue !== undefined && cookieValue !== x.state.cookieValue) setSessionCookie(x, cookieValue);
}

/** The subject id of the path, checked; and 406 before the flow is asked anything. */
const flowIds = step('flowIds', ({ req, ids }) => {
  assertSubjectId(ids.subjectId!, 'subjectId');
  responseFormat(req);
});

/**
 * The forgotten-password flow's REST face (SPEC section 7), a not-enforced URI on both mounts: GET
 * the questions, PUT the answers, then PUT the new password. The flow's state is the visitor's cookie.
 */
export const forgotRoutes = (s: Pick<HttpServices, 'forgottenPassword'>) => ({
  GET: [
    flowIds,
    step('forgotQuestions', async (x) => {
      const outcome = await s.forgottenPassword.questions(x.state, x.ids.contextId!, x.ids.subjectId!);
      adopt(x, outcome.cookieValue);
      x.res.setHeader('Cache-Control', 'no-store');
      sendDocument(x.req, x.res, 200, { questions: outcome.result }, { xmlRoot: 'forgot' });
    }),
  ],
  PUT: [
    readBody((config) => config.settings.bodyLimitBytes),
    flowIds,
    step('forgotAnswer', async (x) => {
      const { contextId, subjectId } = x.ids as { contextId: string; subjectId: string };
      const body = forgotBody(x.req);
      x.res.setHeader('Cache-Control', 'no-store');
      if ('answers' in body) {
        adopt(x, (await s.forgottenPassword.answer(x.state, contextId, subjectId, body.answers)).cookieValue);
        sendDocument(x.req, x.res, 200, { answered: true }, { xmlRoot: 'forgot' });
      } else {
        adopt(x, (await s.forgottenPassword.reset(x.state, contextId, subjectId, body.password)).cookieValue);
        x.res.status(204).end();
      }
    }),
  ],
});
