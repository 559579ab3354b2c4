/**
 * The served WSDL 1.1 (SPEC 13): namespace `urn:svc:soap:v1`, document/literal wrapped, one port
 * type with SOAP 1.1 and SOAP 1.2 bindings, `SOAPAction` `urn:svc:soap:v1#<operation>`. Messages
 * mirror the REST XML documents; a subject's attributes are open (`xsd:any`), since each context
 * defines its own.
 */
import { escapeHtml } from '../../../../common/src/html';
import { SVC_NS } from './envelope';
import { OPERATION_NAMES } from './operations';

const SUBJECT = '<xsd:element name="subject" type="tns:Subject"/>';

/** Each operation's request and response members, in the order a client writes them. */
const MESSAGES: Record<(typeof OPERATION_NAMES)[number], { request: string; response: string }> = {
  create: { request: `<xsd:element name="contextId" type="xsd:string"/>${SUBJECT}`, response: `${SUBJECT}<xsd:element name="etag" type="xsd:string"/>` },
  read: { request: '<xsd:element name="contextId" type="xsd:string"/><xsd:element name="subjectId" type="xsd:string"/>', response: `${SUBJECT}<xsd:element name="etag" type="xsd:string"/>` },
  update: {
    request: `<xsd:element name="contextId" type="xsd:string"/><xsd:element name="subjectId" type="xsd:string"/>${SUBJECT}<xsd:element name="ifMatch" type="xsd:string" minOccurs="0"/>`,
    response: `${SUBJECT}<xsd:element name="etag" type="xsd:string"/>`,
  },
  delete: { request: '<xsd:element name="contextId" type="xsd:string"/><xsd:element name="subjectId" type="xsd:string"/>', response: '' },
  search: {
    request:
      '<xsd:element name="contextId" type="xsd:string"/><xsd:element name="search" type="xsd:string" minOccurs="0"/><xsd:element name="filter" type="xsd:string" minOccurs="0"/>' +
      '<xsd:element name="offset" type="xsd:nonNegativeInteger" minOccurs="0"/><xsd:element name="quantity" type="xsd:nonNegativeInteger" minOccurs="0"/>' +
      '<xsd:element name="sort" type="xsd:string" minOccurs="0"/><xsd:element name="order" type="tns:Order" minOccurs="0"/><xsd:element name="include" type="tns:Include" minOccurs="0"/>',
    response: '<xsd:element name="results" type="tns:Results"/><xsd:element name="offset" type="xsd:int"/><xsd:element name="quantity" type="xsd:int"/><xsd:element name="total" type="xsd:int"/>',
  },
  isAllowed: {
    request: '<xsd:element name="operation" type="tns:Operation"/><xsd:element name="contextId" type="xsd:string"/><xsd:element name="subjectId" type="xsd:string" minOccurs="0"/>',
    response:
      '<xsd:element name="decision" type="xsd:string"/><xsd:element name="operation" type="tns:Operation"/><xsd:element name="resource" type="xsd:string"/>' +
      '<xsd:element name="sessionType" type="xsd:string"/><xsd:element name="reason" type="xsd:string"/><xsd:element name="exists" type="xsd:boolean" minOccurs="0"/>',
  },
  getSession: { request: '', response: '<xsd:element name="session" type="tns:Session"/>' },
};

const wrapped = (name: string, members: string) => `<xsd:element name="${name}"><xsd:complexType><xsd:sequence>${members}</xsd:sequence></xsd:complexType></xsd:element>`;

const TYPES = `
<xsd:complexType name="Attributes"><xsd:sequence><xsd:any namespace="##any" processContents="lax" minOccurs="0" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType>
<xsd:complexType name="Subject"><xsd:sequence><xsd:element name="uniqueId" type="xsd:string" minOccurs="0"/><xsd:element name="attributes" type="tns:Attributes" minOccurs="0"/><xsd:element name="status" type="tns:SubjectStatus" minOccurs="0"/></xsd:sequence></xsd:complexType>
<xsd:complexType name="SubjectStatus"><xsd:sequence><xsd:element name="disabled" type="xsd:boolean"/><xsd:element name="locked" type="xsd:boolean"/><xsd:element name="lockedUntil" type="xsd:dateTime" nillable="true"/></xsd:sequence></xsd:complexType>
<xsd:simpleType name="Order"><xsd:restriction base="xsd:string"><xsd:enumeration value="asc"/><xsd:enumeration value="desc"/></xsd:restriction></xsd:simpleType>
<xsd:simpleType name="Include"><xsd:restriction base="xsd:string"><xsd:enumeration value="status"/></xsd:restriction></xsd:simpleType>
<xsd:complexType name="Results"><xsd:sequence><xsd:element name="value" type="tns:Subject" minOccurs="0" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType>
<xsd:simpleType name="Operation"><xsd:restriction base="xsd:string"><xsd:enumeration value="CREATE"/><xsd:enumeration value="READ"/><xsd:enumeration value="UPDATE"/><xsd:enumeration value="DELETE"/><xsd:enumeration value="SEARCH"/></xsd:restriction></xsd:simpleType>
<xsd:complexType name="Principal"><xsd:sequence><xsd:element name="uniqueId" type="xsd:string"/><xsd:element name="contextId" type="xsd:string"/></xsd:sequence></xsd:complexType>
<xsd:complexType name="Session"><xsd:sequence><xsd:element name="uniqueId" type="xsd:string"/><xsd:element name="type" type="xsd:string"/><xsd:element name="clientId" type="xsd:string"/><xsd:element name="principal" type="tns:Principal" nillable="true"/><xsd:element name="level" type="xsd:int"/><xsd:element name="message" type="xsd:string"/></xsd:sequence></xsd:complexType>
<xsd:complexType name="FieldError"><xsd:sequence><xsd:element name="path" type="xsd:string"/><xsd:element name="message" type="xsd:string"/></xsd:sequence></xsd:complexType>
<xsd:complexType name="FieldErrors"><xsd:sequence><xsd:element name="value" type="tns:FieldError" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType>
<xsd:element name="problem"><xsd:complexType><xsd:sequence><xsd:element name="type" type="xsd:string"/><xsd:element name="title" type="xsd:string"/><xsd:element name="status" type="xsd:int"/><xsd:element name="code" type="xsd:string"/><xsd:element name="detail" type="xsd:string" minOccurs="0"/><xsd:element name="errors" type="tns:FieldErrors" minOccurs="0"/><xsd:any namespace="##any" processContents="lax" minOccurs="0" maxOccurs="unbounded"/></xsd:sequence></xsd:complexType></xsd:element>
<xsd:element name="Security"><xsd:complexType><xsd:sequence><xsd:element name="clientId" type="xsd:string"/><xsd:element name="clientcred" type="xsd:string" minOccurs="0"/><xsd:element name="token" type="xsd:string" minOccurs="0"/><xsd:element name="user" type="xsd:string" minOccurs="0"/><xsd:element name="password" type="xsd:string" minOccurs="0"/></xsd:sequence></xsd:complexType></xsd:element>`;

function binding(name: string, prefix: 'soap' | 'soap12'): string {
  const operations = OPERATION_NAMES.map(
    (op) =>
      `<wsdl:operation name="${op}"><${prefix}:operation soapAction="${SVC_NS}#${op}" style="document"/>` +
      `<wsdl:input><${prefix}:body use="literal"/><${prefix}:header message="tns:SecurityHeader" part="Security" use="literal"/></wsdl:input>` +
      `<wsdl:output><${prefix}:body use="literal"/></wsdl:output><wsdl:fault name="problem"><${prefix}:fault name="problem" use="literal"/></wsdl:fault></wsdl:operation>`,
  ).join('');
  return `<wsdl:binding name="${name}" type="tns:SubjectServicePortType"><${prefix}:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>${operations}</wsdl:binding>`;
}

/** The WSDL document, its endpoint at `location` (the service's absolute URL). */
export function wsdlDocument(location: string): string {
  const elements = OPERATION_NAMES.map((op) => wrapped(op, MESSAGES[op].request) + wrapped(`${op}Response`, MESSAGES[op].response)).join('');
  const messages = OPERATION_NAMES.map((op) => `<wsdl:message name="${op}Request"><wsdl:part name="parameters" element="tns:${op}"/></wsdl:message><wsdl:message name="${op}Response"><wsdl:part name="parameters" element="tns:${op}Response"/></wsdl:message>`).join('');
  const portOps = OPERATION_NAMES.map((op) => `<wsdl:operation name="${op}"><wsdl:input message="tns:${op}Request"/><wsdl:output message="tns:${op}Response"/><wsdl:fault name="problem" message="tns:Problem"/></wsdl:operation>`).join('');
  const address = escapeHtml(location);
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<wsdl:definitions name="SubjectService" targetNamespace="${SVC_NS}" xmlns:tns="${SVC_NS}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" ` +
    'xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/">' +
    `<wsdl:types><xsd:schema targetNamespace="${SVC_NS}" elementFormDefault="qualified">${TYPES}${elements}</xsd:schema></wsdl:types>` +
    `${messages}<wsdl:message name="SecurityHeader"><wsdl:part name="Security" element="tns:Security"/></wsdl:message><wsdl:message name="Problem"><wsdl:part name="problem" element="tns:problem"/></wsdl:message>` +
    `<wsdl:portType name="SubjectServicePortType">${portOps}</wsdl:portType>` +
    binding('SubjectServiceSoap11', 'soap') +
    binding('SubjectServiceSoap12', 'soap12') +
    '<wsdl:service name="SubjectService">' +
    `<wsdl:port name="SubjectServiceSoap11" binding="tns:SubjectServiceSoap11"><soap:address location="${address}"/></wsdl:port>` +
    `<wsdl:port name="SubjectServiceSoap12" binding="tns:SubjectServiceSoap12"><soap12:address location="${address}"/></wsdl:port>` +
    '</wsdl:service></wsdl:definitions>'
  );
}
