import { DEFAULT_LOG } from '../../../../common/src/request-log-settings';

/** Every default of the portal's configuration, in one place. */
export const PORTAL_DEFAULTS = {
  host: '127.0.0.1',
  port: 8082,
  root: '/portal',
  trustProxy: [] as string[],
  credentialParameters: [] as string[],
  dataDir: './data',
  descriptor: './portlet.json',
  title: 'svc portal',
  /** SPEC 10.2: idle 30 min, absolute 12 h. */
  sessionIdleSeconds: 1800,
  sessionAbsoluteSeconds: 43_200,
  maxSessions: 10_000,
  /** SPEC 10.2: one account cannot fill the store; a login past it ends that principal's oldest session. */
  maxSessionsPerPrincipal: 10,
  renderTimeoutMs: 5000,
  gatewayTimeoutMs: 10_000,
  bodyLimit: 1024 * 1024,
  log: DEFAULT_LOG,
  /** svc's demo attributes under JSR-168's P3P names. */
  userInfo: {
    'user.login.id': 'uniqueId',
    'user.name.given': 'givenName',
    'user.name.family': 'familyName',
    'user.business-info.online.email': 'mail',
  } as Record<string, string>,
  window: { mode: 'view', state: 'normal', roles: [] as string[], visitors: 'also' },
  page: { roles: [] as string[] },
} as const;
