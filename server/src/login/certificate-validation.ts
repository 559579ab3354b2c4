import { InvalidRequest } from '../../../common/src/errors';
import { CertificateRejected, summarise, type VerifiedCertificate } from '../certificates/client-certificates';
import type { ClientConfig } from '../config/types';
import type { Core } from '../core';
import type { PresentedCertificate } from '../certificates/presented-certificate';

/**
 * Client validation of a certificate login (SPEC section 13): the certificate is the client's proof,
 * in place of a clientcred. So it never comes with a clientcred, and never with a `user` (a client
 * principal), a `password` or a `token`, whose meaning beside it would be a guess: such a request is
 * 400 before anything is verified. Then the certificate is verified, names its client, and that
 * client must have a clientCertificate authenticator (and be the `clientid` given, if one is).
 * Every refusal after the 400 is CertificateRejected (401 invalid_client, audited by the caller).
 */
/** What the validation uses of the core: the running trust, clients and authenticators, and the clock. */
export type CertificateValidationDeps = Pick<Core, 'config' | 'clientCertificates' | 'client' | 'authenticator' | 'now'>;

export function validateCertificate(core: CertificateValidationDeps, presented: PresentedCertificate, params: Readonly<Record<string, string>>): { client: ClientConfig; certificate: VerifiedCertificate } {
  const names = core.config.settings.credentialNames;
  const mixed = [names.clientcred, names.user, names.password, names.token].filter((name) => params[name] !== undefined);
  if (mixed.length) {
    throw new InvalidRequest('a certificate login is its own client validation and takes no other credential', {
      errors: mixed.map((path) => ({ path, message: 'not allowed with a client certificate' })),
    });
  }
  if ('unreadable' in presented) throw new CertificateRejected('unreadable');
  const trust = core.clientCertificates;
  if (!trust) throw new CertificateRejected('untrusted_chain', summarise(presented.certificate));
  const certificate = trust.verify(presented.certificate, core.now());
  const client = core.client(certificate.clientId);
  const reject = (reason: 'unknown_client' | 'client_mismatch' | 'no_certificate_authenticator'): never => {
    throw new CertificateRejected(reason, certificate);
  };
  if (!client) return reject('unknown_client');
  const given = params[names.client];
  if (given !== undefined && given !== client.id) reject('client_mismatch');
  if (!client.authenticators.some((id) => core.authenticator(id)?.config.variant === 'clientCertificate')) reject('no_certificate_authenticator');
  return { client, certificate };
}
