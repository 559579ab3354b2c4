/**
 * The typed results of the client library. The wire is XML, where every value is text; the library
 * converts numbers and booleans back (see decode.ts), so callers never see "25" for a quantity.
 */

/** The seed's five operations (the check and the policies use the same names). */
export const OPERATIONS = ['CREATE', 'READ', 'UPDATE', 'DELETE', 'SEARCH'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** An attribute value is a string or a list of strings (SPEC section 3). */
export type AttributeValue = string | string[];

export interface Subject {
  uniqueId: string;
  attributes: Record<string, AttributeValue>;
  /** The subject's version as the server's ETag (results only); give it to `update` as `ifMatch`. */
  etag?: string;
}

/** For UPDATE: the attributes given replace those attributes; `null` removes one. */
export type AttributeChanges = Record<string, AttributeValue | null>;

export interface SearchQuery {
  /** Free text over the context's search attributes. */
  search?: string;
  /** SCIM filter subset, e.g. `mail ew "@example.com"`. */
  filter?: string;
  offset?: number;
  quantity?: number;
}

export interface SearchPage {
  results: Subject[];
  offset: number;
  quantity: number;
  total: number;
}

export type SessionType = 'ANON' | 'USER' | 'SYSTEM';

/** The session structure (seed 2.1, SPEC section 4). `uniqueId` is a public handle, not the cookie. */
export interface SessionInfo {
  uniqueId: string;
  type: SessionType;
  /** Empty for an anonymous session obtained without a client. */
  clientId: string;
  principal: { uniqueId: string; contextId: string } | null;
  /** 0 anonymous, 1 token or client principal, 2 password. */
  level: 0 | 1 | 2;
  message: string;
}

export interface ContextInfo {
  id: string;
  /** The client's default context. */
  default: boolean;
}

export type Decision = 'ALLOW' | 'DENY';

/** The answer of the check (seed 4.1). */
export interface CheckDecision {
  allowed: boolean;
  decision: Decision;
  operation: Operation;
  /** The policy target, e.g. `contexts/employees/subjects/bob`. */
  resource: string;
  sessionType: SessionType;
  reason: string;
  /** Present only when the principal may READ the subject. */
  exists?: boolean;
}

/**
 * The seed's three connection kinds (5.3): anonymous, a trusted client's user principal, user and
 * password; and an X.509 client certificate (SPEC section 13), which names its client itself.
 */
export type ConnectionKind = 'anonymous' | 'principal' | 'password' | 'certificate';
