/**
 * What an action tells the render that follows it (post/redirect/get): the outcome sentence, the
 * errors by field and the values to show again. Kept in the window's PORTLET_SCOPE session and
 * taken by the next render, so it never travels in a URL (no e-mail address or name lands in
 * history or logs), and a reload after it shows the window's normal state.
 *
 * The values to show again (the refill) are an attribute of their own, REFILL_ATTRIBUTE: a visitor's
 * session travels in its cookie (SPEC 10.2), and when it is full the refill goes first; the outcome
 * sentence and the flow's state stay.
 */
import { IllegalStateException, PortletSession, type PortletRequest } from '../../api';
import { REFILL_ATTRIBUTE } from '../../container/services';
import type { Failure } from './failure';
import type { MessageKind } from './markup';

const KEY = 'svc.flash';

export interface Flash {
  kind: MessageKind;
  message: string;
  fields?: Record<string, string>;
  /** What the user typed (never passwords), to fill the form again. */
  values?: Record<string, string>;
  /** The refusal was step_up_required: the message is shown with a link to the step-up (SPEC 15). */
  stepUp?: boolean;
}

export function setFlash(request: PortletRequest, flash: Flash): void {
  const session = request.getPortletSession(true);
  const { values, ...rest } = flash;
  session?.setAttribute(KEY, rest, PortletSession.PORTLET_SCOPE);
  session?.removeAttribute(REFILL_ATTRIBUTE, PortletSession.PORTLET_SCOPE);
  if (values === undefined || Object.keys(values).length === 0) return;
  try {
    session?.setAttribute(REFILL_ATTRIBUTE, values, PortletSession.PORTLET_SCOPE);
  } catch (error) {
    // A visitor's cookie has no room left: the form is shown again empty, with its message.
    if (!(error instanceof IllegalStateException)) throw error;
  }
}

export function failureFlash(request: PortletRequest, failure: Failure, values?: Record<string, string>): void {
  setFlash(request, { kind: 'error', message: failure.message, fields: failure.fields, values, ...(failure.stepUp ? { stepUp: true } : {}) });
}

/** The flash of the last action, once; a visitor without a session has none (and gets none made). */
export function takeFlash(request: PortletRequest): Flash | undefined {
  const session = request.getPortletSession(false);
  const flash = session?.getAttribute(KEY, PortletSession.PORTLET_SCOPE) as Flash | undefined;
  if (!flash) return undefined;
  const values = session?.getAttribute(REFILL_ATTRIBUTE, PortletSession.PORTLET_SCOPE) as Record<string, string> | undefined;
  session?.removeAttribute(KEY, PortletSession.PORTLET_SCOPE);
  session?.removeAttribute(REFILL_ATTRIBUTE, PortletSession.PORTLET_SCOPE);
  return values ? { ...flash, values } : flash;
}
