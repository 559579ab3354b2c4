/** The certificate suites' PKI (bench/lib/pki.ts, shared with the bench) and the openssl requirement. */
import { hasOpenssl } from '../../bench/lib/pki';
import type { Requirement } from './services';

export { TestCa, type Issued, type CertificateSpec } from '../../bench/lib/pki';

/** Debian's openssl, which makes the CRLs: suites needing it skip (or fail under SVC_TEST_REQUIRE_ALL=1) without it. */
export function opensslRequirement(): Requirement {
  return hasOpenssl()
    ? { name: 'openssl', url: 'openssl', reachable: true, kind: 'program' }
    : { name: 'openssl', url: 'openssl', reachable: false, reason: 'apt-get install -y openssl', kind: 'program' };
}
