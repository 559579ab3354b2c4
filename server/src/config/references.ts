import { redisSettingsProblems } from '../../../common/src/redis/trust';
import { TrustedPeers } from '../authenticators/trusted-peers';
import type { AuthenticatorConfig, SvcConfig } from './types';

const MIN_SECRET_LENGTH = 43;

/**
 * The checks a JSON Schema cannot express: every id a section refers to exists, ids are unique, and
 * each authenticator fits its kind. Returns every problem, each prefixed by its path.
 */
export function checkReferences(config: SvcConfig): string[] {
  const problems: string[] = [];
  const contextIds = new Set<string>();
  config.contexts.forEach((context, i) => {
    const at = `contexts[${i}]`;
    if (contextIds.has(context.id)) problems.push(`${at}.id: duplicate context "${context.id}"`);
    if (context.store === 'postgres' && !config.stores.postgres) problems.push(`${at}.store: "postgres" needs a "stores.postgres" section`);
    if (context.store === 'ldap' && !config.stores.ldap) problems.push(`${at}.store: "ldap" needs a "stores.ldap" section`);
    contextIds.add(context.id);
    const attributes = context.definition.attributes;
    const known = (name: string) => name === 'uniqueId' || name in attributes;
    context.definition.authenid.forEach((name, j) => {
      if (!known(name)) problems.push(`${at}.definition.authenid[${j}]: unknown attribute "${name}"`);
    });
    const password = context.definition.password;
    if (password !== undefined) {
      if (!(password in attributes)) problems.push(`${at}.definition.password: unknown attribute "${password}"`);
      else if (attributes[password].mutability !== 'writeOnly') {
        problems.push(`${at}.definition.password: attribute "${password}" must be writeOnly`);
      }
    }
    context.searchAttributes.forEach((name, j) => {
      if (!known(name)) problems.push(`${at}.searchAttributes[${j}]: unknown attribute "${name}"`);
      else if (attributes[name]?.mutability === 'writeOnly') {
        problems.push(`${at}.searchAttributes[${j}]: write-only attribute "${name}" cannot be searched`);
      }
    });
    context.registration.attributes.forEach((name, j) => {
      if (!known(name)) problems.push(`${at}.registration.attributes[${j}]: unknown attribute "${name}"`);
    });
    if (context.forgottenPassword.enabled) {
      for (const key of ['questionsAttribute', 'answersAttribute'] as const) {
        const name = context.forgottenPassword[key];
        if (!(name in attributes)) problems.push(`${at}.forgottenPassword.${key}: unknown attribute "${name}"`);
      }
    }
  });

  const authenticatorIds = new Map<string, SvcConfig['authenticators'][number]>();
  config.authenticators.forEach((authenticator, i) => {
    const at = `authenticators[${i}]`;
    if (authenticatorIds.has(authenticator.id)) problems.push(`${at}.id: duplicate authenticator "${authenticator.id}"`);
    authenticatorIds.set(authenticator.id, authenticator);
    const expectedKind = { anonymous: 'Anonymous', service: 'UserPass', system: 'UserPass' }[authenticator.variant as string] ?? 'Token';
    if (authenticator.kind !== expectedKind) {
      problems.push(`${at}.kind: variant "${authenticator.variant}" is of kind "${expectedKind}"`);
    }
    const certificate = authenticator.variant === 'clientCertificate';
    if (certificate) problems.push(...certificateAuthenticatorProblems(config, authenticator, at));
    // A certificate names a principal only with principalFrom; without it the session is the client's.
    const needsContext = certificate ? authenticator.options.principalFrom !== undefined : !['anonymous', 'system'].includes(authenticator.variant);
    if (authenticator.context !== undefined && !contextIds.has(authenticator.context)) {
      problems.push(`${at}.context: unknown context "${authenticator.context}"`);
    } else if (needsContext && authenticator.context === undefined) {
      problems.push(`${at}.context: variant "${authenticator.variant}" needs a context`);
    }
    if (authenticator.variant === 'system' && !config.system) {
      problems.push(`${at}: the system authenticator needs a "system" section`);
    }
  });

  const clientIds = new Set<string>();
  config.clients.forEach((client, i) => {
    const at = `clients[${i}]`;
    if (clientIds.has(client.id)) problems.push(`${at}.id: duplicate client "${client.id}"`);
    clientIds.add(client.id);
    client.secret?.forEach((secret, j) => {
      if (secret.length < MIN_SECRET_LENGTH) {
        problems.push(`${at}.secret${client.secret!.length > 1 ? `[${j}]` : ''}: must be at least ${MIN_SECRET_LENGTH} characters (svc gen-secret makes one)`);
      }
    });
    // One client principal authenticator per context (SPEC 9): each matches only its own context's users.
    const principalContexts = new Set<string | undefined>();
    client.authenticators.forEach((name, j) => {
      const authenticator = authenticatorIds.get(name);
      if (!authenticator) problems.push(`${at}.authenticators[${j}]: unknown authenticator "${name}"`);
      else if (authenticator.variant === 'clientPrincipal') {
        if (!(client.secret && client.allowPrincipalAssertion)) {
          problems.push(`${at}.authenticators[${j}]: the client principal authenticator needs a secret and allowPrincipalAssertion`);
        }
        if (principalContexts.has(authenticator.context)) {
          problems.push(`${at}.authenticators[${j}]: a second client principal authenticator for context "${authenticator.context}"`);
        }
        principalContexts.add(authenticator.context);
      }
    });
    if (client.defaultAuthenticator !== undefined && !client.authenticators.includes(client.defaultAuthenticator)) {
      problems.push(`${at}.defaultAuthenticator: "${client.defaultAuthenticator}" is not among the client's authenticators`);
    }
    client.contexts.forEach((name, j) => {
      if (!contextIds.has(name)) problems.push(`${at}.contexts[${j}]: unknown context "${name}"`);
    });
    if (!client.contexts.includes(client.defaultContext)) {
      problems.push(`${at}.defaultContext: "${client.defaultContext}" is not among the client's contexts`);
    }
  });
  const defaultClient = config.global['server.defaultclient'];
  if (!clientIds.has(defaultClient)) problems.push(`global.server.defaultclient: unknown client "${defaultClient}"`);

  config.policies.forEach((policy, i) => {
    policy.clients?.forEach((name, j) => {
      if (!clientIds.has(name)) problems.push(`policies[${i}].clients[${j}]: unknown client "${name}"`);
    });
    policy.targets.forEach((target, j) => {
      if (!/^[A-Za-z0-9._@+${}*-]+(\/[A-Za-z0-9._@+${}*-]+)*$/.test(target)) {
        problems.push(`policies[${i}].targets[${j}]: not a target pattern: "${target}"`);
      }
    });
  });
  problems.push(...tlsProblems(config));
  if (config.sessions.store === 'redis') problems.push(...redisSettingsProblems('sessions.redis', config.sessions.redis.url, config.sessions.redis.password));
  return problems;
}

/** `options.principalFrom` of a clientCertificate authenticator, and the CA it needs (SPEC section 13). */
function certificateAuthenticatorProblems(config: SvcConfig, authenticator: AuthenticatorConfig, at: string): string[] {
  const problems: string[] = [];
  const from = authenticator.options.principalFrom;
  if (from !== undefined && from !== 'san-email' && from !== 'subject-cn') problems.push(`${at}.options.principalFrom: must be "san-email" or "subject-cn"`);
  const unknown = Object.keys(authenticator.options).filter((key) => key !== 'principalFrom');
  if (unknown.length) problems.push(`${at}.options: unknown option "${unknown[0]}"`);
  if (!config.server.tls?.clientCA) problems.push(`${at}: the clientCertificate authenticator needs server.tls.clientCA`);
  return problems;
}

/** `server.tls.xfccPeers`: CIDRs, and only with a clientCA to verify what the proxies forward. */
function tlsProblems(config: SvcConfig): string[] {
  const tls = config.server.tls;
  if (!tls) return [];
  try {
    new TrustedPeers(tls.xfccPeers, 'server.tls.xfccPeers');
  } catch (error) {
    return [(error as Error).message.replace('trustedPeers', 'xfccPeers')];
  }
  if (tls.xfccPeers.length && !tls.clientCA) return ['server.tls.xfccPeers: forwarded client certificates need server.tls.clientCA to verify them'];
  return [];
}
