/**
 * What the container needs from the portal, as small interfaces (Apache Pluto's container
 * services): the container runs portlets and knows no portal, no HTTP and no svc. A portal
 * provides each service; preferences.ts and the driver supply the default implementations.
 */
import type { PortalContext } from '../api/portal-context';
import type { PortletMode } from '../api/portlet-mode';
import type { WindowState } from '../api/window-state';

/** The portal user a request is made for; null in a `PortalRequest` means a visitor. */
export interface PortalUser {
  /** `contextId/uniqueId` of the svc subject. */
  name: string;
  /** The user's svc roles, which are the portal roles. */
  roles: readonly string[];
}

/**
 * The portlet application's session inside one portal session (a logged-in user's, or a visitor's
 * once something is stored). Attribute names are the raw ones of JSR-168 PLT.15.3
 * (`javax.portlet.p.<windowId>?<name>` for the portlet scope).
 */
export interface ApplicationSession {
  readonly id: string;
  readonly attributes: Map<string, unknown>;
  /** Milliseconds since the epoch. */
  readonly creationTime: number;
  readonly lastAccessedTime: number;
  /** Seconds. */
  maxInactiveInterval: number;
  /** Made during the current request. */
  readonly isNew: boolean;
  /** The container's own state for this session (render cache, a visitor's preferences); not for portlets. */
  readonly containerData: Map<string, unknown>;
  /** Clears the attributes and starts a new application session; the portal session stays. */
  invalidate(): void;
  /**
   * A session the portal carries in a cookie (a visitor's, SPEC 10.2) has a budget: this throws
   * IllegalStateException when what it holds no longer fits. Absent: no budget.
   */
  assertWithinBudget?(): void;
}

/**
 * The PORTLET_SCOPE attribute holding the refill of a refused form (what the user typed, to show it
 * again): when a session carried in a cookie must shrink, it is the first to go (SPEC 10.2).
 */
export const REFILL_ATTRIBUTE = 'svc.refill';

/** The session of the current request: there may be none yet (a visitor who stored nothing). */
export interface SessionAccess {
  /** The portal session's handle, also for a visitor without state. */
  readonly handle: string;
  current(): ApplicationSession | undefined;
  /** Makes the server-side state for a visitor on first use; a user's always exists. */
  create(): ApplicationSession;
}

/** What a render or action URL needs to say. */
export interface URLTarget {
  kind: 'render' | 'action';
  mode: PortletMode;
  state: WindowState;
  /** Render parameters of a render URL; action parameters of an action URL. */
  parameters: Readonly<Record<string, readonly string[]>>;
  secure: boolean;
}

/** The portal's URL codec for the current request (Pluto's PortalURL provider). */
export interface PortletURLProvider {
  /** A URL to `windowId` on the current page; every other window keeps the render state it has. */
  createURL(windowId: string, target: URLTarget): string;
  /** A path of the portal (made absolute under its root when relative), or an absolute URL as it is. */
  encodeURL(path: string): string;
  /** True when `location` may be redirected to: a path of the portal's own origin. */
  isOwnLocation(location: string): boolean;
  /** Whether `setSecure(true)` can be honoured (the portal itself is served over TLS). */
  readonly secureSupported: boolean;
  /** Names the render state of every window on the page: markup is cached per value, since its URLs carry it. */
  readonly renderStateKey: string;
}

/** Where preferences are kept: per (portal user, page, window); a visitor's in the visitor's session. */
export interface PreferencesService {
  /** The stored values (only those that differ from the descriptor's defaults), or an empty map. */
  load(owner: PreferencesOwner, key: PreferencesKey): Promise<Record<string, (string | null)[]>>;
  /** Writes all values at once; an empty map deletes the entry. */
  store(owner: PreferencesOwner, key: PreferencesKey, values: Record<string, (string | null)[]>): Promise<void>;
}

export type PreferencesOwner = { kind: 'user'; name: string } | { kind: 'visitor'; session: SessionAccess };

export interface PreferencesKey {
  pageId: string;
  windowId: string;
  /** Stored values are ignored when the window now shows another portlet. */
  portletName: string;
}

/** `PortletRequest.USER_INFO`: the user's attributes by P3P name; null for a visitor. */
export interface UserInfoService {
  getUserInfo(request: PortalRequest, names: readonly string[]): Promise<Record<string, string> | null>;
}

/** The log the container writes portlet failures to (pino's shape). */
export interface ContainerLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface ContainerServices {
  portalContext: PortalContext;
  preferences: PreferencesService;
  userInfo: UserInfoService;
  log: ContainerLog;
}

/** One HTTP request of the portal, as the container needs it; made by the driver. */
export interface PortalRequest {
  /** Names the request in the log lines of the portlets' failures. */
  requestId: string;
  pageId: string;
  user: PortalUser | null;
  session: SessionAccess;
  /** Preferred first; at least one. */
  locales: readonly string[];
  secure: boolean;
  scheme: string;
  serverName: string;
  serverPort: number;
  /** The portal's root, e.g. `/portal`. */
  contextPath: string;
  /** Request headers the portlets may read (never cookies or credentials), lower-case names. */
  properties: Readonly<Record<string, string>>;
  /** Request attributes the portal provides to every portlet (e.g. the gateway client). */
  attributes: Readonly<Record<string, unknown>>;
  urls: PortletURLProvider;
}
