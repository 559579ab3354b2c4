import { Html, html } from '../../../../common/src/html';

/** The portal's login form (SPEC 11: fields labelled "User name" and "Password"). */
export function loginForm(model: { action: string; csrf: string; goto?: string; user?: string; message?: string }): Html {
  return html`<div class="portal-login">
${model.message ? html`<p class="portlet-msg-error" role="alert">${model.message}</p>` : new Html('')}
<form method="post" action="${model.action}">
<input type="hidden" name="_csrf" value="${model.csrf}">${model.goto ? html`<input type="hidden" name="goto" value="${model.goto}">` : new Html('')}
<label class="portlet-form-label" for="portal-user">User name</label>
<input class="portlet-form-input-field" id="portal-user" name="user" autocomplete="username" required value="${model.user ?? ''}">
<label class="portlet-form-label" for="portal-password">Password</label>
<input class="portlet-form-input-field" id="portal-password" name="password" type="password" autocomplete="current-password" required>
<div><button class="portlet-form-button" type="submit">Log in</button></div>
</form></div>`;
}

/** A page-sized message (errors, refusals) in the portal's layout. */
export function messageBody(text: string, link?: { href: string; label: string }): Html {
  return html`<p class="portlet-msg-error" role="alert">${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : new Html('')}`;
}

/** The second step of a login or step-up (SPEC 15): the code of the authenticator app, or a recovery code. */
export function codeForm(model: { action: string; csrf: string; goto?: string; restart: string; message?: string; stepUp?: boolean }): Html {
  return html`<div class="portal-login">
${model.message ? html`<p class="portlet-msg-error" role="alert">${model.message}</p>` : new Html('')}
<p class="portlet-font" id="portal-otp-hint">Enter the 6-digit code your authenticator app shows for svc, or one of your recovery codes.</p>
<form method="post" action="${model.action}">
<input type="hidden" name="_csrf" value="${model.csrf}">${model.goto ? html`<input type="hidden" name="goto" value="${model.goto}">` : new Html('')}
<label class="portlet-form-label" for="portal-otp">Code</label>
<input class="portlet-form-input-field" id="portal-otp" name="otp" autocomplete="one-time-code" spellcheck="false" autocapitalize="off" maxlength="64" required aria-describedby="portal-otp-hint">
<div><button class="portlet-form-button" type="submit">${model.stepUp ? 'Confirm' : 'Log in'}</button></div>
</form>
<p class="portlet-font"><a href="${model.restart}">Start again</a></p></div>`;
}

/** A step-up (SPEC 15): the portal user's password again, then the code; the user name is shown, not asked. */
export function stepUpForm(model: { action: string; csrf: string; user: string; goto?: string; message?: string; cancel: string }): Html {
  return html`<div class="portal-login">
${model.message ? html`<p class="portlet-msg-error" role="alert">${model.message}</p>` : new Html('')}
<p class="portlet-font">What you asked for needs your second factor. Confirm it is you: your password, then the code of your authenticator app.</p>
<form method="post" action="${model.action}">
<input type="hidden" name="_csrf" value="${model.csrf}">${model.goto ? html`<input type="hidden" name="goto" value="${model.goto}">` : new Html('')}
<label class="portlet-form-label" for="portal-user">User name</label>
<input class="portlet-form-input-field" id="portal-user" name="user" autocomplete="username" readonly value="${model.user}">
<label class="portlet-form-label" for="portal-password">Password</label>
<input class="portlet-form-input-field" id="portal-password" name="password" type="password" autocomplete="current-password" required>
<div><button class="portlet-form-button" type="submit">Continue</button></div>
</form>
<p class="portlet-font"><a href="${model.cancel}">Cancel</a></p></div>`;
}

/**
 * The step-up of a user who has no second factor (SPEC 15): it could never succeed, so no form, but
 * why, and the way to Self-Service (`setup`, when the portal shows it to this user) to turn one on.
 */
export function ownFactorNeeded(model: { setup?: string; back: string }): Html {
  return html`<div class="portal-login">
<p class="portlet-msg-info" role="status">What you asked for needs you to confirm it is you with your own second factor, and you have none: your password alone cannot confirm it. Turn on two-step sign-in in Self-Service first, then try again.</p>
${model.setup ? html`<p class="portlet-font"><a href="${model.setup}">Turn on two-step sign-in in Self-Service</a></p>` : new Html('')}
<p class="portlet-font"><a href="${model.back}">Back</a></p></div>`;
}
