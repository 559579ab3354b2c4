import type { GlobalConfig, Settings } from './types';

/**
 * The validated `global` section as SvcConfig's typed `settings`. The file keeps the original
 * system's dotted names (SPEC); this is the one place that reads them, so the rest of the code
 * names each setting by a field the compiler checks.
 */
export function settingsOf(g: GlobalConfig): Settings {
  return {
    credentialNames: {
      client: g['auth.token.name.client'],
      password: g['auth.token.name.password'],
      user: g['auth.token.name.user'],
      httpHeader: g['auth.token.name.httpheader'],
      clientcred: g['auth.token.name.clientcred'],
      token: g['auth.token.name.token'],
    },
    sessionCookie: { name: g['http.session.cookie.uniqueid'], path: g['server.cookiepath'], secure: g['cookie.secure'] },
    defaultClient: g['server.defaultclient'],
    session: {
      idleSeconds: g['session.idle'],
      absoluteSeconds: g['session.absolute'],
      maxSessions: g['session.maxSessions'],
      maxSessionsPerPrincipal: g['auth.maxSessionsPerPrincipal'],
    },
    denyStatus: g['authz.denyStatus'],
    lockout: {
      windowSeconds: g['lockout.window'],
      durationSeconds: g['lockout.duration'],
      pairFailures: g['lockout.pairFailures'],
      subjectFailures: g['lockout.subjectFailures'],
      addressFailures: g['lockout.addressFailures'],
      answerFailures: g['lockout.answerFailures'],
    },
    registrationLimit: { perAddress: g['registration.perAddress'], windowSeconds: g['registration.window'] },
    flowLimit: { startsPerAddress: g['flow.startsPerAddress'], windowSeconds: g['flow.window'] },
    bodyLimitBytes: g['body.limit'],
    search: { maxQuantity: g['search.maxQuantity'], defaultQuantity: g['search.defaultQuantity'] },
    events: { retentionDays: g['events.retentionDays'], maxPerSubject: g['events.maxPerSubject'], pruneIntervalSeconds: g['events.pruneInterval'] },
  };
}
