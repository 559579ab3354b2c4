import type { Request } from 'express';
import { InvalidRequest, MethodNotAllowed, NotFound, ReloadUnavailable } from '../../../../common/src/errors';
import { partiesOf } from '../../audit';
import { formBody, readBody } from '../body';
import { answerCheck, asksCheck, checkedOperation, type CheckableRoute } from '../checks';
import { configView } from '../config-view';
import { step, type Exchange, type Step } from '../exchange';
import { authorizePage } from '../page-access';
import { configPage } from '../pages/config-pages';
import { sendPage } from '../pages/html';
import { sendDocument, wantsPage } from '../respond';
import { sameOrigin } from '../same-origin';
import type { HttpServices } from '../services';

type Services = Pick<HttpServices, 'decisions' | 'sessions' | 'audit' | 'reload'>;

/** The config page lists at most this many live sessions. */
const LISTED_SESSIONS = 500;
/** The config area's forms carry one short field. */
const FORM_LIMIT = 1024;

/**
 * The config area's routes as a check sees them (SPEC section 6: the check holds on every route,
 * `config` included): its target is `config`, read with GET and changed with POST.
 */
const CHECKABLE: Record<string, CheckableRoute> = {
  '/config': { methods: { GET: 'READ' }, fits: ['READ'], name: 'the configuration' },
  '/config/reload': { methods: { POST: 'UPDATE' }, fits: ['UPDATE'], name: 'a reload' },
  '/config/sessions/end': { methods: { POST: 'UPDATE' }, fits: ['UPDATE'], name: 'ending a session' },
};

/** What the page says after one of its forms: fixed texts chosen by a flag, never the query's own words. */
function noticeOf(req: Request): string | undefined {
  const query = req.query as Record<string, unknown>;
  if (query.ended === '1') return 'The session was ended.';
  if (query.ended === '0') return 'No live session has that handle; it may have ended already.';
  if (query.reloaded === '1') return 'The configuration file was reloaded.';
  return undefined;
}

async function sendConfigPage(s: Services, x: Exchange): Promise<void> {
  const root = x.config.server.contextRoot;
  const live = await s.sessions.list(LISTED_SESSIONS + 1);
  const sessions = live.slice(0, LISTED_SESSIONS).sort((a, b) => b.lastAccess - a.lastAccess || a.handle.localeCompare(b.handle));
  const page = configPage({
    view: configView(x.config),
    sessions,
    truncated: live.length > LISTED_SESSIONS,
    ownHandle: x.state.session.handle,
    endAction: `${root}/config/sessions/end`,
    // Only the process that read a configuration file can reload it; a demo or test server has none.
    reloadAction: s.reload ? `${root}/config/reload` : undefined,
    notice: noticeOf(x.req),
  });
  sendPage(x.res, 200, 'Configuration', page, { wide: true });
}

/** POST {base}/config/sessions/end `handle=…`: ends one stored session by its public handle. */
const endSession = (s: Services): Step =>
  step('endSession', async ({ req, res, state, config }) => {
    const handle = formBody(req).handle;
    if (handle === undefined) throw new InvalidRequest('name the session to end', { errors: [{ path: 'handle', message: 'required' }] });
    const ended = await s.sessions.endByHandle(handle);
    if (ended) s.audit.record({ ...partiesOf(state.session, state.peer), event: 'session_end', outcome: 'success', reason: 'config', ended: handle });
    if (wantsPage(req)) return res.redirect(303, `${config.server.contextRoot}/config?ended=${ended ? 1 : 0}`);
    if (!ended) throw new NotFound('no live session has this handle');
    res.status(204).end();
  });

/** POST {base}/config/reload: rereads the configuration file; a refused file leaves the running one. */
const reload = (s: Services): Step =>
  step('reload', ({ req, res, state, config }) => {
    if (!s.reload) throw new ReloadUnavailable('this server runs without a configuration file');
    const result = s.reload(partiesOf(state.session, state.peer));
    if (!result.ok) {
      throw new InvalidRequest('the configuration file was refused; the running configuration stays', {
        errors: result.problems.map((message) => ({ path: 'config', message })),
      });
    }
    if (wantsPage(req)) return res.redirect(303, `${config.server.contextRoot}/config?reloaded=1`);
    sendDocument(req, res, 200, { reload: { ok: true } });
  });

const refuse = (allow: string, detail: string): Step =>
  step('methodNotAllowed', ({ res }) => {
    res.setHeader('Allow', allow);
    throw new MethodNotAllowed(detail);
  });

/**
 * Every path of the config area is authorized on the target `config` before anything else, so a
 * route added here later is guarded as well, and the PDP's fixed rule keeps it SYSTEM-only whatever
 * the configured policies say. A request that asks a check (`isAllowed`, HEAD with X-Operation) is
 * answered as a check of `config` and never performed; a path that is no route asks nothing of it
 * (authorized, then 404; a decorated isAllowed: 400). A browser refused while not logged in is sent
 * to the login page.
 */
const guardConfig = (s: Services): Step =>
  step('authorizeConfig', async (x) => {
    const route = CHECKABLE[x.path];
    const checked = route ? checkedOperation(x.req, route) : void asksCheck(x.req);
    if (checked) return answerCheck(s.decisions, x, checked, 'config');
    const operation = x.req.method === 'GET' || x.req.method === 'HEAD' ? 'READ' : 'UPDATE';
    if (!wantsPage(x.req)) {
      await s.decisions.authorize(x.state, operation, 'config');
      return;
    }
    x.page = true;
    await authorizePage(s.decisions, x, operation, 'config', `${x.config.server.contextRoot}/config`);
  });

/**
 * `{base}/config` (seed 4.4: SYSTEM sessions only): JSON for programs, a page for browsers (SPEC
 * section 7: the configuration without secrets, live sessions with a button to end each, reload).
 * Each route's steps start with `authorizeConfig`.
 */
export function configRoutes(s: Services) {
  const guard = guardConfig(s);
  const form = readBody(FORM_LIMIT);
  return {
    guard,
    config: {
      GET: [
        step('readConfig', async (x) => {
          if (wantsPage(x.req)) return sendConfigPage(s, x);
          x.res.setHeader('Cache-Control', 'no-store');
          sendDocument(x.req, x.res, 200, { config: configView(x.config) });
        }),
      ],
      otherwise: [refuse('GET, HEAD', 'the config area is read with GET')],
    },
    reload: { POST: [form, sameOrigin, reload(s)], otherwise: [refuse('POST', 'reload is POSTed')] },
    endSession: { POST: [form, sameOrigin, endSession(s)], otherwise: [refuse('POST', 'ending a session is POSTed')] },
    notFound: step('notFound', () => {
      throw new NotFound('no such configuration resource');
    }),
  };
}
