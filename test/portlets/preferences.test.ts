import Database from 'better-sqlite3';
import { join } from 'node:path';
import { toParameters, type PortletWindow } from '../../portlet-adapter/src/container';
import { COUNTER, FORM, dataOf, fixture, portalRequest, startContainer, state, user, visitor, type Caller, type Harness } from './harness';
import { validatorInstances } from './fixtures/validated';

const VALIDATED = {
  name: 'validated',
  module: fixture('validated.ts', 'ValidatedPortlet'),
  preferencesValidator: fixture('validated.ts', 'PageSizeValidator'),
  title: 'Validated',
  preferences: [
    { name: 'pageSize', values: ['25'] },
    { name: 'columns', values: ['uniqueId', 'mail'] },
    { name: 'context', values: ['employees'], readOnly: true },
  ],
};
const W: PortletWindow = { id: 'w', portletName: 'validated' };

describe('portlet preferences', () => {
  let h: Harness;
  beforeAll(async () => {
    validatorInstances.length = 0;
    h = await startContainer([COUNTER, VALIDATED]);
  });
  afterAll(async () => {
    await h.stop();
    h.cleanup();
  });

  async function prefs(caller: Caller, window = W, pageId = 'home', parameters = {}): Promise<{ map: Record<string, string[]>; result: string }> {
    const outcome = await h.container.render(window, state(toParameters(parameters)), portalRequest(caller, {}, pageId));
    if (outcome.status !== 'ok') throw new Error(outcome.status);
    const match = /data-result="([^"]*)">([^<]*)</.exec(outcome.markup)!;
    return { result: match[1], map: JSON.parse(match[2].replace(/&#(\d+);/g, (_m, c: string) => String.fromCharCode(Number(c)))) };
  }

  async function store(caller: Caller, parameters: Record<string, string | string[]>, window = W, pageId = 'home'): Promise<string> {
    const outcome = await h.container.action(window, state(), toParameters(parameters), FORM, portalRequest(caller, {}, pageId));
    if (outcome.status !== 'ok' || outcome.result.kind !== 'render') throw new Error(JSON.stringify(outcome));
    return outcome.result.parameters.result[0];
  }

  test('defaults come from the descriptor; one validator instance serves the definition', async () => {
    expect((await prefs(user('employees/alice'))).map).toEqual({ pageSize: ['25'], columns: ['uniqueId', 'mail'], context: ['employees'] });
    expect(validatorInstances).toHaveLength(1);
  });

  test('a valid store() is kept; the validator refuses a bad value, naming it, and nothing is stored', async () => {
    const bob = user('employees/bob');
    expect(await store(bob, { pageSize: '50', columns: ['mail'] })).toBe('stored');
    expect((await prefs(bob)).map).toMatchObject({ pageSize: ['50'], columns: ['mail'] });
    expect(await store(bob, { pageSize: '3', columns: ['givenName'] })).toBe('ValidatorException:pageSize');
    expect((await prefs(bob)).map).toMatchObject({ pageSize: ['50'], columns: ['mail'] });
    expect(validatorInstances).toHaveLength(1);
  });

  test('a read-only preference refuses writes and resets (ReadOnlyException), and nothing is stored', async () => {
    const carol = user('employees/carol');
    expect(await store(carol, { pageSize: '10', context: 'customers' })).toBe('ReadOnlyException');
    expect(await store(carol, { reset: 'context' })).toBe('ReadOnlyException');
    expect((await prefs(carol)).map).toMatchObject({ pageSize: ['25'], context: ['employees'] });
  });

  test('store() during render is IllegalStateException', async () => {
    const outcome = await h.container.render({ id: 'c', portletName: 'counter' }, state(toParameters({ storeInRender: '1' })), portalRequest(user('employees/dave')));
    expect(outcome.status === 'ok' && dataOf(outcome.markup, 'svc_c_count').store).toBe('IllegalStateException');
  });

  test('preferences are per (portal user, page, window), kept across a portal restart; reset goes back to the default', async () => {
    const erin = user('employees/erin');
    expect(await store(erin, { pageSize: '75' })).toBe('stored');
    expect(await store(erin, { pageSize: '15' }, { id: 'w2', portletName: 'validated' })).toBe('stored');
    expect(await store(erin, { pageSize: '35' }, W, 'admin')).toBe('stored');

    h = await h.restart();
    expect((await prefs(erin)).map.pageSize).toEqual(['75']);
    expect((await prefs(erin, { id: 'w2', portletName: 'validated' })).map.pageSize).toEqual(['15']);
    expect((await prefs(erin, W, 'admin')).map.pageSize).toEqual(['35']);
    expect((await prefs(user('employees/frank'))).map.pageSize).toEqual(['25']);
    // Only what differs from the defaults is stored, one row per (user, page, window).
    const db = new Database(join(h.dir, 'portal.db'), { readonly: true });
    expect(db.prepare("SELECT page, window, data FROM preferences WHERE owner = 'employees/erin' ORDER BY page, window").all()).toEqual([
      { page: 'admin', window: 'w', data: '{"pageSize":["35"]}' },
      { page: 'home', window: 'w', data: '{"pageSize":["75"]}' },
      { page: 'home', window: 'w2', data: '{"pageSize":["15"]}' },
    ]);
    db.close();

    expect(await store(erin, { reset: 'pageSize' })).toBe('stored');
    expect((await prefs(erin)).map.pageSize).toEqual(['25']);
  });

  test('a visitor\'s preferences are kept in the visitor\'s portal session only', async () => {
    const guest = visitor('visitor-prefs');
    expect(guest.session.state).toBeUndefined();
    expect(await store(guest, { pageSize: '40' })).toBe('stored');
    expect((await prefs(guest)).map.pageSize).toEqual(['40']);
    expect(guest.session.state).toBeDefined();
    expect((await prefs(visitor('another-visitor'))).map.pageSize).toEqual(['25']);
    const db = new Database(join(h.dir, 'portal.db'), { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM preferences WHERE data LIKE '%40%'").get()).toEqual({ n: 0 });
    db.close();
  });

  test('more than 64 KiB is refused and nothing is stored', async () => {
    const gina = user('employees/gina');
    expect(await store(gina, { columns: 'x'.repeat(70 * 1024) })).toBe('ValidatorException:columns');
    expect((await prefs(gina)).map.columns).toEqual(['uniqueId', 'mail']);
  });

  test('stored preferences of a window that now shows another portlet are not applied', async () => {
    const hank = user('employees/hank');
    expect(await store(hank, { pageSize: '60' }, { id: 'x', portletName: 'validated' })).toBe('stored');
    const outcome = await h.container.render({ id: 'x', portletName: 'counter' }, state(), portalRequest(hank));
    expect(outcome.status === 'ok' && dataOf(outcome.markup, 'svc_x_count').color).toBe('blue');
  });
});
