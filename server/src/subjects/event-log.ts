/**
 * Keeps the audit events about subjects in their stores (SPEC 10.4), and runs the retention job. The
 * audit line stays the record of truth: an event a store cannot take is logged and dropped, never
 * an error of the request that caused it.
 */
import type { Logger } from '../../../common/src/log';
import type { AuditRecord } from '../audit';
import type { SvcConfig } from '../config/types';
import { subjectEventsOf } from './subject-events';
import type { SubjectStore } from './store';

export interface SubjectEventLogDeps {
  /** The store of a context, undefined for one the configuration does not have. */
  storeOf(contextId: string): SubjectStore | undefined;
  /** Every store in use, each once (the job prunes each). */
  stores(): SubjectStore[];
  config(): SvcConfig;
  now(): number;
  log: Logger;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The reasons of a successful `subject_write` that deleted its subject (an admin's DELETE, the sweep of unverified registrants). */
const DELETIONS: ReadonlySet<string> = new Set(['delete', 'unverified_removed']);

export class SubjectEventLog {
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: SubjectEventLogDeps) {}

  /**
   * Audit's listener: each subject the record is about gets the event, in its context's store. A
   * subject's deletion instead drops its events (its audit line stays), so a new subject given the
   * same id later does not show, or let its holder read, what happened to the one deleted.
   */
  record(record: AuditRecord): void {
    const deleted = record.event === 'subject_write' && record.outcome === 'success' && DELETIONS.has(String(record.reason));
    for (const { contextId, uniqueId, event } of subjectEventsOf(record, new Date(this.deps.now()).toISOString())) {
      const events = this.deps.storeOf(contextId)?.events;
      if (!events) continue;
      (deleted ? events.forget(contextId, uniqueId) : events.append(contextId, uniqueId, event)).catch((error: unknown) =>
        this.deps.log.warn({ event: 'subject_event', outcome: 'failure', err: String(error) }, deleted ? 'could not drop a deleted subject\'s events' : 'could not keep a subject event'),
      );
    }
  }

  /** One run of the retention job: older than `events.retentionDays`, or beyond `events.maxPerSubject` of a subject. */
  async prune(): Promise<number> {
    const { retentionDays, maxPerSubject } = this.deps.config().settings.events;
    const before = new Date(this.deps.now() - retentionDays * DAY_MS).toISOString();
    let dropped = 0;
    for (const store of this.deps.stores()) if (store.events) dropped += await store.events.prune(before, maxPerSubject);
    return dropped;
  }

  /** Runs the job every `events.pruneInterval` seconds (read at each run, so a reload applies), until `stop`. */
  start(): void {
    const schedule = () => {
      this.timer = setTimeout(() => {
        this.prune()
          .catch((error: unknown) => this.deps.log.warn({ event: 'subject_event', outcome: 'failure', err: String(error) }, 'the subject events retention job failed'))
          .finally(() => {
            if (this.timer) schedule();
          });
      }, this.deps.config().settings.events.pruneIntervalSeconds * 1000);
      this.timer.unref();
    };
    schedule();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
