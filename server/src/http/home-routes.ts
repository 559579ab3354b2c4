import { Router, type Request, type Response } from 'express';
import { principalName } from '../../../common/src/principal-name';
import type { Core } from '../core';
import { decide } from './authorize';
import { answerAsPage } from './error-handler';
import { homePage } from './pages/home-pages';
import { sendPage } from './pages/html';

/** The home page's links: only the pages this session may use (the config area is decided, not assumed). */
async function links(core: Core, req: Request): Promise<{ href: string; label: string }[]> {
  const root = core.config.server.contextRoot;
  const out: { href: string; label: string }[] = [];
  const session = req.svc.session;
  if (session.type === 'ANON' || session.type === 'INTERNAL') {
    if (core.config.contexts.some((c) => c.registration.enabled)) out.push({ href: `${root}/anon/register`, label: 'Register' });
    if (core.config.contexts.some((c) => c.forgottenPassword.enabled)) out.push({ href: `${root}/anon/forgot`, label: 'Forgotten password' });
    return out;
  }
  // Asked to draw a link, not refused anything: no DENY audit line.
  if ((await decide(core, req.svc, 'READ', 'config', { quiet: true })).decision === 'ALLOW') out.push({ href: `${root}/config`, label: 'Configuration and sessions' });
  return out;
}

async function getHome(core: Core, req: Request, res: Response): Promise<void> {
  answerAsPage(req);
  const root = core.config.server.contextRoot;
  const session = req.svc.session;
  // A principal without a context (SYSTEM's) is shown by its id alone.
  const principal = session.principal ? (session.principal.contextId ? principalName(session.principal) : session.principal.uniqueId) : undefined;
  const page = homePage({
    principal,
    sessionType: session.type === 'INTERNAL' ? 'ANON' : session.type,
    clientId: session.clientId,
    links: await links(core, req),
    logout: principal ? `${root}/logout` : undefined,
    login: principal ? undefined : `${root}/login`,
  });
  sendPage(res, 200, 'Home', page);
}

/** GET {base}/: the home page of SPEC section 7, for every session (a visitor gets the login link). */
export function homeRoutes(core: Core): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/', (req, res, next) => getHome(core, req, res).catch(next));
  return router;
}
