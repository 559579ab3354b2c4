import { problemBlock, type PageProblem } from './error-pages';
import { hidden, html, type Html } from './html';

/** What every step's form carries: where it posts, the context, and a problem to show. */
export interface ForgotStep {
  action: string;
  contextId: string;
  problem?: PageProblem;
  /** SPEC 16: the page that mails a link instead, where the context offers both. */
  linkUrl?: string;
}

const problemOf = (step: ForgotStep) => (step.problem ? problemBlock(step.problem) : html``);
const startAgain = (step: ForgotStep) => html`<p><a href="${step.action}?context=${encodeURIComponent(step.contextId)}">Start again</a></p>`;

/** Step 1: which account. */
export function forgotIdForm(step: ForgotStep, id = ''): Html {
  return html`${problemOf(step)}<form method="post" action="${step.action}">
${hidden({ step: 'id', context: step.contextId })}
<label for="id">User id</label><input id="id" name="id" value="${id}" autocomplete="username" required maxlength="256">
<button type="submit">Continue</button>
</form>${step.linkUrl ? html`<p><a href="${step.linkUrl}">Get a link by e-mail instead</a></p>` : html``}`;
}

/** Step 2: the account's questions (or decoys: the page cannot tell, and neither can the visitor). */
export function forgotQuestionsForm(step: ForgotStep, id: string, questions: string[]): Html {
  const inputs = questions.map((question, i) => html`<label for="answer${i}">${question}</label><input id="answer${i}" name="answer.${i}" autocomplete="off" required maxlength="1024">`);
  return html`${problemOf(step)}<form method="post" action="${step.action}">
${hidden({ step: 'answers', context: step.contextId, id })}
${inputs}
<button type="submit">Check the answers</button>
</form>${startAgain(step)}`;
}

/** Step 3: the new password, once. */
export function forgotPasswordForm(step: ForgotStep, id: string): Html {
  return html`${problemOf(step)}<form method="post" action="${step.action}">
${hidden({ step: 'password', context: step.contextId, id })}
<label for="password">New password</label><input id="password" type="password" name="password" autocomplete="new-password" required maxlength="256">
<button type="submit">Set the password</button>
</form>${startAgain(step)}`;
}

/** The end: the password changed and every session of the account ended. */
export function forgotDonePage(loginUrl: string): Html {
  return html`<p class="notice">Your password was changed, and every session of your account was ended.</p><p><a href="${loginUrl}">Log in</a></p>`;
}
