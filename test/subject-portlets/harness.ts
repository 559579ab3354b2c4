/**
 * A small in-test portlet window: just enough of the JSR-168 request and response objects to drive
 * one portlet through action then render, as the container does (render parameters replaced by an
 * action, a PORTLET_SCOPE session, preferences with the descriptor's validator and `store()` only
 * in the action phase). svc is real: the gateway client calls go to a real gateway and core.
 * To be replaced by the real container (portlet-adapter/src/container) once it is on main.
 */
import { IllegalStateException, PortletMode, PortletSession, WindowState, type Portlet, type PortletConfig, type PreferencesValidator } from '../../portlet-adapter/src/api';
import { GATEWAY_ATTRIBUTE, type GatewayAnswer, type GatewayCall, type PortletGateway } from '../../portlet-adapter/src/portlets/shared/svc';
import { send } from '../gateway/gateway-helpers';
import type { RunningGateway } from '../../gateway/src/index';

type Params = Record<string, string[]>;

/** The gateway client's job for the tests: a signed call as one portal user or visitor, problems thrown. */
export class TestGatewayClient implements PortletGateway {
  readonly calls: GatewayCall[] = [];
  constructor(
    private readonly gateway: RunningGateway,
    private readonly user: string | null,
    private readonly visitor: string,
  ) {}

  async call(call: GatewayCall): Promise<GatewayAnswer> {
    this.calls.push(call);
    const query = new URLSearchParams(Object.entries(call.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    const path = `/gw/api${call.path}${query ? `?${query}` : ''}`;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const headers: Record<string, string> = { ...(call.headers ?? {}), ...(body ? { 'content-type': 'application/json' } : {}) };
    // main's gateway (assertion v1) names the user by uniqueId; v2 by contextId/uniqueId
    const answer = await send(this.gateway, path, { method: call.method, user: this.user === null ? null : this.user.split('/').pop(), visitor: this.visitor, body, headers });
    const parsed: unknown = answer.text ? JSON.parse(answer.text) : undefined;
    if (answer.status >= 400) {
      const problem = (parsed ?? {}) as { code?: string };
      throw Object.assign(new Error(problem.code ?? `http ${answer.status}`), { status: answer.status, code: problem.code, problem: parsed });
    }
    return { status: answer.status, body: parsed, etag: typeof answer.headers.etag === 'string' ? answer.headers.etag : undefined };
  }

  batches(): number {
    return this.calls.filter((c) => c.path === '/access/v1/evaluations').length;
  }
}

class Session {
  readonly attributes = new Map<string, unknown>();
  getAttribute(name: string, _scope = PortletSession.PORTLET_SCOPE): unknown {
    return this.attributes.get(name);
  }
  setAttribute(name: string, value: unknown): void {
    this.attributes.set(name, value);
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name);
  }
}

class Preferences {
  phase: 'action' | 'render' = 'render';
  private working: Params;
  constructor(
    private stored: Params,
    private readonly validator?: PreferencesValidator,
  ) {
    this.working = { ...stored };
  }
  getValue(key: string, def: string | null): string | null {
    return this.working[key]?.[0] ?? def;
  }
  getValues(key: string, def: string[] | null): string[] | null {
    return this.working[key] ?? def;
  }
  setValue(key: string, value: string): void {
    this.working[key] = [value];
  }
  setValues(key: string, values: string[]): void {
    this.working[key] = [...values];
  }
  async store(): Promise<void> {
    if (this.phase !== 'action') throw new IllegalStateException('store() outside processAction');
    await this.validator?.validate(this as never);
    this.stored = { ...this.working };
  }
  reload(): void {
    this.working = { ...this.stored };
  }
}

export interface Outcome {
  redirect?: string;
}

/** One window of one portlet for one portal user (or visitor). */
export class TestWindow {
  mode = PortletMode.VIEW;
  renderParameters: Params = {};
  readonly session = new Session();
  readonly preferences: Preferences;
  title = '';

  constructor(
    private readonly portlet: Portlet,
    readonly gateway: TestGatewayClient,
    private readonly principal: string | null,
    preferences: Params = {},
    validator?: PreferencesValidator,
    readonly namespace = 'svc_w1_',
  ) {
    this.preferences = new Preferences(preferences, validator);
  }

  static async open(portlet: Portlet, initParams: Record<string, string>, gateway: TestGatewayClient, principal: string | null, preferences?: Params, validator?: PreferencesValidator): Promise<TestWindow> {
    const config = {
      getPortletName: () => 'test',
      getResourceBundle: () => ({ 'javax.portlet.title': 'Test' }),
      getInitParameter: (name: string) => initParams[name] ?? null,
      getInitParameterNames: () => Object.keys(initParams),
      getPortletContext: () => ({}),
    } as unknown as PortletConfig;
    await portlet.init(config);
    return new TestWindow(portlet, gateway, principal, preferences, validator);
  }

  private request(params: Params): Record<string, unknown> {
    return {
      getParameter: (n: string) => params[n]?.[0] ?? null,
      getParameterValues: (n: string) => params[n] ?? null,
      getParameterNames: () => Object.keys(params),
      getParameterMap: () => params,
      getUserPrincipal: () => (this.principal ? { getName: () => this.principal } : null),
      getRemoteUser: () => this.principal,
      getPreferences: () => this.preferences,
      getPortletSession: () => this.session,
      getAttribute: (n: string) => (n === GATEWAY_ATTRIBUTE ? this.gateway : null),
      getPortletMode: () => this.mode,
      getWindowState: () => WindowState.NORMAL,
      getLocale: () => 'en',
    };
  }

  /** The window's markup, as the render phase gives it. */
  async render(): Promise<string> {
    let out = '';
    this.preferences.phase = 'render';
    this.preferences.reload();
    const url = (kind: string) => {
      const params: Params = {};
      return {
        setParameter: (n: string, v: string | string[]) => (params[n] = Array.isArray(v) ? v : [v]),
        setParameters: (all: Record<string, string>) => Object.entries(all).forEach(([n, v]) => (params[n] = [v])),
        toString: () => `/portal/page/home/${kind}/w1?${new URLSearchParams(Object.entries(params).map(([n, v]): [string, string] => [n, v[0]])).toString()}`,
      };
    };
    const response = {
      setTitle: (t: string) => (this.title = t),
      setContentType: () => undefined,
      getWriter: () => ({ write: (t: string) => (out += t) }),
      getNamespace: () => this.namespace,
      createRenderURL: () => url('render'),
      createActionURL: () => url('action'),
      encodeURL: (p: string) => `/portal${p}`,
    };
    await this.portlet.render(this.request(this.renderParameters) as never, response as never);
    return out;
  }

  /** Posts a form to the window: action phase, then the render parameters it set (303). */
  async action(form: Record<string, string | string[]>): Promise<Outcome> {
    const params: Params = Object.fromEntries(Object.entries(form).map(([n, v]) => [n, Array.isArray(v) ? v : [v]]));
    const next: Params = {};
    const outcome: Outcome = {};
    this.preferences.phase = 'action';
    this.preferences.reload();
    const response = {
      setRenderParameter: (n: string, v: string | string[]) => (next[n] = Array.isArray(v) ? v : [v]),
      setRenderParameters: (all: Record<string, string | string[]>) => Object.entries(all).forEach(([n, v]) => (next[n] = Array.isArray(v) ? v : [v])),
      setPortletMode: (m: PortletMode) => (this.mode = m),
      sendRedirect: (location: string) => (outcome.redirect = location),
      encodeURL: (p: string) => `/portal${p}`,
    };
    await this.portlet.processAction(this.request(params) as never, response as never);
    this.renderParameters = next;
    return outcome;
  }

  /** The hidden and visible fields of the window's first form whose `op` is `op`, as a browser would post them. */
  static formFields(markup: string, op: string): Record<string, string> {
    const forms = markup.split('<form').slice(1);
    const form = forms.find((f) => f.includes(`name="op" value="${op}"`));
    if (!form) throw new Error(`no form with op=${op} in ${markup}`);
    const fields: Record<string, string> = {};
    for (const [, name, value] of form.matchAll(/<input type="(?:hidden|text|email|search)"[^>]*?name="([^"]+)"[^>]*?value="([^"]*)"/g)) fields[name] = decode(value);
    for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[name] = decode(value);
    return fields;
  }
}

function decode(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}
