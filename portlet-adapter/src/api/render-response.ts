import type { PortletResponse } from './portlet-response';
import type { PortletURL } from './portlet-url';

/** What a portlet writes markup to: a fragment, never `html`, `head` or `body`. */
export interface PortletWriter {
  write(text: string): void;
  print(text: string): void;
  println(text?: string): void;
}

/**
 * `javax.portlet.RenderResponse`. `setContentType` (one of the request's
 * `getResponseContentTypes()`) must come before `getWriter`, as in JSR-168.
 */
export interface RenderResponse extends PortletResponse {
  getContentType(): string | null;
  setContentType(type: string): void;
  getCharacterEncoding(): string;
  getLocale(): string;
  /** `IllegalStateException` before `setContentType`. */
  getWriter(): PortletWriter;
  createRenderURL(): PortletURL;
  createActionURL(): PortletURL;
  /**
   * A token unique to this window on the page (`svc_<windowId>_`), valid in HTML ids and
   * JavaScript names: prefix every `id` and script name with it.
   */
  getNamespace(): string;
  setTitle(title: string): void;
  /** Output is discarded unless the portlet writes it; the portal buffers the whole fragment. */
  resetBuffer(): void;
  isCommitted(): boolean;
}

export const RenderResponse = {
  /** Property: seconds this render may be cached (overrides the descriptor's `expirationCache`). */
  EXPIRATION_CACHE: 'portlet.expiration-cache',
} as const;
