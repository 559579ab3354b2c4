import { principalName } from '../../../../common/src/principal-name';
import { step, type Exchange, type Step } from '../exchange';
import { homePage } from '../pages/home-pages';
import { sendPage } from '../pages/html';
import type { HttpServices } from '../services';

type Services = Pick<HttpServices, 'decisions'>;

/** The home page's links: only the pages this session may use (the config area is decided, not assumed). */
async function links(s: Services, x: Exchange): Promise<{ href: string; label: string }[]> {
  const root = x.config.server.contextRoot;
  const out: { href: string; label: string }[] = [];
  const session = x.state.session;
  if (session.type === 'ANON' || session.type === 'INTERNAL') {
    if (x.config.contexts.some((c) => c.registration.enabled)) out.push({ href: `${root}/anon/register`, label: 'Register' });
    if (x.config.contexts.some((c) => c.forgottenPassword.enabled)) out.push({ href: `${root}/anon/forgot`, label: 'Forgotten password' });
    return out;
  }
  // Asked to draw a link, not refused anything: no DENY audit line.
  if ((await s.decisions.decide(x.state, 'READ', 'config', { quiet: true })).decision === 'ALLOW') out.push({ href: `${root}/config`, label: 'Configuration and sessions' });
  return out;
}

/** GET {base}/: the home page of SPEC section 7, for every session (a visitor gets the login link). */
export const homePageStep = (s: Services): Step =>
  step('homePage', async (x) => {
    const root = x.config.server.contextRoot;
    const session = x.state.session;
    // A principal without a context (SYSTEM's) is shown by its id alone.
    const principal = session.principal ? (session.principal.contextId ? principalName(session.principal) : session.principal.uniqueId) : undefined;
    const page = homePage({
      principal,
      sessionType: session.type === 'INTERNAL' ? 'ANON' : session.type,
      clientId: session.clientId,
      links: await links(s, x),
      logout: principal ? `${root}/logout` : undefined,
      login: principal ? undefined : `${root}/login`,
    });
    sendPage(x.res, 200, 'Home', page);
  });
