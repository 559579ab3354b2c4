/** A real core, a real gateway and the real container with the four portlets' descriptor, for the portlet suites. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PortletWindow } from '../../portlet-adapter/src/container';
import { PORTLETS_DESCRIPTOR } from '../../portlet-adapter/src/portlets';
import type { RunningGateway } from '../../gateway/src/index';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { login } from '../helpers/login';
import { startTestGateway } from '../gateway/gateway-helpers';
import { startContainer, user, visitor, type Harness } from '../portlets/harness';
import { GatewayClient } from '../../portlet-adapter/src/gateway-client';
import { PORTAL, PORTAL_SECRET } from '../gateway/gateway-helpers';
import { ContainerWindow, CountingGateway } from './harness';

export interface Svc {
  core: TestServer;
  gateway: RunningGateway;
  portal: Harness;
  client: GatewayClient;
  stop(): Promise<void>;
}

/** The demo's descriptor with its module paths made absolute (the harness writes it to a temporary folder). */
function demoPortlets(): object[] {
  const descriptor = JSON.parse(readFileSync(PORTLETS_DESCRIPTOR, 'utf8')) as { portlets: Array<{ module: string; preferencesValidator?: string }> };
  const absolute = (reference: string) => join(PORTLETS_DESCRIPTOR, '..', reference);
  return descriptor.portlets.map((p) => ({ ...p, module: absolute(p.module), ...(p.preferencesValidator ? { preferencesValidator: absolute(p.preferencesValidator) } : {}) }));
}

export async function startSvc(): Promise<Svc> {
  const core = await startTestServer();
  const gateway = await startTestGateway([core.baseUrl]);
  // The first call of a suite also starts the core's hashing workers; the portal's 5 s limit is not what these tests are about.
  const portal = await startContainer(demoPortlets(), { timeLimitMs: 60_000 });
  const client = new GatewayClient({ gateways: [`${gateway.url}/gw`], portalId: PORTAL, secret: PORTAL_SECRET });
  return {
    core,
    gateway,
    portal,
    client,
    async stop() {
      await portal.stop();
      portal.cleanup();
      await client.close();
      await gateway.close();
      await core.stop();
    },
  };
}

let visitors = 0;

/** A window (`w1` unless named) of the portlet named `portletName` for `principal` (`employees/bob`), or for a new visitor when null. */
export function windowOf(svc: Svc, portletName: string, principal: string | null, roles: string[] = [], windowId = 'w1'): ContainerWindow {
  const caller = principal === null ? visitor(`visitor-${++visitors}-${process.pid}`) : user(principal, roles);
  const window: PortletWindow = { id: windowId, portletName };
  const [contextId, uniqueId] = (principal ?? '').split('/');
  // A visitor's gateway state is carried from request to request, as the portal's visitor cookie carries it.
  const gateway = new CountingGateway(svc.client, { user: principal === null ? null : { contextId, uniqueId }, visitor: caller.session.handle, address: '127.0.0.1', ...(principal === null ? { state: { value: undefined } } : {}) });
  return new ContainerWindow(svc.portal.container, window, caller, gateway);
}
/** Whether the core accepts this password for this user (a real login on the core). */
export async function coreLogin(svc: Svc, user: string, password: string): Promise<boolean> {
  const answer = await login(svc.core.baseUrl, { user, password, clientid: 'svc-web' }, { headers: { accept: 'application/json' } });
  return answer.status === 200;
}

/** Text of the markup with tags removed and entities decoded, for reading sentences. */
export function textOf(markup: string): string {
  return markup
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/\s+/g, ' ')
    .trim();
}
