/**
 * Refusals as SOAP faults (SPEC 13): the same problem details as REST (problemDetails, the one
 * place, which also names the framework's and node's own failures: a 413, 415 or 400 over REST is
 * the same over SOAP), with `Client`/`Sender` for a 4xx and `Server`/`Receiver` for a 5xx, and the problem itself
 * (its `code` first of all) in the fault's detail; an envelope of the other version is VersionMismatch.
 *
 * The HTTP status is the problem's own, in both versions: a refusal is the same 4xx over SOAP as over
 * REST. WS-I BP R1126 asks 500 for every SOAP 1.1 fault and SOAP 1.2's binding 400 for every Sender
 * fault; we depart from both on purpose, so that hostile or mistaken input never reads as a server
 * error in metrics, alerts and the soak, and a client sees 401/403/404/412 as it would over REST.
 * SOAP stacks (the `soap` package, JAX-WS, WCF) read a fault body whatever the status.
 */
import { problemDetails, type ProblemAnswer } from '../../../../common/src/problem';
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
  const detail = svcElement('problem', problem.body);
  if (version === SOAP_11) return `<soap:Fault><faultcode>soap:${code}</faultcode><faultstring>${reason}</faultstring><detail>${detail}</detail></soap:Fault>`;
  return `<soap:Fault><soap:Code><soap:Value>soap:${code}</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">${reason}</soap:Text></soap:Reason><soap:Detail>${detail}</soap:Detail></soap:Fault>`;
}

/** Any error of a SOAP call as its fault answer. */
export function faultOf(version: SoapVersion, error: unknown): FaultAnswer {
  const problem = problemDetails(error);
  return { status: problem.status, headers: problem.headers, body: envelope(version, faultXml(version, problem, error)) };
}
