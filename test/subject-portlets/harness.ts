/**
 * The four portlets' windows on the real container (its descriptor, lifecycle, phases, sessions and
 * preferences in SQLite), with the portal side of each request made as the driver makes it, and svc
 * real behind them: every call goes to a real gateway and core.
 */
import { PortletMode, WindowState } from '../../portlet-adapter/src/api';
import { namespaceOf, toParameters, type PortletContainer, type PortletWindow } from '../../portlet-adapter/src/container';
import { GATEWAY_ATTRIBUTE, type GatewayAnswer, type GatewayCall, type PortletGateway } from '../../portlet-adapter/src/portlets/shared/svc';
import type { RunningGateway } from '../../gateway/src/index';
import { send } from '../gateway/gateway-helpers';
import { FORM, portalRequest, state, type Caller } from '../portlets/harness';

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
    const [contextId, uniqueId] = (this.user ?? '').split('/');
    const answer = await send(this.gateway, path, { method: call.method, user: this.user === null ? null : { contextId, uniqueId }, visitor: this.visitor, body, headers });
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

/** The render state and markup of one window, driven through the real container as the portal drives it. */
export class ContainerWindow {
  mode = PortletMode.VIEW;
  renderParameters: Params = {};
  readonly namespace: string;

  constructor(
    private readonly container: PortletContainer,
    private readonly window: PortletWindow,
    private readonly caller: Caller,
    readonly gateway: TestGatewayClient,
  ) {
    this.namespace = namespaceOf(window.id);
  }

  private current() {
    return state(toParameters(this.renderParameters), this.mode, WindowState.NORMAL);
  }

  private request() {
    const request = portalRequest(this.caller, { [this.window.id]: this.current() });
    return { ...request, attributes: { [GATEWAY_ATTRIBUTE]: this.gateway } };
  }

  /** The window's markup, as the render phase gives it (a failed render throws). */
  async render(): Promise<string> {
    const outcome = await this.container.render(this.window, this.current(), this.request());
    if (outcome.status !== 'ok') throw new Error(`render ${outcome.status}`);
    return outcome.markup;
  }

  /** Posts a form to the window: the action phase, then the state its 303 would carry. */
  async action(form: Record<string, string | string[]>): Promise<{ redirect?: string }> {
    const outcome = await this.container.action(this.window, this.current(), toParameters(form), FORM, this.request());
    if (outcome.status !== 'ok') throw new Error(`action ${outcome.status}`);
    if (outcome.result.kind === 'redirect') return { redirect: outcome.result.location };
    this.mode = outcome.result.mode;
    this.renderParameters = Object.fromEntries(Object.entries(outcome.result.parameters).map(([n, v]) => [n, [...v]]));
    return {};
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
