import { redisSettingsProblems } from '../../../common/src/redis/trust';
import { TrustedPeers } from '../authenticators/trusted-peers';
import { ldapAttributeProblems } from './ldap-attributes';
import { OWASP_SCRYPT_SETTINGS, formatScryptSetting, isOwaspScryptSetting } from '../passwords/phc';

const MIN_SECRET_LENGTH = 43;
/** The attribute that holds a subject's address (SPEC 16). */
export const MAIL_ATTRIBUTE = 'mail';

/**
 * The checks a JSON Schema cannot express: every id a section refers to exists, ids are unique, and
 * each authenticator fits its kind. Returns every problem, each prefixed by its path.
 *
 * It runs on schema-invalid documents too (SPEC 2: every error listed), so it reads the document as
 * unknown JSON and never throws: a check whose inputs are missing or ill-typed is skipped (the schema
 * reports those), and an "unknown id" is reported only when every id of that section could be read.
 */
export function checkReferences(document: unknown): string[] {
  const problems: string[] = [];
  const config = objectOr(document);
  const stores = objectOr(config.stores);

  const contextIds = new KnownIds(config.contexts);
  const seenContexts = new Set<string>();
  eachObject(config.contexts, (context, i) => {
    const at = `contexts[${i}]`;
    if (isString(context.id)) {
      if (seenContexts.has(context.id)) problems.push(`${at}.id: duplicate context "${context.id}"`);
      seenContexts.add(context.id);
    }
    if (context.store === 'postgres' && !stores.postgres) problems.push(`${at}.store: "postgres" needs a "stores.postgres" section`);
    if (context.store === 'ldap' && !stores.ldap) problems.push(`${at}.store: "ldap" needs a "stores.ldap" section`);
    const definition = objectOr(context.definition);
    // Without a readable attribute map no attribute name can be called unknown.
    if (!isObject(definition.attributes)) return;
    const attributes = definition.attributes;
    const attribute = (name: string) => (Object.hasOwn(attributes, name) ? objectOr(attributes[name]) : undefined);
    const known = (name: string) => name === 'uniqueId' || Object.hasOwn(attributes, name);
    eachString(definition.authenid, (name, j) => {
      if (!known(name)) problems.push(`${at}.definition.authenid[${j}]: unknown attribute "${name}"`);
    });
    const password = definition.password;
    if (isString(password)) {
      if (!attribute(password)) problems.push(`${at}.definition.password: unknown attribute "${password}"`);
      else if (attribute(password)!.mutability !== 'writeOnly') {
        problems.push(`${at}.definition.password: attribute "${password}" must be writeOnly`);
      }
    }
    eachString(context.searchAttributes, (name, j) => {
      if (!known(name)) problems.push(`${at}.searchAttributes[${j}]: unknown attribute "${name}"`);
      else if (attribute(name)?.mutability === 'writeOnly') {
        problems.push(`${at}.searchAttributes[${j}]: write-only attribute "${name}" cannot be searched`);
      }
    });
    eachString(objectOr(context.registration).attributes, (name, j) => {
      if (!known(name)) problems.push(`${at}.registration.attributes[${j}]: unknown attribute "${name}"`);
    });
    const forgotten = objectOr(context.forgottenPassword);
    const methods = Array.isArray(forgotten.methods) ? forgotten.methods : ['questions'];
    if (forgotten.enabled === true && methods.includes('questions')) {
      for (const key of ['questionsAttribute', 'answersAttribute'] as const) {
        const name = forgotten[key];
        if (isString(name) && !attribute(name)) problems.push(`${at}.forgottenPassword.${key}: unknown attribute "${name}"`);
      }
    }
    // SPEC 16: mail goes to the subject's `mail`, so a context that mails needs the attribute and the section.
    const mails: string[] = [];
    if (objectOr(context.registration).verifyEmail === true) mails.push('registration.verifyEmail');
    if (forgotten.enabled === true && methods.includes('email')) mails.push('forgottenPassword.methods');
    for (const where of mails) {
      if (!config.mail) problems.push(`${at}.${where}: needs a "mail" section`);
      if (attribute(MAIL_ATTRIBUTE)?.type !== 'email') problems.push(`${at}.${where}: needs an attribute "${MAIL_ATTRIBUTE}" of type "email"`);
    }
  });

  const authenticatorIds = new KnownIds(config.authenticators);
  const authenticators = new Map<string, Record<string, unknown>>();
  eachObject(config.authenticators, (authenticator, i) => {
    const at = `authenticators[${i}]`;
    if (isString(authenticator.id)) {
      if (authenticators.has(authenticator.id)) problems.push(`${at}.id: duplicate authenticator "${authenticator.id}"`);
      authenticators.set(authenticator.id, authenticator);
    }
    const variant = authenticator.variant;
    if (!isString(variant) || !VARIANTS.includes(variant)) return;
    const expectedKind = { anonymous: 'Anonymous', service: 'UserPass', system: 'UserPass' }[variant] ?? 'Token';
    if (isString(authenticator.kind) && authenticator.kind !== expectedKind) {
      problems.push(`${at}.kind: variant "${variant}" is of kind "${expectedKind}"`);
    }
    const options = authenticator.options === undefined ? {} : authenticator.options;
    const certificate = variant === 'clientCertificate';
    if (certificate) problems.push(...certificateAuthenticatorProblems(config, options, at));
    // A certificate names a principal only with principalFrom; without it the session is the client's.
    const needsContext = certificate ? isObject(options) && options.principalFrom !== undefined : !['anonymous', 'system'].includes(variant);
    if (isString(authenticator.context)) {
      if (contextIds.isUnknown(authenticator.context)) problems.push(`${at}.context: unknown context "${authenticator.context}"`);
    } else if (needsContext && authenticator.context === undefined) {
      problems.push(`${at}.context: variant "${variant}" needs a context`);
    }
    if (variant === 'system' && !config.system) {
      problems.push(`${at}: the system authenticator needs a "system" section`);
    }
  });

  const clientIds = new KnownIds(config.clients);
  const seenClients = new Set<string>();
  eachObject(config.clients, (client, i) => {
    const at = `clients[${i}]`;
    if (isString(client.id)) {
      if (seenClients.has(client.id)) problems.push(`${at}.id: duplicate client "${client.id}"`);
      seenClients.add(client.id);
    }
    const secrets = isString(client.secret) ? [client.secret] : client.secret;
    const several = Array.isArray(secrets) && secrets.length > 1;
    eachString(secrets, (secret, j) => {
      if (secret.length < MIN_SECRET_LENGTH) {
        problems.push(`${at}.secret${several ? `[${j}]` : ''}: must be at least ${MIN_SECRET_LENGTH} characters (svc gen-secret makes one)`);
      }
    });
    // One client principal authenticator per context (SPEC 9): each matches only its own context's users.
    const principalContexts = new Set<unknown>();
    eachString(client.authenticators, (name, j) => {
      const authenticator = authenticators.get(name);
      if (!authenticator) {
        if (authenticatorIds.isUnknown(name)) problems.push(`${at}.authenticators[${j}]: unknown authenticator "${name}"`);
      } else if (authenticator.variant === 'clientPrincipal') {
        if (!(secrets !== undefined && client.allowPrincipalAssertion === true)) {
          problems.push(`${at}.authenticators[${j}]: the client principal authenticator needs a secret and allowPrincipalAssertion`);
        }
        if (principalContexts.has(authenticator.context)) {
          problems.push(`${at}.authenticators[${j}]: a second client principal authenticator for context "${String(authenticator.context)}"`);
        }
        principalContexts.add(authenticator.context);
      }
    });
    if (isString(client.defaultAuthenticator) && Array.isArray(client.authenticators) && !client.authenticators.includes(client.defaultAuthenticator)) {
      problems.push(`${at}.defaultAuthenticator: "${client.defaultAuthenticator}" is not among the client's authenticators`);
    }
    eachString(client.contexts, (name, j) => {
      if (contextIds.isUnknown(name)) problems.push(`${at}.contexts[${j}]: unknown context "${name}"`);
    });
    if (isString(client.defaultContext) && Array.isArray(client.contexts) && !client.contexts.includes(client.defaultContext)) {
      problems.push(`${at}.defaultContext: "${client.defaultContext}" is not among the client's contexts`);
    }
  });
  const defaultClient = objectOr(config.global)['server.defaultclient'];
  if (isString(defaultClient) && clientIds.isUnknown(defaultClient)) problems.push(`global.server.defaultclient: unknown client "${defaultClient}"`);

  eachObject(config.policies, (policy, i) => {
    eachString(policy.clients, (name, j) => {
      if (clientIds.isUnknown(name)) problems.push(`policies[${i}].clients[${j}]: unknown client "${name}"`);
    });
    eachString(policy.principalContexts, (name, j) => {
      if (contextIds.isUnknown(name)) problems.push(`policies[${i}].principalContexts[${j}]: unknown context "${name}"`);
    });
    eachString(policy.targets, (target, j) => {
      if (!/^[A-Za-z0-9._@+${}*-]+(\/[A-Za-z0-9._@+${}*-]+)*$/.test(target)) {
        problems.push(`policies[${i}].targets[${j}]: not a target pattern: "${target}"`);
      }
    });
  });
  // SPEC 14: a SCIM client's context exists; ids and tokens are not shared.
  const seenScim = new Set<string>();
  const seenTokens = new Set<string>();
  eachObject(objectOr(config.scim).clients, (client, i) => {
    const at = `scim.clients[${i}]`;
    if (isString(client.id)) {
      if (seenScim.has(client.id)) problems.push(`${at}.id: duplicate SCIM client "${client.id}"`);
      seenScim.add(client.id);
    }
    if (isString(client.context) && contextIds.isUnknown(client.context)) problems.push(`${at}.context: unknown context "${client.context}"`);
    if (isString(client.tokenSha256)) {
      if (seenTokens.has(client.tokenSha256)) problems.push(`${at}.tokenSha256: the same token as another SCIM client`);
      seenTokens.add(client.tokenSha256);
    }
  });
  problems.push(...ldapAttributeProblems(config));
  problems.push(...scryptProblems(objectOr(config.passwords).scrypt));
  problems.push(...tlsProblems(objectOr(config.server).tls));
  const sessions = objectOr(config.sessions);
  const redis = objectOr(sessions.redis);
  if (sessions.store === 'redis' && isString(redis.url) && (redis.password === undefined || isString(redis.password))) {
    problems.push(...redisSettingsProblems('sessions.redis', redis.url, redis.password));
  }
  const mail = objectOr(config.mail);
  if (mail.queue === 'postgres' && !stores.postgres) problems.push('mail.queue: "postgres" needs a "stores.postgres" section');
  const smtp = objectOr(mail.smtp);
  if ((smtp.user === undefined) !== (smtp.password === undefined)) problems.push('mail.smtp: "user" and "password" go together');
  return problems;
}

const VARIANTS: readonly string[] = ['anonymous', 'service', 'system', 'idpSession', 'httpHeader', 'clientPrincipal', 'clientCertificate'];

/** `options.principalFrom` of a clientCertificate authenticator, and the CA it needs (SPEC section 13). */
function certificateAuthenticatorProblems(config: Record<string, unknown>, options: unknown, at: string): string[] {
  const problems: string[] = [];
  if (isObject(options)) {
    const from = options.principalFrom;
    if (from !== undefined && from !== 'san-email' && from !== 'subject-cn') problems.push(`${at}.options.principalFrom: must be "san-email" or "subject-cn"`);
    const unknown = Object.keys(options).filter((key) => key !== 'principalFrom');
    if (unknown.length) problems.push(`${at}.options: unknown option "${unknown[0]}"`);
  }
  if (!objectOr(objectOr(config.server).tls).clientCA) problems.push(`${at}: the clientCertificate authenticator needs server.tls.clientCA`);
  return problems;
}

/**
 * `passwords.scrypt` (SPEC 4): new hashes at an OWASP-listed setting, or one at least as large in every
 * parameter. Checked whatever the algorithm, so that switching to scrypt cannot start a weak one.
 */
function scryptProblems(scrypt: unknown): string[] {
  if (!isObject(scrypt)) return [];
  const { ln, r, p } = scrypt;
  if (!Number.isInteger(ln) || !Number.isInteger(r) || !Number.isInteger(p)) return [];
  const setting = { ln: ln as number, r: r as number, p: p as number };
  if (isOwaspScryptSetting(setting)) return [];
  const listed = OWASP_SCRYPT_SETTINGS.map(formatScryptSetting).join('; ');
  return [`passwords.scrypt: ${formatScryptSetting(setting)} is not an OWASP-listed scrypt setting; use one of ${listed} (or one of these with larger values)`];
}

/** `server.tls.xfccPeers`: CIDRs, and only with a clientCA to verify what the proxies forward. */
function tlsProblems(tls: unknown): string[] {
  if (!isObject(tls)) return [];
  const peers = tls.xfccPeers === undefined ? [] : tls.xfccPeers;
  // An ill-typed list is the schema's to report.
  if (!Array.isArray(peers) || !peers.every(isString)) return [];
  try {
    new TrustedPeers(peers, 'server.tls.xfccPeers');
  } catch (error) {
    return [(error as Error).message.replace('trustedPeers', 'xfccPeers')];
  }
  if (peers.length && !tls.clientCA) return ['server.tls.xfccPeers: forwarded client certificates need server.tls.clientCA to verify them'];
  return [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** The value when it is a JSON object; otherwise an empty one, so that its checks find nothing to check. */
function objectOr(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

/** Each entry of a list that is an object, with its index in the list; nothing when it is no list. */
function eachObject(list: unknown, visit: (entry: Record<string, unknown>, index: number) => void): void {
  if (Array.isArray(list)) list.forEach((entry: unknown, index) => isObject(entry) && visit(entry, index));
}

/** Each entry of a list that is a string, with its index in the list; nothing when it is no list. */
function eachString(list: unknown, visit: (entry: string, index: number) => void): void {
  if (Array.isArray(list)) list.forEach((entry: unknown, index) => isString(entry) && visit(entry, index));
}

/**
 * The ids of a section's entries. A name is unknown only when every entry's id could be read: with a
 * missing or ill-typed id (a schema error), any name might have been meant, so none is reported.
 */
class KnownIds {
  private readonly ids = new Set<string>();
  private readonly complete: boolean;

  constructor(list: unknown) {
    this.complete = Array.isArray(list) && list.every((entry: unknown) => isObject(entry) && isString(entry.id));
    eachObject(list, (entry) => isString(entry.id) && this.ids.add(entry.id));
  }

  isUnknown(name: string): boolean {
    return this.complete && !this.ids.has(name);
  }
}
