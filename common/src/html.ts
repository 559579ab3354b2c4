/**
 * HTML escaping for server-rendered pages, shared by the core's pages and the portal (its theme and
 * portlets): every interpolation is escaped unless it is already `Html`.
 *
 * A page of User Admin's runs this some two thousand times, so both functions are written for the
 * common case (a value with nothing to escape is returned as it is, without a copy) and build their
 * text with one concatenation per part rather than arrays joined per value.
 */

const NEEDS_ESCAPE = /[&<>"'`]/;

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  let out = '';
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    // & < > " ' `
    if (c === 0x26 || c === 0x3c || c === 0x3e || c === 0x22 || c === 0x27 || c === 0x60) {
      out += `${value.slice(from, i)}&#${c};`;
      from = i + 1;
    }
  }
  return out + value.slice(from);
}

/** Markup that is already safe: `html` inserts it as it is. */
export class Html {
  constructor(readonly text: string) {}
}

type HtmlPart = string | number | Html;

function partText(part: HtmlPart): string {
  return part instanceof Html ? part.text : escapeHtml(String(part));
}

/** A tagged template that escapes every interpolation unless it is already `Html`. */
export function html(strings: TemplateStringsArray, ...values: Array<HtmlPart | Html[]>): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (Array.isArray(value)) for (const part of value) out += partText(part);
    else out += partText(value);
    out += strings[i + 1];
  }
  return new Html(out);
}

/** Hidden inputs of a form, escaped; empty and undefined values are left out. */
export function hidden(fields: Record<string, string | undefined>): Html[] {
  return Object.entries(fields)
    .filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '')
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
}
