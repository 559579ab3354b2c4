import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyOf } from '../helpers/json';
import { startDemo, startSvc, stopSvc as stop } from '../helpers/svc-process';
import { Browser, portalLogin } from '../portal/portal-helpers';
import type { RunningPortal } from '../../portlet-adapter/src/portal';

async function login(core: string, user: string, password: string): Promise<Response> {
  return fetch(`${core}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ clientid: 'svc-web', user, password }),
  });
}

test('npm start seeds an empty data directory, and a second start reuses it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
  try {
    const first = await startDemo(dataDir);
    const file = join(dataDir, 'demo-credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const credentials = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(credentials).sort()).toEqual(['answers', 'clients', 'portals', 'scim', 'users']);
    // SPEC 11, 14: a provisioning token per context, and its service subject.
    expect(Object.keys(credentials.scim).sort()).toEqual(['scim-customers', 'scim-employees']);
    for (const token of Object.values(credentials.scim)) expect(token).toMatch(/^svcscim_[A-Za-z0-9_-]{43}$/);
    // The token works at its context's service root: its client, its service subject and the provisioner policy are there.
    const users = await fetch(`${first.core}/scim/v2/employees/Users?filter=${encodeURIComponent('userName eq "alice"')}`, { headers: { authorization: `Bearer ${credentials.scim['scim-employees']}` } });
    expect(users.status).toBe(200);
    expect(await users.json()).toMatchObject({ totalResults: 1, Resources: [{ id: 'alice', userName: 'alice' }] });

    const alice = await login(first.core, 'alice', credentials.users.alice);
    expect(alice.status).toBe(200);
    expect((await bodyOf(alice)).session).toMatchObject({ type: 'USER', principal: { uniqueId: 'alice', contextId: 'employees' } });
    expect((await login(first.core, 'svcadmin', credentials.users.svcadmin)).status).toBe(200);
    expect((await fetch(`${new URL(first.gateway).origin}/health`)).status).toBe(200);
    expect(first.credentials).toBe(file);
    expect(new URL(first.portal).pathname).toBe('/portal');
    expect(await stop(first)).toBe(0);

    // The log names the file, never a secret from it.
    const secrets = [...Object.values(credentials.users), ...Object.values(credentials.clients), ...Object.values(credentials.portals), ...Object.values(credentials.scim)] as string[];
    for (const secret of secrets) expect(first.log.join('\n')).not.toContain(secret);
    // One JSON object a line, each naming its part once (a renamed child logger wrote `name` twice).
    for (const line of first.log) expect(line.match(/"name":/g)).toHaveLength(1);
    expect(new Set(first.log.map((line) => (JSON.parse(line) as { name: string }).name))).toEqual(new Set(['svc', 'svc-gateway', 'svc-portal']));

    const second = await startDemo(dataDir);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(credentials);
    expect(second.log.some((line) => line.includes('reusing the demo data directory'))).toBe(true);
    expect((await login(second.core, 'bob@example.com', credentials.users.bob)).status).toBe(200);
    expect(await stop(second)).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** The `<section>` titles (h2) of a page, in order. */
const windowTitles = (html: string) => [...html.matchAll(/<h2 class="portlet-title" id="[^"]*">([^<]*)<\/h2>/g)].map((m) => m[1]);

test('npm start serves the demo portal: visitors see Registration and Forgotten Password, alice sees Administration, bob does not', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
  try {
    const demo = await startDemo(dataDir);
    const credentials = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
    const portal = { url: new URL(demo.portal).origin } as RunningPortal;
    try {
      const visitor = new Browser(portal);
      expect(await visitor.get('/portal/')).toMatchObject({ status: 302, location: '/portal/page/home' });
      const home = await visitor.get('/portal/page/home');
      expect(home.status).toBe(200);
      expect(windowTitles(home.text)).toEqual(['Registration', 'Forgotten Password']);
      expect(home.text).not.toContain('Administration');
      expect((await visitor.get('/portal/page/admin')).status).toBe(302);

      const alice = new Browser(portal);
      await portalLogin(alice, 'alice', credentials.users.alice);
      expect(await alice.get('/portal/')).toMatchObject({ status: 302, location: '/portal/page/home' });
      const aliceHome = await alice.get('/portal/page/home');
      expect(windowTitles(aliceHome.text)).toEqual(['Self-Service']);
      expect(aliceHome.text).toContain('Administration');
      const admin = await alice.get('/portal/page/admin');
      expect(admin.status).toBe(200);
      expect(windowTitles(admin.text)).toEqual(['User Admin']);

      const bob = new Browser(portal);
      await portalLogin(bob, 'bob', credentials.users.bob);
      const bobHome = await bob.get('/portal/page/home');
      expect(windowTitles(bobHome.text)).toEqual(['Self-Service']);
      expect(bobHome.text).toContain('bob@example.com');
      expect(bobHome.text).not.toContain('Administration');
      expect((await bob.get('/portal/page/admin')).status).toBe(403);
    } finally {
      expect(await stop(demo)).toBe(0);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('svc server without --config is the core alone on the embedded demo configuration, seeded', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-core-'));
  try {
    const core = await startSvc(['server'], { SVC_DATA_DIR: dataDir, SVC_PORT: '0' }, (entry) => (entry.msg === 'demo subjects seeded' ? true : undefined));
    try {
      const url = (core.log.map((line) => JSON.parse(line) as { msg: string; url?: string }).find((entry) => entry.msg === 'core server listening'))!.url!;
      const credentials = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
      expect((await login(`${url}/svc`, 'alice', credentials.users.alice)).status).toBe(200);
      expect(core.log.filter((line) => /gateway listening|portal listening/.test(line))).toEqual([]);
    } finally {
      expect(await stop(core)).toBe(0);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
