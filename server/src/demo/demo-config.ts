import type { ContextConfig } from '../config/types';
import { scimTokenSha256 } from '../scim/tokens';

/** The credentials `npm start` generates once and keeps in `SVC_DATA_DIR/demo-credentials.json`. */
export interface DemoCredentials {
  users: { svcadmin: string; alice: string; bob: string };
  answers: { bob: [string, string] };
  clients: { 'svc-api': string; 'portal-gateway': string };
  portals: { 'demo-portal': string };
  /** SCIM provisioning tokens (SPEC 14), one client per context. */
  scim: { 'scim-employees': string; 'scim-customers': string };
}

/** The demo's contexts, each with its SCIM client and service subject (`scim-<context>`). */
export const DEMO_CONTEXTS = ['employees', 'customers'] as const;

const attributes = {
  mail: { type: 'email', required: true, unique: true, mutability: 'readWrite' },
  givenName: { type: 'string', mutability: 'readWrite' },
  familyName: { type: 'string', mutability: 'readWrite' },
  roles: { type: 'string', multivalued: true, mutability: 'admin', default: ['user'] },
  disabled: { type: 'boolean', mutability: 'admin' },
  password: { type: 'string', mutability: 'writeOnly', maxLength: 256 },
  passwordQuestions: { type: 'string', multivalued: true, mutability: 'writeOnly' },
  passwordAnswers: { type: 'string', multivalued: true, mutability: 'writeOnly' },
  // SCIM (SPEC 14): an identity provider's login name (its own, so a rename never renames the subject), name and id.
  userName: { type: 'string', unique: true, mutability: 'admin', maxLength: 256 },
  displayName: { type: 'string', mutability: 'readWrite' },
  externalId: { type: 'string', mutability: 'admin', maxLength: 256 },
};

/** SPEC 11 with its mailbox: customers verify their address and recover by link; employees both ways. */
function context(id: string, registration: boolean, forgottenPassword: boolean, mail = false): Partial<ContextConfig> & Record<string, unknown> {
  const methods: ContextConfig['forgottenPassword']['methods'] = !mail ? ['questions'] : registration ? ['email'] : ['questions', 'email'];
  return {
    id,
    store: 'sqlite',
    definition: { attributes, authenid: ['mail', 'userName'], password: 'password' } as unknown as ContextConfig['definition'],
    searchAttributes: ['uniqueId', 'mail', 'givenName', 'familyName', 'userName', 'externalId'],
    registration: { enabled: registration, attributes: registration ? ['uniqueId', 'mail', 'givenName', 'familyName', 'password'] : [], verifyEmail: mail && registration },
    forgottenPassword: { enabled: forgottenPassword || mail, questionsAttribute: 'passwordQuestions', answersAttribute: 'passwordAnswers', methods },
    // The role of the seeded alice (demo.ts) and of the portal's Administration page (demo-portal.ts).
    adminRoles: ['admin'],
  };
}

/**
 * The embedded demo configuration (SPEC section 11) as a configuration document, validated like
 * any file. Secrets come from the generated credentials; the system hash is computed at start.
 */
export function demoConfigDocument(options: {
  credentials: DemoCredentials;
  systemPasswordHash: string;
  dataDir: string;
  host: string;
  port: number;
  /**
   * The development mailbox (SPEC 11): its SMTP port and the portal's origin (links may point at the
   * portal's windows). Without it the configuration sends no mail (the tests').
   */
  mail?: { smtpPort: number; portalOrigin: string };
}): Record<string, unknown> {
  const { credentials, mail } = options;
  return {
    // No trusted proxy: the gateway vouches for the visitor's address with a key, X-Svc-Forwarded-For
    // (SPEC section 9); an address (any local process may bind one) would let anyone choose it.
    server: { host: options.host, port: options.port, contextRoot: '/svc', dataDir: options.dataDir, trustProxy: [] },
    contexts: [context('employees', false, true, mail !== undefined), context('customers', true, false, mail !== undefined)],
    ...(mail
      ? {
          mail: {
            // The demo's own mailbox on the loopback: no TLS to ask for, no AUTH.
            smtp: { host: '127.0.0.1', port: mail.smtpPort, requireTLS: false, from: 'svc demo <svc@localhost>' },
            publicBase: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}/svc`,
            linkOrigins: [mail.portalOrigin],
          },
        }
      : {}),
    authenticators: [
      { id: 'anonymous', kind: 'Anonymous', variant: 'anonymous', sessionType: 'ANON' },
      { id: 'employees-password', kind: 'UserPass', variant: 'service', sessionType: 'USER', context: 'employees' },
      { id: 'customers-password', kind: 'UserPass', variant: 'service', sessionType: 'USER', context: 'customers' },
      { id: 'system', kind: 'UserPass', variant: 'system', sessionType: 'SYSTEM' },
      // One client principal authenticator per context: `customers/alice` is never `employees/alice`.
      { id: 'employees-principal', kind: 'Token', variant: 'clientPrincipal', sessionType: 'USER', context: 'employees' },
      { id: 'customers-principal', kind: 'Token', variant: 'clientPrincipal', sessionType: 'USER', context: 'customers' },
    ],
    clients: [
      { id: 'anon', authenticators: ['anonymous'], contexts: ['employees', 'customers'] },
      { id: 'svc-web', authenticators: ['employees-password', 'customers-password', 'system', 'anonymous'], contexts: ['employees', 'customers'] },
      { id: 'svc-api', secret: credentials.clients['svc-api'], authenticators: ['employees-password', 'customers-password', 'system'], contexts: ['employees', 'customers'] },
      {
        id: 'portal-gateway',
        secret: credentials.clients['portal-gateway'],
        allowPrincipalAssertion: true,
        // No Anonymous: a visitor's ANON session is the default client's (SPEC section 9).
        authenticators: ['employees-principal', 'customers-principal', 'employees-password', 'customers-password'],
        contexts: ['employees', 'customers'],
      },
    ],
    system: { userId: 'svcadmin', passwordHash: options.systemPasswordHash },
    scim: {
      clients: DEMO_CONTEXTS.map((c) => ({ id: `scim-${c}`, context: c, subject: `scim-${c}`, tokenSha256: scimTokenSha256(credentials.scim[`scim-${c}`]) })),
    },
  };
}
