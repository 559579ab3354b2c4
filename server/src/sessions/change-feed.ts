/**
 * How cores sharing subjects hear about each other's subject writes (SPEC section 12): every core
 * publishes the subjects it wrote, and drops its cached roles for each subject any core wrote.
 *
 * A listener hears `changed` for every published subject, its own included, and `resubscribed` each
 * time the feed is (again) subscribed: writes may have been missed while it was not, so the listener
 * drops everything it cached. Variants: redis-change-feed.ts (Redis pub/sub, provided by the Redis
 * session store). Without a feed (one process), a core drops its own entries on its own writes and
 * the roles cache's time bound covers writes made elsewhere (another process on the same store).
 */
export interface ChangeListener {
  changed(contextId: string, uniqueId: string): void;
  resubscribed(): void;
}

export interface ChangeFeed {
  /** Starts listening; resolves once subscribed the first time (the listener's `resubscribed` has run). */
  subscribe(listener: ChangeListener): Promise<void>;
  /** Tells every core (this one too) that the subject changed. */
  publish(contextId: string, uniqueId: string): Promise<void>;
  close(): Promise<void>;
}
