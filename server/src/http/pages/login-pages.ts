import { hidden, html, type Html } from './html';

export interface LoginPageInput {
  action: string;
  names: { user: string; password: string; client: string };
  clientId?: string;
  goto?: string;
  /** The self-service pages, when a context offers them. */
  register?: string;
  forgot?: string;
}

function selfService(input: LoginPageInput): Html {
  const links = [
    input.forgot ? html`<a href="${input.forgot}">Forgotten password?</a>` : undefined,
    input.register ? html`<a href="${input.register}">Register</a>` : undefined,
  ].filter((link): link is Html => link !== undefined);
  return links.length ? html`<p>${links.map((link, i) => (i ? html` · ${link}` : link))}</p>` : html``;
}

/** GET {base}/login: the form only; it never takes credentials itself. */
export function loginPage(input: LoginPageInput): Html {
  return html`<form method="post" action="${input.action}" autocomplete="on">
${hidden({ [input.names.client]: input.clientId, goto: input.goto })}
<label for="user">User name or e-mail</label><input id="user" name="${input.names.user}" autocomplete="username" required maxlength="256">
<label for="password">Password</label><input id="password" type="password" name="${input.names.password}" autocomplete="current-password" required maxlength="1024">
<button type="submit">Log in</button>
</form>${selfService(input)}`;
}

/**
 * The second page of a browser's login (SPEC 15): the code of the authenticator app, or a recovery
 * code. `pending` stays in its own cookie; the form carries only the client and `goto`.
 */
export function otpPage(input: { action: string; clientName: string; clientId?: string; goto?: string; otp: string }): Html {
  return html`<form method="post" action="${input.action}" autocomplete="off">
${hidden({ [input.clientName]: input.clientId, goto: input.goto })}
<p>Enter the code your authenticator app shows (or one of your recovery codes).</p>
<label for="otp">Code</label><input id="otp" name="${input.otp}" inputmode="numeric" autocomplete="one-time-code" required maxlength="64">
<button type="submit">Continue</button>
</form>`;
}

/** GET {base}/logout: a confirmation whose form POSTs (a GET must never end a session). */
export function logoutPage(action: string, goto?: string): Html {
  return html`<form method="post" action="${action}">${hidden({ goto })}<p>End your session?</p><button type="submit">Log out</button></form>`;
}

/** GET {base}/anon/login-error: says as little as the JSON answer does. */
export function loginErrorPage(loginUrl: string): Html {
  return html`<p>The login failed. Check your user name and password and try again.</p><p><a href="${loginUrl}">Back to the login page</a></p>`;
}
