/**
 * SOAP envelopes in and out (SPEC 13): the version from the Content-Type, the envelope read with
 * the guarded XML reader (DOCTYPE and entities refused, nesting and size limited as in REST), the
 * operation's wrapper element turned into the REST XML's JSON shape, and answers written back.
 */
import { InvalidRequest, MalformedBody } from '../../../../common/src/errors';
import { FORBIDDEN_NAMES } from '../../../../common/src/wire/json';
import { parseXmlTree, type XmlElement } from '../../../../common/src/wire/xml-tree';
import { toXmlFragment, type WireDocument, type WireValue } from '../../../../common/src/wire/xml';

/** The service's namespace: every operation, message and header of ours. */
export const SVC_NS = 'urn:svc:soap:v1';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

export interface SoapVersion {
  name: '1.1' | '1.2';
  envelopeNs: string;
  contentType: string;
  /** Fault codes for the caller's mistakes (4xx) and the service's own failures (5xx). */
  sender: string;
  receiver: string;
}

export const SOAP_11: SoapVersion = { name: '1.1', envelopeNs: 'http://schemas.xmlsoap.org/soap/envelope/', contentType: 'text/xml', sender: 'Client', receiver: 'Server' };
export const SOAP_12: SoapVersion = { name: '1.2', envelopeNs: 'http://www.w3.org/2003/05/soap-envelope', contentType: 'application/soap+xml', sender: 'Sender', receiver: 'Receiver' };

/** The SOAP version a Content-Type announces, or undefined when it is not a SOAP one (then 415). */
export function versionOf(contentType: string | undefined): SoapVersion | undefined {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === SOAP_11.contentType) return SOAP_11;
  if (type === SOAP_12.contentType) return SOAP_12;
  return undefined;
}

/** SOAP 1.2 carries the action in the Content-Type's `action` parameter, 1.1 in the SOAPAction header. */
export function actionOf(version: SoapVersion, contentType: string | undefined, soapAction: string | undefined): string | undefined {
  if (version === SOAP_11) return soapAction?.trim().replace(/^"(.*)"$/, '$1') || undefined;
  const match = /;\s*action\s*=\s*("([^"]*)"|[^;\s]+)/i.exec(contentType ?? '');
  return (match?.[2] ?? match?.[1]) || undefined;
}

export interface Envelope {
  headers: XmlElement[];
  /** The body's one element: the operation's wrapper, or anything else (refused by the caller). */
  operation: XmlElement;
}

const blank = (text: string) => text.trim().length === 0;

/** An envelope in another namespace than the Content-Type's version: SOAP's VersionMismatch fault. */
export class VersionMismatch extends MalformedBody {
  readonly soapFaultCode = 'VersionMismatch';
}

/** The envelope of a request; a wrong envelope namespace is the version mismatch SOAP names. */
export function readEnvelope(text: string, version: SoapVersion): Envelope {
  const root = parseXmlTree(text);
  if (root.local !== 'Envelope' || root.ns !== version.envelopeNs) {
    throw new VersionMismatch(`the root element must be Envelope in ${version.envelopeNs} (SOAP ${version.name}, by the Content-Type)`);
  }
  if (!blank(root.text)) throw new MalformedBody('text directly inside Envelope');
  const parts = root.children;
  const header = parts.length === 2 ? parts[0] : undefined;
  const body = parts[parts.length - 1];
  const named = (el: XmlElement | undefined, local: string) => el !== undefined && el.ns === version.envelopeNs && el.local === local;
  if (parts.length < 1 || parts.length > 2 || !named(body, 'Body') || (header !== undefined && !named(header, 'Header'))) {
    throw new MalformedBody('an Envelope holds an optional Header and then a Body');
  }
  const entries = body.children;
  if (entries.length !== 1 || !blank(body.text)) throw new MalformedBody('the Body must hold exactly one operation element');
  return { headers: header?.children ?? [], operation: entries[0] };
}

/** Whether an element is `nil`: REST's `nil="true"` or XML Schema's `xsi:nil="true"`. */
function isNil(el: XmlElement): boolean {
  return el.attributes.some((a) => a.local === 'nil' && (a.ns === undefined || a.ns === XSI_NS) && (a.value === 'true' || a.value === '1'));
}

/**
 * An element of ours as the REST XML's JSON shape (SPEC section 3's mapping): our namespace or none,
 * no attributes but nil, no mixed content, lists as `<value>` sequences, no repeated or forbidden names.
 */
export function toWire(el: XmlElement, path: string): WireValue {
  if (el.ns !== undefined && el.ns !== SVC_NS) throw new MalformedBody(`element ${el.local} at ${path || 'the operation'} is in namespace ${el.ns.slice(0, 80)}, not ${SVC_NS}`);
  const nil = isNil(el);
  const stray = el.attributes.find((a) => a.local !== 'nil' || (a.ns !== undefined && a.ns !== XSI_NS));
  if (stray) throw new MalformedBody(`unexpected XML attribute ${stray.local} at ${path || el.local}`);
  if (nil) {
    if (el.children.length || !blank(el.text)) throw new MalformedBody(`a nil element has content at ${path}`);
    return null;
  }
  if (el.children.length === 0) return el.text;
  if (!blank(el.text)) throw new MalformedBody(`mixed content at ${path}`);
  if (el.children.every((c) => c.local === 'value')) return el.children.map((c, i) => toWire(c, `${path}[${i}]`));
  const out: { [key: string]: WireValue } = {};
  for (const child of el.children) {
    const at = path ? `${path}.${child.local}` : child.local;
    if (FORBIDDEN_NAMES.has(child.local)) throw new MalformedBody(`forbidden element name ${child.local}`);
    if (Object.prototype.hasOwnProperty.call(out, child.local)) throw new MalformedBody(`repeated element at ${at}; lists are <value> sequences`);
    out[child.local] = toWire(child, at);
  }
  return out;
}

/** The wrapper's members: an empty wrapper has none. */
export function membersOf(operation: XmlElement): Record<string, WireValue> {
  const value = toWire(operation, '');
  if (value === '') return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidRequest(`${operation.local} must hold its parameters as elements`);
  return value;
}

/** A whole answer envelope around one body element, in our namespace as its default. */
export function envelope(version: SoapVersion, bodyXml: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="${version.envelopeNs}"><soap:Body>${bodyXml}</soap:Body></soap:Envelope>`;
}

/**
 * `<name xmlns="urn:svc:soap:v1">members</name>`: an operation's response or a fault's detail. A null
 * member (an anonymous session's principal) is `xsi:nil="true"`, as the WSDL's nillable elements say:
 * schema validators and SOAP stacks (zeep, JAX-WS) read REST's bare `nil="true"` as an element with
 * an unknown attribute, not as null. `members` is one of the wire types (plain data: a subject, a
 * search page, a check answer, a session view, a problem), which the XML mapping walks as any document.
 */
export function svcElement(name: string, members: object): string {
  return `<${name} xmlns="${SVC_NS}" xmlns:xsi="${XSI_NS}">${toXmlFragment(members as WireDocument, 'xsi:nil')}</${name}>`;
}
