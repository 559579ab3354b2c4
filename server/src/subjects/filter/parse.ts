/**
 * Parser of the SCIM filter subset used by SEARCH (SPEC section 3), after RFC 7644 section 3.4.2.2:
 *
 *   filter   = orExpr
 *   orExpr   = andExpr *( "or" andExpr )
 *   andExpr  = unary *( "and" unary )
 *   unary    = "not" "(" orExpr ")" / "(" orExpr ")" / attrExp
 *   attrExp  = attr "pr" / attr compareOp compValue
 *   compareOp = "eq" / "ne" / "co" / "sw" / "ew"
 *   compValue = JSON string / "true" / "false"       (true/false become the strings "true"/"false")
 *   attr     = ALPHA *( ALPHA / DIGIT / "_" / "-" )
 *
 * So `not` binds tightest (it always takes a parenthesised filter, as in the RFC), then `and`, then
 * `or`; `and`/`or` are left-associative. Operators, `and`, `or`, `not`, `true` and `false` are
 * case-insensitive; attribute names are kept (and later matched) exactly as written. Whitespace (space,
 * tab, CR, LF) between tokens is optional wherever the tokens are self-delimiting.
 *
 * Not supported, each with its own message: sub-attributes (`name.givenName`), value paths
 * (`emails[type eq "work"]`), schema URNs, `gt ge lt le`, numbers and `null`.
 *
 * Limits against abuse: at most 2048 UTF-16 code units of text, parenthesis nesting depth 32 (a
 * `not ( … )` counts as one level), 64 comparisons (`pr` included). Every failure is an InvalidFilter
 * whose message ends with `(at position N)`, N being the 0-based UTF-16 offset into the filter text
 * (the convention of JSON.parse); the same N is in the problem's `position` extension.
 */
import { InvalidFilter } from '../../../../common/src/errors';
import { COMPARE_OPS, UNIQUE_ID_ATTR, type CompareOp, type FilterNode } from './ast';

export const FILTER_LIMITS = Object.freeze({ maxLength: 2048, maxDepth: 32, maxComparisons: 64 });

interface WordToken {
  kind: 'word' | 'number';
  start: number;
  end: number;
  text: string;
}
type Token =
  | { kind: '(' | ')' | 'end'; start: number; end: number }
  | WordToken
  | { kind: 'string'; start: number; end: number; value: string };

const UNSUPPORTED_OPS = new Set(['gt', 'ge', 'lt', 'le']);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isWs(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}
function isAlpha(c: string): boolean {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}
function isWordChar(c: string): boolean {
  return isAlpha(c) || isDigit(c) || c === '_' || c === '-';
}
function charName(c: string): string {
  const cp = c.codePointAt(0) as number;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp <= 0x9f) ? hex : `"${c}" (${hex})`;
}

function fail(message: string, position: number): never {
  const text = `${message} (at position ${position})`;
  throw new InvalidFilter(text, { errors: [{ path: 'filter', message: text }], extensions: { position } });
}

class Parser {
  private pos = 0;
  private depth = 0;
  private comparisons = 0;

  constructor(
    private readonly text: string,
    private readonly isReadable: (attr: string) => boolean,
  ) {}

  parse(): FilterNode {
    const node = this.parseOr();
    const t = this.peek();
    if (t.kind !== 'end') {
      const hint = t.kind === ')' ? 'unbalanced ")"' : `expected "and", "or" or the end of the filter, found ${this.describe(t)}`;
      fail(hint, t.start);
    }
    return node;
  }

  // ---- lexer: pure, on demand, so the first error in the text is the one reported ----

  private lexAt(from: number): Token {
    const s = this.text;
    let i = from;
    while (i < s.length && isWs(s[i] as string)) i++;
    if (i >= s.length) return { kind: 'end', start: s.length, end: s.length };
    const c = s[i] as string;
    if (c === '(' || c === ')') return { kind: c, start: i, end: i + 1 };
    if (c === '"') return this.lexString(i);
    if (isAlpha(c)) {
      let j = i + 1;
      while (j < s.length && isWordChar(s[j] as string)) j++;
      const word = s.slice(i, j);
      const next = s[j];
      if (next === '.') fail(`sub-attributes are not supported ("${word}.…"); use a simple attribute name`, j);
      if (next === '[') fail(`value paths are not supported ("${word}[…]")`, j);
      if (next === ':') fail(`schema-qualified attribute names are not supported ("${word}:…")`, j);
      return { kind: 'word', start: i, end: j, text: word };
    }
    if (isDigit(c) || (c === '-' && isDigit(s[i + 1] ?? '')) || (c === '.' && isDigit(s[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < s.length && /[0-9.eE+-]/.test(s[j] as string)) j++;
      return { kind: 'number', start: i, end: j, text: s.slice(i, j) };
    }
    return fail(`unexpected character ${charName(String.fromCodePoint(s.codePointAt(i) as number))}`, i);
  }

  /** A JSON string literal starting at the quote at `start`. */
  private lexString(start: number): Token {
    const s = this.text;
    let out = '';
    let i = start + 1;
    for (;;) {
      if (i >= s.length) fail('unterminated string: missing closing \'"\'', start);
      const c = s[i] as string;
      if (c === '"') break;
      if (c === '\\') {
        const e = s[i + 1];
        switch (e) {
          case '"':
          case '\\':
          case '/':
            out += e;
            i += 2;
            continue;
          case 'b':
            out += '\b';
            i += 2;
            continue;
          case 'f':
            out += '\f';
            i += 2;
            continue;
          case 'n':
            out += '\n';
            i += 2;
            continue;
          case 'r':
            out += '\r';
            i += 2;
            continue;
          case 't':
            out += '\t';
            i += 2;
            continue;
          case 'u': {
            const hex = s.slice(i + 2, i + 6);
            if (!/^[0-9A-Fa-f]{4}$/.test(hex)) fail('invalid \\u escape: expected four hexadecimal digits', i);
            const code = parseInt(hex, 16);
            if (code === 0) fail('NUL characters (\\u0000) are not allowed in filter values', i);
            out += String.fromCharCode(code);
            i += 6;
            continue;
          }
          case undefined:
            return fail('unterminated string: missing closing \'"\'', start);
          default:
            return fail(`invalid escape sequence "\\${e}" in string; allowed: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`, i);
        }
      }
      if (c.charCodeAt(0) < 0x20) fail(`control character ${charName(c)} must be escaped in a string`, i);
      out += c;
      i++;
    }
    if (LONE_SURROGATE.test(out)) fail('string contains an unpaired UTF-16 surrogate', start);
    return { kind: 'string', start, end: i + 1, value: out };
  }

  private peek(): Token {
    return this.lexAt(this.pos);
  }

  private take(): Token {
    const t = this.lexAt(this.pos);
    this.pos = t.end;
    return t;
  }

  private isKeyword(t: Token, keyword: string): boolean {
    return t.kind === 'word' && t.text.toLowerCase() === keyword;
  }

  private describe(t: Token): string {
    switch (t.kind) {
      case 'end':
        return 'the end of the filter';
      case '(':
      case ')':
        return `"${t.kind}"`;
      case 'string':
        return `the string ${this.text.slice(t.start, t.end)}`;
      case 'number':
        return `the number ${t.text}`;
      case 'word':
        return `"${t.text}"`;
    }
  }

  // ---- grammar ----

  private parseOr(): FilterNode {
    let left = this.parseAnd();
    while (this.isKeyword(this.peek(), 'or')) {
      this.take();
      left = { op: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): FilterNode {
    let left = this.parseUnary();
    while (this.isKeyword(this.peek(), 'and')) {
      this.take();
      left = { op: 'and', left, right: this.parseUnary() };
    }
    return left;
  }

  private parseUnary(): FilterNode {
    const t = this.peek();
    if (t.kind === '(') {
      this.take();
      return this.parseGroup(t.start);
    }
    if (t.kind === 'word') {
      if (t.text.toLowerCase() === 'not') {
        const next = this.lexAt(t.end);
        if (next.kind === '(') {
          this.pos = next.end;
          return { op: 'not', expr: this.parseGroup(next.start) };
        }
        // An attribute that happens to be called "not" ("not eq "x"") stays possible.
        if (!(next.kind === 'word' && this.isOperatorWord(next.text))) {
          fail(`"not" must be followed by a parenthesised filter, e.g. not (mail pr); found ${this.describe(next)}`, next.start);
        }
      }
      return this.parseAttrExp();
    }
    if (t.kind === 'number') fail(`expected an attribute name, found ${this.describe(t)}; attribute names start with a letter`, t.start);
    if (t.kind === 'end') fail('unexpected end of the filter: expected an attribute name, "(" or "not"', t.start);
    return fail(`expected an attribute name, "(" or "not", found ${this.describe(t)}`, t.start);
  }

  /** After an opening parenthesis at `open`: the inner filter and the closing parenthesis. */
  private parseGroup(open: number): FilterNode {
    this.depth++;
    if (this.depth > FILTER_LIMITS.maxDepth) {
      fail(`filter nested too deeply (maximum depth ${FILTER_LIMITS.maxDepth})`, open);
    }
    const inner = this.parseOr();
    const close = this.peek();
    if (close.kind !== ')') {
      fail(`expected ")" to close the "(" at position ${open}, found ${this.describe(close)}`, close.start);
    }
    this.take();
    this.depth--;
    return inner;
  }

  private isOperatorWord(word: string): boolean {
    const w = word.toLowerCase();
    return w === 'pr' || (COMPARE_OPS as readonly string[]).includes(w) || UNSUPPORTED_OPS.has(w);
  }

  private parseAttrExp(): FilterNode {
    const a = this.take() as WordToken; // parseUnary has seen a word here
    const attr = a.text;
    this.comparisons++;
    if (this.comparisons > FILTER_LIMITS.maxComparisons) {
      fail(`too many comparisons in the filter (maximum ${FILTER_LIMITS.maxComparisons})`, a.start);
    }
    if (attr !== UNIQUE_ID_ATTR && !this.isReadable(attr)) {
      fail(`attribute "${attr}" is unknown or not readable and cannot be used in a filter`, a.start);
    }

    const o = this.take();
    if (o.kind !== 'word') {
      fail(`expected an operator (eq, ne, co, sw, ew or pr) after attribute "${attr}", found ${this.describe(o)}`, o.start);
    }
    const op = o.text.toLowerCase();
    if (op === 'pr') return { op: 'pr', attr };
    if (UNSUPPORTED_OPS.has(op)) {
      fail(`operator "${o.text}" is not supported; use eq, ne, co, sw, ew or pr`, o.start);
    }
    if (!(COMPARE_OPS as readonly string[]).includes(op)) {
      fail(`unknown operator "${o.text}" after attribute "${attr}"; expected eq, ne, co, sw, ew or pr`, o.start);
    }

    const v = this.take();
    let value: string;
    if (v.kind === 'string') {
      value = v.value;
    } else if (v.kind === 'word' && (v.text.toLowerCase() === 'true' || v.text.toLowerCase() === 'false')) {
      value = v.text.toLowerCase();
    } else if (v.kind === 'word' && v.text.toLowerCase() === 'null') {
      return fail(`null is not supported as a comparison value; to find subjects without "${attr}" use not (${attr} pr)`, v.start);
    } else if (v.kind === 'number') {
      return fail(`numbers are not supported as comparison values; write the value as a JSON string, e.g. "${v.text}"`, v.start);
    } else {
      return fail(`expected a JSON string value (in double quotes) after "${o.text}", found ${this.describe(v)}`, v.start);
    }
    return { op: op as CompareOp, attr, value };
  }
}

/**
 * Parses the text of a `filter=` parameter. `isReadable(attr)` says whether the caller may read (and so
 * filter on) an attribute; it should answer false for unknown and write-only attributes. `uniqueId` is
 * always readable and is not passed to it. Throws InvalidFilter on any error.
 */
export function parseFilter(text: string, isReadable: (attr: string) => boolean): FilterNode {
  if (typeof text !== 'string') fail('the filter must be a string', 0);
  if (text.length > FILTER_LIMITS.maxLength) {
    fail(`filter too long: ${text.length} characters (maximum ${FILTER_LIMITS.maxLength})`, FILTER_LIMITS.maxLength);
  }
  if (/^[ \t\r\n]*$/.test(text)) fail('the filter is empty', 0);
  return new Parser(text, isReadable).parse();
}
