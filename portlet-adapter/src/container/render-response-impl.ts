import { IllegalArgumentException, IllegalStateException, PortletException } from '../api/exceptions';
import type { PortletRequest } from '../api/portlet-request';
import type { PortletURL } from '../api/portlet-url';
import { RenderResponse, type PortletWriter } from '../api/render-response';
import { PortletURLImpl } from './portlet-url-impl';
import type { PortletURLProvider } from './services';
import { namespaceOf } from './window';

/** Bounds what one window may add to a page (a runaway loop must not exhaust the portal's memory). */
export const MAX_MARKUP_CHARS = 1024 * 1024;

/** The render answer of one window: a buffered fragment, a title, an optional cache time. */
export class RenderResponseImpl implements RenderResponse {
  #contentType: string | null = null;
  #chunks: string[] = [];
  #length = 0;
  #title: string | undefined;
  #expirationCache: number | undefined;
  #closed = false;
  readonly #writer: PortletWriter;

  constructor(
    private readonly windowId: string,
    private readonly request: PortletRequest,
    private readonly provider: PortletURLProvider,
  ) {
    const append = (text: string) => this.#append(String(text));
    this.#writer = Object.freeze({ write: append, print: append, println: (text = '') => append(`${text}\n`) });
  }

  getContentType(): string | null {
    return this.#contentType;
  }

  setContentType(type: string): void {
    const bare = String(type).split(';')[0].trim().toLowerCase();
    if (!this.request.getResponseContentTypes().includes(bare)) throw new IllegalArgumentException(`content type "${bare}" is not one the portal accepts`);
    this.#contentType = bare;
  }

  getCharacterEncoding(): string {
    return 'UTF-8';
  }

  getLocale(): string {
    return this.request.getLocale();
  }

  getWriter(): PortletWriter {
    if (this.#contentType === null) throw new IllegalStateException('setContentType() must come before getWriter()');
    return this.#writer;
  }

  createRenderURL(): PortletURL {
    return new PortletURLImpl('render', this.windowId, this.request, this.provider);
  }

  createActionURL(): PortletURL {
    return new PortletURLImpl('action', this.windowId, this.request, this.provider);
  }

  getNamespace(): string {
    return namespaceOf(this.windowId);
  }

  setTitle(title: string): void {
    this.#title = String(title);
  }

  resetBuffer(): void {
    this.#chunks = [];
    this.#length = 0;
  }

  isCommitted(): boolean {
    return false;
  }

  setProperty(name: string, value: string): void {
    if (name !== RenderResponse.EXPIRATION_CACHE) return;
    const seconds = Number(value);
    if (Number.isInteger(seconds) && seconds >= -1) this.#expirationCache = seconds;
  }

  addProperty(name: string, value: string): void {
    this.setProperty(name, value);
  }

  encodeURL(path: string): string {
    return this.provider.encodeURL(path);
  }

  /** What the portlet produced; the response takes no more writes (a late, timed-out portlet's are dropped). */
  close(): { markup: string; title: string | undefined; expirationCache: number | undefined } {
    this.#closed = true;
    return { markup: this.#chunks.join(''), title: this.#title, expirationCache: this.#expirationCache };
  }

  #append(text: string): void {
    if (this.#closed) return;
    this.#length += text.length;
    if (this.#length > MAX_MARKUP_CHARS) throw new PortletException(`a window's markup is limited to ${MAX_MARKUP_CHARS} characters`);
    this.#chunks.push(text);
  }
}
