import type { Request } from 'express';
import type { PortalRequest, PortalUser, PortletURLProvider, SessionAccess } from '../container/services';
import type { SvcGateway } from '../gateway-client';
import { GATEWAY_ATTRIBUTE, SECOND_FACTOR_PAGE_ATTRIBUTE } from '../gateway-client';
import type { Identity } from './identity';

/** Request headers a portlet may read (`getProperty`): nothing that carries a credential. */
const PROPERTIES = ['accept', 'accept-language', 'user-agent', 'content-type'];

/** The container's view of one portal request, plus what the driver's own services need of it. */
export class DriverRequest implements PortalRequest {
  readonly user: PortalUser | null;
  readonly locales: readonly string[];
  readonly properties: Readonly<Record<string, string>>;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly scheme: string;
  readonly serverName: string;
  readonly serverPort: number;

  constructor(
    req: Request,
    readonly requestId: string,
    readonly pageId: string,
    readonly identity: Identity,
    readonly session: SessionAccess,
    readonly urls: PortletURLProvider,
    readonly gateway: SvcGateway,
    readonly contextPath: string,
    publicOrigin: string,
    /** Where this user turns two-step sign-in on (pages.ts secondFactorPage), for the portlets. */
    secondFactorPage?: string,
  ) {
    this.user = identity.kind === 'user' ? { name: identity.session.name, roles: identity.session.roles } : null;
    this.locales = localesOf(req.headers['accept-language']);
    const properties: Record<string, string> = {};
    for (const name of PROPERTIES) {
      const value = req.headers[name];
      if (typeof value === 'string') properties[name] = value;
    }
    this.properties = Object.freeze(properties);
    this.attributes = Object.freeze({ [GATEWAY_ATTRIBUTE]: gateway, ...(secondFactorPage !== undefined ? { [SECOND_FACTOR_PAGE_ATTRIBUTE]: secondFactorPage } : {}) });
    const origin = new URL(publicOrigin);
    this.scheme = origin.protocol.slice(0, -1);
    this.serverName = origin.hostname;
    this.serverPort = Number(origin.port || (this.scheme === 'https' ? 443 : 80));
  }

  get secure(): boolean {
    return this.scheme === 'https';
  }
}

/** Language tags of `Accept-Language` by preference (at most 5), or `en`. */
export function localesOf(header: string | undefined): string[] {
  const tags = (header ?? '')
    .split(',')
    .slice(0, 20)
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = Number(/^\s*q=([0-9.]+)\s*$/.exec(params.join(';'))?.[1] ?? '1');
      return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0 };
    })
    .filter((entry) => entry.q > 0 && /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(entry.tag))
    .sort((a, b) => b.q - a.q)
    .slice(0, 5)
    .map((entry) => entry.tag);
  return tags.length ? tags : ['en'];
}
