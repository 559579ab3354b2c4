import { events as counterEvents } from '../portlets/fixtures/counter';
import { SECRET_DETAIL } from '../portlets/fixtures/thrower';
import { Browser, attributeOf, idsOf, startTestPortal, tokenOf, type TestPortal } from './portal-helpers';

const PAGES = [
  {
    id: 'home',
    title: 'Home',
    windows: [
      { id: 'a', portlet: 'counter' },
      { id: 'b', portlet: 'counter' },
      { id: 'c', portlet: 'counter', mode: 'help' },
      { id: 'guests', portlet: 'counter', visitors: 'only' },
      { id: 'members', portlet: 'counter', visitors: 'never' },
    ],
  },
  { id: 'faults', title: 'Faults', windows: [{ id: 'ok', portlet: 'counter' }, { id: 'bad', portlet: 'thrower' }, { id: 'slow', portlet: 'hanger' }, { id: 'out', portlet: 'broken' }] },
  { id: 'initial', title: 'Initial', windows: [{ id: 'h', portlet: 'counter', mode: 'help', state: 'maximized' }, { id: 'n', portlet: 'counter' }] },
  { id: 'admin', title: 'Administration', roles: ['admin'], windows: [{ id: 'x', portlet: 'counter' }, { id: 'auditors', portlet: 'counter', roles: ['auditor'] }] },
];

describe('the portal driver', () => {
  let portal: TestPortal;
  beforeAll(async () => {
    portal = await startTestPortal({ pages: PAGES, renderTimeoutMs: 300 });
  });
  afterAll(() => portal.stop());

  /** The action URL of window `w` as the page shows it (HTML-unescaped). */
  function actionOf(html: string, w: string): string {
    return attributeOf(html, `svc_${w}_form`, 'action')!;
  }

  test('a visitor\'s first request: a signed visitor cookie, one aggregated page with accessible sections, a strict CSP', async () => {
    const browser = new Browser(portal);
    const page = await browser.get('/portal/page/home');
    expect(page.status).toBe(200);
    const setCookie = page.headers.getSetCookie().join('\n');
    // Sealed: a new visitor's handle and expiry, nothing else yet (SPEC 10.2).
    expect(setCookie).toMatch(/^SVCPORTALVISITOR=v2\.[A-Za-z0-9_-]{67}; Path=\/portal; HttpOnly; SameSite=Lax; Max-Age=43200$/m);
    expect(page.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toMatch(/^<!doctype html>/);
    for (const w of ['a', 'b', 'c', 'guests']) expect(page.text).toContain(`<section class="portlet portlet-normal" id="portal-${w}" aria-labelledby="portal-${w}-title">`);
    expect(page.text).not.toContain('id="portal-members"');
    expect(page.text).toContain('<h2 class="portlet-title" id="portal-a-title">Counter</h2>');
    expect(page.text).toContain('<link rel="stylesheet" href="/portal/theme.css">');
    // The portal's one script, from its own origin; no inline script or style anywhere.
    expect([...page.text.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual(['<script src="/portal/portal.js" defer>']);
    expect(page.text).not.toMatch(/<script>|<script [^s]|style="/);
    const script = await fetch(`${portal.baseUrl}/portal.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toContain('data-svc-live-search');
    // Only pages a visitor may see are in the navigation.
    expect(page.text).toContain('<a href="/portal/page/home" aria-current="page">Home</a>');
    expect(page.text).not.toContain('Administration');
    const css = await browser.get('/portal/theme.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    for (const name of ['portlet-font', 'portlet-section-header', 'portlet-form-label', 'portlet-form-input-field', 'portlet-form-button', 'portlet-msg-error', 'portlet-msg-success', 'portlet-table-header']) expect(css.text).toContain(`.${name}`);
  });

  test('an aggregated page of several windows of one portlet has no duplicate id: each portlet namespaces its own', async () => {
    const page = await Browser.loggedIn(portal, 'employees/alice').get('/portal/page/home');
    const ids = idsOf(page.text);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const w of ['a', 'b', 'members']) expect(ids).toEqual(expect.arrayContaining([`svc_${w}_count`, `svc_${w}_form`, `svc_${w}_step`]));
    expect(ids).toContain('svc_c_help');
    expect(ids).not.toContain('svc_guests_count');
  });

  test('an action: POST with the session\'s token and Origin runs processAction once, then 303 to the render URL; other windows keep their state', async () => {
    const browser = Browser.loggedIn(portal, 'employees/bob');
    const first = await browser.get('/portal/page/home?b.p.page=7&c.m=help');
    counterEvents.length = 0;
    const answer = await browser.post(actionOf(first.text, 'a'), { step: '4' });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/portal/page/home?a.p.last=4&b.p.page=7&c.m=help');
    expect(counterEvents).toEqual(['action:add']);
    const after = await browser.get(answer.location!);
    expect(attributeOf(after.text, 'svc_a_count', 'data-count')).toBe('4');
    expect(JSON.parse(attributeOf(after.text, 'svc_a_count', 'data-params')!)).toEqual({ last: ['4'] });
    expect(JSON.parse(attributeOf(after.text, 'svc_b_count', 'data-params')!)).toEqual({ page: ['7'] });
    expect(after.text).toContain('id="svc_c_help"');
    // Reload repeats nothing.
    await browser.get(answer.location!);
    expect(counterEvents).toEqual(['action:add']);
  });

  test('GET never runs processAction', async () => {
    const browser = Browser.loggedIn(portal, 'employees/carol');
    const page = await browser.get('/portal/page/home');
    counterEvents.length = 0;
    const get = await browser.get(actionOf(page.text, 'a'));
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(counterEvents).toEqual([]);
  });

  test('a cross-site action post is refused (403) and reaches no portlet; so is one without the session\'s token', async () => {
    const browser = Browser.loggedIn(portal, 'employees/dave');
    const page = await browser.get('/portal/page/home');
    const url = actionOf(page.text, 'a');
    counterEvents.length = 0;
    expect((await browser.post(url, { step: '1' }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await browser.post(url, { step: '1' }, { origin: 'null' })).status).toBe(403);
    expect((await browser.send('POST', url, 'step=1', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(403);
    expect((await browser.send('POST', url, 'step=1', { 'content-type': 'application/x-www-form-urlencoded', referer: `${portal.url}/portal/page/home` })).status).toBe(303);
    counterEvents.length = 0;
    expect((await browser.post(url.replace(/_csrf=[^&]+/, '_csrf=forged'))).status).toBe(403);
    expect((await browser.post(url.replace(/_csrf=[^&]+&?/, ''))).status).toBe(403);
    // Another session's token is not this session's.
    const other = Browser.loggedIn(portal, 'employees/erin');
    const refused = await other.post(url);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('This form was not sent from this portal');
    expect(counterEvents).toEqual([]);
    expect(attributeOf((await browser.get('/portal/page/home')).text, 'svc_a_count', 'data-count')).toBe('1');
  });

  test('a visitor\'s action is bound to the visitor cookie\'s token too', async () => {
    const guest = new Browser(portal);
    const page = await guest.get('/portal/page/home');
    const answer = await guest.post(actionOf(page.text, 'guests'), { step: '2' });
    expect(answer.status).toBe(303);
    expect(attributeOf((await guest.get(answer.location!)).text, 'svc_guests_count', 'data-count')).toBe('2');
    expect((await new Browser(portal).post(actionOf(page.text, 'guests'))).status).toBe(403);
  });

  test('a request outside the root (a browser\'s /favicon.ico, sent without the portal\'s cookies) sets no cookie, so a visitor\'s open form stays valid', async () => {
    // A browser sends no cookie of Path=/portal there; a Set-Cookie back would still replace its visitor cookie.
    const favicon = await fetch(`${portal.url}/favicon.ico`);
    expect(favicon.status).toBe(404);
    expect(favicon.headers.getSetCookie()).toEqual([]);
    // And the portal's pages name an icon, so a browser does not ask for /favicon.ico at all.
    expect((await new Browser(portal).get('/portal/page/home')).text).toContain('<link rel="icon" href="data:,">');
  });

  test('a throwing, a hanging and an unavailable portlet are confined to their windows; the page and the others render', async () => {
    const page = await Browser.loggedIn(portal, 'employees/frank').get('/portal/page/faults');
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="svc_ok_count"');
    const section = (w: string) => page.text.slice(page.text.indexOf(`id="portal-${w}"`), page.text.indexOf('</section>', page.text.indexOf(`id="portal-${w}"`)));
    expect(section('bad')).toMatch(/<p class="portlet-msg-error" role="alert">This portlet could not be shown\. Reference: [0-9a-f-]{36}\.<\/p>/);
    expect(section('bad')).not.toContain('half written');
    expect(section('slow')).toContain('This portlet did not answer in time. Reload the page to try again.');
    expect(section('slow')).not.toContain('never finished');
    expect(section('out')).toContain('This portlet is unavailable at the moment.');
    expect(page.text).not.toContain(SECRET_DETAIL);
    expect(page.text).not.toMatch(/\bat [A-Za-z.]+ \(|\.ts:\d+/);
    expect(page.text).toContain('<h2 class="portlet-title" id="portal-bad-title">Thrower</h2>');
  });

  test('a throwing action answers 303 all the same; the window then says the action failed', async () => {
    const browser = Browser.loggedIn(portal, 'employees/gina');
    const page = await browser.get('/portal/page/faults?ok.p.keep=1');
    // The thrower writes no form: its action URL is made the way the container makes one.
    const answer = await browser.post(`/portal/page/faults/action/bad?_csrf=${tokenOf(page.text)}&ok.p.keep=1`);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/portal/page/faults?ok.p.keep=1&bad.e=action');
    const after = await browser.get(answer.location!);
    expect(after.text).toContain('Your last action here could not be completed. Please try again.');
    expect(after.text).toContain('This portlet could not be shown.');
    expect(after.text).not.toContain(SECRET_DETAIL);
  });

  test('sendRedirect answers 303 to its location', async () => {
    const browser = Browser.loggedIn(portal, 'employees/hank');
    const url = actionOf((await browser.get('/portal/page/home')).text, 'a').replace('a.a.op=add', 'a.a.op=redirect&a.a.to=%2Fportal%2Fpage%2Fadmin');
    const answer = await browser.post(url);
    expect(answer).toMatchObject({ status: 303, location: '/portal/page/admin' });
  });

  test('unknown pages and windows are 404; a malformed window parameter or an unsupported mode renders VIEW/NORMAL', async () => {
    const browser = Browser.loggedIn(portal, 'employees/ivan');
    expect((await browser.get('/portal/page/nope')).status).toBe(404);
    expect((await browser.get('/portal/nowhere')).status).toBe(404);
    const page = await browser.get('/portal/page/home');
    expect((await browser.post(actionOf(page.text, 'a').replace('/action/a?', '/action/zz?'))).status).toBe(404);
    const odd = await browser.get('/portal/page/home?a.m=config&a.s=fullscreen&a.p.=1&a.&zz.p.x=1&.p.y=2&a.p.ok=yes&b.m=EDIT&%E0%A4%A=1');
    expect(odd.status).toBe(200);
    expect(odd.text).toContain('id="portal-a" aria-labelledby="portal-a-title"');
    expect(odd.text).toContain('class="portlet portlet-normal" id="portal-a"');
    expect(JSON.parse(attributeOf(odd.text, 'svc_a_count', 'data-params')!)).toEqual({ ok: ['yes'] });
    // Mode names compare case-insensitively: EDIT is edit.
    expect(odd.text).toContain('id="svc_b_edit"');
  });

  test('pages and windows with roles: a visitor is sent to log in, a user without the role gets 403, windows follow their roles', async () => {
    const guest = await new Browser(portal).get('/portal/page/admin?x.p.q=1');
    expect(guest.status).toBe(302);
    expect(guest.location).toBe('/portal/login?goto=%2Fportal%2Fpage%2Fadmin%3Fx.p.q%3D1');
    expect((await Browser.loggedIn(portal, 'employees/bob', ['user']).get('/portal/page/admin')).status).toBe(403);
    const admin = await Browser.loggedIn(portal, 'employees/alice', ['admin']).get('/portal/page/admin');
    expect(admin.status).toBe(200);
    expect(admin.text).toContain('id="portal-x"');
    expect(admin.text).not.toContain('id="portal-auditors"');
    expect(admin.text).toContain('<a href="/portal/page/admin" aria-current="page">Administration</a>');
    expect((await Browser.loggedIn(portal, 'employees/ann', ['admin', 'auditor']).get('/portal/page/admin')).text).toContain('id="portal-auditors"');
    expect((await new Browser(portal).get('/portal/')).location).toBe('/portal/page/home');
    expect((await new Browser(portal).get('/portal')).location).toBe('/portal/');
  });

  test('window controls: links for the modes and states; maximized shows that window alone, minimized its title bar only', async () => {
    const browser = Browser.loggedIn(portal, 'employees/jane');
    counterEvents.length = 0;
    const page = await browser.get('/portal/page/home?a.p.k=1');
    const controls = page.text.slice(page.text.indexOf('aria-label="Counter window"'), page.text.indexOf('</nav>', page.text.indexOf('aria-label="Counter window"')));
    expect(controls).toContain('<span aria-current="true">View</span>');
    expect(controls).toContain('<a href="/portal/page/home?a.m=edit&#38;a.p.k=1&#38;c.m=help" aria-label="Edit Counter">Edit</a>');
    expect(controls).toContain('<a href="/portal/page/home?a.s=maximized&#38;a.p.k=1&#38;c.m=help" aria-label="Maximize Counter">Maximize</a>');
    const maximized = await browser.get('/portal/page/home?a.s=maximized&b.p.z=1');
    expect(idsOf(maximized.text).filter((id) => id.startsWith('portal-') && id.endsWith('-title'))).toEqual(['portal-a-title']);
    expect(maximized.text).toContain('class="portlet portlet-maximized"');
    expect(maximized.text).toContain('aria-label="Restore Counter"');
    const minimized = await browser.get('/portal/page/home?b.s=minimized');
    expect(minimized.text).toContain('<section class="portlet portlet-minimized" id="portal-b"');
    expect(minimized.text).not.toContain('id="svc_b_count"');
    expect(minimized.text).toContain('id="svc_a_count"');
  });

  test('a window configured in HELP and MAXIMIZED starts so, and its View and Restore links leave it; reload keeps what was shown', async () => {
    const browser = Browser.loggedIn(portal, 'employees/lena');
    /** The href of the title-bar link labelled `label` (HTML-unescaped). */
    const linkOf = (text: string, label: string): string => {
      const href = new RegExp(`<a href="([^"]*)" aria-label="${label}">`).exec(text)?.[1];
      if (href === undefined) throw new Error(`no link ${label}`);
      return href.replace(/&#38;/g, '&');
    };
    const first = await browser.get('/portal/page/initial');
    expect(first.text).toContain('id="svc_h_help"');
    expect(first.text).toContain('class="portlet portlet-maximized" id="portal-h"');
    expect(first.text).not.toContain('id="portal-n"');

    const viewUrl = linkOf(first.text, 'View Counter');
    const view = await browser.get(viewUrl);
    expect(view.text).toContain('id="svc_h_count"');
    expect(view.text).not.toContain('id="svc_h_help"');
    expect(view.text).toContain('class="portlet portlet-maximized" id="portal-h"');
    expect(view.text).toContain('<span aria-current="true">View</span>');

    const restoreUrl = linkOf(view.text, 'Restore Counter');
    const restored = await browser.get(restoreUrl);
    expect(restored.text).toContain('class="portlet portlet-normal" id="portal-h"');
    expect(restored.text).toContain('id="svc_h_count"');
    expect(restored.text).toContain('id="svc_n_count"');

    // Reload (and a bookmark) show what was shown.
    for (const url of [viewUrl, restoreUrl]) expect((await browser.get(url)).text).toBe((await browser.get(url)).text);
    const again = await browser.get(restoreUrl);
    expect(again.text).toContain('class="portlet portlet-normal" id="portal-h"');
    expect(again.text).toContain('id="svc_h_count"');

    // An action in VIEW/NORMAL comes back to VIEW/NORMAL; the other window's initial state needs nothing in the URL.
    const answer = await browser.post(attributeOf(restored.text, 'svc_h_form', 'action')!, { step: '3' });
    expect(answer.status).toBe(303);
    const after = await browser.get(answer.location!);
    expect(attributeOf(after.text, 'svc_h_count', 'data-count')).toBe('3');
    expect(after.text).toContain('class="portlet portlet-normal" id="portal-h"');
    expect(answer.location).not.toContain('n.');

    // A window named in the URL without a mode or state is in VIEW and NORMAL (SPEC 10.2); one not named is as configured.
    const named = await browser.get('/portal/page/initial?h.p.k=1');
    expect(named.text).toContain('class="portlet portlet-normal" id="portal-h"');
    expect(named.text).toContain('id="svc_h_count"');
    const help = linkOf(restored.text, 'Help Counter');
    expect((await browser.get(help)).text).toContain('id="svc_h_help"');
  });

  test('logout ends the portal session (POST with the token), and the browser is a visitor again', async () => {
    const browser = Browser.loggedIn(portal, 'employees/kate');
    const page = await browser.get('/portal/page/home');
    expect(page.text).toContain('Signed in as <strong>employees/kate</strong>');
    const token = tokenOf(page.text);
    expect((await browser.post('/portal/logout', { _csrf: 'forged' })).status).toBe(403);
    const answer = await browser.post('/portal/logout', { _csrf: token });
    expect(answer).toMatchObject({ status: 303, location: '/portal/' });
    expect(browser.cookies.has('SVCPORTALSESSION')).toBe(false);
    expect((await browser.get('/portal/page/home')).text).toContain('<a href="/portal/login?goto=%2Fportal%2Fpage%2Fhome">Log in</a>');
  });

  test('/health, /ready (the gateway answers: here it does not) and /metrics at the root', async () => {
    const browser = new Browser(portal);
    expect((await browser.get('/health')).status).toBe(200);
    expect((await browser.get('/ready')).status).toBe(503);
    const metrics = (await browser.get('/metrics')).text;
    expect(metrics).toMatch(/svc_portal_portlet_duration_seconds_count\{portlet="counter",phase="render",outcome="ok"\} \d+/);
    expect(metrics).toMatch(/svc_portal_portlet_errors_total\{portlet="thrower",phase="render",reason="failed"\} \d+/);
    expect(metrics).toMatch(/svc_portal_page_render_duration_seconds_count\{page="home"\} \d+/);
  });
});
