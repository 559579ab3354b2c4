import { problemBlock, type PageProblem } from './error-pages';
import { hidden, html, type Html } from './html';

/**
 * SPEC 16's pages: a link's GET shows a form and only its POST uses the token, so a mail scanner
 * that fetches the link uses nothing up; asking for a reset link or a new verification link.
 */
export interface MailForm {
  action: string;
  problem?: PageProblem;
}

const problemOf = (form: MailForm) => (form.problem ? problemBlock(form.problem) : html``);

/** GET {base}/anon/reset?token=…: the new password (the token travels in the form, not used yet). */
export function resetPasswordForm(form: MailForm, token: string): Html {
  return html`${problemOf(form)}<form method="post" action="${form.action}">
${hidden({ token })}
<label for="password">New password</label><input id="password" type="password" name="password" autocomplete="new-password" required minlength="8" maxlength="256" aria-describedby="password-hint">
<p id="password-hint" class="hint">At least 8 characters; not a common password.</p>
<button type="submit">Set the password</button>
</form>`;
}

/** GET {base}/anon/reset without a token: ask for a link. */
export function resetRequestForm(form: MailForm, contextId: string, others: Array<{ id: string; href: string }>, questionsUrl?: string): Html {
  const choice = others.length > 1 ? html`<p>Account in: ${others.map((o) => (o.id === contextId ? html`<strong>${o.id}</strong> ` : html`<a href="${o.href}">${o.id}</a> `))}</p>` : html``;
  return html`${choice}${problemOf(form)}<p>Give your user name or e-mail address: we mail a link to choose a new password.</p><form method="post" action="${form.action}">
${hidden({ context: contextId })}
<label for="name">User name or e-mail address</label><input id="name" name="name" autocomplete="username" required maxlength="256">
<button type="submit">Send me a link</button>
</form>${questionsUrl ? html`<p><a href="${questionsUrl}">Answer your security questions instead</a></p>` : html``}`;
}

/** After asking: the same words whatever the name. */
export function linkOnItsWay(message: string, loginUrl: string): Html {
  return html`<p class="notice" role="status">${message}</p><p>The link works for a short time and only once. Nothing arrived? Look in your spam folder.</p><p><a href="${loginUrl}">Back to the login</a></p>`;
}

/** GET {base}/anon/verify?token=…: one button that uses the link. */
export function verifyForm(form: MailForm, token: string): Html {
  return html`${problemOf(form)}<p>Confirm this e-mail address for your account.</p><form method="post" action="${form.action}">
${hidden({ token })}
<button type="submit">Confirm my address</button>
</form>`;
}

/** GET {base}/anon/verify without a token: ask for a new verification link. */
export function resendForm(form: MailForm, contextId: string): Html {
  return html`${problemOf(form)}<p>Registered but the link did not arrive or expired? Give your user name or e-mail address for a new one.</p><form method="post" action="${form.action}">
${hidden({ context: contextId })}
<label for="name">User name or e-mail address</label><input id="name" name="name" autocomplete="username" required maxlength="256">
<button type="submit">Send a new link</button>
</form>`;
}

/** A link that cannot be used (unknown, used, expired). */
export function linkUnusable(detail: string, againUrl: string, againText: string): Html {
  return html`<p class="error" role="alert">${detail}</p><p><a href="${againUrl}">${againText}</a></p>`;
}

/** Done: the address confirmed, or the password changed. */
export function mailDone(text: string, loginUrl: string): Html {
  return html`<p class="notice" role="status">${text}</p><p><a href="${loginUrl}">Log in</a></p>`;
}
