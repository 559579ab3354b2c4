/**
 * How many gateway requests a portal page costs (issue 28), counted on the gateway's own `/metrics`
 * (its /api routes, not /health, /ready, /metrics): a page view (the demo's home and Administration
 * pages, and User Admin's view of one subject there), and a Self-Service "Edit profile" save (the
 * action and the page after it). Counts, not timings: the portal-requests scenario
 * prints them and test/portal/page-requests.test.ts asserts them, both through these functions.
 */

/** The query of the demo's Administration page (window `users`, User Admin) that shows bob: his attributes, status, second factor and recent events. */
export const SUBJECT_VIEW_QUERY = 'users.p.view=show&users.p.subject=bob';

/** Requests the gateway has answered on its /api routes. */
export async function gatewayApiRequests(gatewayUrl: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('svc_gateway_request_duration_seconds_count{') && !/route="\/(health|ready|metrics)"/.test(line)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** Where the portal and the gateway under count are, and one logged-in portal session. */
export interface CountTarget {
  /** `http://host:port` of the portal (its public origin). */
  portalUrl: string;
  /** `http://host:port` of the gateway (its /metrics). */
  gatewayUrl: string;
  /** `Cookie` header of the portal session. */
  cookie: string;
}

interface Page {
  status: number;
  text: string;
  location: string | null;
}

async function send(target: CountTarget, path: string, init: { method?: string; body?: string } = {}): Promise<Page> {
  const post = init.method === 'POST';
  const response = await fetch(path.startsWith('http') ? path : `${target.portalUrl}${path}`, {
    method: init.method ?? 'GET',
    body: init.body,
    redirect: 'manual',
    headers: { cookie: target.cookie, accept: 'text/html', ...(post ? { origin: target.portalUrl, 'content-type': 'application/x-www-form-urlencoded' } : {}) },
  });
  return { status: response.status, text: await response.text(), location: response.headers.get('location') };
}

/**
 * The gateway requests `act` makes, read on the gateway's /metrics before and after. The gateway
 * counts a request when its answer has been handed to the socket, which may be after the portal
 * read it: each reading waits a moment, so that no request is counted in the wrong place.
 */
async function counted(gatewayUrl: string, act: () => Promise<void>): Promise<number> {
  const settled = async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return gatewayApiRequests(gatewayUrl);
  };
  const before = await settled();
  await act();
  return (await settled()) - before;
}

/** The gateway requests one view of `path` makes, averaged over `views` sequential views after a warm one. */
export async function requestsPerPage(target: CountTarget, path: string, views = 10): Promise<number> {
  const view = async () => {
    const page = await send(target, path);
    if (page.status !== 200) throw new Error(`${path}: ${page.status}`);
    // A window that failed makes fewer requests: such a page is no measure.
    if (page.text.includes('portlet-msg-error')) throw new Error(`${path}: a window shows an error`);
  };
  await view();
  return (await counted(target.gatewayUrl, async () => {
    for (let i = 0; i < views; i++) await view();
  })) / views;
}

/** The fields a form of the window posts (hidden and text-like inputs), HTML-unescaped. */
function formFields(html: string, op: string): { action: string; fields: Record<string, string> } {
  const form = html.split('<form').find((f) => f.includes(`name="op" value="${op}"`));
  const action = form && /action="([^"]*)"/.exec(form)?.[1];
  if (form === undefined || action === undefined) throw new Error(`no form with op=${op} on the page`);
  const fields: Record<string, string> = {};
  for (const [, name, value] of form.split('</form>')[0].matchAll(/<input type="(?:hidden|text|email)"[^>]*?name="([^"]+)"[^>]*?value="([^"]*)"/g)) fields[name] = unescape(value);
  return { action: unescape(action), fields };
}

function unescape(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}

/**
 * The gateway requests of one "Edit profile" save in Self-Service (window `me` of page `home`): the
 * action's POST and the page its 303 leads to; the edit form is fetched first, not counted.
 */
export async function requestsPerProfileSave(target: CountTarget, root: string, change: Record<string, string>): Promise<number> {
  const edit = await send(target, `${root}/page/home?me.p.view=edit`);
  if (edit.status !== 200) throw new Error(`the edit form answered ${edit.status}`);
  const { action, fields } = formFields(edit.text, 'save');
  return counted(target.gatewayUrl, async () => {
    const answer = await send(target, action, { method: 'POST', body: new URLSearchParams({ ...fields, ...change }).toString() });
    if (answer.status !== 303 || answer.location === null) throw new Error(`the save answered ${answer.status}`);
    const after = await send(target, answer.location);
    if (!after.text.includes('Your profile was saved.')) throw new Error('the page after the save does not say it was saved');
  });
}
