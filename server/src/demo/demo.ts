import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { buildConfig } from '../config/load';
import type { SvcConfig } from '../config/types';
import type { Core } from '../core';
import type { Logger } from '../../../common/src/log';
import { PasswordHasher } from '../passwords/password-hasher';
import { generateScimToken } from '../scim/tokens';
import { DEMO_CONTEXTS, demoConfigDocument, type DemoCredentials } from './demo-config';

const CREDENTIALS_FILE = 'demo-credentials.json';

const password = () => randomBytes(15).toString('base64url');
const secret = () => randomBytes(32).toString('base64url');
const WORDS = ['amber', 'birch', 'cobalt', 'delta', 'ember', 'fjord', 'granite', 'harbor', 'indigo', 'juniper', 'kestrel', 'lantern'];
const answer = () => `${WORDS[randomBytes(1)[0] % WORDS.length]} ${randomBytes(3).toString('hex')}`;

function generateCredentials(): DemoCredentials {
  return {
    users: { svcadmin: password(), alice: password(), bob: password() },
    answers: { bob: [answer(), answer()] },
    clients: { 'svc-api': secret(), 'portal-gateway': secret() },
    portals: { 'demo-portal': secret() },
    scim: scimTokens(),
  };
}

const scimTokens = (): DemoCredentials['scim'] => ({ 'scim-employees': generateScimToken().token, 'scim-customers': generateScimToken().token });

export interface DemoEnvironment {
  dataDir: string;
  host: string;
  port: number;
  /**
   * The development mailbox's SMTP port (its page is on the next one); 0: any free one. Absent: the
   * configuration sends no mail.
   */
  mailPort?: number;
  /** The demo portal's port, for the links of its Forgotten Password window. */
  portalPort: number;
}

/** Reads SVC_DATA_DIR, SVC_HOST, SVC_PORT, SVC_MAIL_PORT and SVC_PORTAL_PORT (SPEC section 11). */
export function demoEnvironment(env: NodeJS.ProcessEnv = process.env): DemoEnvironment {
  return {
    dataDir: resolve(env.SVC_DATA_DIR ?? './data'),
    host: env.SVC_HOST ?? '127.0.0.1',
    port: env.SVC_PORT === undefined ? 8080 : Number(env.SVC_PORT),
    mailPort: env.SVC_MAIL_PORT === undefined ? 8025 : Number(env.SVC_MAIL_PORT),
    portalPort: env.SVC_PORTAL_PORT === undefined ? 8082 : Number(env.SVC_PORTAL_PORT),
  };
}

/** A port the system calls free now (the demo's links need its ports before its servers listen). */
function freePort(host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolvePort(port));
    });
  });
}

/**
 * The environment with SVC_PORT and SVC_PORTAL_PORT of 0 ("any free one") made a free port: the
 * mail's links are built from them before anything listens.
 */
export async function withChosenPorts(environment: DemoEnvironment): Promise<DemoEnvironment> {
  return {
    ...environment,
    port: environment.port === 0 ? await freePort(environment.host) : environment.port,
    portalPort: environment.portalPort === 0 ? await freePort(environment.host) : environment.portalPort,
  };
}

/**
 * Prepares the demo: on first start in an empty data directory it generates every password,
 * answer and secret into `demo-credentials.json` (mode 0600); later starts reuse the file.
 * Returns the validated configuration and whether the store still needs seeding.
 */
export async function prepareDemo(environment: DemoEnvironment, log: Logger): Promise<{ config: SvcConfig; credentials: DemoCredentials; fresh: boolean }> {
  mkdirSync(environment.dataDir, { recursive: true, mode: 0o700 });
  const file = join(environment.dataDir, CREDENTIALS_FILE);
  const fresh = !existsSync(file);
  if (fresh) {
    writeFileSync(file, JSON.stringify(generateCredentials(), null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    log.info({ file }, 'demo credentials written (read them from the file; they are never logged)');
  } else {
    log.info({ file }, 'reusing the demo data directory');
  }
  const { config, credentials } = await demoConfigOf(environment);
  return { config, credentials, fresh };
}

/**
 * The configuration of a demo data directory that `svc demo` has prepared (what `svc export` and
 * `svc import` use without --config); it writes nothing, and refuses a directory with no demo.
 */
export async function demoConfigOf(environment: DemoEnvironment): Promise<{ config: SvcConfig; credentials: DemoCredentials }> {
  const file = join(environment.dataDir, CREDENTIALS_FILE);
  if (!existsSync(file)) throw new Error(`${environment.dataDir} holds no demo (no ${CREDENTIALS_FILE}): give --config FILE, or run svc demo first`);
  const credentials = JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials;
  if (!credentials.scim) {
    // A data directory from before SCIM (SPEC 14): its provisioning tokens are added to the file once.
    credentials.scim = scimTokens();
    writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  }
  const hasher = new PasswordHasher({ precomputeDummy: false });
  const systemPasswordHash = await hasher.hash(credentials.users.svcadmin);
  const { dataDir, host, port, mailPort, portalPort } = environment;
  const mail = mailPort === undefined ? undefined : demoMail(host, mailPort, portalPort);
  return { config: buildConfig(demoConfigDocument({ credentials, systemPasswordHash, dataDir, host, port, mail }), {}), credentials };
}

/** demoConfigDocument's `mail`: the mailbox's SMTP port, and the demo portal's origin for its windows' links. */
export function demoMail(host: string, smtpPort: number, portalPort: number): { smtpPort: number; portalOrigin: string } {
  const bracketed = host.includes(':') ? `[${host}]` : host;
  return { smtpPort, portalOrigin: `http://${bracketed}:${portalPort}` };
}

/** The configuration `svc export` and `svc import` use without --config: the demo of SVC_DATA_DIR (TransferIo.defaultConfig). */
export async function demoConfigOfEnvironment(env: NodeJS.ProcessEnv): Promise<SvcConfig> {
  return (await demoConfigOf(demoEnvironment(env))).config;
}

/** Seeds alice and bob in `employees` when the store is empty, and each context's SCIM service subject when it is missing. */
export async function seedDemo(core: Core, credentials: DemoCredentials, options: { provisioners?: boolean } = {}): Promise<void> {
  if (options.provisioners ?? true) await seedProvisioners(core);
  const store = core.subjects.context('employees').store;
  if (await store.exists('employees', 'alice')) return;
  await core.subjects.create(
    'employees',
    'alice',
    { mail: 'alice@example.com', givenName: 'Alice', familyName: 'Anders', roles: ['admin'], password: credentials.users.alice },
    'admin',
  );
  await core.subjects.create(
    'employees',
    'bob',
    {
      mail: 'bob@example.com',
      givenName: 'Bob',
      familyName: 'Berg',
      roles: ['user'],
      password: credentials.users.bob,
      passwordQuestions: ['What was the name of your first pet?', 'In which city were you born?'],
      passwordAnswers: credentials.answers.bob,
    },
    'admin',
  );
  core.log.info({ context: 'employees', subjects: ['alice', 'bob'] }, 'demo subjects seeded');
}

/** SPEC 11, 14: `scim-<context>`, without a password, role `provisioner`: whose sessions the SCIM clients get. */
export async function seedProvisioners(core: Core): Promise<void> {
  for (const contextId of DEMO_CONTEXTS) {
    const id = `scim-${contextId}`;
    if (!core.config.contexts.some((c) => c.id === contextId) || (await core.subjects.context(contextId).store.exists(contextId, id))) continue;
    await core.subjects.create(contextId, id, { mail: `${id}@example.invalid`, displayName: `SCIM provisioning (${contextId})`, roles: ['provisioner'] }, 'admin');
  }
}
