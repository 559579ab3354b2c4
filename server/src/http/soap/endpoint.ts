/**
 * `{base}/services/SubjectService` (SPEC 13): GET `?wsdl` serves the WSDL; POST is a SOAP 1.1 or
 * 1.2 call, in these steps: the version by Content-Type (else 415, which keeps browsers' forms out),
 * the body read within `body.limit`, the envelope read by the guarded XML reader, the caller
 * authenticated (the `svc:Security` header as a transient login, else the session cookie through
 * the same filter as REST), the operation performed, and the answer or the fault written.
 *
 * Hand-written rather than the `soap` package's server: that server parses envelopes with its own
 * SAX parser (no way to refuse DOCTYPE and entities before parsing, nor to limit depth), reads the
 * whole body without our limit, answers faults in its own shape (no problem `code`), and owns the
 * HTTP exchange (listen/express middleware) where svc needs its one listener, authentication filter
 * and error hierarchy. The package's client is what the tests use against this WSDL.
 */
import type { Request, Response } from 'express';
import { InvalidRequest, MethodNotAllowed, UnsupportedMediaType } from '../../../../common/src/errors';
import type { SvcConfig } from '../../config/types';
import { readRawBody, bodyText } from '../body';
import { publicOrigin } from '../public-url';
import { refuseUrlCheck } from '../checks';
import { logUnexpected } from '../error-handler';
import { step, type Exchange, type Step } from '../exchange';
import { authenticateExchange, type AuthenticationDeps } from '../authenticate';
import type { HttpServices } from '../services';
import { actionOf, envelope, membersOf, readEnvelope, SVC_NS, svcElement, versionOf, type SoapVersion } from './envelope';
import { faultOf } from './faults';
import { isOperationName, performOperation, type SoapServices } from './operations';
import { headerSession, securityHeaderOf } from './security-header';
import { wsdlDocument } from './wsdl';

export const SERVICE_PATH = '/services/SubjectService';


function send(res: Response, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', `${contentType}; charset=utf-8`);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/** The service's own URL for the WSDL's address: as the client reached it (public-url.ts). */
function serviceUrl(config: SvcConfig, req: Request): string {
  return `${publicOrigin(req)}${config.server.contextRoot}${SERVICE_PATH}`;
}

function wantsWsdl(req: Request): boolean {
  return Object.keys(req.query as Record<string, unknown>).some((name) => name.toLowerCase() === 'wsdl');
}

type Services = SoapServices & AuthenticationDeps & Pick<HttpServices, 'logins' | 'log'>;

/** One SOAP call, from its bytes to its answer; any refusal is thrown and becomes a fault. */
async function call(s: Services, x: Exchange, version: SoapVersion): Promise<void> {
  const { req, res, config } = x;
  await readRawBody(req, res, config.settings.bodyLimitBytes);
  const { headers, operation } = readEnvelope(bodyText(req), version);
  if (operation.ns !== SVC_NS || !isOperationName(operation.local)) {
    throw new InvalidRequest(`the Body names no operation of ${SVC_NS}`);
  }
  const action = actionOf(version, req.headers['content-type'], req.headers.soapaction as string | undefined);
  if (action !== undefined && action !== `${SVC_NS}#${operation.local}`) throw new InvalidRequest(`the SOAP action ${action.slice(0, 64)} does not name the Body's operation`);
  const members = membersOf(operation);
  const security = securityHeaderOf(headers, version);
  if (security) {
    // A transient login: nothing is stored, no cookie is set, and a presented cookie is not used.
    const peer = s.peerOf(x);
    x.state.peer = peer;
    x.state.session = await headerSession(s.logins, config, security, peer);
    x.state.sessionExpired = false;
  } else {
    await authenticateExchange(s, x);
    if (res.writableEnded) return;
  }
  const answer = await performOperation(s, x.state, operation.local, members);
  send(res, 200, version.contentType, envelope(version, svcElement(`${operation.local}Response`, answer)));
}

/**
 * The endpoint's steps. The check holds on every route (SPEC section 6); a SOAP call has no target
 * in its URL (its own isAllowed operation is the check), so a check asked of the endpoint is refused,
 * never performed. GET is the WSDL; a call is a POST whose version its Content-Type names (415
 * otherwise, which keeps browsers' forms out); the call's own refusals are answered as faults.
 */
export function soapSteps(s: Services): Step[] {
  return [
    refuseUrlCheck('nothing here can be checked by URL: SOAP checks with its isAllowed operation'),
    step('serviceDescription', ({ req, res, config }) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return;
      if (!wantsWsdl(req)) throw new InvalidRequest(`GET ${SERVICE_PATH}?wsdl for the service description; calls are POSTs`);
      send(res, 200, 'text/xml', wsdlDocument(serviceUrl(config, req)));
    }),
    step('onlyPost', ({ req, res }) => {
      if (req.method === 'POST') return;
      res.setHeader('Allow', 'GET, HEAD, POST');
      throw new MethodNotAllowed(`${req.method} is not supported here`);
    }),
    step('soapCall', async (x) => {
      const version = versionOf(x.req.headers['content-type']);
      if (!version) throw new UnsupportedMediaType(`a SOAP call is sent as text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2)`);
      try {
        await call(s, x, version);
      } catch (error) {
        // Logged as every other request's error is; answered as a fault.
        logUnexpected(s.log, error, x.req);
        const fault = faultOf(version, error);
        if (x.res.headersSent) return void x.res.destroy();
        send(x.res, fault.status, version.contentType, fault.body, fault.headers);
      }
    }),
  ];
}
