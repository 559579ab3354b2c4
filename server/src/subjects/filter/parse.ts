/**
 * The one filter parser of svc: RFC 7644 section 3.4.2.2, for SCIM's `filter=` and PATCH paths
 * (parseScimFilter, parseScimPath) and for the REST SEARCH's `filter=` (parseFilter, SPEC section 3),
 * which takes the flat part of the same grammar:
 *
 *   filter    = orExpr
 *   orExpr    = andExpr *( "or" andExpr )
 *   andExpr   = unary *( "and" unary )
 *   unary     = "not" "(" orExpr ")" / "(" orExpr ")" / valuePath / attrExp
 *   valuePath = attrPath "[" valFilter "]" [ "." ATTRNAME ( "pr" / compareOp compValue ) ]
 *   valFilter = orExpr whose attributes are bare ATTRNAMEs (sub-attributes of the attrPath), no valuePath
 *   attrExp   = attrPath "pr" / attrPath compareOp compValue
 *   compareOp = "eq" / "ne" / "co" / "sw" / "ew" / "gt" / "ge" / "lt" / "le"
 *   compValue = JSON string / "true" / "false" / "null" / JSON number / a bare word (SCIM only)
 *   attrPath  = [ URI ":" ] ATTRNAME [ "." ATTRNAME ]      (the URI is everything up to the last ":")
 *   ATTRNAME  = ALPHA *( ALPHA / DIGIT / "_" / "-" )
 *
 * So `not` binds tightest (it always takes a parenthesised filter, as in the RFC), then `and`, then
 * `or`; `and`/`or` are left-associative. Operators, `and`, `or`, `not`, `true`, `false` and `null`
 * are case-insensitive; attribute names are kept as written (the SCIM transport compares them with
 * ast.ts's sameAttrName; the REST SEARCH matches them exactly, as svc's attribute names are).
 * Whitespace (space, tab, CR, LF) between tokens is optional wherever the tokens are self-delimiting
 * (`members[value eq"x"]`, as RFC 7644 section 3.5.2.2 prints it).
 *
 * Beyond the ABNF, for what identity providers send: a value path followed by a sub-attribute and a
 * comparison (Entra ID's `emails[type eq "work"].value eq "x"`) is read as
 * `emails[type eq "work" and value eq "x"]`; a bare word as a value (Entra ID's `externalId eq jyoung`,
 * RFC 7644 section 3.4.2.1's `meta.resourceType eq User`, an unquoted GUID `7f4bc1a3-285e-…`: letters,
 * digits, `_ - . :`) is the string it spells, unless it is true, false, null or a whole JSON number.
 * Single-quoted strings are refused (not JSON).
 *
 * The REST SEARCH (parseFilter) refuses, each with its own message: sub-attributes (`name.givenName`),
 * value paths (`emails[type eq "work"]`), schema URNs, numbers, null and bare words; svc's subjects
 * are flat.
 *
 * Limits against abuse: at most 2048 UTF-16 code units of text, nesting depth 32 (a `not ( … )` and a
 * value path's `[ … ]` count as one level), 64 comparisons (`pr` included). Every failure is an
 * InvalidFilter whose message ends with `(at position N)`, N being the 0-based UTF-16 offset into the
 * text (the convention of JSON.parse); the same N is in the problem's `position` extension.
 */
import { InvalidFilter } from '../../../../common/src/errors';
import {
  COMPARE_OPS,
  UNIQUE_ID_ATTR,
  type AttrPath,
  type CompareOp,
  type FilterNode,
  type FilterValue,
  type ScimFilter,
  type ScimPath,
} from './ast';

export const FILTER_LIMITS = Object.freeze({ maxLength: 2048, maxDepth: 32, maxComparisons: 64 });

interface WordToken {
  kind: 'word' | 'number';
  start: number;
  end: number;
  text: string;
}
type Token =
  | { kind: '(' | ')' | '[' | ']' | 'end'; start: number; end: number }
  | WordToken
  | { kind: 'string'; start: number; end: number; value: string };

const OPERATOR_LIST = 'eq, ne, co, sw, ew, gt, ge, lt, le or pr';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ATTRNAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ATTR_PATH = /^(?:(.+):)?([A-Za-z][A-Za-z0-9_-]*)(?:\.([A-Za-z][A-Za-z0-9_-]*))?$/;
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

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
  return isAlpha(c) || isDigit(c) || c === '_' || c === '-' || c === '.' || c === ':';
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

/**
 * The SCIM transport's check of each attribute as the parser meets it: an error message (the filter
 * is refused at the attribute's position: unknown, not filterable) or undefined. `parent` is the
 * value path's attribute for the names inside `parent[…]` and after `parent[…].`.
 */
export type ScimAttributeCheck = (path: AttrPath, parent: AttrPath | undefined) => string | undefined;

export interface ScimFilterOptions {
  attribute?: ScimAttributeCheck;
}

type Mode = { kind: 'flat'; isReadable: (attr: string) => boolean } | { kind: 'scim'; attribute?: ScimAttributeCheck };

class Parser {
  pos = 0;
  private depth = 0;
  private comparisons = 0;
  /** The value path being read, if any. */
  private parent: AttrPath | undefined;

  constructor(
    private readonly text: string,
    private readonly mode: Mode,
  ) {}

  parse(): ScimFilter {
    const node = this.parseOr();
    const t = this.peek();
    if (t.kind !== 'end') {
      const hint = t.kind === ')' ? 'unbalanced ")"' : t.kind === ']' ? 'unbalanced "]"' : `expected "and", "or" or the end of the filter, found ${this.describe(t)}`;
      fail(hint, t.start);
    }
    return node;
  }

  /** A PATCH path: attrPath, or valuePath with an optional sub-attribute after it, then the end. */
  parsePath(): ScimPath {
    const t = this.take();
    if (t.kind !== 'word') {
      return fail(`expected an attribute path, found ${this.describe(t)}`, t.start);
    }
    const attr = this.attrPath(t);
    const result: ScimPath = { attr };
    if (this.peek().kind === '[') {
      const open = this.take();
      result.filter = this.parseValueFilter(attr, open.start);
      const sub = this.subAfterBracket(attr);
      if (sub) result.subAfter = sub.name;
    }
    const end = this.peek();
    if (end.kind !== 'end') fail(`expected the end of the path, found ${this.describe(end)}`, end.start);
    return result;
  }

  // ---- lexer: pure, on demand, so the first error in the text is the one reported ----

  lexAt(from: number): Token {
    const s = this.text;
    let i = from;
    while (i < s.length && isWs(s[i] as string)) i++;
    if (i >= s.length) return { kind: 'end', start: s.length, end: s.length };
    const c = s[i] as string;
    if (c === '(' || c === ')' || c === '[' || c === ']') return { kind: c, start: i, end: i + 1 };
    if (c === '"') return this.lexString(i);
    if (isAlpha(c)) {
      let j = i + 1;
      while (j < s.length && isWordChar(s[j] as string)) j++;
      return { kind: 'word', start: i, end: j, text: s.slice(i, j) };
    }
    if (isDigit(c) || (c === '-' && isDigit(s[i + 1] ?? '')) || (c === '.' && isDigit(s[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < s.length && /[0-9.eE+-]/.test(s[j] as string)) j++;
      return { kind: 'number', start: i, end: j, text: s.slice(i, j) };
    }
    const hint = c === "'" ? '; strings are written in double quotes (JSON)' : '';
    return fail(`unexpected character ${charName(String.fromCodePoint(s.codePointAt(i) as number))}${hint}`, i);
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
      case '[':
      case ']':
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

  private parseOr(): ScimFilter {
    let left = this.parseAnd();
    while (this.isKeyword(this.peek(), 'or')) {
      this.take();
      left = { op: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): ScimFilter {
    let left = this.parseUnary();
    while (this.isKeyword(this.peek(), 'and')) {
      this.take();
      left = { op: 'and', left, right: this.parseUnary() };
    }
    return left;
  }

  private parseUnary(): ScimFilter {
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
        if (!(next.kind === 'word' && this.isOperatorWord(next.text)) && next.kind !== '[') {
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
  private parseGroup(open: number): ScimFilter {
    this.enter(open);
    const inner = this.parseOr();
    const close = this.peek();
    if (close.kind !== ')') {
      fail(`expected ")" to close the "(" at position ${open}, found ${this.describe(close)}`, close.start);
    }
    this.take();
    this.depth--;
    return inner;
  }

  private enter(open: number): void {
    this.depth++;
    if (this.depth > FILTER_LIMITS.maxDepth) {
      fail(`filter nested too deeply (maximum depth ${FILTER_LIMITS.maxDepth})`, open);
    }
  }

  private isOperatorWord(word: string): boolean {
    const w = word.toLowerCase();
    return w === 'pr' || (COMPARE_OPS as readonly string[]).includes(w);
  }

  /** The attribute path of a word token, checked for the mode and the place (inside a value path or not). */
  private attrPath(t: WordToken): AttrPath {
    const text = t.text;
    if (this.mode.kind === 'flat') {
      const dot = text.indexOf('.');
      const colon = text.indexOf(':');
      if (colon >= 0 && (dot < 0 || colon < dot)) {
        fail(`schema-qualified attribute names are not supported ("${text.slice(0, colon)}:…")`, t.start + colon);
      }
      if (dot >= 0) fail(`sub-attributes are not supported ("${text.slice(0, dot)}.…"); use a simple attribute name`, t.start + dot);
      const next = this.lexAt(t.end);
      if (next.kind === '[') fail(`value paths are not supported ("${text}[…]")`, next.start);
      if (text !== UNIQUE_ID_ATTR && !this.mode.isReadable(text)) {
        fail(`attribute "${text}" is unknown or not readable and cannot be used in a filter`, t.start);
      }
      return { text, name: text };
    }
    const m = ATTR_PATH.exec(text);
    if (!m) {
      return fail(`invalid attribute path "${text}"; expected [schema URN ":"] name ["." sub-attribute]`, t.start);
    }
    const path: AttrPath = { text, name: m[2] as string };
    if (m[1] !== undefined) path.uri = m[1];
    if (m[3] !== undefined) path.sub = m[3];
    if (this.parent && (path.uri !== undefined || path.sub !== undefined)) {
      fail(`inside "${this.parent.text}[…]" name a sub-attribute of "${this.parent.text}" (e.g. value), without "." or a schema URN`, t.start);
    }
    this.check(path, t.start);
    return path;
  }

  private check(path: AttrPath, at: number): void {
    if (this.mode.kind !== 'scim' || !this.mode.attribute) return;
    const problem = this.mode.attribute(path, this.parent);
    if (problem !== undefined) fail(problem, at);
  }

  private count(at: number): void {
    this.comparisons++;
    if (this.comparisons > FILTER_LIMITS.maxComparisons) {
      fail(`too many comparisons in the filter (maximum ${FILTER_LIMITS.maxComparisons})`, at);
    }
  }

  private parseAttrExp(): ScimFilter {
    const a = this.take() as WordToken; // parseUnary has seen a word here
    this.count(a.start);
    const attr = this.attrPath(a);
    const next = this.peek();
    if (next.kind === '[') {
      if (this.parent) fail(`value paths cannot be nested (inside "${this.parent.text}[…]")`, next.start);
      if (attr.sub !== undefined) fail(`a value path applies to a multi-valued attribute, not to the sub-attribute "${attr.text}"`, next.start);
      this.take();
      const filter = this.parseValueFilter(attr, next.start);
      const sub = this.subAfterBracket(attr);
      if (!sub) return { op: 'valuePath', attr, filter };
      // Entra ID's emails[type eq "work"].value eq "x": the same value meets both.
      this.parent = attr;
      const tail = this.comparison(sub);
      this.parent = undefined;
      return { op: 'valuePath', attr, filter: { op: 'and', left: filter, right: tail } };
    }
    return this.comparison(attr);
  }

  /** After `attr[` (at `open`): the value filter and the closing bracket. */
  private parseValueFilter(attr: AttrPath, open: number): ScimFilter {
    this.enter(open);
    this.parent = attr;
    const inner = this.parseOr();
    const close = this.peek();
    if (close.kind !== ']') {
      fail(`expected "]" to close the "[" at position ${open}, found ${this.describe(close)}`, close.start);
    }
    this.take();
    this.parent = undefined;
    this.depth--;
    return inner;
  }

  /** `.sub` right after a value path's "]", if there: its path (checked with the value path as parent). */
  private subAfterBracket(parent: AttrPath): AttrPath | undefined {
    if (this.text[this.pos] !== '.') return undefined;
    const start = this.pos + 1;
    let end = start;
    while (end < this.text.length && isWordChar(this.text[end] as string)) end++;
    const name = this.text.slice(start, end);
    if (!ATTRNAME.test(name)) fail(`expected a sub-attribute name of "${parent.text}" after "]."`, start);
    this.pos = end;
    const path: AttrPath = { text: name, name };
    this.parent = parent;
    this.check(path, start);
    this.parent = undefined;
    return path;
  }

  /** `pr` or an operator and its value, after the attribute `attr`. */
  private comparison(attr: AttrPath): ScimFilter {
    const o = this.take();
    if (o.kind !== 'word') {
      fail(`expected an operator (${OPERATOR_LIST}) after attribute "${attr.text}", found ${this.describe(o)}`, o.start);
    }
    const op = o.text.toLowerCase();
    if (op === 'pr') return { op: 'pr', attr };
    if (!(COMPARE_OPS as readonly string[]).includes(op)) {
      fail(`unknown operator "${o.text}" after attribute "${attr.text}"; expected ${OPERATOR_LIST}`, o.start);
    }
    return { op: op as CompareOp, attr, value: this.value(o, attr) };
  }

  private value(o: WordToken, attr: AttrPath): FilterValue {
    const flat = this.mode.kind === 'flat';
    const v = this.take();
    if (v.kind === 'string') return v.value;
    if (v.kind === 'word') {
      const w = v.text.toLowerCase();
      if (w === 'true' || w === 'false') return flat ? w : w === 'true';
      if (w === 'null') {
        if (flat) fail(`null is not supported as a comparison value; to find subjects without "${attr.text}" use not (${attr.text} pr)`, v.start);
        return null;
      }
      if (!flat) return v.text;
    }
    if (v.kind === 'number' && !flat && isWordChar(this.text[v.end] ?? ' ')) {
      // A bare word that starts with a digit (an unquoted GUID or date): the string it spells.
      let end = v.end;
      while (end < this.text.length && isWordChar(this.text[end] as string)) end++;
      this.pos = end;
      return this.text.slice(v.start, end);
    }
    if (v.kind === 'number') {
      if (flat) fail(`numbers are not supported as comparison values; write the value as a JSON string, e.g. "${v.text}"`, v.start);
      const n = Number(v.text);
      if (!JSON_NUMBER.test(v.text) || !Number.isFinite(n)) fail(`invalid number ${v.text}`, v.start);
      return n;
    }
    const expected = flat ? 'a JSON string value (in double quotes)' : 'a value (a JSON string, number, true, false or null)';
    return fail(`expected ${expected} after "${o.text}", found ${this.describe(v)}`, v.start);
  }
}

function checkText(text: string): void {
  if (typeof text !== 'string') fail('the filter must be a string', 0);
  if (text.length > FILTER_LIMITS.maxLength) {
    fail(`filter too long: ${text.length} characters (maximum ${FILTER_LIMITS.maxLength})`, FILTER_LIMITS.maxLength);
  }
  if (/^[ \t\r\n]*$/.test(text)) fail('the filter is empty', 0);
}

/** The flat tree of a filter read in flat mode (no value paths, URNs or sub-attributes; string values). */
function flatten(node: ScimFilter): FilterNode {
  switch (node.op) {
    case 'and':
    case 'or':
      return { op: node.op, left: flatten(node.left), right: flatten(node.right) };
    case 'not':
      return { op: 'not', expr: flatten(node.expr) };
    case 'pr':
      return { op: 'pr', attr: node.attr.text };
    case 'valuePath':
      throw new Error('a value path in a flat filter'); // the flat mode refuses them while parsing
    default:
      return { op: node.op, attr: node.attr.text, value: String(node.value) };
  }
}

/**
 * The REST SEARCH's `filter=` (SPEC section 3): the flat part of the grammar, straight to the store's
 * tree. `isReadable(attr)` says whether the caller may read (and so filter on) an attribute; it should
 * answer false for unknown and write-only attributes. `uniqueId` is always readable and is not passed
 * to it. Throws InvalidFilter on any error (sub-attributes, value paths and schema URNs included).
 */
export function parseFilter(text: string, isReadable: (attr: string) => boolean): FilterNode {
  checkText(text);
  return flatten(new Parser(text, { kind: 'flat', isReadable }).parse());
}

/**
 * SCIM's `filter=` (RFC 7644 section 3.4.2.2, the whole grammar): the tree as written, for the SCIM
 * transport to map onto svc's attributes. `options.attribute` checks each attribute where it stands
 * (its message becomes the InvalidFilter's, at the attribute's position). Throws InvalidFilter.
 */
export function parseScimFilter(text: string, options: ScimFilterOptions = {}): ScimFilter {
  checkText(text);
  return new Parser(text, { kind: 'scim', attribute: options.attribute }).parse();
}

/**
 * A SCIM PATCH `path` (RFC 7644 section 3.5.2 figure 7: `attrPath / valuePath [subAttr]`), e.g.
 * `members[value eq "2819c223"]`, `emails[type eq "work"].value`, `name.familyName`,
 * `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber`. Throws InvalidFilter
 * (the transport answers scimType invalidPath).
 */
export function parseScimPath(text: string, options: ScimFilterOptions = {}): ScimPath {
  checkText(text);
  return new Parser(text, { kind: 'scim', attribute: options.attribute }).parsePath();
}
