/** `svc portal` with a bad file stops at start, listing every problem by path. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSvc } from '../helpers/svc-process';
import { COUNTER } from '../portlets/harness';
import { PORTAL_SECRET } from './portal-helpers';

async function run(dir: string, portal: object, descriptor: object): Promise<{ status: number | null; stderr: string }> {
  writeFileSync(join(dir, 'portlet.json'), JSON.stringify(descriptor));
  writeFileSync(join(dir, 'portal.json'), JSON.stringify({ portal }));
  const { code, stderr } = await runSvc(['portal', '--config', join(dir, 'portal.json'), '--port', '0']);
  return { status: code, stderr };
}

test('an invalid portal configuration or portlet.json stops svc portal with every error by path', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-portal-start-'));
  try {
    const good = { gateways: ['http://127.0.0.1:9/gw'], portalId: 'demo-portal', secret: PORTAL_SECRET, dataDir: dir, pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }] }] };
    const badConfig = await run(dir, { ...good, secret: 'short', pages: [{ id: 'home', windows: [{ id: 'a', portlet: 'counter', state: 'huge' }] }] }, { portlets: [COUNTER] });
    expect(badConfig.status).toBe(1);
    expect(badConfig.stderr).toContain('svc: invalid portal configuration:');
    for (const line of ['portal.secret: must NOT have fewer than 43 characters', 'portal.pages[0]: missing property "title"', 'portal.pages[0].windows[0].state: must be one of ["normal","maximized","minimized"]']) {
      expect(badConfig.stderr).toContain(line);
    }
    const badDescriptor = await run(dir, good, { portlets: [{ ...COUNTER, module: './nowhere.js' }, { name: 'x', title: 'X' }] });
    expect(badDescriptor.status).toBe(1);
    expect(badDescriptor.stderr).toContain('svc: invalid portlet descriptor:');
    expect(badDescriptor.stderr).toContain('portlets[1]: missing property "module"');
    const missingPortlet = await run(dir, { ...good, pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'nothing' }] }] }, { portlets: [{ ...COUNTER, module: join(__dirname, '../fixtures/portlets/whoami.js#WhoAmIPortlet') }] });
    expect(missingPortlet.status).toBe(1);
    expect(missingPortlet.stderr).toMatch(/portal\.pages\[0\]\.windows\[0\]\.portlet: no portlet "nothing" in .*portlet\.json/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
