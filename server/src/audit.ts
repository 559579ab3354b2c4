import type { Logger } from '../../common/src/log';
import type { Metrics } from './metrics';

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
  | 'password_hash_refused';

export interface AuditRecord {
  event: AuditEvent;
  outcome: 'success' | 'failure';
  reason?: string;
  session?: string;
  client?: string;
  principal?: string;
  peer?: string;
  [detail: string]: unknown;
}

/**
 * Audit lines (SPEC section 8): one JSON line per event through the process logger, marked
 * `audit: true`, and a counter. Callers pass handles and ids only, never a secret or a password.
 */
export class Audit {
  constructor(private readonly log: Logger, private readonly metrics: Metrics) {}

  record(record: AuditRecord): void {
    this.metrics.audit.inc({ event: record.event, outcome: record.outcome, reason: record.reason ?? '' });
    this.log.info({ audit: true, ...record }, record.event);
  }
}
