/**
 * The subject an action wrote, as the core answered the write (its PUT answers the subject and its
 * ETag): the render after the action shows it instead of reading it again, one gateway request fewer
 * per save (issue 28). Kept in the window's PORTLET_SCOPE session like the flash, taken once, and
 * used only for the subject it is of and only by a render soon after the write (the 303's page; one
 * that comes later reads again: someone else may have written since). User Admin's subject view
 * uses it; Self-Service does not: its page shows the second factor's state and a pending address
 * change (SPEC 15, 16) beside the subject, which the PUT's answer does not hold, and the read that
 * brings them (include=otp,mail) is one request either way.
 */
import { IllegalStateException, PortletSession, type PortletRequest } from '../../api';
import type { Subject } from './svc';

const KEY = 'svc.written';
/** How soon after the write the next render must come to use it. */
const FRESH_MS = 10_000;

export interface WrittenSubject {
  contextId: string;
  subject: Subject;
  etag?: string;
}

interface Kept extends WrittenSubject {
  /** Milliseconds since the epoch. */
  at: number;
}

export function keepWritten(request: PortletRequest, written: WrittenSubject): void {
  const kept: Kept = { ...written, at: Date.now() };
  try {
    request.getPortletSession(true)?.setAttribute(KEY, kept, PortletSession.PORTLET_SCOPE);
  } catch (error) {
    // A visitor's cookie has no room left: the render reads the subject again.
    if (!(error instanceof IllegalStateException)) throw error;
  }
}

/** What the last action wrote to `contextId/uniqueId`, once; otherwise undefined (and anything kept is dropped). */
export function takeWritten(request: PortletRequest, contextId: string, uniqueId: string): { subject: Subject; etag?: string } | undefined {
  const session = request.getPortletSession(false);
  const written = session?.getAttribute(KEY, PortletSession.PORTLET_SCOPE) as Kept | null | undefined;
  if (!written) return undefined;
  session?.removeAttribute(KEY, PortletSession.PORTLET_SCOPE);
  const usable = written.contextId === contextId && written.subject.uniqueId === uniqueId && Date.now() - written.at < FRESH_MS;
  return usable ? { subject: written.subject, etag: written.etag } : undefined;
}
