/** What the bench parent and the core server child (servers/core.ts) agree on; no server code. */
import type { DemoCredentials } from '../../server/src/demo/demo-config';

/** Fixed credentials: the bench logs in with them. Not secrets: the server lives for one run. */
export const BENCH_CREDENTIALS: DemoCredentials = {
  users: { svcadmin: 'Bench-sys-pass-1', alice: 'Bench-alice-pass-1', bob: 'Bench-bob-pass-12' },
  answers: { bob: ['Amber river', 'Oslo'] },
  clients: { 'svc-api': 'YmVuY2gtc3ZjLWFwaS1zZWNyZXQtbm90LWEtc2VjcmV0LTAwMDE', 'portal-gateway': 'YmVuY2gtcG9ydGFsLWdhdGV3YXktbm90LWEtc2VjcmV0LTAwMDAx' },
  portals: { 'demo-portal': 'YmVuY2gtZGVtby1wb3J0YWwtbm90LWEtc2VjcmV0LTAwMDAwMDE' },
  portalUsers: { alice: 'Bench-portal-alice-1', bob: 'Bench-portal-bob-1' },
};

/** The client the bench logs in through (no secret, password authenticators). */
export const BENCH_CLIENT = 'svc-web';

export interface CoreReady {
  url: string;
  /** `{url}{contextRoot}` */
  base: string;
  cookieName: string;
  /** Cookie values of USER sessions: bob (role user) and alice (role admin). */
  cookies: { bob: string; alice: string };
  /** How the sessions were obtained. */
  sessionVia: 'login' | 'sessions.create';
  subjects: number;
  seedSeconds: number;
}

/** The seeded subjects' ids: user000000, user000001, … (zero-padded, so prefixes select fixed counts). */
export const seededId = (i: number): string => `user${String(i).padStart(6, '0')}`;

