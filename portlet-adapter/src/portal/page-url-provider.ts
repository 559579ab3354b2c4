import type { PortletURLProvider, URLTarget } from '../container/services';
import { actionUrl, RenderUrls, renderStateText, type PageUrl } from './url-codec';

/**
 * The container's URL service for one page request: every URL a portlet creates keeps the other
 * windows' render state (from this request's URL) and changes only its own window's.
 */
export class PageUrlProvider implements PortletURLProvider {
  readonly renderStateKey: string;
  readonly #renderUrls: RenderUrls;

  constructor(
    private readonly page: PageUrl,
    private readonly csrf: string,
    /** `publicOrigin`: the only origin a redirect may go to. */
    private readonly origin: string,
    readonly secureSupported: boolean,
  ) {
    this.renderStateKey = renderStateText(page.windows);
    this.#renderUrls = new RenderUrls(page);
  }

  createURL(windowId: string, target: URLTarget): string {
    const state = { mode: target.mode.toString(), state: target.state.toString(), parameters: target.parameters };
    if (target.kind === 'action') return actionUrl(this.page, windowId, state, this.csrf);
    return this.#renderUrls.to(windowId, state);
  }

  encodeURL(path: string): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/')) return path;
    return `${this.page.root}/${path}`;
  }

  isOwnLocation(location: string): boolean {
    return isOwnLocation(location, this.origin);
  }
}

/**
 * A redirect target of this portal: a path-absolute URL (`/x`, never `//host` or `/\host`, which
 * browsers read as another host) or an absolute URL of `origin`; no control characters.
 */
export function isOwnLocation(location: string, origin: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (typeof location !== 'string' || location.length > 2048 || /[\u0000-\u001f\u007f\\]/.test(location)) return false;
  if (location.startsWith('/')) return !location.startsWith('//');
  try {
    return new URL(location).origin === origin;
  } catch {
    return false;
  }
}
