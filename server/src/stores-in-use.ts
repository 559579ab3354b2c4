import type { StoreInUse } from '../../common/src/workers/shared-stores';
import type { SvcConfig } from './config/types';

/** Subject stores every process reaches alike (SPEC section 12); `sqlite` is one process's locked file, `memory` its heap. */
const SHARED_SUBJECT_STORES: ReadonlySet<string> = new Set(['postgres', 'ldap']);

/**
 * What the core keeps where, by its configuration: the subject store of each context, and what
 * lives beside the sessions (sessions/stores.ts; core.ts asks the session store for each piece).
 * `svc server --workers N` is refused unless all of it is shared (common/src/workers/shared-stores.ts).
 */
export function coreStoresInUse(config: SvcConfig): StoreInUse[] {
  const subjects = config.contexts.map((context, i) => ({
    what: `subjects of context "${context.id}"`,
    setting: `contexts[${i}].store`,
    kind: context.store,
    shared: SHARED_SUBJECT_STORES.has(context.store),
    fix: 'use "postgres" or "ldap"',
  }));
  // With a Redis session store each of these is kept in Redis beside the sessions; else in this process.
  const besideSessions = [
    'sessions and clientcred nonces',
    'lockout counters',
    'registration throttle, flow starts and wrong-answer counters',
    'forgotten-password reset markers',
    'the key of stateless cookies (ANON sessions, flow state)',
  ].map((what) => ({
    what,
    setting: 'sessions.store',
    kind: config.sessions.store,
    shared: config.sessions.store === 'redis',
    fix: 'use "redis"',
  }));
  return [...subjects, ...besideSessions];
}
