/**
 * The demo portal of SPEC 11: `demo-portal` on SVC_PORTAL_PORT (8082) at `/portal`, in front of the
 * demo's gateway, with the four portlets of SPEC 10.4. A plain document, validated by the portal's
 * own loader (`buildPortalConfig`), so the demo and `svc portal --config` share one schema.
 */
import type { DemoCredentials } from './demo-config';

export interface DemoPortalOptions {
  credentials: DemoCredentials;
  host: string;
  /** `{gw}` of the demo's gateway, or of each gateway of the cluster (the portal spreads its calls over them). */
  gateway: string | string[];
  dataDir: string;
  /** The descriptor of the four portlets (PORTLETS_DESCRIPTOR). */
  descriptor: string;
}

export function demoPortalDocument(options: DemoPortalOptions): { portal: Record<string, unknown> } {
  return {
    portal: {
      host: options.host,
      title: 'svc demo portal',
      gateways: typeof options.gateway === 'string' ? [options.gateway] : options.gateway,
      portalId: 'demo-portal',
      secret: options.credentials.portals['demo-portal'],
      dataDir: options.dataDir,
      descriptor: options.descriptor,
      pages: [
        {
          id: 'home',
          title: 'Home',
          windows: [
            { id: 'me', portlet: 'self-service', visitors: 'never' },
            { id: 'register', portlet: 'registration', visitors: 'only' },
            { id: 'forgot', portlet: 'forgotten-password', visitors: 'only' },
          ],
        },
        { id: 'admin', title: 'Administration', roles: ['admin'], windows: [{ id: 'users', portlet: 'user-admin' }] },
      ],
    },
  };
}
