/**
 * Cross-site posts on every form of the portal (issue 16): the demo (`svc demo`: core, gateway and the
 * portal with its four portlets, one real process) is crawled as a visitor, as bob and as alice; every
 * `<form method="post">` found is then posted, filled with values that would succeed, with another
 * site's `Origin`, with `Origin: null`, with another site's `Referer` only, and with neither. Each
 * is 403 and changes nothing: every subject (its body and ETag, which a password change moves) is as
 * before, both users still log in with their passwords, and the three browsers' sessions live on.
 * Then the control: the same forms posted from the portal's own pages pass, and do what they say.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningPortal } from '../../portlet-adapter/src/portal';
import { login } from '../helpers/login';
import { startDemo, stopSvc, type Running } from '../helpers/svc-process';
import { Browser, portalLogin } from '../portal/portal-helpers';

jest.setTimeout(120_000);

interface Form {
  /** The page it was found on. */
  page: string;
  action: string;
  fields: Record<string, string>;
}

/** HTML text as the browser reads it (the markup escapes `&`, quotes and angle brackets as numeric references). */
const decode = (text: string) =>
  text.replace(/&(?:#(\d+)|#x([0-9a-f]+)|(amp|quot|lt|gt));/gi, (_m, dec: string, hex: string, name: string) =>
    dec || hex ? String.fromCodePoint(dec ? Number(dec) : parseInt(hex, 16)) : { amp: '&', quot: '"', lt: '<', gt: '>' }[name.toLowerCase()]!,
  );
/**
 * Values that would pass every check a portlet makes, so only the cross-site check can refuse:
 * `own` is the password of the browser's user (or bob's, for a visitor's login form).
 */
const filler = (passwords: Record<string, string>, own: string) => (name: string): string => {
  const values: Record<string, string> = {
    uniqueId: 'mallory',
    mail: 'mallory@evil.example',
    givenName: 'Mallory',
    familyName: 'Evil',
    password: passwords.bob,
    passwordRepeat: passwords.bob,
    oldPassword: own,
    newPassword: 'Evil-password-4242',
    newPasswordRepeat: 'Evil-password-4242',
    name: 'bob',
    user: 'bob',
    filter: 'uniqueId pr',
    context: 'employees',
  };
  return values[name] ?? 'x';
};

/** Every post form of a page, with what a browser would submit: its values, the rest filled in. */
function formsOf(page: string, html: string, fill: (name: string) => string): Form[] {
  return [...html.matchAll(/<form\b[^>]*\bmethod="post"[^>]*\baction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)].map(([, action, body]) => {
    const fields: Record<string, string> = {};
    const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
    for (const [tag] of body.matchAll(/<(?:input|button)\b[^>]*>/g)) {
      const name = attribute(tag, 'name');
      if (!name || (attribute(tag, 'type') === 'checkbox' && !/\schecked\b/.test(tag))) continue;
      fields[name] = decode(attribute(tag, 'value') || fill(name));
    }
    for (const [, element, tag, inner] of body.matchAll(/<(textarea|select)\b([^>]*)>([\s\S]*?)<\/\1>/g)) {
      const name = attribute(tag, 'name');
      if (!name) continue;
      const option = /<option\b[^>]*\sselected\b[^>]*>/.exec(inner) ?? /<option\b[^>]*>/.exec(inner);
      fields[name] = element === 'select' ? decode(attribute(option?.[0] ?? '', 'value') ?? '') : decode(inner) || fill(name);
    }
    return { page, action: decode(action), fields };
  });
}

/** Follows the portal's own page links (render URLs: no state changes) from `start`, collecting forms. */
async function crawl(browser: Browser, start: string[], fill: (name: string) => string): Promise<Form[]> {
  const seen = new Set<string>();
  const queue = [...start];
  const forms = new Map<string, Form>();
  while (queue.length > 0 && seen.size < 80) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const page = await browser.get(path);
    if (page.status !== 200) continue;
    for (const [, href] of page.text.matchAll(/href="(\/portal\/(?:page\/[^"#]*|login[^"#]*))"/g)) queue.push(decode(href));
    for (const form of formsOf(path, page.text, fill)) {
      // One of each: the same action with the same submitted operation is the same form.
      const key = `${form.action.replace(/_csrf=[^&]*/, '')} ${form.fields.op ?? ''} ${Object.keys(form.fields).sort().join(',')}`;
      if (!forms.has(key)) forms.set(key, form);
    }
  }
  return [...forms.values()];
}

const CROSS_SITE: Array<[string, Record<string, string>]> = [
  ['another site as Origin', { origin: 'https://evil.example' }],
  ['Origin null (a sandboxed frame, a data: page)', { origin: 'null' }],
  ['another site as Referer, no Origin', { referer: 'https://evil.example/page' }],
  ['neither Origin nor Referer', {}],
];

describe('cross-site posts on every form of the demo portal', () => {
  let dir: string;
  let demo: Running & { core: string; portal: string };
  let passwords: Record<string, string>;
  let portal: RunningPortal;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-portal-forms-'));
    demo = await startDemo(dir);
    passwords = (JSON.parse(readFileSync(join(dir, 'demo-credentials.json'), 'utf8')) as { users: Record<string, string> }).users;
    portal = { url: new URL(demo.portal).origin } as RunningPortal;
  });
  afterAll(async () => {
    if (demo) expect(await stopSvc(demo)).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every subject of both contexts as the system user reads it over REST: body and ETag. */
  async function subjects(): Promise<string[]> {
    const { cookie } = await login(demo.core, { clientid: 'svc-web', user: 'svcadmin', password: passwords.svcadmin });
    const read = (url: string) => fetch(url, { headers: { cookie: `SVCSESSIONID=${cookie}`, accept: 'application/json' } });
    const all: string[] = [];
    for (const context of ['employees', 'customers']) {
      const answer = await read(`${demo.core}/resources/contexts/${context}/subjects?filter=uniqueId%20pr&quantity=1000`);
      const list = (await answer.json()) as { results: Array<{ uniqueId: string }> };
      expect(answer.status).toBe(200);
      for (const { uniqueId } of list.results) {
        const answer = await read(`${demo.core}/resources/contexts/${context}/subjects/${encodeURIComponent(uniqueId)}`);
        all.push(`${context}/${uniqueId} ${answer.headers.get('etag')} ${await answer.text()}`);
      }
    }
    return all;
  }

  it('every form is refused (403) from another site, and nothing changes', async () => {
    const visitor = new Browser(portal);
    const bob = new Browser(portal);
    const alice = new Browser(portal);
    await portalLogin(bob, 'bob', passwords.bob);
    await portalLogin(alice, 'alice', passwords.alice);
    const admin = ['show', 'edit', 'delete'].map((view) => `/portal/page/admin?users.p.view=${view}&users.p.subject=bob`);
    const browsers: Array<[string, Browser, Form[]]> = [
      ['visitor', visitor, await crawl(visitor, ['/portal/page/home', '/portal/login'], filler(passwords, passwords.bob))],
      ['bob', bob, await crawl(bob, ['/portal/page/home'], filler(passwords, passwords.bob))],
      ['alice', alice, await crawl(alice, ['/portal/page/home', '/portal/page/admin', ...admin], filler(passwords, passwords.alice))],
    ];
    // The sweep reaches the four portlets' windows, the portal's login and logout, and each user's preferences.
    const actions = new Set(browsers.flatMap(([, , forms]) => forms.map((form) => form.action.replace(/\?.*/, ''))));
    expect([...actions].sort()).toEqual(['/portal/login', '/portal/logout', '/portal/page/admin/action/users', '/portal/page/home/action/forgot', '/portal/page/home/action/me', '/portal/page/home/action/register']);
    expect(browsers.map(([, , forms]) => forms.length).reduce((a, b) => a + b)).toBeGreaterThanOrEqual(15);

    const before = await subjects();
    const answers: string[] = [];
    for (const [who, browser, forms] of browsers) {
      for (const form of forms) {
        for (const [how, headers] of CROSS_SITE) {
          const answer = await browser.send('POST', form.action, new URLSearchParams(form.fields).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
          answers.push(`${who} ${form.action.replace(/_csrf=[^&]*/, '_csrf=…')} op=${form.fields.op ?? ''} (${how}): ${answer.status}`);
        }
      }
    }
    expect(answers.filter((line) => !line.endsWith(': 403'))).toEqual([]);

    expect(await subjects()).toEqual(before);
    for (const user of ['alice', 'bob']) expect((await login(demo.core, { clientid: 'svc-web', user, password: passwords[user] })).status).toBe(200);
    expect((await bob.get('/portal/page/home')).text).toContain('bob@example.com');
    expect((await alice.get('/portal/page/admin')).status).toBe(200);
    expect((await visitor.get('/portal/page/admin')).status).toBe(302);

    // The control: the same forms from the portal's own pages pass the check, so the 403s came from
    // it. One of each action and operation, those that end a session or a subject last.
    const rank = (form: Form) => (form.action.startsWith('/portal/logout') ? 3 : form.action.startsWith('/portal/login') ? 2 : form.fields.op === 'password' || form.fields.op === 'delete' ? 1 : 0);
    const controls: string[] = [];
    for (const [who, browser, forms] of browsers) {
      const once = new Map(forms.map((form) => [`${form.action.replace(/\?.*/, '')} ${form.fields.op ?? ''}`, form]));
      for (const form of [...once.values()].sort((a, b) => rank(a) - rank(b))) {
        const answer = await browser.post(form.action, form.fields);
        controls.push(`${who} ${form.action.replace(/\?.*/, '')} op=${form.fields.op ?? ''}: ${answer.status}`);
      }
    }
    expect(controls.filter((line) => !/: (200|303)$/.test(line))).toEqual([]);
    expect(controls.length).toBeGreaterThanOrEqual(12);
    // And they did what they say: mallory registered (and was created), alice's password changed, bob deleted.
    const after = (await subjects()).map((line) => line.split(' ')[0]);
    expect(after).toEqual(expect.arrayContaining(['customers/mallory', 'employees/mallory', 'employees/alice']));
    expect(after).not.toContain('employees/bob');
    expect((await login(demo.core, { clientid: 'svc-web', user: 'alice', password: 'Evil-password-4242' })).status).toBe(200);
  });
});
