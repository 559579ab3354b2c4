/**
 * One aggregated page (SPEC 10.2): every visible window rendered concurrently, each within the time
 * limit, each failure confined to its own window; a maximized window alone in the body; a minimized
 * one as its title bar only (its portlet is not called).
 */
import type { Request } from 'express';
import { Html, html } from '../../../common/src/html';
import { PortletMode } from '../api/portlet-mode';
import { WindowState } from '../api/window-state';
import type { RenderOutcome } from '../container/portlet-container';
import type { PortletURLProvider } from '../container/services';
import type { WindowRenderState } from '../container/window';
import type { PageConfig, WindowConfig } from './config/types';
import type { PortalDeps } from './deps';
import { DriverRequest } from './driver-request';
import { addressOf, type Identity } from './identity';
import { PageUrlProvider } from './page-url-provider';
import { secondFactorPage, visibleWindows } from './pages';
import { dropUserInfoOnWrite } from './user-info';
import { parsePageQuery, type ParsedPageQuery, type WindowUrlState } from './url-codec';
import { windowFrame, type WindowControl, type WindowModel } from './theme/window-frame';

/** The windows of a page this identity sees, with the render state the URL gives each (made valid). */
export interface PageState {
  windows: WindowConfig[];
  states: Map<string, WindowRenderState>;
  urlStates: Map<string, WindowUrlState>;
  parsed: ParsedPageQuery;
}

export function pageState(deps: PortalDeps, identity: Identity, page: PageConfig, query: string): PageState {
  const windows = visibleWindows(identity, page);
  const parsed = parsePageQuery(query, new Set(windows.map((w) => w.id)));
  const states = new Map<string, WindowRenderState>();
  const urlStates = new Map<string, WindowUrlState>();
  for (const window of windows) {
    // A window the URL names is in VIEW/NORMAL unless it says otherwise; one it does not name is as configured.
    const fromUrl = parsed.windows.get(window.id);
    const state = deps.container.normalise(window.portlet, {
      mode: PortletMode.of(fromUrl ? (fromUrl.mode ?? 'view') : window.mode),
      state: WindowState.of(fromUrl ? (fromUrl.state ?? 'normal') : window.state),
      parameters: fromUrl?.parameters ?? {},
    });
    states.set(window.id, state);
    urlStates.set(window.id, { mode: state.mode.toString(), state: state.state.toString(), parameters: state.parameters, initial: { mode: window.mode, state: window.state } });
  }
  return { windows, states, urlStates, parsed };
}

/** The container's request for this page: URLs keep every window's state; the gateway is bound to the identity. */
export function driverRequest(deps: PortalDeps, req: Request, requestId: string, identity: Identity, page: PageConfig, urlStates: Map<string, WindowUrlState>): DriverRequest {
  const urls = new PageUrlProvider({ root: deps.config.root, pageId: page.id, windows: urlStates }, deps.identities.csrfOf(identity), deps.publicOrigin(), deps.secure);
  const principal = deps.identities.principalOf(identity, addressOf(req));
  // Any session's write (a visitor's too: a forgotten-password reset) drops the written subject's USER_INFO in all its sessions.
  const gateway = deps.gateway.bind(principal, dropUserInfoOnWrite(deps.sessions));
  const setup = identity.kind === 'user' ? secondFactorPage(identity, deps.config) : undefined;
  return new DriverRequest(req, requestId, page.id, identity, deps.identities.sessionAccess(identity), urls, gateway, deps.config.root, deps.publicOrigin(), setup);
}

const MESSAGES: Record<Exclude<RenderOutcome['status'], 'ok'>, string> = {
  failed: 'This portlet could not be shown.',
  timeout: 'This portlet did not answer in time. Reload the page to try again.',
  unavailable: 'This portlet is unavailable at the moment.',
};

/** The `<main>` body of an aggregated page. */
export async function renderWindows(deps: PortalDeps, req: Request, requestId: string, identity: Identity, page: PageConfig, state: PageState): Promise<Html> {
  const request = driverRequest(deps, req, requestId, identity, page, state.urlStates);
  const maximized = state.windows.find((w) => state.states.get(w.id)!.state.equals(WindowState.MAXIMIZED));
  const shown = maximized ? [maximized] : state.windows;
  const frames = await Promise.all(
    shown.map(async (window): Promise<{ model: WindowModel }> => {
      const windowState = state.states.get(window.id)!;
      const definition = deps.container.definition(window.portlet);
      const model: WindowModel = {
        id: window.id,
        title: definition?.title ?? window.portlet,
        state: windowState.state.toString() as WindowModel['state'],
        ...controls(deps, request.urls, window, windowState),
        messages: state.parsed.failedActions.has(window.id) ? ['Your last action here could not be completed. Please try again.'] : [],
      };
      if (windowState.state.equals(WindowState.MINIMIZED)) return { model };
      const started = process.hrtime.bigint();
      const outcome = await deps.container.render({ id: window.id, portletName: window.portlet }, windowState, request);
      const outcomeLabel = outcome.status === 'ok' ? (outcome.cached ? 'cached' : 'ok') : outcome.status;
      deps.metrics.portlets.observe({ portlet: window.portlet, phase: 'render', outcome: outcomeLabel }, Number(process.hrtime.bigint() - started) / 1e9);
      model.title = outcome.title;
      if (outcome.status === 'ok') model.markup = outcome.markup;
      else {
        deps.metrics.portletErrors.inc({ portlet: window.portlet, phase: 'render', reason: outcome.status });
        model.messages.push(`${MESSAGES[outcome.status]}${outcome.status === 'failed' ? ` Reference: ${requestId}.` : ''}`);
      }
      return { model };
    }),
  );
  return html`<div class="portal-windows">${distinctTitles(frames)}</div>`;
}

/**
 * Two windows of one portlet have the same title: the second becomes "Title (2)", so that every
 * window (a landmark, named by its title) can be told apart by sight and by a screen reader.
 */
function distinctTitles(frames: { model: WindowModel }[]): Html[] {
  const seen = new Map<string, number>();
  return frames.map(({ model }) => {
    const count = (seen.get(model.title) ?? 0) + 1;
    seen.set(model.title, count);
    return windowFrame(count === 1 ? model : { ...model, title: `${model.title} (${count})` });
  });
}

const MODE_LABELS: Record<string, string> = { view: 'View', edit: 'Edit', help: 'Help' };
const STATE_LABELS: Record<string, string> = { minimized: 'Minimize', maximized: 'Maximize', normal: 'Restore' };

/** The title bar's links: modes the window may be in (when more than VIEW), and the two other states. */
function controls(deps: PortalDeps, urls: PortletURLProvider, window: WindowConfig, state: WindowRenderState): { modes: WindowControl[]; states: WindowControl[] } {
  const target = (mode: PortletMode, windowState: WindowState) => urls.createURL(window.id, { kind: 'render', mode, state: windowState, parameters: state.parameters, secure: false });
  const allowed = deps.container.allowedModes(window.portlet);
  const modes =
    allowed.length < 2 || state.state.equals(WindowState.MINIMIZED)
      ? []
      : allowed.map((mode) => ({ label: MODE_LABELS[mode.toString()] ?? mode.toString(), href: target(mode, state.state), current: mode.equals(state.mode) }));
  const states = [WindowState.MINIMIZED, WindowState.MAXIMIZED, WindowState.NORMAL]
    .filter((s) => !s.equals(state.state))
    .map((s) => ({ label: STATE_LABELS[s.toString()], href: target(state.mode, s), current: false }));
  return { modes, states };
}
