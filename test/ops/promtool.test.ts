/**
 * Every process's /metrics passes `promtool check metrics` (issue 27 item 3): prom-client's default
 * gauges named `*_total` (a counter's suffix) made all three fail. Each process is served real
 * requests first, so its histograms and counters have samples to check.
 */
import { spawn } from 'node:child_process';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { describeWithService, promtoolRequirement, PROMTOOL_PATH } from '../helpers/services';
import { startTestGateway } from '../gateway/gateway-helpers';
import { startTestPortal, type TestPortal } from '../portal/portal-helpers';
import type { RunningGateway } from '../../gateway/src/index';

/** `promtool check metrics` on `text` (its stdin): the exit code and what it said. */
function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(PROMTOOL_PATH, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  child.stdin.end(text);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describeWithService(promtoolRequirement(), 'every /metrics passes promtool', () => {
  let core: TestServer;
  let gateway: RunningGateway;
  let portal: TestPortal;

  beforeAll(async () => {
    core = await startTestServer();
    gateway = await startTestGateway([core.baseUrl], {}, { defaultMetrics: true });
    portal = await startTestPortal({ pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }] }] }, undefined, { defaultMetrics: true });
    await fetch(`${core.baseUrl}/resources/session`);
    await fetch(`${gateway.baseUrl}/api/session`);
    await fetch(`${portal.baseUrl}/`);
  });
  afterAll(async () => {
    await portal?.stop();
    await gateway?.close();
    await core?.stop();
  });

  test.each(['core', 'gateway', 'portal'] as const)('the %s', async (which) => {
    const origin = { core: () => core.url, gateway: () => gateway.url, portal: () => portal.url }[which]();
    const response = await fetch(`${origin}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(await promtoolCheck(text)).toEqual({ code: 0, output: '' });
  });

  test("the gateway's and portal's metrics are at their host root, not under their context root", async () => {
    expect((await fetch(`${gateway.baseUrl}/metrics`)).status).toBe(401);
    expect((await fetch(`${portal.baseUrl}/metrics`)).status).toBe(404);
  });
});
