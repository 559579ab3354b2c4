import { DEFAULT_LDAP } from './defaults';

/**
 * Directory attributes svc may not map a subject attribute to (SPEC 13): what svc would then return
 * to a subject reading its own record, or list in a search, or let a writer set. Compared without
 * case, as a directory compares attribute names.
 */
const PASSWORDS = [
  'userPassword',
  'authPassword',
  // Active Directory, Samba, Kerberos: password hashes and key material.
  'unicodePwd',
  'dBCSPwd',
  'ntPwdHistory',
  'lmPwdHistory',
  'supplementalCredentials',
  'sambaNTPassword',
  'sambaLMPassword',
  'sambaPasswordHistory',
  'krbPrincipalKey',
  'userPKCS12',
];
/** svc's bookkeeping (ldap/svc.ldif): a writer must not claim keys or set the ETag. */
const BOOKKEEPING = ['svcId', 'svcKey', 'svcVersion', 'svcCreated', 'svcModified'];
/** Kept by the directory itself: operational (RFC 4512, 4530, 3045; OpenLDAP; AD) or what makes the entry an entry. */
const DIRECTORY_INTERNAL = [
  'objectClass',
  'structuralObjectClass',
  'entryCSN',
  'contextCSN',
  'entryUUID',
  'entryDN',
  'createTimestamp',
  'modifyTimestamp',
  'creatorsName',
  'modifiersName',
  'subschemaSubentry',
  'hasSubordinates',
  'numSubordinates',
  'governingStructureRule',
  'collectiveAttributeSubentries',
  'collectiveExclusions',
  'entryTtl',
  'ref',
  'aci',
  'OpenLDAPaci',
  'memberOf',
  'nsAccountLock',
  'objectGUID',
  'objectSid',
  'whenCreated',
  'whenChanged',
  'uSNCreated',
  'uSNChanged',
  'userAccountControl',
  'badPwdCount',
  'badPasswordTime',
  'lockoutTime',
  'lastLogon',
  'lastLogonTimestamp',
  'logonCount',
];

const lower = (names: string[]) => new Set(names.map((n) => n.toLowerCase()));
const REFUSED: Array<[Set<string>, string]> = [
  [lower(PASSWORDS), 'a password attribute of the directory: svc never reads or writes it'],
  [lower(BOOKKEEPING), "svc's own bookkeeping (ldap/svc.ldif)"],
  [lower(DIRECTORY_INTERNAL), 'kept by the directory itself (operational or directory-internal)'],
];

/** Why svc may not read or write the directory attribute `name`; undefined when it may. */
export function refusedDirectoryAttribute(name: string): string | undefined {
  const folded = name.toLowerCase();
  // The password policy's state (ppolicy: pwdHistory, pwdFailureTime, pwdAccountLockedTime, …; AD's pwdLastSet).
  if (folded.startsWith('pwd')) return 'password policy state kept by the directory';
  return REFUSED.find(([names]) => names.has(folded))?.[1];
}

/**
 * Every directory attribute an `ldap` configuration would read or write, by the path that names it:
 * `stores.ldap.idAttribute`, each `stores.ldap.attributeMap` entry, and each definition attribute of
 * an `ldap` context that keeps its own name (unmapped; the password attribute excluded, the
 * directory keeps it). The document is read as unknown JSON (it may be schema-invalid).
 */
export function ldapAttributeProblems(document: Record<string, unknown>): string[] {
  const ldap = objectOr(document.stores).ldap;
  if (!isObject(ldap)) return [];
  const map = isObject(ldap.attributeMap) ? ldap.attributeMap : DEFAULT_LDAP.attributeMap;
  const named: Array<[path: string, attribute: unknown]> = [['stores.ldap.idAttribute', ldap.idAttribute ?? DEFAULT_LDAP.idAttribute]];
  for (const [name, attribute] of Object.entries(map)) named.push([`stores.ldap.attributeMap.${name}`, attribute]);
  if (Array.isArray(document.contexts)) {
    document.contexts.forEach((context: unknown, i) => {
      if (!isObject(context) || context.store !== 'ldap') return;
      const definition = objectOr(context.definition);
      for (const name of Object.keys(objectOr(definition.attributes))) {
        if (name !== definition.password && !Object.hasOwn(map, name)) named.push([`contexts[${i}].definition.attributes.${name}`, name]);
      }
    });
  }
  return named.flatMap(([path, attribute]) => {
    const why = typeof attribute === 'string' ? refusedDirectoryAttribute(attribute) : undefined;
    return why ? [`${path}: "${attribute as string}" is ${why}; svc may not map a subject attribute to it`] : [];
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectOr(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}
