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
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
      const top = objects[objects.length - 1];
      if (expectKey && top) {
        let name: string;
        try {
          name = JSON.parse(text.slice(start, i + 1)) as string;
        } catch {
          return; // an invalid string: JSON.parse reports it with its position
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

/** Where JSON.parse stopped, without its wording (which differs between V8 versions). */
function position(error: unknown): string {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  return match ? ` at position ${match[1]}` : '';
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
  } catch (error) {
    throw new MalformedBody(`malformed JSON${position(error)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MalformedBody('the body must be a JSON object');
  return parsed as WireDocument;
}
