import { events as counterEvents } from './fixtures/counter';
import { events as failingEvents, SlowStartPortlet } from './fixtures/failing-init';
import { SECRET_DETAIL } from './fixtures/thrower';
import { events as unavailableEvents } from './fixtures/unavailable';
import { COUNTER, FORM, fixture, portalRequest, startContainer, state, user, visitor, type Harness } from './harness';
import { toParameters } from '../../portlet-adapter/src/container';

const W1 = { id: 'one', portletName: 'counter' };
const W2 = { id: 'two', portletName: 'counter' };

describe('the portlet lifecycle', () => {
  let h: Harness;
  afterEach(async () => {
    await h.stop();
    h.cleanup();
  });

  test('one instance per definition: init once before any request, destroy once at shutdown; action runs before the render that follows it', async () => {
    counterEvents.length = 0;
    h = await startContainer([COUNTER]);
    expect(counterEvents).toEqual(['init:counter']);
    const alice = user('employees/alice');
    for (const window of [W1, W2]) expect((await h.container.render(window, state(), portalRequest(alice))).status).toBe('ok');

    const outcome = await h.container.action(W1, state(), toParameters({ op: 'add' }), FORM, portalRequest(alice));
    expect(outcome).toMatchObject({ status: 'ok', result: { kind: 'render', parameters: { last: ['1'] } } });
    await h.container.render(W1, state(), portalRequest(alice));
    expect(counterEvents).toEqual(['init:counter', 'action:add']);

    await h.stop();
    await h.container.destroy();
    expect(counterEvents).toEqual(['init:counter', 'action:add', 'destroy:counter']);
    expect((await h.container.render(W1, state(), portalRequest(alice))).status).toBe('unavailable');
  });

  test('a throwing portlet fails in its own window in both phases; the log names the request, the page never sees the detail', async () => {
    h = await startContainer([COUNTER, { name: 'thrower', module: fixture('thrower.ts', 'ThrowerPortlet'), title: 'Thrower' }]);
    const request = portalRequest(visitor());
    const outcome = await h.container.render({ id: 'bad', portletName: 'thrower' }, state(), request);
    expect(outcome).toEqual({ status: 'failed', title: 'Thrower' });
    expect(JSON.stringify(outcome)).not.toContain(SECRET_DETAIL);
    expect(h.log.lines.find((l) => l.level === 'error')?.fields).toMatchObject({ requestId: request.requestId, portlet: 'thrower', window: 'bad', phase: 'render' });
    expect((await h.container.render(W1, state(), request)).status).toBe('ok');
    expect(await h.container.action({ id: 'bad', portletName: 'thrower' }, state(), toParameters({}), FORM, request)).toEqual({ status: 'failed' });
  });

  test('a portlet that never answers times out in its own window, in both phases', async () => {
    h = await startContainer([COUNTER, { name: 'hanger', module: fixture('hanger.ts', 'HangingPortlet'), title: 'Hanger' }], { timeLimitMs: 100 });
    const request = portalRequest(user('employees/bob'));
    const [hung, fine] = await Promise.all([
      h.container.render({ id: 'slow', portletName: 'hanger' }, state(), request),
      h.container.render(W1, state(), request),
    ]);
    expect(hung).toEqual({ status: 'timeout', title: 'Hanger' });
    expect(fine.status).toBe('ok');
    expect(await h.container.action({ id: 'slow', portletName: 'hanger' }, state(), toParameters({}), FORM, request)).toEqual({ status: 'timeout' });
  });

  test('a failed init takes the portlet out without destroy, and the others serve', async () => {
    failingEvents.length = 0;
    h = await startContainer([COUNTER, { name: 'broken', module: fixture('failing-init.ts', 'FailingInitPortlet'), title: 'Broken' }]);
    const request = portalRequest(visitor());
    expect(await h.container.render({ id: 'b', portletName: 'broken' }, state(), request)).toEqual({ status: 'unavailable', title: 'Broken' });
    expect((await h.container.render(W1, state(), request)).status).toBe('ok');
    await h.container.destroy();
    expect(failingEvents).toEqual(['init']);
    expect(h.log.lines.some((l) => l.level === 'error' && l.fields.portlet === 'broken' && /init failed/.test(l.message))).toBe(true);
  });

  test('an init UnavailableException with seconds: a new instance is tried after that time', async () => {
    let now = 1_000_000;
    SlowStartPortlet.attempts = 0;
    h = await startContainer([{ name: 'slow', module: fixture('failing-init.ts', 'SlowStartPortlet'), title: 'Slow' }], { now: () => now });
    const window = { id: 's', portletName: 'slow' };
    expect((await h.container.render(window, state(), portalRequest(visitor()))).status).toBe('unavailable');
    now += 29_000;
    expect((await h.container.render(window, state(), portalRequest(visitor()))).status).toBe('unavailable');
    now += 2_000;
    expect(await h.container.render(window, state(), portalRequest(visitor()))).toMatchObject({ status: 'ok', markup: '<p>started</p>' });
    expect(SlowStartPortlet.attempts).toBe(2);
  });

  test('a permanent UnavailableException calls destroy and takes the portlet out until restart', async () => {
    unavailableEvents.length = 0;
    h = await startContainer([{ name: 'flaky', module: fixture('unavailable.ts', 'UnavailablePortlet'), title: 'Flaky' }]);
    const window = { id: 'f', portletName: 'flaky' };
    expect((await h.container.render(window, state(), portalRequest(visitor()))).status).toBe('ok');
    expect((await h.container.render(window, state(toParameters({ fail: 'permanent' })), portalRequest(visitor()))).status).toBe('unavailable');
    expect(unavailableEvents).toEqual(['render', 'render', 'destroy']);
    expect((await h.container.render(window, state(), portalRequest(visitor()))).status).toBe('unavailable');
    expect(unavailableEvents).toEqual(['render', 'render', 'destroy']);
    await h.container.destroy();
    expect(unavailableEvents.filter((e) => e === 'destroy')).toHaveLength(1);

    h = await h.restart();
    expect((await h.container.render(window, state(), portalRequest(visitor()))).status).toBe('ok');
  });

  test('an UnavailableException with seconds takes the portlet out for that long only, without destroy', async () => {
    let now = 5_000_000;
    unavailableEvents.length = 0;
    h = await startContainer([{ name: 'flaky', module: fixture('unavailable.ts', 'UnavailablePortlet'), title: 'Flaky' }], { now: () => now });
    const window = { id: 'f', portletName: 'flaky' };
    expect((await h.container.render(window, state(toParameters({ fail: '30' })), portalRequest(visitor()))).status).toBe('unavailable');
    now += 10_000;
    expect((await h.container.render(window, state(), portalRequest(visitor()))).status).toBe('unavailable');
    now += 21_000;
    expect((await h.container.render(window, state(), portalRequest(visitor()))).status).toBe('ok');
    expect(unavailableEvents).toEqual(['render', 'render']);
  });
});
