import { InvalidRequest, NotFound } from '../../../common/src/errors';
import { opsRouter } from '../../../common/src/http/ops';
import { refuseUrlCheck } from './checks';
import { runSteps, step, type PathIds, type Step } from './exchange';
import { asPage } from './page-access';
import { restSteps, type RestResource } from './rest-resource';
import { accessRoutes } from './routes/access';
import { lockout, password } from './routes/account';
import { authzCheck } from './routes/authz';
import { configRoutes } from './routes/config';
import { context, contexts } from './routes/contexts';
import { forgotRoutes } from './routes/forgot';
import { forgotPageRoutes } from './routes/forgot-pages';
import { homePageStep } from './routes/home';
import { loginRoutes } from './routes/login';
import { otp } from './routes/otp';
import { registerRoutes } from './routes/register';
import { mailResource, resendRoutes, resetRequestRoutes, resetUseRoutes, verifyRoutes } from './routes/mail';
import { resetPageRoutes, verifyPageRoutes } from './routes/mail-pages';
import { pathIds } from './rest-resource';
import { session } from './routes/session';
import { events } from './routes/events';
import { subject, subjectCollection } from './routes/subjects';
import type { HttpServices } from './services';
import { SERVICE_PATH, soapSteps } from './soap/endpoint';
import { scimRoutes } from './scim/endpoint';
import { authenticate } from './authenticate';

/**
 * A route of the core: a path template and the named steps a request on it takes, in order.
 * `:name` is a path id (one non-empty segment), a final `*rest` any further segments.
 */
export interface Route {
  path: string;
  /** `root`: below the context root; `host`: at the host's root (the operations' /health, /ready, /metrics). */
  at: 'root' | 'host';
  /** The REST API's mount the path is under (`/resources`, or none: its alias); Location headers follow it. */
  mount?: '/resources' | '';
  steps: readonly Step[];
}

/**
 * Steps by method: HEAD takes GET's when it has none of its own; `otherwise` takes any other method;
 * without it, OPTIONS is answered with the methods listed (as express's router answered it) and any
 * other method is 404.
 */
export type ByMethod = Partial<Record<'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'otherwise', readonly Step[]>>;

const notFound = step('notFound', () => {
  throw new NotFound('no such resource');
});

export function byMethod(steps: ByMethod): Step {
  const allow = Object.keys(steps)
    .filter((method) => method !== 'otherwise')
    .flatMap((method) => (method === 'GET' && !steps.HEAD ? ['GET', 'HEAD'] : [method]))
    .join(', ');
  const options = step('allowedMethods', ({ res }) => {
    res.setHeader('Allow', allow);
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('Content-Length', Buffer.byteLength(allow));
    res.end(allow);
  });
  return step(
    'byMethod',
    (x) => {
      const method = x.req.method as keyof ByMethod;
      const chosen = steps[method] ?? (method === 'HEAD' ? steps.GET : undefined) ?? steps.otherwise ?? (x.req.method === 'OPTIONS' ? [options] : [notFound]);
      return runSteps(chosen, x);
    },
    steps as Record<string, readonly Step[]>,
  );
}

/**
 * The table as text, a route a line: its path (`{base}` for the context root; the REST API's
 * alias mount shown once as `{base}[/resources]`) and its steps, a choice by method in brackets.
 * docs/architecture.md shows it, kept equal by a test.
 */
export function describeRoutes(routes: readonly Route[]): string {
  const names = (steps: readonly Step[]): string =>
    steps.map((s) => (s.branches ? `${s.name}[${Object.entries(s.branches).map(([method, branch]) => `${method}: ${names(branch)}`).join('; ')}]` : s.name)).join(' → ');
  return routes
    .filter((route) => route.mount !== '')
    .map((route) => {
      const path = route.at === 'host' ? route.path : route.mount ? `{base}[/resources]${route.path.slice(route.mount.length)}` : `{base}${route.path}`;
      return `${path}\n    ${names(route.steps)}`;
    })
    .join('\n');
}

/**
 * Every route of the core, in one table: the operations, SOAP's endpoint, the REST API on both
 * mounts (its resources, form 4 of the check, the forgotten-password flow), the pages, login and
 * logout, AuthZEN and the config area. A path no route matches is `unmatched` (listener.ts): below
 * the context root it is authenticated, then 404.
 */
export function coreRoutes(s: HttpServices): Route[] {
  const auth = authenticate(s);
  const rest = (resource: RestResource) => onBothMounts(resource.path, restSteps(resource, { decisions: s.decisions, subjects: s.subjects, authenticate: auth }));
  // Every route below the context root but the REST API's resources and the config area has no target a check could name.
  const untargeted = (methods: ByMethod): Step[] => [auth, refuseUrlCheck(), byMethod(methods)];
  const ops = opsRouter({ ready: () => s.ready(), registry: s.metrics.registry });
  // The operations every process shares (common/src/http/ops.ts), answered when they have answered.
  const operation = step(
    'operation',
    ({ req, res }) =>
      new Promise<void>((resolve, reject) => {
        res.once('close', resolve).once('finish', resolve);
        ops(req, res, () => reject(new NotFound('no such resource')));
      }),
  );
  const login = loginRoutes(s);
  const access = accessRoutes(s);
  const config = configRoutes(s);
  const authzOnCollection = authzCheck(s, auth, 'collection');
  const authzOnSubject = authzCheck(s, auth, 'subject');
  return [
    ...['/health', '/ready', '/metrics'].map((path): Route => ({ path, at: 'host', steps: [byMethod({ GET: [operation], otherwise: [notFound] })] })),
    { path: SERVICE_PATH, at: 'root', steps: soapSteps(s) },
    ...scimRoutes(s).map((route): Route => ({ ...route, at: 'root' })),
    ...rest(contexts(s)),
    ...rest(context(s)),
    ...rest(subjectCollection(s)),
    ...rest(subject(s)),
    ...rest(password(s)),
    ...rest(lockout(s)),
    ...rest(events(s)),
    ...rest(otp(s)),
    ...rest(mailResource(s)),
    ...rest(session('/session')),
    ...rest(session('/sessioninfo')),
    ...onBothMounts(authzOnCollection.path, authzOnCollection.steps),
    ...onBothMounts(authzOnSubject.path, authzOnSubject.steps),
    ...onBothMounts('/contexts/:contextId/subjects/:subjectId/password/forgot', untargeted(forgotRoutes(s))),
    // SPEC 16: recovery by link and address verification, for visitors (no target a check could name).
    ...onBothMounts('/contexts/:contextId/password-reset', [pathIds, ...untargeted(resetRequestRoutes(s))]),
    ...onBothMounts('/password-reset', untargeted(resetUseRoutes(s))),
    ...onBothMounts('/contexts/:contextId/email-verification', [pathIds, ...untargeted(resendRoutes(s))]),
    ...onBothMounts('/email-verification', untargeted(verifyRoutes(s))),
    { path: '/', at: 'root', steps: untargeted({ GET: [asPage, homePageStep(s)] }) },
    { path: '/login', at: 'root', steps: untargeted(login.login) },
    { path: '/logout', at: 'root', steps: untargeted(login.logout) },
    { path: '/anon/login-error', at: 'root', steps: untargeted(login.loginError) },
    { path: '/anon/register', at: 'root', steps: untargeted(registerRoutes(s)) },
    { path: '/anon/forgot', at: 'root', steps: untargeted(forgotPageRoutes(s)) },
    { path: '/anon/reset', at: 'root', steps: untargeted(resetPageRoutes(s)) },
    { path: '/anon/verify', at: 'root', steps: untargeted(verifyPageRoutes(s)) },
    { path: '/access/v1/evaluation', at: 'root', steps: untargeted(access.evaluation) },
    { path: '/access/v1/evaluations', at: 'root', steps: untargeted(access.evaluations) },
    { path: '/config', at: 'root', steps: [auth, config.guard, byMethod(config.config)] },
    { path: '/config/reload', at: 'root', steps: [auth, config.guard, byMethod(config.reload)] },
    { path: '/config/sessions/end', at: 'root', steps: [auth, config.guard, byMethod(config.endSession)] },
    { path: '/config/*rest', at: 'root', steps: [auth, config.guard, config.notFound] },
  ];
}

/** A REST API path at `{base}/resources/…` and at its alias `{base}/…`, the former first. */
function onBothMounts(path: string, steps: readonly Step[]): Route[] {
  return [
    { path: `/resources${path}`, at: 'root', mount: '/resources', steps },
    { path, at: 'root', mount: '', steps },
  ];
}

/** The steps of a path no route matches: below the context root, authenticated, then 404; elsewhere 404. */
export function unmatchedSteps(s: Pick<HttpServices, 'sessions' | 'client' | 'authenticator' | 'peerOf'>): { belowRoot: Step[]; elsewhere: Step[] } {
  return { belowRoot: [authenticate(s), refuseUrlCheck(), notFound], elsewhere: [notFound] };
}

/** A request path resolved to its route. */
export interface RouteMatch {
  route: Route;
  /** The template, for the log line and the histogram (as express's req.route.path was): the REST API's without its mount. */
  label: string;
  /** The path below the context root, percent-encoded as received. */
  path: string;
  /** `{root}{mount}`: where the REST API was reached. */
  mount: string;
  ids: PathIds;
}

interface CompiledRoute {
  route: Route;
  label: string;
  /** Literal segments, `:name` for an id, `*` (last) for any further segments. */
  segments: string[];
}

/**
 * The table compiled for matching as express's strict, case-sensitive router did it: whole
 * segments, no empty id. Routes are tried in the table's order among those whose first segment
 * fits, so the REST API's answer costs a map lookup and a few comparisons.
 */
export class RouteTable {
  private readonly byFirst = new Map<string, CompiledRoute[]>();
  private readonly host = new Map<string, CompiledRoute>();

  constructor(
    private readonly root: string,
    routes: readonly Route[],
  ) {
    for (const route of routes) {
      const segments = route.path.slice(1).split('/').map((part) => (part.startsWith('*') ? '*' : part));
      const compiled = { route, label: route.mount ? route.path.slice(route.mount.length) : route.path, segments };
      if (route.at === 'host') {
        this.host.set(route.path, compiled);
        continue;
      }
      const first = segments[0].startsWith(':') ? ':' : segments[0];
      const list = this.byFirst.get(first) ?? [];
      list.push(compiled);
      this.byFirst.set(first, list);
    }
  }

  /** The route of a pathname (no query), or undefined; `belowRoot` says whether the path is under the context root. */
  match(pathname: string): { found?: RouteMatch; belowRoot: boolean } {
    const hosted = this.host.get(pathname);
    if (hosted) return { found: { route: hosted.route, label: hosted.label, path: pathname, mount: '', ids: {} }, belowRoot: false };
    const root = this.root;
    if (!pathname.startsWith(root)) return { belowRoot: false };
    // `{root}` alone is its home page, as express's mount served it.
    const path = pathname.length === root.length ? '/' : pathname.charCodeAt(root.length) === 47 /* / */ ? pathname.slice(root.length) : undefined;
    if (path === undefined) return { belowRoot: false };
    const parts = path.slice(1).split('/');
    for (const candidate of [...(this.byFirst.get(parts[0]) ?? []), ...(this.byFirst.get(':') ?? [])]) {
      const ids = matchSegments(candidate.segments, parts);
      if (ids) return { found: { route: candidate.route, label: candidate.label, path, mount: `${root}${candidate.route.mount ?? ''}`, ids }, belowRoot: true };
    }
    return { belowRoot: true };
  }
}

function matchSegments(segments: readonly string[], parts: readonly string[]): PathIds | undefined {
  const rest = segments[segments.length - 1] === '*';
  if (rest ? parts.length < segments.length : parts.length !== segments.length) return undefined;
  let ids: Record<string, string> | undefined;
  for (let i = 0; i < segments.length; i++) {
    const template = segments[i];
    if (template === '*') break;
    if (template.charCodeAt(0) === 58 /* : */) {
      if (parts[i].length === 0) return undefined;
      (ids ??= {})[template.slice(1)] = decodeSegment(parts[i]);
    } else if (template !== parts[i]) return undefined;
  }
  return ids ?? {};
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidRequest('the path is not valid percent-encoding');
  }
}
