/**
 * A namespace-aware reading of an XML document, for the formats whose meaning lives in namespaces
 * (SOAP envelopes). The same guards as parseXml (no DOCTYPE, entities or processing instructions,
 * well-formed, nesting limit) run before anything is built; prefixes are resolved here, so callers
 * compare namespace URIs, never prefixes.
 */
import { XMLParser } from 'fast-xml-parser';
import { MalformedBody } from '../errors';
import { MAX_DEPTH } from './json';
import { guardXml, STRICT_PARSER_OPTIONS } from './xml';

export interface XmlAttribute {
  ns?: string;
  local: string;
  value: string;
}

export interface XmlElement {
  ns?: string;
  local: string;
  attributes: XmlAttribute[];
  children: XmlElement[];
  /** The element's own text, its text nodes joined. */
  text: string;
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';

// In document order (children interleave with text), attributes unprefixed beside them.
const parser = new XMLParser({ ...STRICT_PARSER_OPTIONS, preserveOrder: true, attributeNamePrefix: '' });

/** One node of fast-xml-parser's ordered output: `{name: children, ':@': attributes}` or `{'#text': …}`. */
type OrderedNode = Record<string, unknown>;

function split(qualified: string): { prefix?: string; local: string } {
  const colon = qualified.indexOf(':');
  return colon < 0 ? { local: qualified } : { prefix: qualified.slice(0, colon), local: qualified.slice(colon + 1) };
}

function resolve(prefix: string | undefined, scope: ReadonlyMap<string, string>, what: string): string | undefined {
  if (prefix === undefined) return scope.get('');
  if (prefix === 'xml') return XML_NS;
  const ns = scope.get(prefix);
  if (ns === undefined) throw new MalformedBody(`undeclared namespace prefix ${prefix} on ${what}`);
  return ns;
}

function element(node: OrderedNode, scope: ReadonlyMap<string, string>): XmlElement {
  const name = Object.keys(node).find((k) => k !== ':@')!;
  const raw = (node[':@'] ?? {}) as Record<string, string>;
  const inner = new Map(scope);
  for (const [attr, value] of Object.entries(raw)) {
    if (attr === 'xmlns') inner.set('', value);
    else if (attr.startsWith('xmlns:')) inner.set(attr.slice(6), value);
  }
  const { prefix, local } = split(name);
  const attributes: XmlAttribute[] = [];
  for (const [attr, value] of Object.entries(raw)) {
    if (attr === 'xmlns' || attr.startsWith('xmlns:')) continue;
    const a = split(attr);
    // An unprefixed attribute is in no namespace, whatever the default namespace is.
    attributes.push({ ns: a.prefix === undefined ? undefined : resolve(a.prefix, inner, attr), local: a.local, value });
  }
  const children: XmlElement[] = [];
  let text = '';
  for (const child of node[name] as OrderedNode[]) {
    if ('#text' in child) text += String(child['#text']);
    else children.push(element(child, inner));
  }
  return { ns: resolve(prefix, inner, name), local, attributes, children, text };
}

/** The document's root element; every malformation (and every refused construct) is a MalformedBody. */
export function parseXmlTree(text: string): XmlElement {
  guardXml(text);
  let parsed: OrderedNode[];
  try {
    parsed = parser.parse(text) as OrderedNode[];
  } catch (error) {
    if (error instanceof MalformedBody) throw error;
    throw new MalformedBody(`the XML document is nested deeper than ${MAX_DEPTH} levels or otherwise malformed`);
  }
  const roots = parsed.filter((node) => !('#text' in node));
  if (roots.length !== 1) throw new MalformedBody('an XML document must have exactly one root element');
  return element(roots[0], new Map());
}
