/**
 * What an action tells the render that follows it (post/redirect/get): the outcome sentence, the
 * errors by field and the values to show again. Kept in the window's PORTLET_SCOPE session and
 * taken by the next render, so it never travels in a URL (no e-mail address or name lands in
 * history or logs), and a reload after it shows the window's normal state.
 */
import { PortletSession, type PortletRequest } from '../../api';
import type { Failure } from './failure';
import type { MessageKind } from './markup';

const KEY = 'svc.flash';

export interface Flash {
  kind: MessageKind;
  message: string;
  fields?: Record<string, string>;
  /** What the user typed (never passwords), to fill the form again. */
  values?: Record<string, string>;
}

export function setFlash(request: PortletRequest, flash: Flash): void {
  request.getPortletSession(true)?.setAttribute(KEY, flash, PortletSession.PORTLET_SCOPE);
}

export function failureFlash(request: PortletRequest, failure: Failure, values?: Record<string, string>): void {
  setFlash(request, { kind: 'error', message: failure.message, fields: failure.fields, values });
}

/** The flash of the last action, once; a visitor without a session has none (and gets none made). */
export function takeFlash(request: PortletRequest): Flash | undefined {
  const session = request.getPortletSession(false);
  const flash = session?.getAttribute(KEY, PortletSession.PORTLET_SCOPE) as Flash | undefined;
  if (flash) session?.removeAttribute(KEY, PortletSession.PORTLET_SCOPE);
  return flash;
}
