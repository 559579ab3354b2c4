import type { SessionRecord, SessionStore } from '../../server/src/sessions/session-store';
import type { Principal } from '../../server/src/sessions/session';

/** A clock that only moves when told to (tests never sleep). */
export class FakeClock {
  constructor(public t = Date.UTC(2030, 0, 1)) {}
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface StoreBounds {
  maxSessions?: number;
  maxNonces?: number;
}

/** How a behavioural suite gets a fresh, empty store of one variant. */
export interface StoreHarness {
  /** A fresh empty store; the harness closes it after the test. */
  make(clock: FakeClock, bounds?: StoreBounds): SessionStore;
  /** True when store TTLs run on the injected clock (memory); false when on the backend's own (Redis). */
  storeFollowsClock: boolean;
  /** Remaining TTL (ms) of a session or nonce as the backend holds it; only for backends with their own clock. */
  remainingTtl?(store: SessionStore, kind: 'session' | 'nonce', key: string): Promise<number>;
}

let counter = 0;

export function record(overrides: Partial<SessionRecord> = {}, principal: Principal | null = { uniqueId: 'jdoe', contextId: 'people' }): SessionRecord {
  counter++;
  return {
    handle: `handle${String(counter).padStart(16, '0')}`,
    type: 'USER',
    clientId: 'web',
    principal,
    level: 2,
    authenticator: 'pw',
    created: 1_000,
    lastAccess: 1_000,
    ...overrides,
  };
}

export function key(n: number | string): string {
  return `k${String(n).padStart(63, '0')}`;
}
