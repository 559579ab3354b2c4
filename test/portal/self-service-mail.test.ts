/**
 * Self-Service with mail on (SPEC 16): an address change waits for the link mailed to the new
 * address, and the window says so; "Edit profile" shows the address read-only (it changes by its
 * link). The page right after an "Edit profile" save shows the pending change too, and the control
 * to change it again: that render reads the subject with the second factor's state and the pending
 * change (include=otp,mail) like any other, rather than the subject the save's PUT answered (which
 * holds neither), and the save with its page still costs at most 3 gateway requests (issue 28).
 * Real core (mail to the development mailbox), gateway and portal in this process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { RunningGateway } from '../../gateway/src/index';
import { buildPortalConfig, startPortal, type RunningPortal } from '../../portlet-adapter/src/portal';
import { PORTLETS_DESCRIPTOR } from '../../portlet-adapter/src/portlets';
import { demoPortalDocument } from '../../server/src/demo/demo-portal';
import { startMailbox, type RunningMailbox } from '../../server/src/demo/mailbox';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { startTestGateway } from '../gateway/gateway-helpers';
import { gatewayApiRequests } from '../../bench/lib/page-requests';
import { Browser, type Answer } from './portal-helpers';

const { users } = TEST_CREDENTIALS;
let mailbox: RunningMailbox;
let core: TestServer;
let gateway: RunningGateway;
let portal: RunningPortal;
let dir: string;

beforeAll(async () => {
  mailbox = await startMailbox({ smtpPort: 0 });
  core = await startTestServer({
    configure: (doc) => {
      doc.mail = { smtp: { host: '127.0.0.1', port: mailbox.smtpPort, requireTLS: false, from: 'svc <svc@localhost>' }, publicBase: 'http://127.0.0.1/svc', retry: { initialSeconds: 0.2, maxSeconds: 0.5 } };
    },
  });
  gateway = await startTestGateway([core.baseUrl]);
  dir = mkdtempSync(join(tmpdir(), 'svc-portal-mail-'));
  const doc = demoPortalDocument({ credentials: TEST_CREDENTIALS, host: '127.0.0.1', gateway: gateway.baseUrl, dataDir: dir, descriptor: PORTLETS_DESCRIPTOR });
  portal = await startPortal(buildPortalConfig({ portal: { ...doc.portal, port: 0, renderTimeoutMs: 60_000 } }, { env: {}, baseDir: dir }), { logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }), defaultMetrics: false });
}, 60_000);
afterAll(async () => {
  await portal?.close();
  await gateway?.close();
  await core?.stop();
  await mailbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const unescape = (text: string) => text.replace(/&amp;/g, '&').replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
function actionOf(page: Answer, op: string): string {
  const form = new RegExp(`<form method="post" action="([^"]*)"[^>]*><input type="hidden" name="op" value="${op}">`).exec(page.text);
  if (!form) throw new Error(`no form for ${op} on the page`);
  return unescape(form[1]);
}
function hrefOf(page: Answer, text: string): string {
  const a = new RegExp(`<a [^>]*href="([^"]*)"[^>]*>${text}`).exec(page.text);
  if (!a) throw new Error(`no link "${text}" on the page`);
  return unescape(a[1]);
}
async function act(browser: Browser, action: string, form: Record<string, string>): Promise<Answer> {
  const answer = await browser.post(action, form);
  expect(answer.status).toBe(303);
  return browser.get(answer.location!);
}

/** The window's text, tags dropped. */
const textOf = (page: Answer) => page.text.slice(page.text.indexOf('<main')).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
/** The HTML-unescaped hidden and text fields of the form whose `op` is `op`. */
function fieldsOf(page: Answer, op: string): Record<string, string> {
  const form = page.text.split('<form').find((f) => f.includes(`name="op" value="${op}"`))!.split('</form>')[0];
  return Object.fromEntries([...form.matchAll(/<input type="(?:hidden|text|email)"[^>]*?name="([^"]+)"[^>]*?value="([^"]*)"/g)].map((m) => [m[1], unescape(m[2])]));
}
/** The gateway's /api requests `act` makes (each reading waits a moment: the gateway counts an answer once it is on the socket). */
async function counted(act: () => Promise<void>): Promise<number> {
  const settled = async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return gatewayApiRequests(gateway.url);
  };
  const before = await settled();
  await act();
  return (await settled()) - before;
}

const PENDING = /Your new address bob@new\.example waits for confirmation: follow the link we sent there before \d{4}-\d\d-\d\d \d\d:\d\d UTC\. Until then your address stays as shown\./;

test('bob changes his address, then saves his profile: the first page after the save shows the change still pending', async () => {
  const bob = Browser.loggedIn(portal, 'employees/bob', ['user']);
  const home = await bob.get('/portal/page/home');
  const form = await bob.get(hrefOf(home, 'Change e-mail address'));
  const asked = await act(bob, actionOf(form, 'mail'), { op: 'mail', mail: 'bob@new.example', password: users.bob });
  expect(textOf(asked)).toMatch(PENDING);

  const edit = await bob.get('/portal/page/home?me.p.view=edit');
  // The address changes by its link, not in this form: shown read-only, with the way to change it.
  expect(edit.text).toMatch(/<input [^>]*name="mail"[^>]*readonly/);
  expect(edit.text).toContain('Change it with &#34;Change e-mail address&#34;: we mail a link to the new address.');
  expect(edit.text).not.toMatch(/<input [^>]*name="givenName"[^>]*readonly/);
  let saved: Answer | undefined;
  const requests = await counted(async () => {
    saved = await act(bob, actionOf(edit, 'save'), { ...fieldsOf(edit, 'save'), givenName: 'Roberto' });
  });
  const page = textOf(saved!);
  expect(page).toContain('Your profile was saved.');
  expect(page).toContain('Given name Roberto');
  expect(page).toMatch(PENDING);
  expect(hrefOf(saved!, 'Change e-mail address')).toContain('me.p.view=mail');
  expect(page).toContain('Two-step sign-in is off');
  // The save's budget (issue 28): its PUT, then the page's one read and one batch of evaluations.
  expect(requests).toBeLessThanOrEqual(3);
  expect((await core.core.subjects.read('employees', 'bob')).attributes).toMatchObject({ givenName: 'Roberto', mail: 'bob@example.com' });
});
