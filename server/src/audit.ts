import type { Logger } from '../../common/src/log';
import { principalName } from '../../common/src/principal-name';
import type { Metrics } from './metrics';
import type { Session } from './sessions/session';

export type AuditEvent =
  | 'login'
  | 'logout'
  | 'lockout'
  | 'session_end'
  | 'access_denied'
  | 'subject_write'
  | 'config_change'
  | 'client_validation'
  | 'header_token_ignored'
  | 'xfcc_ignored'
  | 'forwarded_for_ignored'
  | 'password_hash_refused'
  /** A second factor enrolled, confirmed, removed (SPEC 15): never its secret nor a code. */
  | 'second_factor'
  /** A message sent, failed or dropped (SPEC 16): its kind and subject, never its token. */
  | 'mail';

/** Who acted: on every audit line (SPEC section 8), null where the event has none. */
export interface AuditParties {
  /** The acting session's handle (never the cookie). */
  session: string | null;
  client: string | null;
  /** `contextId/uniqueId` of the acting session's principal, unless the line says otherwise. */
  principal: string | null;
  /** The request's peer (the visitor behind a trusted proxy). */
  peer: string | null;
}

export interface AuditRecord extends AuditParties {
  event: AuditEvent;
  outcome: 'success' | 'failure';
  reason?: string;
  [detail: string]: unknown;
}

/** The parties of a line no request caused (a reload by SIGHUP, sessions ended after a subject's write). */
export const NO_PARTIES: AuditParties = Object.freeze({ session: null, client: null, principal: null, peer: null });

/** The parties of a line caused by a request of this session from this peer. */
export function partiesOf(session: Session, peer: string | null): AuditParties {
  return { session: session.handle, client: session.clientId, principal: session.principal ? principalName(session.principal) : null, peer };
}

/**
 * Audit lines (SPEC section 8): one JSON line per event through the process logger, marked
 * `audit: true`, and a counter. Callers pass handles and ids only, never a secret or a password.
 */
export class Audit {
  private readonly listeners: Array<(record: AuditRecord) => void> = [];

  constructor(private readonly log: Logger, private readonly metrics: Metrics) {}

  /** Hears every record after its line is written (the subject events, SPEC 10.4). */
  onRecord(listener: (record: AuditRecord) => void): void {
    this.listeners.push(listener);
  }

  record(record: AuditRecord): void {
    this.metrics.audit.inc({ event: record.event, outcome: record.outcome, reason: record.reason ?? '' });
    this.log.info({ audit: true, ...record }, record.event);
    for (const listener of this.listeners) listener(record);
  }
}
