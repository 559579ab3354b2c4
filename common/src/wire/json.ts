import { MalformedBody } from '../errors';
import type { WireDocument } from './xml';

/** SPEC section 3: deeper documents are refused before anything walks them recursively. */
export const MAX_DEPTH = 32;
export const FORBIDDEN_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * One linear pass over the text before JSON.parse sees it, because JSON.parse silently keeps the
 * last of duplicate keys, recurses without limit in a reviver, and names its own internals in its
 * messages. It tracks the nesting and, per object, the member names; it does not validate the rest of
 * the grammar (JSON.parse does that next).
 */
function scan(text: string): void {
  const objects: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      const top = objects[objects.length - 1];
      if (expectKey && top) {
        let name: string;
        if (!escaped && i < text.length) name = text.slice(start + 1, i); // the usual name: its text is its value
        else {
          try {
            name = JSON.parse(text.slice(start, i + 1)) as string;
          } catch {
            return; // an invalid string: JSON.parse reports it with its position
          }
        }
        if (FORBIDDEN_NAMES.has(name)) throw new MalformedBody(`forbidden member name ${name}`);
        if (top.has(name)) throw new MalformedBody(`duplicate member name ${name}`);
        top.add(name);
        expectKey = false;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (objects.length >= MAX_DEPTH) throw new MalformedBody(`the document is nested deeper than ${MAX_DEPTH} levels`);
      objects.push(c === 0x7b ? new Set() : null);
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      objects.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      expectKey = objects[objects.length - 1] !== null && objects.length > 0;
    }
  }
}

/** A character offset as the 1-based line and column an editor shows. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/** Where a body breaks, in our words: the line, column and character offset, and whether it ends early. */
export function breakDescription(kind: string, text: string, offset: number): string {
  const { line, column } = lineColumn(text, offset);
  return offset >= text.length
    ? `malformed ${kind}: the body ends at line ${line}, column ${column} (character ${offset}) before the document is complete; was it cut off?`
    : `malformed ${kind} at line ${line}, column ${column} (character ${offset})`;
}

class SyntaxStop {
  constructor(readonly offset: number) {}
}

const DIGIT = /[0-9]/;
const HEX = /[0-9A-Fa-f]/;

/**
 * The offset of the first character where `text` stops being JSON (RFC 8259), or `text.length` when
 * it ends before the document does. Run only after JSON.parse refused the text: JSON.parse's message
 * has a position only for some errors (none when the text ends early) and words it per V8 version.
 * Nesting is bounded (scan refused deeper documents first), so the recursion is too.
 */
function firstBreak(text: string): number {
  let i = 0;
  const at = (k = i) => text.charAt(k);
  const stop = (offset = i): never => {
    throw new SyntaxStop(offset);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(at())) i++;
  };
  const digits = () => {
    if (!DIGIT.test(at())) stop();
    while (DIGIT.test(at())) i++;
  };
  const string = () => {
    for (i++; ; ) {
      const c = at();
      if (c === '') stop();
      if (c === '"') return void i++;
      if (c.charCodeAt(0) < 0x20) stop();
      if (c !== '\\') {
        i++;
        continue;
      }
      i++;
      const escape = at();
      if (escape === 'u') {
        for (let k = 1; k <= 4; k++) if (!HEX.test(at(i + k))) stop(i + k);
        i += 5;
      } else if ('"\\/bfnrt'.includes(escape) && escape !== '') i++;
      else stop();
    }
  };
  const word = (w: string) => {
    for (const c of w) {
      if (at() !== c) stop();
      i++;
    }
  };
  const value = (): void => {
    space();
    const c = at();
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (at() === close) return void i++;
      for (;;) {
        if (close === '}') {
          space();
          if (at() !== '"') stop();
          string();
          space();
          if (at() !== ':') stop();
          i++;
        }
        value();
        space();
        if (at() === ',') {
          i++;
          continue;
        }
        if (at() === close) return void i++;
        stop();
      }
    }
    if (c === '"') return string();
    if (c === 't') return word('true');
    if (c === 'f') return word('false');
    if (c === 'n') return word('null');
    if (c === '-' || DIGIT.test(c)) {
      if (c === '-') i++;
      if (at() === '0') i++;
      else digits();
      if (at() === '.') {
        i++;
        digits();
      }
      if (at() === 'e' || at() === 'E') {
        i++;
        if (at() === '+' || at() === '-') i++;
        digits();
      }
      return;
    }
    stop();
  };
  try {
    value();
    space();
    return i < text.length ? i : text.length;
  } catch (error) {
    if (error instanceof SyntaxStop) return error.offset;
    throw error;
  }
}

/**
 * Parses a JSON request body (an object) as SPEC section 3 requires: every malformation, duplicate
 * key, forbidden name or excessive nesting is a MalformedBody (400) whose detail is our own words.
 */
export function parseJson(text: string): WireDocument {
  scan(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MalformedBody(breakDescription('JSON', text, firstBreak(text)));
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MalformedBody('the body must be a JSON object');
  return parsed as WireDocument;
}
