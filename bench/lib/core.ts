import type { CoreReady } from '../servers/core-shared';
import { withChild } from './child';

export interface CoreUnderTest extends CoreReady {
  /** `Cookie` header value of a USER session. */
  cookie(user: 'alice' | 'bob'): string;
}

/** Runs `body` against a fresh core server process (servers/core.ts), stopped afterwards. */
export function withCore<R>(options: { subjects?: number }, body: (core: CoreUnderTest) => Promise<R>): Promise<R> {
  const args = options.subjects ? ['--subjects', String(options.subjects)] : [];
  return withChild<CoreReady, R>('servers/core', args, (child) =>
    body({ ...child.ready, cookie: (user) => `${child.ready.cookieName}=${child.ready.cookies[user]}` }),
  );
}
