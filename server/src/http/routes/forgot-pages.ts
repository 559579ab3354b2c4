import type { Response } from 'express';
import { AccessDenied, InvalidRequest, NotFound } from '../../../../common/src/errors';
import type { ContextConfig, SvcConfig } from '../../config/types';
import type { ForgottenPassword } from '../../flows/forgotten-password';
import { assertSubjectId } from '../../subjects/subject-id';
import { formBody, queryParam, readBody } from '../body';
import { setSessionCookie } from '../cookies';
import { formProblem } from '../error-handler';
import { step, type Exchange } from '../exchange';
import { asPage } from '../page-access';
import type { PageProblem } from '../pages/error-pages';
import { forgotDonePage, forgotIdForm, forgotPasswordForm, forgotQuestionsForm, type ForgotStep } from '../pages/forgot-pages';
import { sendPage, type Html } from '../pages/html';
import { sameOrigin } from '../same-origin';
import type { HttpServices } from '../services';

const BODY_LIMIT = 16 * 1024;
const TITLE = 'Forgotten password';
/** The flow takes at most ten answers (as its REST face does). */
const MAX_ANSWERS = 10;

/** The context of the flow: the one named, or the first with the forgotten-password flow on. */
function chosenContext(config: SvcConfig, id: string | undefined): ContextConfig {
  const open = config.contexts.filter((context) => context.forgottenPassword.enabled && context.forgottenPassword.methods.includes('questions'));
  const found = id === undefined ? open[0] : open.find((context) => context.id === id);
  if (!found) throw new NotFound(id === undefined ? 'no context has the forgotten-password flow' : `context ${id} has no forgotten-password flow`);
  return found;
}

/** The flow is for visitors who are not logged in (the flow itself refuses others too). */
function assertVisitor(x: Exchange): void {
  const type = x.state.session.type;
  if (type !== 'ANON' && type !== 'INTERNAL') throw new AccessDenied(403, false, 'you are logged in: log out first to reset a forgotten password');
}

/** The session to continue with: each step of the flow keeps its state in a new signed cookie value. */
function adopt(x: Exchange, cookieValue: string | undefined): void {
  if (cookieValue === undefined || cookieValue === x.state.cookieValue) return;
  setSessionCookie(x, cookieValue);
  x.state.cookieValue = cookieValue;
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

async function showQuestions(flow: ForgottenPassword, x: Exchange, form: ForgotStep, id: string): Promise<void> {
  const outcome = await flow.questions(x.state, form.contextId, id);
  adopt(x, outcome.cookieValue);
  show(x.res, form.problem, forgotQuestionsForm(form, id, outcome.result));
}

/** POST {base}/anon/forgot: one step of the flow (`step` = id, answers or password), each answered by the next form. */
async function postForgot(flow: ForgottenPassword, x: Exchange): Promise<void> {
  const params = formBody(x.req);
  const context = chosenContext(x.config, params.context);
  assertVisitor(x);
  const form: ForgotStep = { action: `${x.config.server.contextRoot}/anon/forgot`, contextId: context.id };
  const id = params.id ?? '';
  try {
    assertSubjectId(id, 'id');
  } catch (error) {
    const problem = formProblem(error);
    if (!problem) throw error;
    return show(x.res, problem, forgotIdForm({ ...form, problem }, id));
  }
  switch (params.step) {
    case 'id':
      return showQuestions(flow, x, form, id);
    case 'answers':
      try {
        adopt(x, (await flow.answer(x.state, context.id, id, answersOf(params))).cookieValue);
      } catch (error) {
        const problem = formProblem(error);
        if (!problem) throw error;
        return showQuestions(flow, x, { ...form, problem }, id);
      }
      return show(x.res, undefined, forgotPasswordForm(form, id));
    case 'password':
      try {
        adopt(x, (await flow.reset(x.state, context.id, id, params.password ?? '')).cookieValue);
      } catch (error) {
        const problem = formProblem(error);
        if (!problem) throw error;
        return show(x.res, problem, forgotPasswordForm({ ...form, problem }, id));
      }
      return show(x.res, undefined, forgotDonePage(`${x.config.server.contextRoot}/login`));
    default:
      throw new InvalidRequest('step must be id, answers or password');
  }
}

/**
 * `{base}/anon/forgot` (SPEC section 7): the forgotten-password flow as pages (id, questions,
 * answers, new password) over the same flow object as the REST routes, so the session binding,
 * decoys, the wrong-answer counter and the end of the subject's sessions are the same.
 */
export const forgotPageRoutes = (s: Pick<HttpServices, 'forgottenPassword'>) => ({
  GET: [
    asPage,
    step('forgotIdForm', (x) => {
      const context = chosenContext(x.config, queryParam(x.req, 'context'));
      assertVisitor(x);
      const byLink = x.config.mail !== undefined && context.forgottenPassword.methods.includes('email');
      show(x.res, undefined, forgotIdForm({ action: `${x.config.server.contextRoot}/anon/forgot`, contextId: context.id, linkUrl: byLink ? `${x.config.server.contextRoot}/anon/reset?context=${encodeURIComponent(context.id)}` : undefined }));
    }),
  ],
  POST: [asPage, readBody(BODY_LIMIT), sameOrigin, step('forgotStep', (x) => postForgot(s.forgottenPassword, x))],
});
