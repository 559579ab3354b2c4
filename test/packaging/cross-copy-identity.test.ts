/**
 * A portlet's package imports @svc/portlet-api, the portal that runs it has its own copy of the same
 * classes (svc's dist): two copies in one process. What crosses between them keeps its identity
 * (common/src/cross-copy-identity.ts): the exceptions a portlet throws, the SvcClientError of the
 * gateway client the portal hands it, and the standard portlet modes and window states.
 */
type PortletApi = typeof import('../../portlet-adapter/src/portlet-api');

/** A fresh copy of the package's module graph, as a second installed copy would be. */
async function copyOfPortletApi(): Promise<PortletApi> {
  let loaded: PortletApi | undefined;
  await jest.isolateModulesAsync(async () => {
    loaded = await import('../../portlet-adapter/src/portlet-api');
  });
  return loaded!;
}

let portal: PortletApi;
let portlet: PortletApi;

beforeAll(async () => {
  portal = await copyOfPortletApi();
  portlet = await copyOfPortletApi();
});

test('the two are distinct copies', () => {
  expect(portal.GatewayClient).not.toBe(portlet.GatewayClient);
  expect(portal.UnavailableException).not.toBe(portlet.UnavailableException);
});

test("an exception of one copy is an instance of the other's class, its ancestors', and no sibling's", () => {
  const thrown = new portlet.UnavailableException('down for maintenance', 30);
  expect(thrown).toBeInstanceOf(portal.UnavailableException);
  expect(thrown).toBeInstanceOf(portal.PortletException);
  expect(thrown).toBeInstanceOf(Error);
  expect(thrown).not.toBeInstanceOf(portal.ReadOnlyException);
  expect(new portlet.PortletException('failed')).not.toBeInstanceOf(portal.UnavailableException);
  expect(new portlet.IllegalStateException('not now')).toBeInstanceOf(portal.IllegalStateException);
  expect(new portlet.IllegalStateException('not now')).not.toBeInstanceOf(portal.IllegalArgumentException);
  expect(new Error('plain')).not.toBeInstanceOf(portal.PortletException);
  expect({ name: 'PortletException' }).not.toBeInstanceOf(portal.PortletException);
});

test("the gateway client's errors: a portlet's instanceof SvcClientError holds for the portal's", () => {
  const fromPortal = new portal.SvcClientError(404, 'not_found', { title: 'Not Found' });
  expect(fromPortal).toBeInstanceOf(portlet.SvcClientError);
  expect(fromPortal).toBeInstanceOf(portal.SvcClientError);
  expect(new portal.PortletException('x')).not.toBeInstanceOf(portlet.SvcClientError);
});

test('the standard modes and window states are the same objects in both copies', () => {
  expect(portal.PortletMode.EDIT).toBe(portlet.PortletMode.EDIT);
  expect(portlet.PortletMode.of('Help')).toBe(portal.PortletMode.HELP);
  expect(portal.WindowState.MAXIMIZED).toBe(portlet.WindowState.MAXIMIZED);
  expect(portlet.PortletMode.VIEW.equals(portal.PortletMode.EDIT)).toBe(false);
});
