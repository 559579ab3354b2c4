import { toParameters, type PortletWindow } from '../../portlet-adapter/src/container';
import { COUNTER, FORM, dataOf, portalRequest, startContainer, state, user, visitor, type Caller, type Harness } from './harness';

const W: PortletWindow = { id: 'c', portletName: 'counter' };

describe('expirationCache', () => {
  let h: Harness;
  let now = 1_000_000;
  afterEach(async () => {
    await h.stop();
    h.cleanup();
  });

  async function render(caller: Caller, parameters = {}) {
    const outcome = await h.container.render(W, state(toParameters(parameters)), portalRequest(caller));
    if (outcome.status !== 'ok') throw new Error(outcome.status);
    return { cached: outcome.cached, count: dataOf(outcome.markup, 'svc_c_count').count, user: dataOf(outcome.markup, 'svc_c_count').user };
  }

  async function add(caller: Caller) {
    expect((await h.container.action(W, state(), toParameters({ op: 'add' }), FORM, portalRequest(caller))).status).toBe('ok');
  }

  test('seconds: output is reused per (session, page, window, mode, state, render parameters) until it expires, never across sessions, never for visitors', async () => {
    h = await startContainer([{ ...COUNTER, expirationCache: 60 }], { now: () => now });
    const alice = user('employees/alice');
    const bob = user('employees/bob');
    expect(await render(alice)).toEqual({ cached: false, count: '0', user: 'employees/alice' });
    // A change behind the cache's back (another window's action would do it) is not seen while it lasts.
    alice.session.state!.attributes.set('javax.portlet.p.c?count', 9);
    expect(await render(alice)).toEqual({ cached: true, count: '0', user: 'employees/alice' });
    expect(await render(alice, { page: '2' })).toMatchObject({ cached: false, count: '9' });
    expect(await render(bob)).toEqual({ cached: false, count: '0', user: 'employees/bob' });
    expect(await render(bob)).toMatchObject({ cached: true, user: 'employees/bob' });
    const guest = visitor();
    expect(await render(guest)).toMatchObject({ cached: false, user: '' });
    expect(await render(guest)).toMatchObject({ cached: false });
    now += 61_000;
    expect(await render(alice)).toMatchObject({ cached: false, count: '9' });
  });

  test('-1: until an action targets the window', async () => {
    h = await startContainer([{ ...COUNTER, expirationCache: -1 }], { now: () => now });
    const carol = user('employees/carol');
    expect(await render(carol)).toMatchObject({ cached: false, count: '0' });
    now += 10 * 24 * 3600 * 1000;
    expect(await render(carol)).toMatchObject({ cached: true, count: '0' });
    await add(carol);
    expect(await render(carol)).toMatchObject({ cached: false, count: '1' });
  });

  test('0 (the default): never cached', async () => {
    h = await startContainer([COUNTER]);
    const dave = user('employees/dave');
    await render(dave);
    expect(await render(dave)).toMatchObject({ cached: false });
  });
});
