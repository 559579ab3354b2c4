import type { SessionType } from '../../server/src/config/types';
import type { TestServer } from './core-server';

/**
 * A real session made by the server's own SessionManager, for suites that test what comes after
 * authentication (subjects, authorization) without going through a login each time.
 */
export async function sessionCookie(
  server: TestServer,
  type: SessionType,
  principal: { uniqueId: string; contextId: string } | null = null,
  clientId = 'svc-web',
): Promise<string> {
  const { cookieValue } = await server.core.sessions.create({
    type,
    clientId,
    principal,
    level: principal ? 2 : 0,
    authenticator: 'test',
  });
  return `SVCSESSIONID=${cookieValue}`;
}
