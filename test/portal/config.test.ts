import { buildDescriptor } from '../../portlet-adapter/src/container';
import { PORTAL_DEFAULTS, PortalConfigError, buildPortalConfig, checkAgainstDescriptor } from '../../portlet-adapter/src/portal';
import { PORTAL_SECRET } from './portal-helpers';

const MINIMAL = { gateways: ['http://127.0.0.1:8081/gw'], portalId: 'demo-portal', secret: PORTAL_SECRET, pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }] }] };

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof PortalConfigError) return error.problems;
    throw error;
  }
  throw new Error('no PortalConfigError');
}

describe('the portal configuration', () => {
  test('defaults from defaults.ts; the descriptor relative to the file; ${ENV} substituted', () => {
    const config = buildPortalConfig({ portal: { ...MINIMAL, secret: '${PORTAL_SECRET}' } }, { env: { PORTAL_SECRET }, baseDir: '/etc/svc' });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8082,
      root: '/portal',
      publicOrigin: 'http://127.0.0.1:8082',
      descriptor: '/etc/svc/portlet.json',
      secret: PORTAL_SECRET,
      sessionIdleSeconds: 1800,
      sessionAbsoluteSeconds: 43200,
      renderTimeoutMs: 5000,
      userInfo: PORTAL_DEFAULTS.userInfo,
    });
    expect(config.pages[0]).toEqual({ id: 'home', title: 'Home', roles: [], windows: [{ id: 'a', portlet: 'counter', mode: 'view', state: 'normal', roles: [], visitors: 'also' }] });
    expect(Object.isFrozen(config.pages[0].windows[0])).toBe(true);
    expect(buildPortalConfig({ portal: MINIMAL }, { env: { SVC_PORTAL_PORT: '9000' } }).port).toBe(9000);
  });

  test('an invalid file stops the portal with every error by path', () => {
    expect(problemsOf(() => buildPortalConfig({ portal: { ...MINIMAL, secret: '${NOPE}' } }, { env: {} }))).toEqual(['portal.secret: environment variable NOPE is not set']);
    expect(
      problemsOf(() =>
        buildPortalConfig(
          {
            portal: {
              ...MINIMAL,
              secret: 'short',
              root: 'portal',
              gateways: [],
              userInfo: { 'user.password': 'password' },
              pages: [
                { id: 'home', title: 'Home', windows: [{ id: 'a-b', portlet: 'counter', mode: 'edit', visitors: 'sometimes' }] },
                { id: 'x', windows: [], colour: 1 },
              ],
            },
          },
          { env: {} },
        ),
      ).sort(),
    ).toEqual([
      'portal.gateways: must NOT have fewer than 1 items',
      'portal.pages[0].windows[0].id: must match pattern "^[A-Za-z][A-Za-z0-9_]{0,63}$"',
      'portal.pages[0].windows[0].visitors: must be one of ["only","also","never"]',
      'portal.pages[1]: missing property "title"',
      'portal.pages[1]: unknown property "colour"',
      'portal.root: must match pattern "^(/[A-Za-z0-9._~-]+)+$"',
      'portal.secret: must NOT have fewer than 43 characters',
      expect.stringMatching(/^portal\.userInfo: /),
      expect.stringMatching(/^portal\.userInfo: /),
    ]);
  });

  test('duplicate ids; windows checked against portlet.json (the portlet exists and supports the initial mode)', () => {
    expect(
      problemsOf(() =>
        buildPortalConfig({
          portal: { ...MINIMAL, pages: [MINIMAL.pages[0], { id: 'home', title: 'Again', windows: [{ id: 'w', portlet: 'p' }, { id: 'w', portlet: 'p' }, { id: 'v', portlet: 'p', visitors: 'only', roles: ['admin'] }] }] },
        }),
      ),
    ).toEqual([
      'portal.pages[1].id: page "home" is defined twice',
      'portal.pages[1].windows[1].id: window "w" is on the page twice',
      'portal.pages[1].windows[2].roles: a window for visitors only cannot require roles',
    ]);
    const config = buildPortalConfig({ portal: { ...MINIMAL, pages: [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter', mode: 'edit' }, { id: 'b', portlet: 'nothing' }] }] } });
    const descriptor = buildDescriptor({ portlets: [{ name: 'counter', module: './c.js', title: 'C' }] });
    expect(checkAgainstDescriptor(config, descriptor)).toEqual([
      'portal.pages[0].windows[0].mode: portlet "counter" does not support edit',
      `portal.pages[0].windows[1].portlet: no portlet "nothing" in ${config.descriptor}`,
    ]);
  });
});
