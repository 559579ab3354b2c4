/**
 * `application/problem+xml` in RFC 9457's XML format (its Appendix B), for every process that
 * answers problems in XML (SPEC section 3): the root `problem` in the namespace `urn:ietf:rfc:7807`,
 * the RFC's members (`type`, `title`, `detail`, `status`, `instance`) first, then svc's extension
 * members (`code`, `errors`, …) as child elements in the same namespace; an array is a sequence of
 * `<i>` items and an object is nested elements. A null member has no form in the RFC's format: it is
 * left out.
 *
 * svc answered `<problem>` without a namespace and with `<value>` lists (the REST XML mapping) before;
 * readProblemXml reads both, so a client keeps working against a server of either kind.
 */
import { MalformedBody } from '../errors';
import { FORBIDDEN_NAMES } from './json';
import { parseXml, type WireDocument, type WireValue } from './xml';
import { parseXmlTree, type XmlElement } from './xml-tree';

export const PROBLEM_XML_NS = 'urn:ietf:rfc:7807';

/** RFC 9457's own members, which its schema places before any extension member. */
const STANDARD_MEMBERS = ['type', 'title', 'detail', 'status', 'instance'] as const;

const NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function element(name: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  // Member names come from our own problem shapes (error extensions); one XML cannot carry is a programming error.
  if (!NAME.test(name)) throw new TypeError(`not an XML element name: ${name}`);
  if (Array.isArray(value)) return `<${name}>${value.map((item) => element('i', item)).join('')}</${name}>`;
  if (typeof value === 'object') {
    return `<${name}>${Object.entries(value as Record<string, unknown>).map(([key, v]) => element(key, v)).join('')}</${name}>`;
  }
  return `<${name}>${escapeText(String(value))}</${name}>`;
}

/** A problem's XML document, RFC 9457 Appendix B. */
export function problemXml(problem: Record<string, unknown>): string {
  const standard = STANDARD_MEMBERS.map((name) => element(name, problem[name])).join('');
  const extensions = Object.entries(problem)
    .filter(([name]) => !(STANDARD_MEMBERS as readonly string[]).includes(name))
    .map(([name, value]) => element(name, value))
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><problem xmlns="${PROBLEM_XML_NS}">${standard}${extensions}</problem>`;
}

const blank = (text: string) => text.trim().length === 0;

/** One element of the RFC's format as its JSON value: text, an array of `<i>` items, or an object. */
function fromRfcElement(el: XmlElement, path: string): WireValue {
  if (el.ns !== PROBLEM_XML_NS) throw new MalformedBody(`element ${el.local} at ${path} is not in ${PROBLEM_XML_NS}`);
  if (el.children.length === 0) return el.text;
  if (!blank(el.text)) throw new MalformedBody(`mixed content at ${path}`);
  if (el.children.every((c) => c.local === 'i')) return el.children.map((c, i) => fromRfcElement(c, `${path}[${i}]`));
  const out: { [key: string]: WireValue } = {};
  for (const child of el.children) {
    const at = `${path}.${child.local}`;
    if (FORBIDDEN_NAMES.has(child.local)) throw new MalformedBody(`forbidden element name ${child.local}`);
    if (Object.prototype.hasOwnProperty.call(out, child.local)) throw new MalformedBody(`repeated element at ${at}`);
    out[child.local] = fromRfcElement(child, at);
  }
  return out;
}

/**
 * A problem+xml body as `{problem: {…}}`, in RFC 9457's format or svc's earlier one (no namespace,
 * `<value>` lists); members stay text, as every XML value is (the caller restores `status`).
 */
export function readProblemXml(text: string): WireDocument {
  const root = parseXmlTree(text);
  if (root.ns === undefined) return parseXml(text);
  if (root.local !== 'problem') throw new MalformedBody(`a problem document's root is problem in ${PROBLEM_XML_NS}`);
  const problem = fromRfcElement(root, 'problem');
  if (problem === null || typeof problem !== 'object' || Array.isArray(problem)) {
    // An empty <problem/> (every member is optional in the RFC): no members.
    return { problem: {} };
  }
  return { problem };
}
