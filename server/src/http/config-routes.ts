import { Router, type Request, type Response } from 'express';
import { InvalidRequest, MethodNotAllowed, NotFound, ReloadUnavailable } from '../../../common/src/errors';
import { partiesOf, type AuditParties } from '../audit';
import type { WireDocument } from '../../../common/src/wire/xml';
import type { Core } from '../core';
import { wantsPage } from './authentication-filter';
import { authorize } from './authorize';
import { formBody, rawBody } from './body';
import { configView } from './config-view';
import { answerAsPage } from './error-handler';
import { authorizePage } from './page-access';
import { configPage } from './pages/config-pages';
import { sendPage } from './pages/html';
import { sendDocument } from './respond';
import { checkSameOrigin } from './same-origin';
import { answerCheck, asksCheck, checkedOperationOn, type CheckableRoute } from './rest/check';

export type ReloadResult = { ok: true } | { ok: false; problems: string[] };

/** The config page lists at most this many live sessions. */
const LISTED_SESSIONS = 500;
/** The config area's forms carry one short field. */
const FORM_LIMIT = 1024;

/**
 * How to reload, per core: only the process that read a configuration file knows its path
 * (bin/svc.ts, through RunningServer.reload); a demo or test server has none.
 */
const reloaders = new WeakMap<Core, (by: AuditParties) => ReloadResult>();

export function registerConfigReload(core: Core, reload: (by: AuditParties) => ReloadResult): void {
  reloaders.set(core, reload);
}

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

async function sendConfigPage(core: Core, req: Request, res: Response): Promise<void> {
  const root = core.config.server.contextRoot;
  const live = await core.sessions.list(LISTED_SESSIONS + 1);
  const sessions = live.slice(0, LISTED_SESSIONS).sort((a, b) => b.lastAccess - a.lastAccess || a.handle.localeCompare(b.handle));
  const page = configPage({
    view: configView(core),
    sessions,
    truncated: live.length > LISTED_SESSIONS,
    ownHandle: req.svc.session.handle,
    endAction: `${root}/config/sessions/end`,
    reloadAction: reloaders.has(core) ? `${root}/config/reload` : undefined,
    notice: noticeOf(req),
  });
  sendPage(res, 200, 'Configuration', page, { wide: true });
}

/** POST {base}/config/sessions/end `handle=…`: ends one stored session by its public handle. */
async function endSession(core: Core, req: Request, res: Response): Promise<void> {
  checkSameOrigin(core, req);
  const handle = formBody(req).handle;
  if (handle === undefined) throw new InvalidRequest('name the session to end', { errors: [{ path: 'handle', message: 'required' }] });
  const ended = await core.sessions.endByHandle(handle);
  const self = req.svc.session;
  if (ended) {
    core.audit.record({ ...partiesOf(self, req.svc.peer), event: 'session_end', outcome: 'success', reason: 'config', ended: handle });
  }
  if (wantsPage(req)) return res.redirect(303, `${core.config.server.contextRoot}/config?ended=${ended ? 1 : 0}`);
  if (!ended) throw new NotFound('no live session has this handle');
  res.status(204).end();
}

function reload(core: Core, req: Request, res: Response): void {
  checkSameOrigin(core, req);
  const reloader = reloaders.get(core);
  if (!reloader) throw new ReloadUnavailable('this server runs without a configuration file');
  const result = reloader(partiesOf(req.svc.session, req.svc.peer));
  if (!result.ok) {
    throw new InvalidRequest('the configuration file was refused; the running configuration stays', {
      errors: result.problems.map((message) => ({ path: 'config', message })),
    });
  }
  if (wantsPage(req)) return res.redirect(303, `${core.config.server.contextRoot}/config?reloaded=1`);
  sendDocument(req, res, 200, { reload: { ok: true } } as unknown as WireDocument);
}

/**
 * `{base}/config` (seed 4.4: SYSTEM sessions only): JSON for programs, a page for browsers (SPEC
 * section 7: the configuration without secrets, live sessions with a button to end each, reload).
 * Every path under it is authorized on the target `config` before anything else, so a route added
 * here later is guarded as well, and the PDP's fixed rule keeps it SYSTEM-only whatever the
 * configured policies say. A browser refused while not logged in is sent to the login page. A
 * request that asks a check (`isAllowed`, HEAD with X-Operation) is answered as a check of `config`
 * and never performed.
 */
export function configRoutes(core: Core): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.use(['/config', '/config/*rest'], async (req, res, next) => {
    // The whole path as requested (inside this middleware, express splits it at the matched prefix).
    const route = CHECKABLE[new URL(req.originalUrl, 'http://core').pathname.slice(core.config.server.contextRoot.length)];
    // A path that is no route asks nothing of `config`: authorized, then 404 below (a decorated isAllowed: 400).
    const checked = route ? checkedOperationOn(req, route) : void asksCheck(req);
    if (checked) return answerCheck(core, req, res, checked, 'config');
    const operation = req.method === 'GET' || req.method === 'HEAD' ? 'READ' : 'UPDATE';
    if (!wantsPage(req)) {
      await authorize(core, req.svc, operation, 'config');
      return next();
    }
    answerAsPage(req);
    if (await authorizePage(core, req, res, operation, 'config', `${core.config.server.contextRoot}/config`)) next();
  });

  router.get('/config', async (req: Request, res: Response) => {
    if (wantsPage(req)) return sendConfigPage(core, req, res);
    res.setHeader('Cache-Control', 'no-store');
    sendDocument(req, res, 200, { config: configView(core) } as unknown as WireDocument);
  });
  router.post('/config/reload', rawBody(FORM_LIMIT), (req: Request, res: Response) => reload(core, req, res));
  router.post('/config/sessions/end', rawBody(FORM_LIMIT), (req: Request, res: Response) => endSession(core, req, res));

  router.all('/config', (_req, res) => {
    res.setHeader('Allow', 'GET, HEAD');
    throw new MethodNotAllowed('the config area is read with GET');
  });
  router.all('/config/reload', (_req, res) => {
    res.setHeader('Allow', 'POST');
    throw new MethodNotAllowed('reload is POSTed');
  });
  router.all('/config/sessions/end', (_req, res) => {
    res.setHeader('Allow', 'POST');
    throw new MethodNotAllowed('ending a session is POSTed');
  });
  router.all('/config/*rest', () => {
    throw new NotFound('no such configuration resource');
  });
  return router;
}
