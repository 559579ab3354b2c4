/**
 * Self-Service with mail on (SPEC 16): an address change waits for the link mailed to the new
 * address, and the window says so; "Edit profile" shows the address read-only (it changes by its
 * link). The page right after an "Edit profile" save shows the pending change too, and the control
 * to change it again: that render reads the subject with the second factor's state and the pending
 * change (include=otp,mail) like any other, rather than the subject the save's PUT answered (which
 * holds neither), and the save with its page still costs at most 3 gateway requests (issue 28).
 * Real core (mail to the development mailbox), gateway and portal in this process.
 */
import type { RunningGateway } from '../../gateway/src/index';
import { startMailbox, type RunningMailbox } from '../../server/src/demo/mailbox';
import { TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { gatewayApiRequests } from '../../bench/lib/page-requests';
import { act, actionOf, Browser, hrefOf, startDemoStack, unescapeHtml, type Answer, type DemoStack, type TestPortal } from './portal-helpers';

const { users } = TEST_CREDENTIALS;
let mailbox: RunningMailbox;
let core: TestServer;
let gateway: RunningGateway;
let portal: TestPortal;
let stack: DemoStack | undefined;

beforeAll(async () => {
  mailbox = await startMailbox({ smtpPort: 0 });
  const mail = { smtp: { host: '127.0.0.1', port: mailbox.smtpPort, requireTLS: false, from: 'svc <svc@localhost>' }, publicBase: 'http://127.0.0.1/svc', retry: { initialSeconds: 0.2, maxSeconds: 0.5 } };
  ({ core, gateway, portal } = stack = await startDemoStack({ configure: (doc) => void (doc.mail = mail) }, 'svc-portal-mail-'));
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await mailbox?.close();
});


/** The window's text, tags dropped. */
const textOf = (page: Answer) => page.text.slice(page.text.indexOf('<main')).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
/** The HTML-unescaped hidden and text fields of the form whose `op` is `op`. */
function fieldsOf(page: Answer, op: string): Record<string, string> {
  const form = page.text.split('<form').find((f) => f.includes(`name="op" value="${op}"`))!.split('</form>')[0];
  return Object.fromEntries([...form.matchAll(/<input type="(?:hidden|text|email)"[^>]*?name="([^"]+)"[^>]*?value="([^"]*)"/g)].map((m) => [m[1], unescapeHtml(m[2])]));
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
