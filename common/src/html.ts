/**
 * HTML escaping for server-rendered pages, shared by the core's pages and the portal (its theme and
 * portlets): every interpolation is escaped unless it is already `Html`.
 */

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Markup that is already safe: `html` inserts it as it is. */
export class Html {
  constructor(readonly text: string) {}
}

/** A tagged template that escapes every interpolation unless it is already `Html`. */
export function html(strings: TemplateStringsArray, ...values: Array<string | number | Html | Html[]>): Html {
  let out = strings[0];
  values.forEach((value, i) => {
    const parts = Array.isArray(value) ? value : [value];
    out += parts.map((part) => (part instanceof Html ? part.text : escapeHtml(String(part)))).join('') + strings[i + 1];
  });
  return new Html(out);
}

/** Hidden inputs of a form, escaped; empty and undefined values are left out. */
export function hidden(fields: Record<string, string | undefined>): Html[] {
  return Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
}
