/**
 * The User Admin's markup: search form, result table with paging, one subject, and the create, edit
 * and delete forms. Pure functions of the data and the decisions; the portlet fetches both.
 */
import type { RenderResponse } from '../../api';
import { displayValue, labelOf, readableAttributes, type ContextDefinition } from '../shared/definition';
import type { Flash } from '../shared/flash';
import { attributeField } from '../shared/forms';
import { actionForm, button, details, field, html, link, type Html } from '../shared/markup';
import type { SearchPage, Subject } from '../shared/svc';
import { OP } from '../shared/svc-portlet';
import { parametersOf, urlTo, type AdminState } from './state';

/** What the check allowed for one subject. */
export interface RowRights {
  read: boolean;
  update: boolean;
  delete: boolean;
  lift: boolean;
}

const REPEAT = 'passwordRepeat';

function form(response: RenderResponse, state: AdminState, op: string, extra: Record<string, string | undefined>, body: Html, label: string): Html {
  return actionForm(response.createActionURL().toString(), { [OP]: op, ...parametersOf(state), ...extra }, body, label);
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
  return actionForm(response.createActionURL().toString(), { [OP]: 'search' }, body, 'Search subjects');
}

export function resultTable(response: RenderResponse, state: AdminState, page: SearchPage, columns: string[], rights: RowRights[], contextId: string): Html {
  if (page.total === 0) return html`<p class="portlet-font" role="status">No subject matches.</p>`;
  const first = page.offset + 1;
  const last = page.offset + page.results.length;
  const head = html`<tr><th class="portlet-table-header" scope="col">User name</th>${columns.map((c) => html`<th class="portlet-table-header" scope="col">${labelOf(c)}</th>`)}<th class="portlet-table-header" scope="col">Actions</th></tr>`;
  const rows = page.results.map((subject, i) => {
    const may = rights[i];
    const id = subject.uniqueId;
    // data-right and data-column let the portal's live search fill a copy of a row (searchTemplate).
    const control = (right: keyof RowRights, markup: Html) => (may[right] ? html`<span class="svc-control" data-right="${right}">${markup}</span>` : html``);
    const controls = [
      control('read', link(urlTo(response, state, { view: 'show', subject: id }), 'View', `View ${id}`)),
      control('update', link(urlTo(response, state, { view: 'edit', subject: id }), 'Edit', `Edit ${id}`)),
      control('delete', link(urlTo(response, state, { view: 'delete', subject: id }), 'Delete', `Delete ${id}`)),
      control('lift', form(response, state, 'lift', { target: id }, button('Lift lockout', { ariaLabel: `Lift lockout of ${id}` }), `Lift the lockout of ${id}`)),
    ];
    const cells = columns.map((c) => html`<td data-column="${c}">${displayValue(subject.attributes[c])}</td>`);
    return html`<tr class="${i % 2 ? 'portlet-table-alternate' : 'portlet-table-body'}"><th scope="row">${id}</th>${cells}<td class="svc-controls">${controls}</td></tr>`;
  });
  const caption = `Subjects ${first} to ${last} of ${page.total} in ${contextId}`;
  return html`<div class="svc-table-wrap"><table class="portlet-table-body svc-table"><caption class="portlet-table-subheader">${caption}</caption><thead>${head}</thead><tbody>${rows}</tbody></table></div>${pager(response, state, page)}`;
}

const PLACEHOLDER = 'svc-live-subject';
const SEARCH_PLACEHOLDER = 'svc-live-search';

/**
 * The results region, marked for the portal's live search (theme/script.ts): the search field, the
 * REST path of the search under `{portal}/api`, and a `<template>` with one row rendered for a
 * placeholder subject with every control; the script drops the controls the check refuses.
 */
export function liveResults(response: RenderResponse, state: AdminState, contextId: string, pageSize: number, columns: string[], results: Html): Html {
  const ns = response.getNamespace();
  const placeholderPage: SearchPage = { results: [{ uniqueId: PLACEHOLDER, attributes: {} }], total: 1, offset: 0, quantity: pageSize };
  const all: RowRights = { read: true, update: true, delete: true, lift: true };
  const template = resultTable(response, { ...state, view: 'list', search: SEARCH_PLACEHOLDER, offset: 0 }, placeholderPage, columns, [all], contextId);
  return html`<div data-svc-live-search data-api="${`/contexts/${encodeURIComponent(contextId)}/subjects`}" data-context="${contextId}" data-quantity="${pageSize}" data-input="${ns}f_search" data-filter="${ns}f_filter" data-template="${ns}live_row" data-status="${ns}live_status" data-results="${ns}results" data-placeholder="${PLACEHOLDER}" data-search-placeholder="${SEARCH_PLACEHOLDER}"><p class="portlet-font-dim svc-live-status" role="status" id="${ns}live_status"></p><div id="${ns}results">${results}</div><template id="${ns}live_row">${template}</template></div>`;
}

function pager(response: RenderResponse, state: AdminState, page: SearchPage): Html {
  const size = page.quantity;
  const previous = page.offset > 0 ? link(urlTo(response, state, { offset: Math.max(0, page.offset - size) }), 'Previous page') : html``;
  const next = page.offset + page.results.length < page.total ? link(urlTo(response, state, { offset: page.offset + size }), 'Next page') : html``;
  if (!page.offset && !(page.offset + page.results.length < page.total)) return html``;
  return html`<nav class="svc-pager" aria-label="Result pages">${previous} ${next}</nav>`;
}

export function subjectDetails(response: RenderResponse, state: AdminState, definition: ContextDefinition, subject: Subject, may: RowRights): Html {
  const rows: Array<[string, string]> = [['User name', subject.uniqueId], ...readableAttributes(definition).map((n): [string, string] => [labelOf(n), displayValue(subject.attributes[n])])];
  const id = subject.uniqueId;
  const controls = [
    may.update ? link(urlTo(response, state, { view: 'edit', subject: id }), 'Edit') : html``,
    may.delete ? link(urlTo(response, state, { view: 'delete', subject: id }), 'Delete') : html``,
    may.lift ? form(response, state, 'lift', { target: id }, button('Lift lockout'), `Lift the lockout of ${id}`) : html``,
    link(urlTo(response, state, { view: 'list' }), 'Back to the list'),
  ];
  return html`<h3 class="portlet-section-header">${id}</h3>${details(rows)}<div class="svc-controls">${controls}</div>`;
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

export function deleteConfirmation(response: RenderResponse, state: AdminState, subjectId: string): Html {
  const cancel = link(urlTo(response, state, { view: 'show', subject: subjectId }), 'Cancel');
  const body = html`<p class="portlet-msg-alert">Delete ${subjectId}? This ends the sessions of ${subjectId} and cannot be undone.</p>${button(`Delete ${subjectId}`)} ${cancel}`;
  return form(response, state, 'delete', { target: subjectId }, body, `Delete ${subjectId}`);
}

export { REPEAT };
