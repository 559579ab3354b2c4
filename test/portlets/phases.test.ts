import { PortletMode } from '../../portlet-adapter/src/api/portlet-mode';
import { WindowState } from '../../portlet-adapter/src/api/window-state';
import { toParameters, type PortletWindow } from '../../portlet-adapter/src/container';
import { COUNTER, FORM, dataOf, fixture, portalRequest, startContainer, state, user, visitor, type Caller, type Harness } from './harness';

const A: PortletWindow = { id: 'a', portletName: 'counter' };
const B: PortletWindow = { id: 'b', portletName: 'counter' };

describe('the two phases, parameters and portlet sessions', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startContainer([COUNTER, { name: 'viewOnly', module: fixture('counter.ts', 'CounterPortlet'), title: 'View only' }]);
  });
  afterAll(async () => {
    await h.stop();
    h.cleanup();
  });

  async function view(caller: Caller, window: PortletWindow, parameters = {}): Promise<Record<string, string>> {
    const outcome = await h.container.render(window, state(toParameters(parameters)), portalRequest(caller));
    if (outcome.status !== 'ok') throw new Error(outcome.status);
    return dataOf(outcome.markup, `svc_${window.id}_count`);
  }

  async function act(caller: Caller, window: PortletWindow, parameters: Record<string, string>, current = state()) {
    const outcome = await h.container.action(window, current, toParameters(parameters), FORM, portalRequest(caller));
    if (outcome.status !== 'ok') throw new Error(outcome.status);
    return outcome.result;
  }

  test('render sees the render parameters; the action\'s parameters are never seen by render; the action sets the next render parameters only', async () => {
    const alice = user('employees/alice');
    expect(JSON.parse((await view(alice, A, { page: '2' })).params)).toEqual({ page: ['2'] });
    const result = await act(alice, A, { op: 'add', step: '5' });
    // The render parameters it had (page=2) are cleared; the action's (op, step) are not carried.
    expect(result).toEqual({ kind: 'render', mode: PortletMode.VIEW, state: WindowState.NORMAL, parameters: { last: ['5'] } });
  });

  test('portlet-scoped attributes are private to a window; application-scoped ones are shared by the session\'s windows; users never share', async () => {
    const bob = user('employees/bob');
    const carol = user('customers/carol');
    await act(bob, A, { op: 'add', step: '2' });
    await act(bob, B, { op: 'add', step: '3' });
    await act(carol, A, { op: 'add', step: '7' });
    expect(await view(bob, A)).toMatchObject({ count: '2', total: '5' });
    expect(await view(bob, B)).toMatchObject({ count: '3', total: '5' });
    expect(await view(carol, A)).toMatchObject({ count: '7', total: '7' });
    // Stored under JSR-168's names.
    expect([...bob.session.state!.attributes.keys()].sort()).toEqual(['javax.portlet.p.a?count', 'javax.portlet.p.b?count', 'total']);
  });

  test('a visitor has no server state until a portlet stores something; then it is the visitor\'s own', async () => {
    const guest = visitor('v-1');
    await view(guest, A);
    expect(guest.session.state).toBeUndefined();
    await act(guest, A, { op: 'add' });
    expect(guest.session.state).toBeDefined();
    expect(await view(guest, A)).toMatchObject({ count: '1' });
    expect(await view(visitor('v-2'), A)).toMatchObject({ count: '0' });
  });

  test('invalidate ends the application session (both scopes, every window) but not the user', async () => {
    const dave = user('employees/dave');
    await act(dave, A, { op: 'add' });
    await act(dave, B, { op: 'add' });
    await act(dave, A, { op: 'invalidate' });
    expect(await view(dave, A)).toMatchObject({ count: '0', total: '0', user: 'employees/dave' });
    expect(await view(dave, B)).toMatchObject({ count: '0' });
  });

  test('modes and states the portlet or the portal does not support render as VIEW and NORMAL; setting them in an action is PortletModeException / WindowStateException', async () => {
    const erin = user('employees/erin');
    const viewOnly = { id: 'v', portletName: 'viewOnly' };
    expect(h.container.normalise('viewOnly', state(undefined, PortletMode.EDIT, WindowState.of('fullscreen')))).toMatchObject({ mode: PortletMode.VIEW, state: WindowState.NORMAL });
    expect(h.container.normalise('counter', state(undefined, PortletMode.of('EDIT'), WindowState.of('Maximized')))).toMatchObject({ mode: PortletMode.EDIT, state: WindowState.MAXIMIZED });
    expect(h.container.allowedModes('viewOnly')).toEqual([PortletMode.VIEW]);
    const edited = await h.container.render(viewOnly, state(undefined, PortletMode.EDIT), portalRequest(erin));
    expect(edited.status === 'ok' && edited.markup).toContain('svc_v_count');

    await act(erin, viewOnly, { op: 'mode', to: 'edit' });
    expect(await view(erin, viewOnly)).toMatchObject({ caught: 'PortletModeException' });
    await act(erin, viewOnly, { op: 'state', to: 'fullscreen' });
    expect(await view(erin, viewOnly)).toMatchObject({ caught: 'WindowStateException' });
    expect(await act(erin, A, { op: 'mode', to: 'help' })).toMatchObject({ mode: PortletMode.HELP });
  });

  test('sendRedirect: a path of the portal goes; after render parameters it is IllegalStateException, and the reverse; another origin fails the action', async () => {
    const frank = user('employees/frank');
    expect(await act(frank, A, { op: 'redirect', to: '/portal/page/admin' })).toEqual({ kind: 'redirect', location: '/portal/page/admin' });
    expect(await act(frank, A, { op: 'redirect', to: 'http://127.0.0.1:8082/portal/x' })).toEqual({ kind: 'redirect', location: 'http://127.0.0.1:8082/portal/x' });
    expect(await act(frank, A, { op: 'params-then-redirect' })).toEqual({ kind: 'render', mode: PortletMode.VIEW, state: WindowState.NORMAL, parameters: { x: ['1'] } });
    expect(await view(frank, A)).toMatchObject({ caught: 'IllegalStateException' });
    frank.session.state!.attributes.delete('javax.portlet.p.a?caught');
    expect(await act(frank, A, { op: 'redirect-then-params' })).toEqual({ kind: 'redirect', location: '/portal/elsewhere' });
    expect(await view(frank, A)).toMatchObject({ caught: 'IllegalStateException' });
    for (const to of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)']) {
      expect(await h.container.action(A, state(), toParameters({ op: 'redirect', to }), FORM, portalRequest(frank))).toEqual({ status: 'failed' });
    }
  });

  test('isUserInRole follows securityRoleRefs; getRemoteUser is the svc principal; a visitor has neither', async () => {
    expect(await view(user('employees/alice', ['admin', 'user']), A)).toMatchObject({ admin: 'true', user: 'employees/alice' });
    expect(await view(user('employees/bob', ['user']), A)).toMatchObject({ admin: 'false' });
    expect(await view(visitor(), A)).toMatchObject({ admin: 'false', user: '' });
  });

  test('an action body that is not a form is read through getReader', async () => {
    const body = { bytes: Buffer.from('{"a":1}'), contentType: 'application/json; charset=utf-8', isForm: false };
    const outcome = await h.container.action(A, state(), toParameters({ op: 'echo-body' }), body, portalRequest(user('employees/gina')));
    expect(outcome).toMatchObject({ status: 'ok', result: { parameters: { body: ['{"a":1}'] } } });
  });

  test('URLs a portlet creates keep the other windows\' render state and change only their own', async () => {
    const caller = user('employees/hank');
    const request = portalRequest(caller, { a: state(toParameters({ keep: 'x' })), b: state(toParameters({ other: 'y' }), PortletMode.HELP) });
    const outcome = await h.container.render(B, state(toParameters({ other: 'y' }), PortletMode.HELP), request);
    const rendered = await h.container.render(A, state(toParameters({ keep: 'x' })), request);
    expect(outcome.status).toBe('ok');
    const markup = rendered.status === 'ok' ? rendered.markup : '';
    const more = /id="svc_a_more" href="([^"]*)"/.exec(markup)![1].replace(/&#38;/g, '&');
    expect(more).toBe('/portal/page/home?a.p.page=2&b.m=help&b.p.other=y');
    const action = /action="([^"]*)"/.exec(markup)![1].replace(/&#38;/g, '&');
    expect(action).toBe('/portal/page/home/action/a?_csrf=csrf-token&b.m=help&b.p.other=y&a.a.op=add');
  });
});
