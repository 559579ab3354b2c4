/**
 * The portlet container (Pluto's PortletContainer): runs the action phase of one window and the
 * render phase of each, owns the portlets' lifecycle, preferences, sessions and render cache, and
 * reaches the portal only through `ContainerServices` and the `PortalRequest` of each call. It
 * knows no HTTP: the driver parses requests and writes the page.
 *
 * Failures never escape: a portlet that throws, does not answer within the time limit, or is
 * unavailable gives an outcome naming that, logged with the request id; the driver shows it in the
 * window alone.
 */
import { UnavailableException } from '../api/exceptions';
import type { Portlet } from '../api/portlet';
import { PortletMode } from '../api/portlet-mode';
import type { PreferencesValidator } from '../api/preferences-validator';
import { WindowState } from '../api/window-state';
import { ActionRequestImpl, type ActionBody } from './action-request-impl';
import { ActionResponseImpl, type ActionResult } from './action-response-impl';
import type { PortletApplication } from './descriptor/load';
import type { PortletDefinition } from './descriptor/types';
import { ExpirationCache } from './expiration-cache';
import type { Parameters } from './parameters';
import { PortletContextImpl } from './portlet-context-impl';
import { PortletPreferencesImpl } from './preferences/portlet-preferences-impl';
import { PortletRegistry } from './portlet-registry';
import { PortletRequestImpl, isModeAllowed, type RequestParts } from './portlet-request-impl';
import { RenderResponseImpl } from './render-response-impl';
import type { ContainerServices, PortalRequest, PreferencesOwner } from './services';
import { TimeLimitExceeded, withTimeLimit } from './time-limit';
import type { PortletWindow, WindowRenderState } from './window';

export type Failure = 'failed' | 'timeout' | 'unavailable';

export type RenderOutcome =
  | { status: 'ok'; title: string; markup: string; cached: boolean }
  | { status: Failure; title: string };

export type ActionOutcome = { status: 'ok'; result: ActionResult } | { status: Failure };

export interface ContainerOptions {
  /** How long one window's phase may await (SPEC 10.2: 5 s). */
  timeLimitMs: number;
  /** How long `init` and `destroy` may take. */
  lifecycleTimeoutMs?: number;
  serverInfo?: string;
  now?: () => number;
}

export class PortletContainer {
  readonly #registry: PortletRegistry;
  readonly #context: PortletContextImpl;
  readonly #cache: ExpirationCache;

  private constructor(
    readonly application: PortletApplication,
    private readonly services: ContainerServices,
    private readonly options: ContainerOptions,
  ) {
    this.#context = new PortletContextImpl(application.descriptor, options.serverInfo ?? 'svc-portal/0.1.0', services.log);
    this.#registry = new PortletRegistry(application, this.#context, services.log, {
      lifecycleTimeoutMs: options.lifecycleTimeoutMs ?? 30_000,
      now: options.now,
    });
    this.#cache = new ExpirationCache(options.now);
  }

  /** A container with every portlet initialised (or, for those whose `init` failed, out of service). */
  static async start(application: PortletApplication, services: ContainerServices, options: ContainerOptions): Promise<PortletContainer> {
    const container = new PortletContainer(application, services, options);
    await container.#registry.initAll();
    return container;
  }

  definition(portletName: string): PortletDefinition | undefined {
    return this.#registry.definition(portletName);
  }

  /** The modes a window of this portlet may be in (descriptor ∩ portal), VIEW first. */
  allowedModes(portletName: string): PortletMode[] {
    const definition = this.definition(portletName);
    if (definition === undefined) return [PortletMode.VIEW];
    return this.services.portalContext.getSupportedPortletModes().filter((mode) => isModeAllowed(definition, this.services.portalContext, mode));
  }

  /** The state a URL asked for, made valid: an unsupported mode is VIEW, an unsupported state NORMAL. */
  normalise(portletName: string, requested: WindowRenderState): WindowRenderState {
    const mode = this.allowedModes(portletName).find((m) => m.equals(requested.mode)) ?? PortletMode.VIEW;
    const state = this.services.portalContext.getSupportedWindowStates().find((s) => s.equals(requested.state)) ?? WindowState.NORMAL;
    return { mode, state, parameters: requested.parameters };
  }

  /** The action phase of one window: its `processAction`, whose result decides the next render. */
  async action(window: PortletWindow, current: WindowRenderState, parameters: Parameters, body: ActionBody, request: PortalRequest): Promise<ActionOutcome> {
    const definition = this.definition(window.portletName);
    this.#cache.invalidate(request.session.current(), request.pageId, window.id);
    if (definition === undefined) return { status: 'unavailable' };
    const state = this.normalise(window.portletName, current);
    return this.#run(definition, window, request, 'action', async (parts, portlet) => {
      const actionRequest = new ActionRequestImpl({ ...parts, parameters }, body);
      const response = new ActionResponseImpl(actionRequest, request.urls);
      await portlet.processAction(actionRequest, response);
      return { status: 'ok' as const, result: response.result() };
    }, state);
  }

  /** The render phase of one window (or its cached output). */
  async render(window: PortletWindow, requested: WindowRenderState, request: PortalRequest): Promise<RenderOutcome> {
    const definition = this.definition(window.portletName);
    if (definition === undefined) return { status: 'unavailable', title: window.portletName };
    const state = this.normalise(window.portletName, requested);
    const session = request.user === null ? undefined : request.session.current();
    // Cached markup carries URLs built for the whole page's render state: that is part of the key.
    const cacheKey = JSON.stringify([state.mode.toString(), state.state.toString(), Object.entries(state.parameters).sort(), request.urls.renderStateKey]);
    if (session !== undefined && definition.expirationCache !== 0) {
      const cached = this.#cache.get(session, request.pageId, window.id, cacheKey);
      if (cached) return { status: 'ok', ...cached, cached: true };
    }
    const outcome = await this.#run(definition, window, request, 'render', async (parts, portlet) => {
      const renderRequest = new PortletRequestImpl(parts);
      const response = new RenderResponseImpl(window.id, renderRequest, request.urls);
      await portlet.render(renderRequest, response);
      const { markup, title, expirationCache } = response.close();
      return { status: 'ok' as const, title: title ?? definition.title, markup, expirationCache };
    }, state);
    if (outcome.status !== 'ok') return { status: outcome.status, title: definition.title };
    const seconds = outcome.expirationCache ?? definition.expirationCache;
    if (session !== undefined) this.#cache.put(session, request.pageId, window.id, cacheKey, seconds, { title: outcome.title, markup: outcome.markup });
    return { status: 'ok', title: outcome.title, markup: outcome.markup, cached: false };
  }

  /** `destroy` on every portlet in service; the container serves nothing afterwards. */
  async destroy(): Promise<void> {
    await this.#registry.destroyAll();
  }

  /** One phase of one window: availability, preferences, user info, the portlet, all within the time limit. */
  async #run<T extends { status: 'ok' }>(
    definition: PortletDefinition,
    window: PortletWindow,
    request: PortalRequest,
    phase: 'action' | 'render',
    work: (parts: RequestParts, portlet: Portlet) => Promise<T>,
    state: WindowRenderState,
  ): Promise<T | { status: Failure }> {
    const log = { requestId: request.requestId, portlet: definition.name, page: request.pageId, window: window.id, phase };
    const available = await this.#registry.acquire(definition.name);
    if (available.kind !== 'active') return { status: 'unavailable' };
    try {
      return await withTimeLimit(async () => {
        const parts = await this.#parts(definition, window, request, phase, state, available.validator);
        return work(parts, available.portlet);
      }, this.options.timeLimitMs);
    } catch (error) {
      if (error instanceof TimeLimitExceeded) {
        this.services.log.warn({ ...log, limitMs: error.limitMs }, 'portlet did not answer in time');
        return { status: 'timeout' };
      }
      this.services.log.error({ ...log, err: error }, 'portlet failed');
      if (error instanceof UnavailableException) {
        await this.#registry.failed(definition.name, error);
        return { status: 'unavailable' };
      }
      return { status: 'failed' };
    }
  }

  async #parts(
    definition: PortletDefinition,
    window: PortletWindow,
    request: PortalRequest,
    phase: 'action' | 'render',
    state: WindowRenderState,
    validator: PreferencesValidator | undefined,
  ): Promise<RequestParts> {
    const owner: PreferencesOwner = request.user === null ? { kind: 'visitor', session: request.session } : { kind: 'user', name: request.user.name };
    const key = { pageId: request.pageId, windowId: window.id, portletName: definition.name };
    const [stored, userInfo] = await Promise.all([
      this.services.preferences.load(owner, key),
      request.user === null ? null : definition.userAttributes.length === 0 ? {} : this.services.userInfo.getUserInfo(request, definition.userAttributes),
    ]);
    const preferences = new PortletPreferencesImpl({
      definitions: definition.preferences,
      stored,
      phase,
      validator,
      save: (values) => this.services.preferences.store(owner, key, values),
    });
    return {
      definition,
      window,
      mode: state.mode,
      state: state.state,
      parameters: state.parameters,
      portal: request,
      preferences,
      portletContext: this.#context,
      portalContext: this.services.portalContext,
      userInfo: userInfo === null ? null : Object.freeze(pick(userInfo, definition.userAttributes)),
    };
  }
}

/** Only the attributes the descriptor declares (SPEC 10.1). */
function pick(info: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) if (Object.hasOwn(info, name)) out[name] = info[name];
  return out;
}
