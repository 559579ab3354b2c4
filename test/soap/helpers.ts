/**
 * A real SOAP client (the `soap` package) built from the served WSDL, for SOAP 1.1 or 1.2, and
 * hand-written envelopes for what no well-behaved client would send.
 */
import * as soap from 'soap';
import { ClientSealer } from '../../client/src/clientcred/sealer';
import { TEST_CREDENTIALS } from '../helpers/core-server';

export type SoapVersionName = '1.1' | '1.2';
export const VERSIONS: readonly SoapVersionName[] = ['1.1', '1.2'];
export const SVC_NS = 'urn:svc:soap:v1';
export const ENVELOPE_NS: Record<SoapVersionName, string> = { '1.1': 'http://schemas.xmlsoap.org/soap/envelope/', '1.2': 'http://www.w3.org/2003/05/soap-envelope' };
export const CONTENT_TYPE: Record<SoapVersionName, string> = { '1.1': 'text/xml; charset=utf-8', '1.2': 'application/soap+xml; charset=utf-8' };

export interface Fault {
  /** `Client`/`Sender` or `Server`/`Receiver`, without the prefix. */
  faultcode: string;
  /** The problem's code, from the fault's detail. */
  code: string;
  /** The problem's HTTP status, from the fault's detail. */
  status: number;
  httpStatus?: number;
}

export type Outcome = { result: Record<string, unknown>; fault?: undefined } | { fault: Fault; result?: undefined };

export type OperationName = 'create' | 'read' | 'update' | 'delete' | 'search' | 'isAllowed' | 'getSession';

export interface SvcSoapClient {
  call(operation: OperationName, args: Record<string, unknown>): Promise<Outcome>;
  /** The last request's envelope as the client wrote it. */
  lastRequest(): string;
}

interface FaultShape {
  faultcode?: string;
  detail?: { problem?: { code?: string; status?: string } };
  Code?: { Value?: string };
  Detail?: { problem?: { code?: string; status?: string } };
}

type Callback = (error: { root?: { Envelope?: { Body?: { Fault?: FaultShape } } }; response?: { status?: number }; message?: string } | null, result: Record<string, unknown>) => void;

/** The client library's port object: one method per operation of the WSDL. */
type Port = Record<OperationName, (args: Record<string, unknown>, callback: Callback) => void>;

/** A client for one SOAP version, with a session cookie or an `svc:Security` header (XML) on every call. */
export async function soapClient(baseUrl: string, version: SoapVersionName, auth: { cookie?: string; security?: () => string } = {}): Promise<SvcSoapClient> {
  // `attributes` is the client library's default key for XML attributes, and our element's name.
  const client = await soap.createClientAsync(`${baseUrl}/services/SubjectService?wsdl`, { forceSoap12Headers: version === '1.2', attributesKey: '$attributes' } as soap.IOptions);
  if (auth.cookie) client.addHttpHeader('Cookie', auth.cookie);
  const service = (client as unknown as Record<string, Record<string, Port>>).SubjectService;
  const port = service[version === '1.1' ? 'SubjectServiceSoap11' : 'SubjectServiceSoap12'];
  return {
    call(operation, args) {
      client.clearSoapHeaders();
      if (auth.security) client.addSoapHeader(auth.security());
      return new Promise((resolve, reject) => {
        port[operation](args, (error, result) => {
          if (!error) return resolve({ result: result ?? {} });
          const fault = error.root?.Envelope?.Body?.Fault;
          if (!fault) return reject(new Error(`not a fault: ${error.message ?? ''}`));
          const problem = fault.detail?.problem ?? fault.Detail?.problem;
          resolve({ fault: { faultcode: (fault.faultcode ?? fault.Code?.Value ?? '').replace(/^.*:/, ''), code: problem?.code ?? '', status: Number(problem?.status), httpStatus: error.response?.status } });
        });
      });
    },
    lastRequest: () => client.lastRequest ?? '',
  };
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** An `svc:Security` header with a user and password, sealed when the client has a secret. */
export function passwordHeader(clientId: string, user: string, password: string): string {
  const secret = (TEST_CREDENTIALS.clients as Record<string, string>)[clientId];
  if (!secret) return `<svc:Security xmlns:svc="${SVC_NS}"><svc:clientId>${escape(clientId)}</svc:clientId><svc:user>${escape(user)}</svc:user><svc:password>${escape(password)}</svc:password></svc:Security>`;
  const sealer = new ClientSealer(clientId, secret);
  const { clientcred, nonce } = sealer.sealClientCred();
  return (
    `<svc:Security xmlns:svc="${SVC_NS}"><svc:clientId>${clientId}</svc:clientId><svc:clientcred>${clientcred}</svc:clientcred>` +
    `<svc:user>${sealer.sealParam('user', user, nonce)}</svc:user><svc:password>${sealer.sealParam('password', password, nonce)}</svc:password></svc:Security>`
  );
}

/** An `svc:Security` header with an identity-provider token, sealed with `secret` when the client has one. */
export function tokenHeader(clientId: string, token: string, secret?: string): string {
  if (!secret) return `<svc:Security xmlns:svc="${SVC_NS}"><svc:clientId>${escape(clientId)}</svc:clientId><svc:token>${escape(token)}</svc:token></svc:Security>`;
  const sealer = new ClientSealer(clientId, secret);
  const { clientcred, nonce } = sealer.sealClientCred();
  return `<svc:Security xmlns:svc="${SVC_NS}"><svc:clientId>${clientId}</svc:clientId><svc:clientcred>${clientcred}</svc:clientcred><svc:token>${sealer.sealParam('token', token, nonce)}</svc:token></svc:Security>`;
}

/** A hand-written envelope around `body`, with an optional header. */
export function envelope(version: SoapVersionName, body: string, header = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="${ENVELOPE_NS[version]}">${header ? `<s:Header>${header}</s:Header>` : ''}<s:Body>${body}</s:Body></s:Envelope>`;
}

export interface RawSoapAnswer {
  status: number;
  contentType: string;
  body: string;
  /** The problem code in a fault's detail (or a problem document's `code`). */
  code?: string;
  faultcode?: string;
  setCookie: string | null;
}

/** POSTs bytes to the service as they are, and reads the fault's code out of the answer. */
export async function postEnvelope(baseUrl: string, body: string, headers: Record<string, string>): Promise<RawSoapAnswer> {
  const res = await fetch(`${baseUrl}/services/SubjectService`, { method: 'POST', headers, body });
  const text = await res.text();
  const code = /<code>([a-z_]+)<\/code>/.exec(text)?.[1] ?? /"code":"([a-z_]+)"/.exec(text)?.[1];
  const faultcode = /<faultcode>[^:<]*:?([A-Za-z]+)<\/faultcode>|<[a-z0-9]+:Value>[^:<]*:([A-Za-z]+)<\//i.exec(text);
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', setCookie: res.headers.get('set-cookie'), body: text, code, faultcode: faultcode ? (faultcode[1] ?? faultcode[2]) : undefined };
}
