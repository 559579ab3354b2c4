/**
 * The `svc:Security` SOAP header (SPEC 13): `clientId`, `clientcred`, and a `token` or a `user` and
 * `password`, sealed as section 5 says for clients with a secret. It runs the client's authenticators
 * exactly as a login does (client validation, throttle, lockout, audit) and answers a transient
 * session: the call is performed for it and nothing is stored, so no session is left behind.
 */
import { InvalidRequest } from '../../../../common/src/errors';
import type { XmlElement } from '../../../../common/src/wire/xml-tree';
import type { CredentialNames, SvcConfig } from '../../config/types';
import type { LoginService } from '../../login/login-service';
import type { Session } from '../../sessions/session';
import { SVC_NS, toWire, type SoapVersion } from './envelope';

const FIELDS = ['clientId', 'clientcred', 'token', 'user', 'password'] as const;
type Field = (typeof FIELDS)[number];

/** The header entries the service understands: ours. */
export function securityHeaderOf(headers: readonly XmlElement[], version: SoapVersion): XmlElement | undefined {
  const ours = headers.filter((h) => h.ns === SVC_NS && h.local === 'Security');
  if (ours.length > 1) throw new InvalidRequest('svc:Security is given more than once');
  // An entry the sender insists on (mustUnderstand) that is not ours cannot be honoured: refuse the call.
  const insisted = headers.find((h) => h !== ours[0] && h.attributes.some((a) => a.local === 'mustUnderstand' && a.ns === version.envelopeNs && (a.value === '1' || a.value === 'true')));
  if (insisted) throw new InvalidRequest(`the header ${insisted.local} must be understood and is not known here`);
  return ours[0];
}

function fieldsOf(header: XmlElement): Partial<Record<Field, string>> {
  const value = toWire(header, 'Security');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidRequest('svc:Security holds clientId, clientcred, and token or user and password');
  const out: Partial<Record<Field, string>> = {};
  for (const [name, v] of Object.entries(value)) {
    if (!(FIELDS as readonly string[]).includes(name)) throw new InvalidRequest(`svc:Security has no member ${name.slice(0, 32)}`, { errors: [{ path: `Security.${name.slice(0, 32)}`, message: 'unknown member' }] });
    if (typeof v !== 'string') throw new InvalidRequest(`svc:Security.${name} must be text`);
    out[name as Field] = v;
  }
  if (!out.clientId) throw new InvalidRequest('svc:Security names no clientId', { errors: [{ path: 'Security.clientId', message: 'required' }] });
  const withPassword = out.user !== undefined || out.password !== undefined;
  if (withPassword === (out.token !== undefined) || (withPassword && (out.user === undefined || out.password === undefined))) {
    throw new InvalidRequest('svc:Security carries either a token, or a user and a password');
  }
  return out;
}

/** The transient session of a header-authenticated call; a failed login is its refusal (401, 429). */
export async function headerSession(logins: LoginService, config: SvcConfig, header: XmlElement, peer: string): Promise<Session> {
  const fields = fieldsOf(header);
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  const names: Record<Field, keyof CredentialNames> = { clientId: 'client', clientcred: 'clientcred', token: 'token', user: 'user', password: 'password' };
  for (const field of FIELDS) if (fields[field] !== undefined) params[config.settings.credentialNames[names[field]]] = fields[field];
  return logins.transient({ params, peer });
}
