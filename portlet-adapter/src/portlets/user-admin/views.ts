/**
 * The User Admin's markup: search form, result table (sortable headers, status column, a checkbox
 * per row for the bulk actions) with paging, one subject with its recent events, the bulk
 * confirmation, and the create, edit and delete forms. Pure functions of the data and the decisions;
 * the portlet fetches both.
 */
import type { RenderResponse } from '../../api';
import { displayValue, labelOf, readableAttributes, type ContextDefinition } from '../shared/definition';
import type { Flash } from '../shared/flash';
import { attributeField } from '../shared/forms';
import type { Decision } from '../../gateway-client';
import { actionForm, button, details, field, html, link, ownFactorNeeded, stepUpLink, type Html } from '../shared/markup';
import type { LockoutState, OtpState, SearchPage, Subject, SubjectEventPage, SubjectStatus } from '../shared/svc';
import { OP } from '../shared/svc-portlet';
import { hiddenFieldsOf, urlTo, type AdminState, type BulkAction } from './state';

/** What the check allowed for one subject. */
export interface RowRights {
  read: boolean;
  update: boolean;
  delete: boolean;
  lift: boolean;
}

const REPEAT = 'passwordRepeat';

function form(response: RenderResponse, state: AdminState, op: string, extra: Record<string, string | undefined>, body: Html, label: string): Html {
  return actionForm(response.createActionURL().toString(), { [OP]: op, ...hiddenFieldsOf(state), ...extra }, body, label);
}

export function searchForm(response: RenderResponse, state: AdminState, flash: Flash | undefined): Html {
  const ns = response.getNamespace();
  const values = flash?.values ?? {};
  const body = html`<div class="svc-search">${field(ns, { name: 'search', label: 'Search', kind: 'search', value: values.search ?? state.search, hint: 'Words from the user name, e-mail address or names.' })}${field(ns, {
    name: 'filter',
    label: 'SCIM filter',
    value: values.filter ?? state.filter,
    error: flash?.fields?.filter,
    hint: 'For example: mail ew "@example.com" and not (disabled eq "true")',
  })}${button('Search')}</div>`;
  // The order chosen by the headers is kept by a new search (its first page).
  const kept = hiddenFieldsOf({ sort: state.sort, order: state.order });
  return actionForm(response.createActionURL().toString(), { [OP]: 'search', ...kept }, body, 'Search subjects');
}

/** `2026-11-27T01:23:45.000Z` → `2026-11-27 01:23 UTC` (the script writes the same), or with the seconds. */
export function timeText(iso: string, seconds = false): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, seconds ? 19 : 16)} UTC` : iso;
}

/** A status as the column shows it: Active, Disabled, Locked until …, or both. */
export function statusText(status: Pick<SubjectStatus, 'disabled' | 'locked' | 'lockedUntil'> | undefined): string {
  if (!status) return 'Unknown';
  const locked = status.locked ? (status.lockedUntil ? `Locked until ${timeText(status.lockedUntil)}` : 'Locked') : '';
  if (status.disabled) return locked ? `Disabled; ${locked.charAt(0).toLowerCase()}${locked.slice(1)}` : 'Disabled';
  return locked || 'Active';
}

function statusKind(status: SubjectStatus | undefined): string {
  if (!status) return 'unknown';
  return status.locked ? 'locked' : status.disabled ? 'disabled' : 'active';
}

function statusBadge(status: SubjectStatus | undefined): Html {
  return html`<span class="svc-status svc-status-${statusKind(status)}">${statusText(status)}</span>`;
}

/** The columns a header may sort by: uniqueId and the context's search attributes (SPEC 3). */
export function sortableColumns(definition: ContextDefinition, columns: readonly string[]): string[] {
  return ['uniqueId', ...columns].filter((c) => c === 'uniqueId' || definition.searchAttributes.includes(c));
}

/** A column header: a link to the list sorted by it (ascending first, then the other way), and `aria-sort` on the sorted one. */
function header(response: RenderResponse, state: AdminState, column: string, sortable: boolean): Html {
  const label = labelOf(column);
  if (!sortable) return html`<th class="portlet-table-header svc-nosort" scope="col">${label}</th>`;
  const current = (state.sort || 'uniqueId') === column;
  const next = current && state.order === 'asc' ? 'desc' : 'asc';
  const url = urlTo(response, state, { sort: column === 'uniqueId' ? '' : column, order: next, offset: 0, view: 'list' });
  const mark = current ? html`<span class="svc-sort-mark" aria-hidden="true">${state.order === 'asc' ? '▲' : '▼'}</span>` : html`<span class="svc-sort-mark svc-sort-none" aria-hidden="true">↕</span>`;
  const hint = html`<span class="visually-hidden">, sort ${next === 'asc' ? 'ascending' : 'descending'}</span>`;
  const sort = current ? html` aria-sort="${state.order === 'asc' ? 'ascending' : 'descending'}"` : html``;
  return html`<th class="portlet-table-header" scope="col"${sort}><a class="svc-sort" href="${url}">${label}${hint}${mark}</a></th>`;
}

/** What the bulk form may offer: disable and enable need UPDATE of some row (and a `disabled` attribute), delete needs DELETE of some row. */
export function bulkChoices(definition: ContextDefinition, rights: readonly RowRights[]): BulkAction[] {
  const update = rights.some((r) => r.update) && definition.attributes.disabled !== undefined;
  const remove = rights.some((r) => r.delete);
  return [...(update ? (['disable', 'enable'] as const) : []), ...(remove ? (['delete'] as const) : [])];
}

const BULK_WORDS: Record<BulkAction, { verb: string; done: string; label: string }> = {
  disable: { verb: 'Disable', done: 'disabled', label: 'Disable' },
  enable: { verb: 'Enable', done: 'enabled', label: 'Enable' },
  delete: { verb: 'Delete', done: 'deleted', label: 'Delete' },
};
export { BULK_WORDS };

export interface TableOptions {
  definition: ContextDefinition;
  columns: string[];
  rights: RowRights[];
  contextId: string;
  /** The administrator's own uniqueId in this context (never in a bulk selection), if any. */
  self?: string;
  /** The live search's template: its ids differ from the page's (the template's copy replaces the page's). */
  template?: boolean;
}

/**
 * The results: the bulk form (its checkboxes sit in the rows, tied to it by `form=`), the table with
 * its sortable headers and status column, and the pager. Each row's controls and checkbox come
 * from the page's one batch of evaluations; "Lift lockout" only where the status says locked.
 */
export function resultTable(response: RenderResponse, state: AdminState, page: SearchPage, options: TableOptions): Html {
  if (page.total === 0) return html`<p class="portlet-font" role="status">No subject matches.</p>`;
  const { columns, rights, contextId, definition } = options;
  const ns = response.getNamespace();
  const first = page.offset + 1;
  const last = page.offset + page.results.length;
  const sortable = new Set(sortableColumns(definition, columns));
  const choices = bulkChoices(definition, rights);
  const bulkId = `${ns}${options.template ? 'live_' : ''}bulk`;
  const selectHead = choices.length ? html`<th class="portlet-table-header svc-select svc-nosort" scope="col"><span class="visually-hidden">Selected</span></th>` : html``;
  const head = html`<tr class="svc-sort-row">${selectHead}${header(response, state, 'uniqueId', true)}${columns.map((c) => header(response, state, c, sortable.has(c)))}<th class="portlet-table-header svc-nosort" scope="col">Status</th><th class="portlet-table-header svc-nosort" scope="col">Actions</th></tr>`;
  const rows = page.results.map((subject, i) => {
    const may = rights[i];
    const id = subject.uniqueId;
    // data-right, data-column and data-status let the portal's live search fill a copy of a row (searchTemplate).
    const control = (right: keyof RowRights, markup: Html) => (may[right] ? html`<span class="svc-control" data-right="${right}">${markup}</span>` : html``);
    const locked = subject.status?.locked === true;
    const controls = [
      control('read', link(urlTo(response, state, { view: 'show', subject: id }), 'View', `View ${id}`)),
      control('update', link(urlTo(response, state, { view: 'edit', subject: id }), 'Edit', `Edit ${id}`)),
      control('delete', link(urlTo(response, state, { view: 'delete', subject: id }), 'Delete', `Delete ${id}`)),
      locked ? control('lift', form(response, state, 'lift', { target: id }, button('Lift lockout', { ariaLabel: `Lift lockout of ${id}` }), `Lift the lockout of ${id}`)) : html``,
    ];
    const selectable = (may.update || may.delete) && id !== options.self;
    const box = selectable
      ? html`<label class="svc-select-label" data-right="select"><input type="checkbox" form="${bulkId}" name="selected" value="${id}"${state.selected.includes(id) ? html` checked` : html``}><span class="visually-hidden">Select ${id}</span></label>`
      : html``;
    const select = choices.length ? html`<td class="svc-select">${box}</td>` : html``;
    const cells = columns.map((c) => html`<td data-column="${c}" data-label="${labelOf(c)}">${displayValue(subject.attributes[c])}</td>`);
    const status = html`<td data-status data-label="Status">${statusBadge(subject.status)}</td>`;
    return html`<tr class="${i % 2 ? 'portlet-table-alternate' : 'portlet-table-body'}">${select}<th scope="row">${id}</th>${cells}${status}<td class="svc-controls">${controls}</td></tr>`;
  });
  const caption = `Subjects ${first} to ${last} of ${page.total} in ${contextId}`;
  const table = html`<div class="svc-table-wrap"><table class="portlet-table-body svc-table svc-stack"><caption class="portlet-table-subheader">${caption}</caption><thead>${head}</thead><tbody>${rows}</tbody></table></div>`;
  // With a bulk form, the pager is its buttons: a move to another page posts the ticks and keeps them.
  const pages = choices.length ? pager(response, state, page, bulkId) : pager(response, state, page);
  return html`${bulkForm(response, state, choices, bulkId, elsewhere(state, page))}${table}${pages}`;
}

/** The selected subjects that are not rows of this page (ticked on other pages): the bulk form carries them as hidden fields. */
function elsewhere(state: AdminState, page: SearchPage): string[] {
  const here = new Set(page.results.map((s) => s.uniqueId));
  return state.selected.filter((id) => !here.has(id));
}

/**
 * The one bulk form: the action to take on the checked rows, sent to a confirmation page, and the
 * subjects selected on other pages (hidden fields, counted in words, with a link that drops them).
 */
function bulkForm(response: RenderResponse, state: AdminState, choices: readonly BulkAction[], id: string, carried: readonly string[]): Html {
  if (!choices.length) return html``;
  const options = choices.map((c) => html`<option value="${c}">${BULK_WORDS[c].label}</option>`);
  const fields = Object.entries({ [OP]: 'choose', ...hiddenFieldsOf(state) }).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const kept = carried.map((selected) => html`<input type="hidden" name="selected" value="${selected}">`);
  const clear = link(urlTo(response, state, { view: 'list' }), 'Clear the selection');
  const count = carried.length ? html`<p class="portlet-font svc-bulk-carried" id="${id}_carried">${carried.length} selected on other pages. ${clear}</p>` : html``;
  return html`<form method="post" action="${response.createActionURL().toString()}" class="svc-form svc-bulk" id="${id}" aria-label="Selected subjects">${fields}${kept}<label class="portlet-form-label" for="${id}_action">With the selected subjects</label><span class="svc-bulk-row"><select id="${id}_action" name="bulk" class="portlet-form-input-field">${options}</select>${button('Continue')}</span>${count}</form>`;
}

const PLACEHOLDER = 'svc-live-subject';
const SEARCH_PLACEHOLDER = 'svc-live-search';

/**
 * The results region, marked for the portal's live search (theme/script.ts): the search field, the
 * REST path of the search under `{portal}/api`, the order, the export link to follow the typed
 * search, and a `<template>` with the results rendered for one placeholder subject with every
 * control; the script drops the controls the check refuses and "Lift lockout" where not locked.
 */
export function liveResults(response: RenderResponse, state: AdminState, pageSize: number, options: TableOptions, results: Html): Html {
  const ns = response.getNamespace();
  const { contextId } = options;
  const placeholderPage: SearchPage = { results: [{ uniqueId: PLACEHOLDER, attributes: {}, status: { disabled: false, locked: true, lockedUntil: null } }], total: 1, offset: 0, quantity: pageSize };
  const all: RowRights = { read: true, update: true, delete: true, lift: true };
  // A typed search is a new search: its rows start a new selection, as the Search button's do.
  const template = resultTable(response, { ...state, view: 'list', search: SEARCH_PLACEHOLDER, offset: 0, selected: [] }, placeholderPage, { ...options, rights: [all], self: undefined, template: true });
  return html`<div data-svc-live-search data-api="${`/contexts/${encodeURIComponent(contextId)}/subjects`}" data-context="${contextId}" data-quantity="${pageSize}" data-sort="${state.sort}" data-order="${state.order}" data-self="${options.self ?? ''}" data-export="${ns}export" data-input="${ns}f_search" data-filter="${ns}f_filter" data-template="${ns}live_row" data-status="${ns}live_status" data-results="${ns}results" data-placeholder="${PLACEHOLDER}" data-search-placeholder="${SEARCH_PLACEHOLDER}"><p class="portlet-font-dim svc-live-status" role="status" id="${ns}live_status"></p><div id="${ns}results">${results}</div><template id="${ns}live_row">${template}</template></div>`;
}

/** "Create subject" and "Export CSV" (a plain link: the pass-through streams the core's CSV of this search, in this order). */
export function listControls(response: RenderResponse, createUrl: string | undefined, exportPath: string): Html {
  const ns = response.getNamespace();
  const create = createUrl ? link(createUrl, 'Create subject') : html``;
  return html`<p class="svc-controls">${create}<a class="portlet-font svc-link" id="${ns}export" href="${response.encodeURL(exportPath)}" download>Export CSV</a></p>`;
}

/**
 * Previous and next page: links (render URLs) or, given the bulk form's id, its submit buttons
 * (`moveTo` the page's offset), so that the rows ticked here go along with the move.
 */
function pager(response: RenderResponse, state: AdminState, page: SearchPage, bulkId?: string): Html {
  const size = page.quantity;
  const hasNext = page.offset + page.results.length < page.total;
  if (!page.offset && !hasNext) return html``;
  const to = (offset: number, text: string) =>
    bulkId
      ? html`<button type="submit" form="${bulkId}" name="moveTo" value="${String(offset)}" class="portlet-form-button svc-pager-button">${text}</button>`
      : link(urlTo(response, state, { offset }), text);
  const previous = page.offset > 0 ? to(Math.max(0, page.offset - size), 'Previous page') : html``;
  const next = hasNext ? to(page.offset + size, 'Next page') : html``;
  return html`<nav class="svc-pager" aria-label="Result pages">${previous} ${next}</nav>`;
}

export interface SubjectView {
  definition: ContextDefinition;
  subject: Subject;
  may: RowRights;
  /** `GET …/lockout`, when the check allows reading it. */
  lockout?: LockoutState;
  /** The newest events, when the check allows reading them. */
  events?: SubjectEventPage;
  /** Whether the subject has a second factor (SPEC 15), when the check allows reading it. */
  otp?: OtpState;
  /**
   * UPDATE of `…/otp`: removing the subject's second factor (which also needs a level 3 session);
   * `own_factor_needed`: allowed, but the administrator has no second factor of their own to reach
   * level 3 with, so the step-up the removal would meet can never succeed.
   */
  removeOtp?: Decision | 'own_factor_needed';
  /** Where the portal shows the administrator how to turn two-step sign-in on. */
  secondFactorPage?: string;
}

/** The words of the one thing a second factor's removal needs first. */
export const REMOVING_A_FACTOR = 'remove a second factor';

/** A second factor's state as the subject's view shows it. */
export function otpText(otp: OtpState): string {
  if (otp.state === 'confirmed') return `On (${otp.recoveryCodesLeft} of 10 recovery codes left)`;
  return otp.state === 'pending' ? 'Being set up (not confirmed yet)' : 'Off';
}

export function subjectDetails(response: RenderResponse, state: AdminState, view: SubjectView): Html {
  const { subject, may, lockout, events } = view;
  const id = subject.uniqueId;
  const disabled = subject.attributes.disabled === 'true';
  const status: Array<[string, string]> = lockout ? [['Status', statusText({ disabled, locked: lockout.locked, lockedUntil: lockout.lockedUntil })]] : [];
  const twoStep: Array<[string, string]> = view.otp ? [['Two-step sign-in', otpText(view.otp)]] : [];
  const rows: Array<[string, string]> = [['User name', id], ...status, ...twoStep, ...readableAttributes(view.definition).map((n): [string, string] => [labelOf(n), displayValue(subject.attributes[n])])];
  const hasFactor = view.otp !== undefined && view.otp.state !== 'none';
  const removeOtp =
    !hasFactor || view.removeOtp === undefined || view.removeOtp === 'deny' || view.removeOtp === 'own_factor_needed'
      ? html``
      : view.removeOtp === 'step_up'
        ? stepUpLink(response, 'Remove second factor')
        : link(urlTo(response, state, { view: 'otp', subject: id }), 'Remove second factor', `Remove the second factor of ${id}`);
  // In place of a control that could only lead to a step-up this administrator cannot complete.
  const ownFactor = hasFactor && view.removeOtp === 'own_factor_needed' ? ownFactorNeeded(REMOVING_A_FACTOR, view.secondFactorPage) : html``;
  const controls = [
    may.update ? link(urlTo(response, state, { view: 'edit', subject: id }), 'Edit') : html``,
    may.delete ? link(urlTo(response, state, { view: 'delete', subject: id }), 'Delete') : html``,
    removeOtp,
    may.lift && lockout?.locked ? form(response, state, 'lift', { target: id }, button('Lift lockout'), `Lift the lockout of ${id}`) : html``,
    link(urlTo(response, state, { view: 'list' }), 'Back to the list'),
  ];
  const recent = events ? recentEvents(response, state, id, events) : html``;
  return html`<h3 class="portlet-section-header">${id}</h3>${details(rows)}<div class="svc-controls">${controls}</div>${ownFactor}${recent}`;
}

const EVENT_WORDS: Record<string, string> = {
  login: 'Login',
  lockout: 'Lockout',
  subject_write: 'Changed',
  session_end: 'Sessions ended',
  second_factor: 'Second factor',
};

const OUTCOME_WORDS: Record<string, string> = { success: 'Succeeded', failure: 'Failed' };

/** An event's detail (`failure locked`, `success: givenName, mail`) as read: `Failed (locked)`, `Succeeded: givenName, mail`. */
export function detailText(detail: string): string {
  const [, outcome, reason, attributes] = /^(\S+)(?: ([^:]+))?(?:: (.*))?$/.exec(detail) ?? [];
  if (!outcome || !OUTCOME_WORDS[outcome]) return detail;
  return `${OUTCOME_WORDS[outcome]}${reason ? ` (${reason.replace(/_/g, ' ')})` : ''}${attributes ? `: ${attributes}` : ''}`;
}

/** A page of events as a table: when, what, the outcome and attribute names, who, from where. */
function eventTable(events: SubjectEventPage, caption: string): Html {
  const rows = events.events.map(
    (e, i) =>
      html`<tr class="${i % 2 ? 'portlet-table-alternate' : 'portlet-table-body'}"><td class="svc-event-when"><time datetime="${e.at}">${timeText(e.at, true)}</time></td><td class="svc-event-what">${EVENT_WORDS[e.type] ?? e.type}</td><td class="svc-event-what">${detailText(e.detail)}</td><td data-label="By">${e.principal ?? '—'}</td><td data-label="Client">${e.client ?? '—'}</td><td data-label="From">${e.peer ?? '—'}</td></tr>`,
  );
  const head = html`<tr>${['When', 'Event', 'Detail', 'By', 'Client', 'From'].map((h) => html`<th class="portlet-table-header svc-nosort" scope="col">${h}</th>`)}</tr>`;
  return html`<div class="svc-table-wrap"><table class="portlet-table-body svc-table svc-stack svc-events"><caption class="portlet-table-subheader">${caption}</caption><thead>${head}</thead><tbody>${rows}</tbody></table></div>`;
}

function recentEvents(response: RenderResponse, state: AdminState, id: string, events: SubjectEventPage): Html {
  const heading = html`<h4 class="portlet-section-subheader">Recent events</h4>`;
  if (events.total === 0) return html`${heading}<p class="portlet-font">No events are kept for ${id}.</p>`;
  const caption = events.total > events.events.length ? `The last ${events.events.length} of ${events.total} events of ${id}, newest first` : `The events of ${id}, newest first`;
  const more = events.total > events.events.length ? html`<p class="svc-controls">${link(urlTo(response, state, { view: 'events', subject: id, events: events.events.length }), `Older events of ${id}`)}</p>` : html``;
  return html`${heading}${eventTable(events, caption)}${more}`;
}

/** Every event of a subject, a page at a time (newer and older pages), with the way back to the subject. */
export function eventsPage(response: RenderResponse, state: AdminState, id: string, events: SubjectEventPage, pageSize: number): Html {
  const first = state.events + 1;
  const last = state.events + events.events.length;
  const body = events.events.length ? eventTable(events, `Events ${first} to ${last} of ${events.total} of ${id}, newest first`) : html`<p class="portlet-font">No more events of ${id}.</p>`;
  const newer = state.events > 0 ? link(urlTo(response, state, { view: 'events', subject: id, events: Math.max(0, state.events - pageSize) }), 'Newer events') : html``;
  const older = last < events.total ? link(urlTo(response, state, { view: 'events', subject: id, events: last }), 'Older events') : html``;
  const pages = newer.text || older.text ? html`<nav class="svc-pager" aria-label="Event pages">${newer} ${older}</nav>` : html``;
  const back = html`<p class="svc-controls">${link(urlTo(response, state, { view: 'show', subject: id }), `Back to ${id}`)}</p>`;
  return html`<h3 class="portlet-section-header">Events of ${id}</h3>${body}${pages}${back}`;
}

/**
 * The one confirmation page of a bulk action: the subjects it will change, and those it will not
 * (the check refused them, or it is the administrator's own account), from one batch of evaluations.
 */
export function bulkConfirmation(response: RenderResponse, state: AdminState, action: BulkAction, allowed: readonly string[], refused: ReadonlyArray<{ id: string; why: string }>): Html {
  const words = BULK_WORDS[action];
  // Back to the list's page it came from, the selection kept (to change it).
  const cancel = link(urlTo(response, state, { view: 'list', selected: state.selected }), 'Cancel');
  const skipped = refused.length
    ? html`<p class="portlet-font">Left as they are:</p><ul class="portlet-font svc-list">${refused.map((r) => html`<li>${r.id}: ${r.why}</li>`)}</ul>`
    : html``;
  if (!allowed.length) return html`<h3 class="portlet-section-header">${words.verb} subjects</h3><p class="portlet-msg-error" role="alert">You are not allowed to ${action} any of the selected subjects.</p>${skipped}<p class="svc-controls">${cancel}</p>`;
  const n = allowed.length;
  const what = action === 'delete' ? ' This ends their sessions and cannot be undone.' : action === 'disable' ? ' This ends their sessions; they cannot log in until enabled again.' : '';
  const alert = html`<p class="portlet-msg-alert">${words.verb} ${n === 1 ? 'this subject' : `these ${n} subjects`}?${what}</p>`;
  const list = html`<ul class="portlet-font svc-list">${allowed.map((id) => html`<li>${id}</li>`)}</ul>`;
  const targets = allowed.map((id) => html`<input type="hidden" name="target" value="${id}">`);
  const body = html`${alert}${list}${skipped}${targets}<input type="hidden" name="bulk" value="${action}">${button(`${words.verb} ${n === 1 ? '1 subject' : `${n} subjects`}`)} ${cancel}`;
  return html`<h3 class="portlet-section-header">${words.verb} subjects</h3>${form(response, state, 'bulk', {}, body, `${words.verb} the selected subjects`)}`;
}

/** The create form: every attribute of the definition, the password twice. */
export function createForm(response: RenderResponse, state: AdminState, definition: ContextDefinition, flash: Flash | undefined): Html {
  const ns = response.getNamespace();
  const values = flash?.values ?? {};
  const fields = ['uniqueId', ...Object.keys(definition.attributes)].flatMap((name) => {
    const one = attributeField(ns, definition, name, { values, errors: flash?.fields, creating: true });
    if (name !== definition.passwordAttribute) return [one];
    return [one, field(ns, { name: REPEAT, label: 'Repeat the password', kind: 'password', error: flash?.fields?.[REPEAT], autocomplete: 'new-password' })];
  });
  const cancel = link(urlTo(response, state, { view: 'list' }), 'Cancel');
  return html`<h3 class="portlet-section-header">New subject</h3>${form(response, state, 'create', {}, html`${fields}${button('Create subject')} ${cancel}`, 'New subject')}`;
}

/** The edit form: immutable attributes read-only; write-only ones (the password) set only when filled in. */
export function editForm(response: RenderResponse, state: AdminState, definition: ContextDefinition, subject: Subject, etag: string | undefined, flash: Flash | undefined): Html {
  const ns = response.getNamespace();
  const values = { ...subject.attributes, ...(flash?.values ?? {}) };
  const fields = Object.entries(definition.attributes).flatMap(([name, d]) => {
    const one = attributeField(ns, definition, name, { values, errors: flash?.fields, readOnly: d.mutability === 'immutable' });
    if (d.mutability !== 'writeOnly') return [one];
    const hint = html`<p class="portlet-font-dim">${labelOf(name)}: leave empty to keep the current value.</p>`;
    if (name !== definition.passwordAttribute) return [one, hint];
    return [one, field(ns, { name: REPEAT, label: 'Repeat the password', kind: 'password', error: flash?.fields?.[REPEAT], autocomplete: 'new-password' }), hint];
  });
  const cancel = link(urlTo(response, state, { view: 'show', subject: subject.uniqueId }), 'Cancel');
  const body = html`${fields}${button('Save')} ${cancel}`;
  return html`<h3 class="portlet-section-header">Edit ${subject.uniqueId}</h3>${form(response, state, 'save', { target: subject.uniqueId, etag }, body, `Edit ${subject.uniqueId}`)}`;
}

/** The removal's page when the administrator has no second factor of their own: why it cannot be done yet, and the way back. */
export function otpRemovalNeedsOwnFactor(response: RenderResponse, state: AdminState, subjectId: string, secondFactorPage: string | undefined): Html {
  const back = link(urlTo(response, state, { view: 'show', subject: subjectId }), `Back to ${subjectId}`);
  return html`<h3 class="portlet-section-header">Second factor of ${subjectId}</h3>${ownFactorNeeded(REMOVING_A_FACTOR, secondFactorPage)}<p class="svc-controls">${back}</p>`;
}

/** Removing another subject's second factor (SPEC 15): a confirmation, as a delete has. */
export function otpRemovalConfirmation(response: RenderResponse, state: AdminState, subjectId: string): Html {
  const cancel = link(urlTo(response, state, { view: 'show', subject: subjectId }), 'Cancel');
  const body = html`<p class="portlet-msg-alert">Remove the second factor of ${subjectId}? ${subjectId} then signs in with the password alone, until setting up two-step sign-in again. This needs your own second factor: a session you confirmed with your code.</p>${button('Remove second factor')} ${cancel}`;
  return html`<h3 class="portlet-section-header">Second factor of ${subjectId}</h3>${form(response, state, 'removeOtp', { target: subjectId }, body, `Remove the second factor of ${subjectId}`)}`;
}

export function deleteConfirmation(response: RenderResponse, state: AdminState, subjectId: string): Html {
  const cancel = link(urlTo(response, state, { view: 'show', subject: subjectId }), 'Cancel');
  const body = html`<p class="portlet-msg-alert">Delete ${subjectId}? This ends the sessions of ${subjectId} and cannot be undone.</p>${button(`Delete ${subjectId}`)} ${cancel}`;
  return form(response, state, 'delete', { target: subjectId }, body, `Delete ${subjectId}`);
}

export { REPEAT };
