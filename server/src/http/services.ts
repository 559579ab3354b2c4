import type { Logger } from '../../../common/src/log';
import type { Readiness } from '../../../common/src/http/ops';
import type { Audit, AuditParties } from '../audit';
import type { Authenticator } from '../authenticators/authenticator';
import type { ClientConfig, SvcConfig } from '../config/types';
import type { Core } from '../core';
import type { ForgottenPassword } from '../flows/forgotten-password';
import type { Registrations } from '../flows/registration';
import type { Accounts } from '../login/account';
import type { LoginService } from '../login/login-service';
import type { Metrics } from '../metrics';
import type { SecondFactors } from '../otp/second-factors';
import type { EmailFlows } from '../mail/email-flows';
import type { ScimGroups } from '../scim/groups';
import type { Decisions } from '../policy/decisions';
import type { PresentedCertificate } from '../certificates/presented-certificate';
import type { SessionManager } from '../sessions/session-manager';
import type { SubjectOperations } from '../subjects/subject-operations';
import type { SubjectService } from '../subjects/subject-service';
import { presentedCertificate } from './client-certificate';
import type { Exchange } from './exchange';
import { peerOf } from './peer';

export type ReloadResult = { ok: true } | { ok: false; problems: string[] };

/**
 * What the core's routes use, each service once, typed: the route table gives every route module
 * only the ones it names (`Pick<HttpServices, …>`), so a handler sees its session, ids and services,
 * never the core.
 */
export interface HttpServices {
  log: Logger;
  metrics: Metrics;
  audit: Audit;
  sessions: SessionManager;
  subjects: SubjectService;
  subjectOperations: SubjectOperations;
  decisions: Decisions;
  logins: LoginService;
  accounts: Accounts;
  registrations: Registrations;
  forgottenPassword: ForgottenPassword;
  secondFactors: SecondFactors;
  /** SPEC 16: recovery by link, verified registration, address changes. */
  email: EmailFlows;
  /** SCIM's groups (SPEC 14). */
  scimGroups: ScimGroups;
  /** The running configuration (a request takes it once, as it arrives: `Exchange.config`). */
  config(): SvcConfig;
  client(id: string): ClientConfig | undefined;
  authenticator(id: string): Authenticator | undefined;
  now(): number;
  /** The address a request counts as (SPEC section 9: a verified X-Svc-Forwarded-For, trustProxy, the socket). */
  peerOf(x: Exchange): string;
  /** The client certificate a request presented (SPEC section 13), when certificates are configured. */
  presentedCertificate(x: Exchange): PresentedCertificate | undefined;
  ready(): Promise<Readiness>;
  /** Rereads the configuration file; absent for a server started without one (a demo, a test). */
  reload?: (by: AuditParties) => ReloadResult;
}

/** The services of a core, for its HTTP layer: the one place that reaches into the core. */
export function servicesOf(core: Core, reload?: HttpServices['reload']): HttpServices {
  const trust = {
    forwardedForKeys: (clientId: string) => core.forwardedForKeys(clientId),
    now: core.now,
    audit: core.audit,
    clientCertificates: () => core.clientCertificates,
    xfccPeers: () => core.xfccPeers,
  };
  return {
    log: core.log,
    metrics: core.metrics,
    audit: core.audit,
    sessions: core.sessions,
    subjects: core.subjects,
    subjectOperations: core.subjectOperations,
    decisions: core.decisions,
    logins: core.logins,
    accounts: core.accounts,
    registrations: core.registrations,
    forgottenPassword: core.forgottenPassword,
    secondFactors: core.secondFactors,
    email: core.email,
    scimGroups: core.scimGroups,
    config: () => core.config,
    client: (id) => core.client(id),
    authenticator: (id) => core.authenticator(id),
    now: core.now,
    peerOf: (x) => peerOf(trust, x.config, x.req),
    presentedCertificate: (x) => presentedCertificate(trust, x.req),
    ready: () => core.ready(),
    reload,
  };
}
