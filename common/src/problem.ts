import { InvalidRequest, MalformedBody, PayloadTooLarge, SvcError, UnsupportedMediaType } from './errors';

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  instance?: string;
  errors?: { path: string; message: string }[];
  [extension: string]: unknown;
}

export interface ProblemAnswer {
  status: number;
  headers: Record<string, string>;
  body: ProblemDetails;
}

/**
 * Express, node and the libraries under them signal their own failures with `type`/`status` (the
 * http-errors convention) or as a URIError (a malformed percent-escape); this names them in svc's
 * terms, so that every process and every transport (REST, pages, SOAP, the gateway, the portal)
 * answers them alike. Anything else is returned as it is.
 */
export function asSvcError(error: unknown): unknown {
  if (error instanceof SvcError || !error || typeof error !== 'object') return error;
  if (error instanceof URIError) return new InvalidRequest('the path is not valid percent-encoding');
  const e = error as { type?: string; status?: number };
  if (e.type === 'entity.too.large') return new PayloadTooLarge('the request body exceeds the configured limit');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return new UnsupportedMediaType('unsupported body encoding');
  if (e.type === 'request.aborted' || e.type === 'request.size.invalid') return new MalformedBody('the request body was incomplete');
  if (e.status === 400) return new InvalidRequest('malformed request');
  return error;
}

/**
 * The one place where an error becomes an RFC 9457 answer, for every process (framework errors
 * named first by asSvcError). Unknown errors and
 * unexposed server errors become a bare 500 with no detail: never a stack trace or a message that
 * could carry internal state.
 */
export function problemDetails(thrown: unknown, instance?: string): ProblemAnswer {
  const error = asSvcError(thrown);
  if (error instanceof SvcError && error.expose) {
    const body: ProblemDetails = {
      type: `urn:svc:problem:${error.code}`,
      title: error.title,
      status: error.status,
      code: error.code,
      ...error.extensions,
    };
    if (error.message && error.message !== error.title) body.detail = error.message;
    if (error.errors) body.errors = error.errors;
    if (instance) body.instance = instance;
    const headers = { ...error.headers };
    // RFC 9110 15.5.2: every 401 names a scheme the client can answer.
    if (error.status === 401 && !headers['WWW-Authenticate']) headers['WWW-Authenticate'] = `SvcSession realm="svc", error="${error.code}"`;
    return { status: error.status, headers, body };
  }
  return {
    status: 500,
    headers: {},
    body: { type: 'urn:svc:problem:internal_error', title: 'Internal server error', status: 500, code: 'internal_error' },
  };
}
