/** What the bench parent and the server children (servers/core.ts, servers/gateway.ts) agree on; no server code. */
import type { DemoCredentials } from '../../server/src/demo/demo-config';

/** Fixed credentials: the bench logs in with them. Not secrets: the server lives for one run. */
export const BENCH_CREDENTIALS: DemoCredentials = {
  users: { svcadmin: 'Bench-sys-pass-1', alice: 'Bench-alice-pass-1', bob: 'Bench-bob-pass-12' },
  answers: { bob: ['Amber river', 'Oslo'] },
  clients: { 'svc-api': 'YmVuY2gtc3ZjLWFwaS1zZWNyZXQtbm90LWEtc2VjcmV0LTAwMDE', 'portal-gateway': 'YmVuY2gtcG9ydGFsLWdhdGV3YXktbm90LWEtc2VjcmV0LTAwMDAx' },
  portals: { 'demo-portal': 'YmVuY2gtZGVtby1wb3J0YWwtbm90LWEtc2VjcmV0LTAwMDAwMDE' },
  scim: { 'scim-employees': 'svcscim_YmVuY2gtc2NpbS1lbXBsb3llZXMtbm90LWEtc2VjcmV', 'scim-customers': 'svcscim_YmVuY2gtc2NpbS1jdXN0b21lcnMtbm90LWEtc2VjcmV' },
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

/** What servers/core.ts prints on SIGUSR2 (run with --expose-gc): bytes, after full garbage collections. */
export interface MemoryReport {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** What servers/gateway.ts prints on SIGUSR2 (run with --expose-gc): its memory and the nonces its replay cache holds. */
export interface GatewayMemoryReport extends MemoryReport {
  nonces: number;
}

/** The seeded subjects' ids: user000000, user000001, … (zero-padded, so prefixes select fixed counts). */
export const seededId = (i: number): string => `user${String(i).padStart(6, '0')}`;


/** The gateway's client at the core (demo configuration: a secret and allowPrincipalAssertion). */
export const BENCH_GATEWAY_CLIENT = 'portal-gateway';

/** The portal the bench signs principal assertions as (SPEC 9). */
export const BENCH_PORTAL = 'demo-portal';

/** What servers/gateway.ts prints once it listens. */
export interface GatewayReady {
  /** The gateway's origin, `http://127.0.0.1:port` (/health is here). */
  url: string;
  /** `{gw}`: `{url}{root}`. */
  base: string;
  /** `{gw}` as a path, e.g. `/gw`: what requests and assertions start with. */
  root: string;
  /** The core's `{base}` the gateway forwards to. */
  core: string;
  portal: string;
  /** The portal's secret (the bench's fixed one; signs each request's assertion). */
  secret: string;
}

/** What servers/core-workers.ts prints: the real `svc server` (one process, or a primary and its workers) on PostgreSQL and Redis. */
export interface WorkersReady {
  url: string;
  /** `{url}{contextRoot}` */
  base: string;
  cookieName: string;
  /** A USER session of bob (role user), made by POST {base}/login; in Redis, so every worker knows it. */
  bobCookie: string;
  /** The command's process: the primary with --workers, else the one server process. */
  primaryPid: number;
  /** The processes that serve (with --workers; else the one process again). */
  workerPids: number[];
}
