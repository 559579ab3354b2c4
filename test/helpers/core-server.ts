import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildConfig } from '../../server/src/config/load';
import type { SvcConfig } from '../../server/src/config/types';
import { demoConfigDocument, type DemoCredentials } from '../../server/src/demo/demo-config';
import { seedDemo } from '../../server/src/demo/demo';
import { PasswordHasher, type PasswordHasherOptions } from '../../server/src/passwords/password-hasher';
import { startServer, type RunningServer, type ServerOptions } from '../../server/src/server';

/** Cheap argon2id for tests; one suite exercises the real defaults on purpose. */
export const TEST_HASH: PasswordHasherOptions = { argon2: { memoryCost: 1024, timeCost: 1, parallelism: 1 }, maxConcurrent: 2, maxQueue: 256 };

/** Fixed, known credentials for the demo-shaped test configuration. */
export const TEST_CREDENTIALS: DemoCredentials = {
  users: { svcadmin: 'Sys-admin-pass-1', alice: 'Alice-pass-123', bob: 'Bob-pass-1234' },
  answers: { bob: ['Amber river', 'Oslo'] },
  clients: { 'svc-api': 'c3ZjLWFwaS10ZXN0LXNlY3JldC1mb3ItdGVzdHMtb25seS0wMQ', 'portal-gateway': 'cG9ydGFsLWdhdGV3YXktdGVzdC1zZWNyZXQtZm9yLXRlc3RzLTA' },
  portals: { 'demo-portal': 'ZGVtby1wb3J0YWwtdGVzdC1zZWNyZXQtZm9yLXRlc3RzLW9ubHk' },
  scim: { 'scim-employees': 'svcscim_c2NpbS1lbXBsb3llZXMtdGVzdC10b2tlbi1mb3ItdGV', 'scim-customers': 'svcscim_c2NpbS1jdXN0b21lcnMtdGVzdC10b2tlbi1mb3ItdGV' },
};

export interface TestServer extends RunningServer {
  dataDir: string;
  hasher: PasswordHasher;
  /** Stops the server and removes its data directory (unless `keepData`). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface TestServerOptions extends Omit<ServerOptions, 'hasher'> {
  /** Changes to the demo-shaped document before validation. */
  configure?: (doc: Record<string, unknown>) => void;
  dataDir?: string;
  /** Seed alice and bob as the demo does (default true). */
  seed?: boolean;
  /** Seed the demo's SCIM service subjects too (scim-employees, scim-customers; default false: most suites count the seeded subjects). */
  provisioners?: boolean;
  hash?: PasswordHasherOptions;
}

/** The demo-shaped configuration document with the test credentials, on port 0. */
export async function testConfigDocument(dataDir: string, hasher: PasswordHasher): Promise<Record<string, unknown>> {
  const systemPasswordHash = await hasher.hash(TEST_CREDENTIALS.users.svcadmin);
  return demoConfigDocument({ credentials: TEST_CREDENTIALS, systemPasswordHash, dataDir, host: '127.0.0.1', port: 0 });
}

/**
 * Seeds `dataDir` like the demo (on the store `configure` chooses) and returns the configuration
 * document of a core on it, for suites that then run that core as its own `svc server` process.
 * The document is the plain test one: `configure` is not applied to it.
 */
export async function seededConfigDocument(dataDir: string, configure?: (doc: Record<string, unknown>) => void): Promise<Record<string, unknown>> {
  const seeded = await startTestServer({ dataDir, configure });
  const doc = await testConfigDocument(dataDir, seeded.hasher);
  await seeded.stop({ keepData: true });
  return doc;
}

/** A real core server on an ephemeral port with a temporary SQLite file, seeded like the demo. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-test-'));
  const hasher = new PasswordHasher({ ...TEST_HASH, ...options.hash });
  const doc = await testConfigDocument(dataDir, hasher);
  options.configure?.(doc);
  const config: SvcConfig = buildConfig(doc, {});
  const running = await startServer(config, { logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }), ...options, hasher });
  if (options.seed !== false) await seedDemo(running.core, TEST_CREDENTIALS, { provisioners: options.provisioners ?? false });
  return {
    ...running,
    dataDir,
    hasher,
    async stop(stopOptions = {}) {
      await running.close();
      if (!stopOptions.keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `configure` for a server without anonymous access: its default client has a password authenticator only. */
export function withoutAnonymousAccess(doc: Record<string, unknown>): void {
  doc.global = { 'server.defaultclient': 'svc-web-only' };
  (doc.clients as unknown[]).push({ id: 'svc-web-only', authenticators: ['employees-password'], contexts: ['employees', 'customers'] });
}
