/**
 * `PortletRequest.USER_INFO` (SPEC 10.1): the user's svc subject read through the gateway as the
 * user, mapped to P3P names by the configuration's `userInfo`, cached in the portal session and
 * read again after a write to that subject (the gateway client reports writes).
 */
import type { PortalRequest, UserInfoService } from '../container/services';
import { apiPath } from '../gateway-client';
import { DriverRequest } from './driver-request';
import type { Logger } from './observability';
import type { PortalSession } from './session-store';

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
      try {
        const answer = await request.gateway.get<{ subject?: { uniqueId?: string; attributes?: Record<string, unknown> } }>(ownSubjectPath(session));
        const subject = answer.body?.subject;
        attributes = Object.freeze({ ...(subject?.attributes ?? {}), uniqueId: subject?.uniqueId ?? session.principal.uniqueId });
        session.userAttributes = attributes;
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

/** The write hook of a user's gateway client: a write to the user's own subject drops the cached attributes. */
export function dropUserInfoOnWrite(session: PortalSession): (path: string) => void {
  const own = ownSubjectPath(session);
  return (path) => {
    const bare = path.split('?')[0];
    if (bare === own || bare.startsWith(`${own}/`)) session.userAttributes = undefined;
  };
}
