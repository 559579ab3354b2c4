import { XMLBuilder, XMLParser, XMLValidator, type X2jOptions } from 'fast-xml-parser';
import { MalformedBody } from '../errors';
import { breakDescription, FORBIDDEN_NAMES, MAX_DEPTH } from './json';

/**
 * SPEC section 3's XML mapping, the same in both directions: the top-level key is the root element,
 * object keys are child elements, a list is a sequence of `<value>` children, values are text, and
 * `null` is an empty element with `nil="true"`.
 */
export type WireValue = string | number | boolean | null | WireValue[] | { [key: string]: WireValue };
export type WireDocument = Record<string, WireValue>;

const NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;
// DOCTYPE and entity declarations are refused before parsing, so no declared entity is ever expanded
// (XXE, billion laughs); processing instructions other than the declaration are refused too. References
// to entities no DOCTYPE declared are refused while values are read (decodeReferences).
const FORBIDDEN = /<!DOCTYPE|<!ENTITY|<\?(?!xml[\s?])/i;

const PREDEFINED = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);
// An `&`, what may follow it up to a `;` (or the first character that cannot), and the `;` if any.
const REFERENCE = /&([#A-Za-z0-9_.:-]{0,40})(;?)/g;
const CHARACTER_REFERENCE = /^#(?:x([0-9A-Fa-f]{1,8})|([0-9]{1,10}))$/;

/** XML 1.0's Char production: what a character reference may name. */
function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

/**
 * Text and attribute values as XML defines them (SPEC section 3): the five predefined entities and
 * character references decoded in one pass (a reference's result is never read again as one, so
 * `&#38;amp;` is `&amp;`), any other entity reference refused (no DOCTYPE can declare one, and
 * none is expanded: `&nbsp;` is HTML's, not XML's), a character reference naming no XML character
 * (NUL, a surrogate, U+FFFE) refused, and an `&` that starts no reference refused.
 */
export function decodeReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (_match, body: string, semicolon: string) => {
    if (!semicolon) throw new MalformedBody('an & that starts no entity or character reference (write &amp;)');
    const predefined = PREDEFINED.get(body);
    if (predefined !== undefined) return predefined;
    if (!body.startsWith('#')) {
      throw new MalformedBody(`the entity reference &${body}; is not accepted: only &amp; &lt; &gt; &quot; &apos; and character references`);
    }
    const digits = CHARACTER_REFERENCE.exec(body);
    if (!digits) throw new MalformedBody(`&${body}; is not a character reference (&#N; or &#xH;)`);
    const cp = digits[1] !== undefined ? parseInt(digits[1], 16) : parseInt(digits[2], 10);
    if (!isXmlChar(cp)) throw new MalformedBody(`the character reference &${body}; names no XML character`);
    return String.fromCodePoint(cp);
  });
}

/**
 * fast-xml-parser's entity decoder interface, ours: decodeReferences for every text and attribute
 * value (CDATA sections are not passed through it: their text stays literal). Entities a DOCTYPE
 * declares never reach it (guardXml refuses the DOCTYPE first); should one, it is refused.
 */
const strictEntityDecoder: NonNullable<X2jOptions['entityDecoder']> = {
  decode: decodeReferences,
  addInputEntities: (entities) => {
    if (Object.keys(entities).length > 0) throw new MalformedBody('XML entity declarations are not accepted');
  },
  setExternalEntities: () => undefined,
  reset: () => undefined,
  // XML 1.1 would allow character references to C0 controls; svc reads every document by XML 1.0's rules.
  setXmlVersion: () => undefined,
};

/**
 * The parser settings every XML reading shares (parseXml here, parseXmlTree for SOAP): values stay
 * text as sent, references are decoded by decodeReferences (the five predefined entities and
 * character references; any other is refused), and names and nesting are limited.
 */
export const STRICT_PARSER_OPTIONS: X2jOptions = {
  ignoreAttributes: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  processEntities: true,
  entityDecoder: strictEntityDecoder,
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
    // Elements still open when the text ends: the validator points at the first one's start tag
    // (line 1, column 1 for a cut-off document), but the body breaks where it ends.
    const endsEarly = valid.err.code === 'InvalidXml' ? /^Invalid '\[/.test(valid.err.msg) : valid.err.code === 'InvalidTag' && /^Unclosed tag/.test(valid.err.msg);
    if (endsEarly) throw new MalformedBody(breakDescription('XML', text, text.length));
    throw new MalformedBody(`malformed XML at line ${valid.err.line}, column ${valid.err.col ?? 1}`);
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

/** How `null` is written: REST's `nil="true"`, or XML Schema's `xsi:nil="true"` (SOAP, whose WSDL declares nillable elements). */
export type NilForm = 'nil' | 'xsi:nil';

function toBuildable(value: WireValue, nil: NilForm): unknown {
  if (value === null) return { [`@${nil}`]: 'true' };
  if (Array.isArray(value)) return { value: value.map((v) => toBuildable(v, nil)) };
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      // Keys come from our own response shapes and stored attribute names, which the definition
      // restricts; a name XML cannot carry is a programming error, not user input.
      if (!NAME.test(key)) throw new TypeError(`not an XML element name: ${key}`);
      out[key] = toBuildable(v, nil);
    }
    return out;
  }
  return String(value);
}

/**
 * Serialises a document's members as XML elements, without a declaration (for embedding: SOAP).
 * With `xsi:nil`, the caller declares the `xsi` prefix on an enclosing element.
 */
export function toXmlFragment(doc: WireDocument, nil: NilForm = 'nil'): string {
  return builder.build(toBuildable(doc, nil)) as string;
}

/** Serialises a response document (one root key) to XML. */
export function toXml(doc: WireDocument): string {
  return '<?xml version="1.0" encoding="UTF-8"?>' + toXmlFragment(doc);
}
