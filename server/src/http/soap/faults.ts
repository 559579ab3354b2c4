/**
 * Refusals as SOAP faults (SPEC 13): the same problem details as REST (problemDetails, the one
 * place), with `Client`/`Sender` for a 4xx and `Server`/`Receiver` for a 5xx, and the problem itself
 * (its `code` first of all) in the fault's detail; an envelope of the other version is VersionMismatch. HTTP statuses follow the SOAP bindings: 500 for
 * every SOAP 1.1 fault (WS-I Basic Profile R1126), 400 for a SOAP 1.2 Sender fault and 500 for a
 * Receiver one (SOAP 1.2 part 2, 7.5.2). The problem's own status is in the detail.
 */
import { problemDetails, type ProblemAnswer } from '../../../../common/src/problem';
import type { WireDocument } from '../../../../common/src/wire/xml';
import { escapeHtml } from '../../../../common/src/html';
import { envelope, SOAP_11, svcElement, VersionMismatch, type SoapVersion } from './envelope';

export interface FaultAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function faultXml(version: SoapVersion, problem: ProblemAnswer, error: unknown): string {
  const code = error instanceof VersionMismatch ? error.soapFaultCode : problem.status < 500 ? version.sender : version.receiver;
  const reason = escapeHtml(problem.body.detail ? `${problem.body.title}: ${problem.body.detail}` : problem.body.title);
  const detail = svcElement('problem', problem.body as unknown as WireDocument);
  if (version === SOAP_11) return `<soap:Fault><faultcode>soap:${code}</faultcode><faultstring>${reason}</faultstring><detail>${detail}</detail></soap:Fault>`;
  return `<soap:Fault><soap:Code><soap:Value>soap:${code}</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${reason}</soap:Text></soap:Reason><soap:Detail>${detail}</soap:Detail></soap:Fault>`;
}

/** Any error of a SOAP call as its fault answer. */
export function faultOf(version: SoapVersion, error: unknown): FaultAnswer {
  const problem = problemDetails(error);
  const status = version === SOAP_11 || problem.status >= 500 ? 500 : 400;
  return { status, headers: problem.headers, body: envelope(version, faultXml(version, problem, error)) };
}
