import { Router, type Request, type Response } from 'express';
import { AccessDenied, InvalidRequest, NotFound } from '../../../common/src/errors';
import type { ContextConfig } from '../config/types';
import type { Core } from '../core';
import { forgottenPasswordOf, type FlowSession } from '../flows/forgotten-password';
import { assertSubjectId } from '../subjects/subject-id';
import { formBody, queryParam, rawBody } from './body';
import { setSessionCookie } from './cookies';
import { answerAsPage, formProblem } from './error-handler';
import type { PageProblem } from './pages/error-pages';
import { forgotDonePage, forgotIdForm, forgotPasswordForm, forgotQuestionsForm, type ForgotStep } from './pages/forgot-pages';
import { sendPage, type Html } from './pages/html';
import { checkSameOrigin } from './same-origin';

const BODY_LIMIT = 16 * 1024;
const TITLE = 'Forgotten password';
/** The flow takes at most ten answers (as its REST face does). */
const MAX_ANSWERS = 10;

/** The context of the flow: the one named, or the first with the forgotten-password flow on. */
function chosenContext(core: Core, id: string | undefined): ContextConfig {
  const open = core.config.contexts.filter((context) => context.forgottenPassword.enabled);
  const found = id === undefined ? open[0] : open.find((context) => context.id === id);
  if (!found) throw new NotFound(id === undefined ? 'no context has the forgotten-password flow' : `context ${id} has no forgotten-password flow`);
  return found;
}

/** The flow is for visitors who are not logged in (the flow itself refuses others too). */
function assertVisitor(req: Request): void {
  const type = req.svc.session.type;
  if (type !== 'ANON' && type !== 'INTERNAL') throw new AccessDenied(403, false, 'you are logged in: log out first to reset a forgotten password');
}

/** The session to continue with: each step of the flow keeps its state in a new signed cookie value. */
function adopt(core: Core, req: Request, res: Response, cookieValue: string | undefined): void {
  if (cookieValue === undefined || cookieValue === req.svc.cookieValue) return;
  setSessionCookie(core, req, res, cookieValue);
  req.svc.cookieValue = cookieValue;
}

function show(res: Response, problem: PageProblem | undefined, body: Html): void {
  if (problem) for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  sendPage(res, problem?.status ?? 200, TITLE, body);
}

/** `answer.0`, `answer.1`, … in order, up to the first missing one. */
function answersOf(params: Record<string, string>): string[] {
  const answers: string[] = [];
  while (answers.length < MAX_ANSWERS && params[`answer.${answers.length}`] !== undefined) answers.push(params[`answer.${answers.length}`]);
  return answers;
}

async function showQuestions(core: Core, req: Request, res: Response, step: ForgotStep, flowSession: FlowSession, id: string): Promise<void> {
  const outcome = await forgottenPasswordOf(core).questions(flowSession, step.contextId, id);
  adopt(core, req, res, outcome.cookieValue);
  show(res, step.problem, forgotQuestionsForm(step, id, outcome.result));
}

async function postForgot(core: Core, req: Request, res: Response): Promise<void> {
  checkSameOrigin(core, req);
  const params = formBody(req);
  const context = chosenContext(core, params.context);
  assertVisitor(req);
  const flow = forgottenPasswordOf(core);
  const step: ForgotStep = { action: `${core.config.server.contextRoot}/anon/forgot`, contextId: context.id };
  const current = (): FlowSession => ({ session: req.svc.session, cookieValue: req.svc.cookieValue, peer: req.svc.peer });
  const id = params.id ?? '';
  try {
    assertSubjectId(id, 'id');
  } catch (error) {
    const problem = formProblem(error);
    if (!problem) throw error;
    return show(res, problem, forgotIdForm({ ...step, problem }, id));
  }
  switch (params.step) {
    case 'id':
      return showQuestions(core, req, res, step, current(), id);
    case 'answers':
      try {
        adopt(core, req, res, (await flow.answer(current(), context.id, id, answersOf(params))).cookieValue);
      } catch (error) {
        const problem = formProblem(error);
        if (!problem) throw error;
        return showQuestions(core, req, res, { ...step, problem }, current(), id);
      }
      return show(res, undefined, forgotPasswordForm(step, id));
    case 'password':
      try {
        adopt(core, req, res, (await flow.reset(current(), context.id, id, params.password ?? '')).cookieValue);
      } catch (error) {
        const problem = formProblem(error);
        if (!problem) throw error;
        return show(res, problem, forgotPasswordForm({ ...step, problem }, id));
      }
      return show(res, undefined, forgotDonePage(`${core.config.server.contextRoot}/login`));
    default:
      throw new InvalidRequest('step must be id, answers or password');
  }
}

/**
 * `{base}/anon/forgot` (SPEC section 7): the forgotten-password flow as pages (id, questions,
 * answers, new password) over the same flow object as the REST routes, so the session binding,
 * decoys, the wrong-answer counter and the end of the subject's sessions are the same.
 */
export function forgotPageRoutes(core: Core): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/anon/forgot', (req, res) => {
    answerAsPage(req);
    const context = chosenContext(core, queryParam(req, 'context'));
    assertVisitor(req);
    show(res, undefined, forgotIdForm({ action: `${core.config.server.contextRoot}/anon/forgot`, contextId: context.id }));
  });
  router.post('/anon/forgot', (req, _res, next) => {
    answerAsPage(req);
    next();
  }, rawBody(BODY_LIMIT), (req, res) => postForgot(core, req, res));
  return router;
}
