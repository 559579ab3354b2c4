import { principalName } from '../../../../common/src/principal-name';
import type { SessionSummary } from '../../sessions/session-manager';
import type { ConfigView } from '../config-view';
import { hidden, html, type Html } from './html';

export interface ConfigPageInput {
  view: ConfigView;
  sessions: SessionSummary[];
  /** More live sessions than listed. */
  truncated: boolean;
  /** The handle of the session looking at the page. */
  ownHandle: string;
  /** Where the forms post. */
  endAction: string;
  reloadAction?: string;
  notice?: string;
}

const list = (values: readonly string[] | undefined) => (values && values.length ? values.join(', ') : '—');
const yesNo = (value: boolean) => (value ? 'yes' : 'no');
const time = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function table(headings: string[], rows: Array<Array<string | Html>>): Html {
  if (rows.length === 0) return html`<p>None.</p>`;
  return html`<table><thead><tr>${headings.map((h) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table>`;
}

function sessionRows(input: ConfigPageInput): Html {
  const rows = input.sessions.map((s) => [
    html`<code>${s.handle}</code>${s.handle === input.ownHandle ? ' (yours)' : ''}`,
    s.type,
    s.clientId || '—',
    s.principal ? principalName(s.principal) : '—',
    String(s.level),
    s.authenticator,
    time(s.created),
    time(s.lastAccess),
    html`<form method="post" action="${input.endAction}">${hidden({ handle: s.handle })}<button type="submit" aria-label="End session ${s.handle}">End</button></form>`,
  ]);
  const more = input.truncated ? html`<p>Only the first ${input.sessions.length} are listed.</p>` : html``;
  return html`${table(['handle', 'type', 'client', 'principal', 'level', 'authenticator', 'created', 'last access', 'action'], rows)}${more}`;
}

/** GET {base}/config for a browser: the running configuration without secrets, live sessions, reload. */
export function configPage(input: ConfigPageInput): Html {
  const { view } = input;
  const notice = input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : html``;
  const reload = input.reloadAction
    ? html`<form method="post" action="${input.reloadAction}"><button type="submit">Reload the configuration file</button></form>`
    : html`<p>This server runs without a configuration file: there is nothing to reload.</p>`;
  return html`${notice}
<h2>Live sessions</h2>
<p>Stored sessions by public handle. Anonymous sessions without flow state live only in their signed cookie and are not listed.</p>
${sessionRows(input)}
<h2>Reload</h2>${reload}
<h2>Clients</h2>
${table(['id', 'authenticators', 'contexts', 'default context', 'principal assertion', 'secret'], view.clients.map((c) => [c.id, list(c.authenticators), list(c.contexts), c.defaultContext ?? '—', yesNo(c.allowPrincipalAssertion), c.hasSecret ? 'set (hidden)' : 'none']))}
<h2>Contexts</h2>
${table(['id', 'store', 'registration', 'forgotten password', 'search attributes'], view.contexts.map((c) => [c.id, c.store, yesNo(c.registration), yesNo(c.forgottenPassword), list(c.searchAttributes)]))}
<h2>Authenticators</h2>
${table(['id', 'kind', 'variant', 'session type', 'context'], view.authenticators.map((a) => [a.id, a.kind, a.variant, a.sessionType, a.context ?? '—']))}
<h2>Policies</h2>
${table(['id', 'effect', 'session types', 'clients', 'roles', 'operations', 'targets'], view.policies.map((p) => [p.id, p.effect, list(p.sessionTypes), list(p.clients), list(p.roles), list(p.operations), list(p.targets)]))}
<h2>Reserved ids</h2><p>${list(view.reservedIds)}</p>
<h2>System user</h2><p>${view.system?.userId ?? '—'}</p>`;
}
