/**
 * The four portlets' windows on the real container (its descriptor, lifecycle, phases, sessions and
 * preferences in SQLite), with the portal side of each request made as the driver makes it, and svc
 * real behind them: every call goes to a real gateway and core.
 */
import { PortletMode, WindowState } from '../../portlet-adapter/src/api';
import { namespaceOf, toParameters, type PortletContainer, type PortletWindow } from '../../portlet-adapter/src/container';
import { GATEWAY_ATTRIBUTE, SvcGateway, type Decision, type Evaluation, type GatewayRequest, type GatewayResponse } from '../../portlet-adapter/src/gateway-client';
import { FORM, portalRequest, state, type Caller } from '../portlets/harness';

type Params = Record<string, string[]>;

/** The real gateway client bound to one principal, counting what each render asks (a spy, not a stand-in). */
export class CountingGateway extends SvcGateway {
  readonly calls: GatewayRequest[] = [];
  #batches = 0;

  override request<T = unknown>(req: GatewayRequest): Promise<GatewayResponse<T>> {
    this.calls.push(req);
    return super.request<T>(req);
  }

  override evaluations(items: readonly Evaluation[]): Promise<boolean[]> {
    this.#batches++;
    return super.evaluations(items);
  }

  override decisions(items: readonly Evaluation[]): Promise<Decision[]> {
    this.#batches++;
    return super.decisions(items);
  }

  batches(): number {
    return this.#batches;
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
    readonly gateway: CountingGateway,
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
  /** The markup of the form sending `op` (from its tag to the next form's). */
  static formOf(markup: string, op: string): string {
    const form = markup.split('<form').slice(1).find((f) => f.includes(`name="op" value="${op}"`));
    if (!form) throw new Error(`no form with op=${op} in ${markup}`);
    return form;
  }

  static formFields(markup: string, op: string): Record<string, string> {
    const form = ContainerWindow.formOf(markup, op);
    const fields: Record<string, string> = {};
    for (const [, name, value] of form.matchAll(/<input type="(?:hidden|text|email|search)"[^>]*?name="([^"]+)"[^>]*?value="([^"]*)"/g)) fields[name] = decode(value);
    for (const [, name, value] of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) fields[name] = decode(value);
    return fields;
  }
}

function decode(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}
