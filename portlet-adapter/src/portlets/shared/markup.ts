/**
 * The markup every portlet writes: fragments with namespaced ids, JSR-168's CSS classes (so the
 * portal's one theme styles them), a visible label for every control, errors tied to their field.
 */
import type { RenderResponse } from '../../api';
import { escapeHtml as esc, html, Html } from '../../../../common/src/html';

type HtmlValue = string | number | Html | Html[];

export { html, Html, hidden } from '../../../../common/src/html';

export interface FieldSpec {
  name: string;
  label: string;
  /** `multi`: one value per line (a multivalued attribute); `boolean`: yes/no. */
  kind?: 'text' | 'email' | 'password' | 'search' | 'multi' | 'boolean';
  value?: string;
  required?: boolean;
  readOnly?: boolean;
  error?: string;
  hint?: string;
  autocomplete?: string;
}

/** One labelled control; its error and hint are announced with it (aria-describedby). */
export function field(ns: string, spec: FieldSpec): Html {
  const id = `${ns}f_${spec.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const described = [spec.hint ? `${id}_hint` : '', spec.error ? `${id}_error` : ''].filter(Boolean).join(' ');
  const common = new Html(
    [
      `id="${id}" name="${esc(spec.name)}" class="portlet-form-input-field"`,
      described ? `aria-describedby="${described}"` : '',
      spec.error ? 'aria-invalid="true"' : '',
      spec.required ? 'required aria-required="true"' : '',
      spec.readOnly ? 'readonly' : '',
      spec.autocomplete ? `autocomplete="${esc(spec.autocomplete)}"` : '',
    ]
      .filter(Boolean)
      .join(' '),
  );
  const value = spec.value ?? '';
  let control: Html;
  if (spec.kind === 'multi') control = html`<textarea ${common} rows="3">${value}</textarea>`;
  else if (spec.kind === 'boolean') {
    const option = (v: string, text: string) => (v === value ? html`<option value="${v}" selected>${text}</option>` : html`<option value="${v}">${text}</option>`);
    control = spec.readOnly ? html`<input type="text" ${common} value="${value === 'true' ? 'Yes' : value === 'false' ? 'No' : ''}">` : html`<select ${common}>${[option('', 'Not set'), option('false', 'No'), option('true', 'Yes')]}</select>`;
  } else {
    const type = spec.kind === 'password' ? 'password' : spec.kind === 'email' ? 'email' : spec.kind === 'search' ? 'search' : 'text';
    control = spec.kind === 'password' ? html`<input type="password" ${common}>` : html`<input type="${type}" ${common} value="${value}">`;
  }
  const required = spec.required && !spec.readOnly ? html` <span class="portlet-font-dim">(required)</span>` : '';
  return html`<div class="svc-field"><label class="portlet-form-label portlet-form-field-label" for="${id}">${spec.label}${required}</label>
${control}${spec.hint ? html`<p class="portlet-font-dim" id="${id}_hint">${spec.hint}</p>` : ''}${spec.error ? html`<p class="portlet-msg-error" id="${id}_error">${spec.error}</p>` : ''}</div>`;
}

/** A group of checkboxes under one legend (a multi-valued choice, e.g. which attributes to show). */
export function checkboxes(ns: string, name: string, legend: string, options: Array<{ value: string; label: string; checked: boolean }>): Html {
  const boxes = options.map((option, i) => {
    const id = `${ns}c_${name.replace(/[^A-Za-z0-9_-]/g, '_')}_${i}`;
    const checked = option.checked ? html` checked` : '';
    return html`<div class="svc-check"><input type="checkbox" id="${id}" name="${name}" value="${option.value}"${checked}> <label class="portlet-form-field-label" for="${id}">${option.label}</label></div>`;
  });
  return html`<fieldset class="portlet-form-field"><legend class="portlet-form-label">${legend}</legend>${boxes}</fieldset>`;
}

export type MessageKind = 'error' | 'success' | 'info' | 'alert';

/** A message at the top of the window; errors and successes are announced to screen readers. */
export function message(kind: MessageKind, text: HtmlValue): Html {
  const role = kind === 'error' ? 'alert' : 'status';
  return html`<p class="portlet-msg-${kind}" role="${role}">${text}</p>`;
}

/** A form that posts to an action URL (the URL carries the CSRF token; the fields name the action). */
export function actionForm(actionUrl: string, fields: Record<string, string | undefined>, body: HtmlValue, label?: string): Html {
  const hiddenFields = Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const aria = label ? html` aria-label="${label}"` : '';
  return html`<form method="post" action="${actionUrl}" class="svc-form"${aria}>${hiddenFields}${body}</form>`;
}

export function button(text: string, options: { name?: string; value?: string; ariaLabel?: string } = {}): Html {
  const named = options.name ? html` name="${options.name}" value="${options.value ?? ''}"` : '';
  const aria = options.ariaLabel ? html` aria-label="${options.ariaLabel}"` : '';
  return html`<button type="submit" class="portlet-form-button"${named}${aria}>${text}</button>`;
}

/** A link styled as a control (a render URL: GET, no side effect). */
export function link(url: string, text: string, ariaLabel?: string): Html {
  const aria = ariaLabel ? html` aria-label="${ariaLabel}"` : '';
  return html`<a class="portlet-font svc-link" href="${url}"${aria}>${text}</a>`;
}

/**
 * A control the check denied only for want of a second factor's session (`step_up_required`, SPEC
 * 15): a link to the portal's step-up form, which comes back to this page as it is shown now.
 */
export function stepUpLink(response: RenderResponse, text: string, note = true): Html {
  const back = response.createRenderURL().toString();
  const url = `${response.encodeURL('step-up')}?goto=${encodeURIComponent(back)}`;
  return html`<a class="portlet-font svc-link svc-step-up" href="${url}">${text}${note ? html` <span class="portlet-font-dim">(confirm with your code first)</span>` : html``}</a>`;
}

/**
 * What stands where a control would lead to a step-up this user can never complete: svc asks a
 * session confirmed with one's own second factor, and the user has none (SPEC 15). Why, and where
 * to turn one on (`setup`: the page the portal names, when it names one).
 */
export function ownFactorNeeded(doing: string, setup: string | undefined): Html {
  const why = message('info', `To ${doing} you must confirm it is you with your own second factor, and you have none. Turn on two-step sign-in in Self-Service first.`);
  return setup ? html`${why}<p class="svc-controls">${link(setup, 'Turn on two-step sign-in in Self-Service')}</p>` : why;
}

/** An action's outcome at the top of the window; a refusal for want of a step-up links to it. */
export function flashMessage(response: RenderResponse, flash: { kind: MessageKind; message: string; stepUp?: boolean } | undefined): Html {
  if (!flash) return html``;
  if (!flash.stepUp) return message(flash.kind, flash.message);
  return html`${message(flash.kind, flash.message)}<p class="svc-controls">${stepUpLink(response, 'Confirm it is you', false)}</p>`;
}

/** Name/value pairs of a subject, as a description list. */
export function details(rows: Array<[string, string]>): Html {
  if (rows.length === 0) return html`<p class="portlet-font">Nothing to show.</p>`;
  return html`<dl class="portlet-font svc-details">${rows.map(([name, value]) => html`<dt class="portlet-form-label">${name}</dt><dd>${value || '—'}</dd>`)}</dl>`;
}

/** Writes the fragment: `text/html`, never `html`, `head` or `body`. */
export function writeFragment(response: RenderResponse, fragment: Html): void {
  response.setContentType('text/html');
  response.getWriter().write(fragment.text);
}
