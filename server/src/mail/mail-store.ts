/**
 * Where mail's state is kept (SPEC 16), shared by every core that names the same store: the queue of
 * messages to send (the intent only: kind, subject, address; never a token), the SHA-256 of each
 * token a sent message carries, the subjects whose address is not verified yet, and pending address
 * changes. Every change that must hold across cores is one statement: a queued message is claimed
 * for a lease by one core at a time, and a token is taken (deleted) by exactly one request.
 *
 * Variants: sqlite-mail-store.ts (`mail.sqlite` in the data directory: the cores of one machine) and
 * postgres-mail-store.ts (`stores.postgres`: any number of cores). mail-stores.ts picks.
 */

/** What a message says: a link (reset, verify, change) or a notice. */
export type MailKind =
  /** A password reset link (SPEC 16: 15 minutes). */
  | 'reset'
  /** A registrant's verification link (24 h). */
  | 'verify'
  /** An address change's link, to the new address (24 h). */
  | 'change'
  /** To a registrant whose address is already registered: no link. */
  | 'registered'
  /** To the old address of an address change. */
  | 'changing'
  /** To an address someone tried to take that is already another subject's. */
  | 'taken';

/** The kinds whose message carries a token. */
export const TOKEN_KINDS: ReadonlySet<MailKind> = new Set(['reset', 'verify', 'change']);

/** The intent to send one message: nothing in it opens anything. */
export interface MailIntent {
  kind: MailKind;
  contextId: string;
  uniqueId: string;
  /** Where it goes. */
  address: string;
  /** The origin and path a link points at instead of `mail.publicBase` (a portal's window), checked against `mail.linkOrigins`. */
  returnTo?: string;
  /** After this (epoch ms) the message is dropped rather than sent. */
  notAfter: number;
}

export interface QueuedMail extends MailIntent {
  id: string;
  /** Epoch ms it was queued. */
  created: number;
  /** Sends tried and failed so far. */
  attempts: number;
}

/** A token as kept: its SHA-256, never the token. */
export interface StoredToken {
  /** SHA-256 of the token, base64url. */
  hash: string;
  kind: 'reset' | 'verify' | 'change';
  contextId: string;
  uniqueId: string;
  /** The address a `change` token moves the subject to; the address a `verify` token was sent to. */
  address: string;
  /** A reset's: a digest of the subject's credential version when the token was made (any password change voids the link). */
  bound: string;
  /** Epoch ms. */
  expires: number;
}

export interface MailStore {
  open(): Promise<void>;
  close(): Promise<void>;
  enqueue(intent: MailIntent, now: number): Promise<void>;
  /** The next due message, leased to the caller until `now + leaseMs` (another core takes it after that), or undefined. */
  claim(now: number, leaseMs: number): Promise<QueuedMail | undefined>;
  /** Sent, or dropped: gone from the queue. */
  remove(id: string): Promise<void>;
  /** Failed: tried again at `nextAt`. */
  retry(id: string, attempts: number, nextAt: number): Promise<void>;
  /** When the next queued message is due (epoch ms), if any is queued. */
  nextDue(): Promise<number | undefined>;
  /** Messages queued (for /metrics and tests). */
  queued(): Promise<number>;

  putToken(token: StoredToken): Promise<void>;
  /** The live token of this hash and kind, removed in the same step (single use); undefined if none. */
  takeToken(hash: string, kind: StoredToken['kind'], now: number): Promise<StoredToken | undefined>;
  /** Forgets the expired tokens (a periodic job). */
  pruneTokens(now: number): Promise<void>;

  /** A registrant whose address is not verified yet, since `now`. */
  markUnverified(contextId: string, uniqueId: string, now: number): Promise<void>;
  /** When the subject registered, if its address is not verified yet. */
  unverifiedSince(contextId: string, uniqueId: string): Promise<number | undefined>;
  /** Verified (or deleted): removed from the list; resolves whether it was there. */
  clearUnverified(contextId: string, uniqueId: string): Promise<boolean>;
  /** Unverified subjects registered before `before`. */
  unverifiedBefore(before: number, limit: number): Promise<Array<{ contextId: string; uniqueId: string }>>;

  /** The subject's pending address change (replacing an earlier one), until `expires`. */
  setPendingAddress(contextId: string, uniqueId: string, address: string, expires: number): Promise<void>;
  pendingAddress(contextId: string, uniqueId: string, now: number): Promise<{ address: string; expires: number } | undefined>;
  clearPendingAddress(contextId: string, uniqueId: string): Promise<void>;
}
