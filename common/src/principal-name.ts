/**
 * A principal named across contexts: `contextId/uniqueId` (SPEC sections 4 and 9). The portal's
 * assertion, the client-principal authenticator and the client library's principal connection all
 * carry a user this way, so that `alice` of `customers` can never be read as `alice` of `employees`.
 *
 * In `common` because the signer (portal), the verifier (gateway), the client library and the core
 * must agree on one spelling. The syntax of both halves is checked here; whether the context and the
 * subject exist is for the core to say.
 */

/** A context id, as the configuration schema allows it (`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`). */
export const CONTEXT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';
const CONTEXT_ID = new RegExp(CONTEXT_ID_PATTERN);
/** 1–256 letters, digits and `. _ @ + -`, not starting with `.` (SPEC section 3). */
const SUBJECT_ID = /^(?!\.)[A-Za-z0-9._@+-]{1,256}$/;

export interface PrincipalName {
  contextId: string;
  uniqueId: string;
}

export function isContextId(value: unknown): value is string {
  return typeof value === 'string' && CONTEXT_ID.test(value);
}

export function isSubjectId(value: unknown): value is string {
  return typeof value === 'string' && SUBJECT_ID.test(value);
}

/**
 * `contextId/uniqueId`, the one spelling, unchecked: how audit lines, logs and keys name a principal
 * whose halves were checked when it was made (a SYSTEM principal has no context: `/svcadmin`).
 */
export function principalName(name: PrincipalName): string {
  return `${name.contextId}/${name.uniqueId}`;
}

/** `contextId/uniqueId` for another party to read; a caller mistake (either half not in its syntax) is a TypeError. */
export function formatPrincipalName(name: PrincipalName): string {
  if (typeof name !== 'object' || name === null || !isContextId(name.contextId) || !isSubjectId(name.uniqueId)) {
    throw new TypeError('a principal is {contextId, uniqueId}: a context id and a subject id (SPEC section 3)');
  }
  return principalName(name);
}

/**
 * The two halves of `contextId/uniqueId` at its one `/`, neither checked (undefined without exactly
 * one `/`): for a reader that checks the halves its own way.
 */
export function splitPrincipalName(text: string): PrincipalName | undefined {
  const slash = text.indexOf('/');
  if (slash < 0 || text.indexOf('/', slash + 1) >= 0) return undefined;
  return { contextId: text.slice(0, slash), uniqueId: text.slice(slash + 1) };
}

/**
 * The strict reading of `contextId/uniqueId`: exactly one `/`, each half in its syntax, nothing
 * trimmed or case-folded. Anything else is undefined; the caller decides what that means.
 */
export function parsePrincipalName(text: unknown): PrincipalName | undefined {
  if (typeof text !== 'string') return undefined;
  const name = splitPrincipalName(text);
  return name && isContextId(name.contextId) && isSubjectId(name.uniqueId) ? name : undefined;
}

/**
 * A principal received as `{contextId, uniqueId}` (a session structure from another process),
 * checked as strictly as parsePrincipalName checks the text: the two members alone, or undefined.
 */
export function principalNameOf(value: unknown): PrincipalName | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { contextId, uniqueId } = value as Record<string, unknown>;
  return isContextId(contextId) && isSubjectId(uniqueId) ? { contextId, uniqueId } : undefined;
}

/** Whether two principals are the same one: both halves compared exactly (SPEC section 3). */
export function samePrincipal(a: PrincipalName, b: PrincipalName | null | undefined): boolean {
  return b !== null && b !== undefined && a.contextId === b.contextId && a.uniqueId === b.uniqueId;
}
