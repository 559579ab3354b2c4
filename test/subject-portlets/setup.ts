/** A real core and a real gateway for the portlet suites, and windows of the four portlets on them. */
import type { Portlet, PreferencesValidator } from '../../portlet-adapter/src/api';
import type { RunningGateway } from '../../gateway/src/index';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { login } from '../helpers/login';
import { startTestGateway } from '../gateway/gateway-helpers';
import { TestGatewayClient, TestWindow } from './harness';

export interface Svc {
  core: TestServer;
  gateway: RunningGateway;
  stop(): Promise<void>;
}

export async function startSvc(): Promise<Svc> {
  const core = await startTestServer();
  const gateway = await startTestGateway([core.baseUrl]);
  return {
    core,
    gateway,
    async stop() {
      await gateway.close();
      await core.stop();
    },
  };
}

let visitors = 0;

/** A window of `portlet` for `principal` (`employees/bob`), or for a new visitor when null. */
export function windowOf(svc: Svc, portlet: Portlet, principal: string | null, init: Record<string, string> = {}, preferences?: Record<string, string[]>, validator?: PreferencesValidator): Promise<TestWindow> {
  const visitor = principal ?? `visitor-${++visitors}-${process.pid}`;
  return TestWindow.open(portlet, init, new TestGatewayClient(svc.gateway, principal, visitor), principal, preferences, validator);
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
