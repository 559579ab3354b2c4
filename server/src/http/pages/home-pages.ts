import { html, type Html } from './html';

export interface HomePageInput {
  /** `contextId/uniqueId` (or the system user's id) of a logged-in session; undefined for a visitor. */
  principal?: string;
  sessionType: 'ANON' | 'USER' | 'SYSTEM';
  clientId: string;
  /** Pages this session may use, each with its label. */
  links: { href: string; label: string }[];
  /** The log-out form's action, for a logged-in session. */
  logout?: string;
  /** The login page, for a visitor. */
  login?: string;
}

const list = (links: HomePageInput['links']): Html =>
  links.length ? html`<nav aria-label="Pages"><ul>${links.map((l) => html`<li><a href="${l.href}">${l.label}</a></li>`)}</ul></nav>` : html``;

/** GET {base}/: where a browser lands after a login without goto (SPEC section 7). */
export function homePage(input: HomePageInput): Html {
  if (!input.principal) {
    return html`<p>You are not logged in.</p>${list([...(input.login ? [{ href: input.login, label: 'Log in' }] : []), ...input.links])}`;
  }
  const client = input.clientId ? html` through client <code>${input.clientId}</code>` : html``;
  return html`<p>You are logged in as <strong>${input.principal}</strong> (${input.sessionType} session${client}).</p>
${list(input.links)}
${input.logout ? html`<form method="post" action="${input.logout}"><button type="submit">Log out</button></form>` : html``}`;
}
