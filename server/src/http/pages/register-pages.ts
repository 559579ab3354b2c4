import { problemBlock, type PageProblem } from './error-pages';
import { hidden, html, type Html } from './html';

/** One input of the registration form: the user id, or a registration attribute. */
export interface RegisterField {
  /** The form parameter: `uniqueId`, or `a.` + the attribute name. */
  name: string;
  label: string;
  type: 'text' | 'email' | 'password';
  /** One value per line, in a text area. */
  multivalued: boolean;
  required: boolean;
  maxLength: number;
  /** What the visitor typed, shown again after a failure (never for write-only attributes). */
  value?: string;
}

export interface RegisterFormInput {
  action: string;
  contextId: string;
  /** Every context open to registration, when there are several: links to their forms. */
  others: Array<{ id: string; href: string }>;
  fields: RegisterField[];
  problem?: PageProblem;
}

function input(field: RegisterField, index: number): Html {
  const id = `f${index}`;
  const required = field.required ? html` required` : html``;
  const control = field.multivalued
    ? html`<textarea id="${id}" name="${field.name}" rows="3"${required}>${field.value ?? ''}</textarea>`
    : html`<input id="${id}" type="${field.type}" name="${field.name}" value="${field.value ?? ''}" maxlength="${field.maxLength}"${required}${field.type === 'password' ? html` autocomplete="new-password"` : html``}>`;
  return html`<label for="${id}">${field.label}${field.multivalued ? ' (one per line)' : ''}</label>${control}`;
}

/** GET {base}/anon/register: the form of one context's registration attributes. */
export function registerForm(form: RegisterFormInput): Html {
  const others = form.others.length > 1 ? html`<p>Register in: ${form.others.map((o) => (o.id === form.contextId ? html`<strong>${o.id}</strong> ` : html`<a href="${o.href}">${o.id}</a> `))}</p>` : html``;
  return html`${others}${form.problem ? problemBlock(form.problem) : ''}<form method="post" action="${form.action}">
${hidden({ context: form.contextId })}
${form.fields.map(input)}
<button type="submit">Register</button>
</form>`;
}

/** After a registration: the account exists; the visitor logs in as usual. */
export function registeredPage(uniqueId: string, contextId: string, loginUrl: string): Html {
  return html`<p class="notice">The account <strong>${uniqueId}</strong> was created in ${contextId}.</p><p><a href="${loginUrl}">Log in</a></p>`;
}

/** SPEC 16: the answer to a registration that verifies its address, the same whether it was new or taken. */
export function checkMailPage(contextId: string, resendUrl: string): Html {
  return html`<p class="notice" role="status">Check your mail: we sent a link to the address you gave. Follow it within 24 hours to finish registering in ${contextId}, then log in.</p>
<p>Nothing arrived after a few minutes? Look in your spam folder, or <a href="${resendUrl}?context=${contextId}">ask for a new link</a>.</p>`;
}
