/**
 * The public API of the svc client library (`svc/client`). Everything else under client/src is
 * internal and may change.
 */
export { Connection, type ConnectionOptions, type SavedSession } from './connection';
export { loadClientConfig, validateClientConfig, type ClientConfig, type ConfigSources } from './config';
export type { Credentials } from './login';
export type { TransportOptions } from './http-transport';
export {
  SvcClientError,
  SvcLoginError,
  SvcSessionError,
  SvcAccessDeniedError,
  SvcNotFoundError,
  SvcConflictError,
  SvcTransportError,
  SVC_ERROR_CODES,
  type SvcErrorCode,
  type ProblemInfo,
} from './errors';
export {
  OPERATIONS,
  type Operation,
  type AttributeValue,
  type AttributeChanges,
  type Subject,
  type ReadOptions,
  type SubjectRead,
  type ReadInclude,
  type OtpState,
  type MailPending,
  type LockoutState,
  type SearchQuery,
  type SearchPage,
  type SubjectEvent,
  type SubjectEventPage,
  type SessionInfo,
  type SessionType,
  type ContextInfo,
  type CheckDecision,
  type Decision,
  type ConnectionKind,
  type VerificationSent,
  type MailStatus,
} from './types';
export { ClientSealer } from './clientcred/sealer';
