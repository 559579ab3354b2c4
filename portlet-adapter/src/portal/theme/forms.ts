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
