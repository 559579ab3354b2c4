/**
 * `PortletRequest.USER_INFO` (SPEC 10.1): the user's svc subject read through the gateway as the
 * user, mapped to P3P names by the configuration's `userInfo`, cached in the portal session and
 * read again after any write to that subject: every portal session's gateway client (and the REST
 * pass-through) reports its writes, and a write to `contexts/{c}/subjects/{u}` (or below it) drops
 * the cached attributes of every portal session of `{c}/{u}`, whoever wrote.
 */
import type { PrincipalName } from '../../../common/src/principal-name';
import type { PortalRequest, UserInfoService } from '../container/services';
import { apiPath } from '../gateway-client';
import { DriverRequest } from './driver-request';
import type { Logger } from './observability';
import type { PortalSession, PortalSessionStore } from './session-store';

export class GatewayUserInfo implements UserInfoService {
  constructor(
    private readonly mapping: Readonly<Record<string, string>>,
    private readonly log: Logger,
  ) {}

  async getUserInfo(request: PortalRequest, names: readonly string[]): Promise<Record<string, string> | null> {
    if (!(request instanceof DriverRequest) || request.identity.kind !== 'user') return null;
    const session = request.identity.session;
    let attributes = session.userAttributes;
    if (attributes === undefined) {
      const drops = session.userAttributesDrops;
      try {
        const answer = await request.gateway.get<{ subject?: { uniqueId?: string; attributes?: Record<string, unknown> } }>(ownSubjectPath(session));
        const subject = answer.body?.subject;
        attributes = Object.freeze({ ...(subject?.attributes ?? {}), uniqueId: subject?.uniqueId ?? session.principal.uniqueId });
        // A write that landed meanwhile may be newer than what was read: use it now, cache it not.
        if (session.userAttributesDrops === drops) session.userAttributes = attributes;
      } catch (error) {
        // Not cached: the next request tries again. The portlet gets no attributes meanwhile.
        this.log.warn({ requestId: request.requestId, err: error }, 'user info unavailable');
        return {};
      }
    }
    const info: Record<string, string> = {};
    for (const name of names) {
      const attribute = this.mapping[name];
      const value = attribute === undefined ? undefined : attributes[attribute];
      const first = Array.isArray(value) ? value[0] : value;
      if (typeof first === 'string') info[name] = first;
    }
    return info;
  }
}

/** `/contexts/{c}/subjects/{u}` of the session's user, under `{gw}/api`. */
export function ownSubjectPath(session: PortalSession): string {
  return apiPath('contexts', session.principal.contextId, 'subjects', session.principal.uniqueId);
}

/**
 * The subject a path under `{gw}/api` writes (`/contexts/{c}/subjects/{u}[/…]`), or undefined. A path
 * is what both writers hand over: the portlets' gateway client and the REST pass-through, whose
 * paths come from browsers.
 */
export function writtenSubject(path: string): PrincipalName | undefined {
  const segments = path.split(/[?#]/, 1)[0].split('/');
  if (segments[0] !== '' || segments[1] !== 'contexts' || segments[3] !== 'subjects' || !segments[2] || !segments[4]) return undefined;
  try {
    return { contextId: decodeURIComponent(segments[2]), uniqueId: decodeURIComponent(segments[4]) };
  } catch {
    return undefined;
  }
}

/** The write hook of every portal session's gateway client: a write to a subject drops that subject's cached attributes in all its sessions. */
export function dropUserInfoOnWrite(sessions: PortalSessionStore): (path: string) => void {
  return (path) => {
    const subject = writtenSubject(path);
    if (subject !== undefined) sessions.dropUserAttributes(subject);
  };
}
