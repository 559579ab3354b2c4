/**
 * The demo portal under test (SPEC 10, 11) as its own process, in front of a gateway that runs in
 * another one: the demo's pages and four portlets, signing as the bench's demo-portal. It opens one
 * portal session for bob (user) and one for alice (admin) directly in its session store, as a login
 * would leave them (the gateway then logs each in to the core once, on the first page).
 *
 *   node dist/bench/servers/portal.js --gateway {gw}
 *
 * Prints one JSON line (`PortalReady`) on stdout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { buildPortalConfig, startPortal } from '../../portlet-adapter/src/portal';
import { PORTAL_SESSION_COOKIE } from '../../portlet-adapter/src/portal/session-store';
import { PORTLETS_DESCRIPTOR } from '../../portlet-adapter/src/portlets';
import { demoPortalDocument } from '../../server/src/demo/demo-portal';
import { onStop, report } from '../lib/child';
import { BENCH_CREDENTIALS } from './core-shared';

export interface PortalReady {
  /** `http://127.0.0.1:port` */
  url: string;
  /** `{portal}` as a path, e.g. `/portal`. */
  root: string;
  /** `Cookie` header values of the two portal sessions. */
  cookies: { bob: string; alice: string };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { gateway: { type: 'string' } } });
  if (!values.gateway) throw new Error('--gateway {gw} is required');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-portal-'));
  const document = demoPortalDocument({ credentials: BENCH_CREDENTIALS, host: '127.0.0.1', gateway: values.gateway, dataDir: dir, descriptor: PORTLETS_DESCRIPTOR });
  (document.portal as Record<string, unknown>).port = 0;
  const running = await startPortal(buildPortalConfig(document, { env: process.env }), { logger: pino({ level: 'silent' }) });
  onStop(async () => {
    await running.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const cookie = (uniqueId: string, roles: string[]) => `${PORTAL_SESSION_COOKIE}=${running.deps.sessions.create({ contextId: 'employees', uniqueId }, roles).cookie}`;
  const ready: PortalReady = { url: running.url, root: new URL(running.baseUrl).pathname, cookies: { bob: cookie('bob', ['user']), alice: cookie('alice', ['admin']) } };
  report(ready);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
