import { XMLBuilder, XMLParser, XMLValidator, type X2jOptions } from 'fast-xml-parser';
import { MalformedBody } from '../errors';
import { FORBIDDEN_NAMES, MAX_DEPTH } from './json';

/**
 * SPEC section 3's XML mapping, the same in both directions: the top-level key is the root element,
 * object keys are child elements, a list is a sequence of `<value>` children, values are text, and
 * `null` is an empty element with `nil="true"`.
 */
export type WireValue = string | number | boolean | null | WireValue[] | { [key: string]: WireValue };
export type WireDocument = Record<string, WireValue>;

const NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;
// DOCTYPE and entity declarations are refused before parsing, so no entity is ever expanded (XXE,
// billion laughs); processing instructions other than the declaration are refused too.
const FORBIDDEN = /<!DOCTYPE|<!ENTITY|<\?(?!xml[\s?])/i;

/**
 * The parser settings every XML reading shares (parseXml here, parseXmlTree for SOAP): values stay
 * text as sent, only the five predefined entities are expanded, and names and nesting are limited.
 */
export const STRICT_PARSER_OPTIONS: X2jOptions = {
  ignoreAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  processEntities: true,
  htmlEntities: false,
  allowBooleanAttributes: false,
  // The parser refuses __proto__, constructor and prototype itself; other Object.prototype names it
  // would silently rename, which would store an attribute under a name nobody sent.
  onDangerousProperty: (name: string) => {
    throw new MalformedBody(`forbidden element name ${name}`);
  },
  maxNestedTags: MAX_DEPTH - 1, // the parser does not count the root
};

const parser = new XMLParser({ ...STRICT_PARSER_OPTIONS, attributeNamePrefix: '@' });

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  suppressEmptyNode: true,
  // Without this the builder writes `nil="true"` as a bare `nil`, which parseXml (and any strict
  // XML parser) refuses: null would not survive a round trip.
  suppressBooleanAttributes: false,
  processEntities: true,
  format: false,
});

type Parsed = string | Parsed[] | { [key: string]: Parsed };

function fromParsed(node: Parsed, path: string): WireValue {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) throw new MalformedBody(`repeated element at ${path}; lists are <value> sequences`);
  const keys = Object.keys(node);
  if (node['@nil'] === 'true' && keys.length === 1) return null;
  const attrs = keys.filter((k) => k.startsWith('@'));
  if (attrs.length > 0) throw new MalformedBody(`unexpected XML attribute ${attrs[0].slice(1)} at ${path}`);
  if ('#text' in node) {
    if (keys.length === 1) return node['#text'] as string;
    throw new MalformedBody(`mixed content at ${path}`);
  }
  if (keys.length === 1 && keys[0] === 'value') {
    const items = node.value;
    const list = Array.isArray(items) ? items : [items];
    return list.map((item, i) => fromParsed(item, `${path}[${i}]`));
  }
  const out: { [key: string]: WireValue } = {};
  for (const key of keys) {
    if (FORBIDDEN_NAMES.has(key)) {
      throw new MalformedBody(`forbidden element name ${key}`);
    }
    out[key] = fromParsed(node[key], path ? `${path}.${key}` : key);
  }
  return out;
}

/**
 * The guards every XML body passes before any parser builds anything from it: no DOCTYPE, no entity
 * declaration, no processing instruction, and well-formed. Shared by parseXml and the SOAP reader.
 */
export function guardXml(text: string): void {
  if (FORBIDDEN.test(text)) throw new MalformedBody('XML with a DOCTYPE, entity declarations or processing instructions is not accepted');
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (valid !== true) {
    throw new MalformedBody(`malformed XML at line ${valid.err.line}, column ${valid.err.col}`);
  }
}

/** Parses an XML request body into the JSON shape; every malformation is a MalformedBody (400). */
export function parseXml(text: string): WireDocument {
  guardXml(text);
  let parsed: Record<string, Parsed>;
  try {
    parsed = parser.parse(text) as Record<string, Parsed>;
  } catch (error) {
    // The parser's own refusals (reserved names, nesting) are worded for developers; ours is not.
    if (error instanceof MalformedBody) throw error;
    const reserved = /Invalid name: "([^"]+)"/.exec(error instanceof Error ? error.message : '');
    throw new MalformedBody(reserved ? `forbidden element name ${reserved[1]}` : `the XML document is nested deeper than ${MAX_DEPTH} levels or otherwise malformed`);
  }
  const roots = Object.keys(parsed);
  if (roots.length !== 1) throw new MalformedBody('an XML document must have exactly one root element');
  return fromParsed(parsed as Parsed, '') as WireDocument;
}

function toBuildable(value: WireValue): unknown {
  if (value === null) return { '@nil': 'true' };
  if (Array.isArray(value)) return { value: value.map((v) => toBuildable(v)) };
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      // Keys come from our own response shapes and stored attribute names, which the definition
      // restricts; a name XML cannot carry is a programming error, not user input.
      if (!NAME.test(key)) throw new TypeError(`not an XML element name: ${key}`);
      out[key] = toBuildable(v);
    }
    return out;
  }
  return String(value);
}

/** Serialises a document's members as XML elements, without a declaration (for embedding: SOAP). */
export function toXmlFragment(doc: WireDocument): string {
  return builder.build(toBuildable(doc)) as string;
}

/** Serialises a response document (one root key) to XML. */
export function toXml(doc: WireDocument): string {
  return '<?xml version="1.0" encoding="UTF-8"?>' + toXmlFragment(doc);
}
