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

/**
 * Ends every stored session of a principal as an admin's End does (the config area, by handle): they
 * end like a timeout, `session_expired`, unlike a password change's revocation (`session_revoked`).
 */
export async function endSessionsOf(server: TestServer, contextId: string, uniqueId: string): Promise<number> {
  let ended = 0;
  for (const session of await server.core.sessions.list(100_000)) {
    if (session.principal?.contextId === contextId && session.principal.uniqueId === uniqueId && (await server.core.sessions.endByHandle(session.handle))) ended++;
  }
  return ended;
}
