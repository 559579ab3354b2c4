/**
 * `stores.ldap` in the one configuration schema (SPEC 2, 13): its defaults, what is refused, and the
 * lockout limits a core derives from `maxFailures`. No directory is needed here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LDAP } from '../../server/src/config/defaults';
import { buildConfig, ConfigError, loadConfigFile } from '../../server/src/config/load';
import { coreLockoutLimits } from '../../server/src/login/lockout-store';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { TEST_HASH, testConfigDocument } from '../helpers/core-server';

let dir: string;
let valid: Record<string, unknown>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-ldap-config-'));
  valid = await testConfigDocument(dir, new PasswordHasher({ ...TEST_HASH, precomputeDummy: false }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LDAP = { url: 'ldap://127.0.0.1:3389', bindDN: 'cn=svc,dc=svc,dc=test', bindPassword: '${SVC_LDAP_PASSWORD}', baseDN: 'dc=svc,dc=test' };

function onLdap(stores: Record<string, unknown> | undefined): Record<string, unknown> {
  // Through JSON: the demo document shares one definition between its contexts.
  const doc = JSON.parse(JSON.stringify(valid)) as { contexts: Array<Record<string, unknown>>; stores?: unknown };
  doc.contexts[0].store = 'ldap';
  if (stores) doc.stores = stores;
  return doc;
}

function problemsOf(doc: unknown): string[] {
  try {
    buildConfig(doc, { SVC_LDAP_PASSWORD: 'from-the-environment' });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

test('stores.ldap takes its defaults from one place, and ${ENV} in the bind password', () => {
  const config = buildConfig(onLdap({ ldap: LDAP }), { SVC_LDAP_PASSWORD: 'from-the-environment' });
  expect(config.stores.ldap).toEqual({ ...DEFAULT_LDAP, ...LDAP, bindPassword: 'from-the-environment' });
  expect(DEFAULT_LDAP.maxFailures).toBe(3);
});

test('a context on ldap without stores.ldap, a bad URL or a missing name is refused, by path', () => {
  expect(problemsOf(onLdap(undefined))).toEqual(expect.arrayContaining([expect.stringMatching(/^contexts\[0\]\.store: "ldap" needs a "stores.ldap" section/)]));
  expect(problemsOf(onLdap({ ldap: { ...LDAP, url: 'http://x' } })).join('\n')).toMatch(/stores\.ldap\.url/);
  const { baseDN: _missing, ...withoutBase } = LDAP;
  expect(problemsOf(onLdap({ ldap: withoutBase })).join('\n')).toMatch(/baseDN/);
  expect(problemsOf(onLdap({ ldap: { ...LDAP, maxFailures: 0 } })).join('\n')).toMatch(/maxFailures/);
  expect(problemsOf(onLdap({ ldap: { ...LDAP, attributeMap: { roles: 'svcRole)(x=*' } } })).join('\n')).toMatch(/attributeMap/);
});

test('with an ldap context, the per-subject lockout limits are at most maxFailures', () => {
  const plain = coreLockoutLimits(buildConfig(valid, {}));
  expect(plain).toMatchObject({ pairFailures: 5, subjectFailures: 50, addressFailures: 100 });
  const ldap = coreLockoutLimits(buildConfig(onLdap({ ldap: { ...LDAP, maxFailures: 4 } }), { SVC_LDAP_PASSWORD: 'x' }));
  expect(ldap).toMatchObject({ pairFailures: 4, subjectFailures: 4, addressFailures: 100 });
});

describe('a directory attribute svc may not map to (SPEC 13): refused at start and at reload, by path', () => {
  const withAttribute = (name: string, stores: Record<string, unknown>, context = 0): Record<string, unknown> => {
    const doc = onLdap(stores) as { contexts: Array<{ definition: { attributes: Record<string, unknown> } }> };
    doc.contexts[context].definition.attributes[name] = { type: 'string', mutability: 'readWrite' };
    return doc;
  };

  it.each(['userPassword', 'USERPASSWORD', 'authPassword', 'svcKey', 'svcId', 'entryCSN', 'objectClass', 'entryUUID', 'createTimestamp', 'modifiersName', 'pwdHistory', 'pwdAccountLockedTime', 'memberOf'])(
    'attributeMap naming %s',
    (attribute) => {
      const problems = problemsOf(withAttribute('nickname', { ldap: { ...LDAP, attributeMap: { ...DEFAULT_LDAP.attributeMap, nickname: attribute } } }));
      expect(problems).toEqual([expect.stringMatching(new RegExp(`^stores\\.ldap\\.attributeMap\\.nickname: "${attribute}" is .*svc may not map a subject attribute to it$`))]);
    },
  );

  it('an unmapped definition attribute keeping a refused name, an idAttribute, and a mapping no attribute uses', () => {
    expect(problemsOf(withAttribute('userPassword', { ldap: LDAP }))).toEqual([
      'contexts[0].definition.attributes.userPassword: "userPassword" is a password attribute of the directory: svc never reads or writes it; svc may not map a subject attribute to it',
    ]);
    expect(problemsOf(onLdap({ ldap: { ...LDAP, idAttribute: 'entryUUID' } }))).toEqual([
      'stores.ldap.idAttribute: "entryUUID" is kept by the directory itself (operational or directory-internal); svc may not map a subject attribute to it',
    ]);
    expect(problemsOf(onLdap({ ldap: { ...LDAP, attributeMap: { ...DEFAULT_LDAP.attributeMap, unused: 'svcVersion' } } }))).toEqual([
      expect.stringMatching(/^stores\.ldap\.attributeMap\.unused: "svcVersion" is svc's own bookkeeping/),
    ]);
  });

  it('what is fine: the defaults, svc’s own svcRole, a context on another store with such an attribute, the password attribute itself', () => {
    expect(problemsOf(onLdap({ ldap: LDAP }))).toEqual([]);
    expect(problemsOf(withAttribute('userPassword', { ldap: LDAP }, 1))).toEqual([]);
    const password = onLdap({ ldap: LDAP }) as { contexts: Array<{ definition: { password: string; attributes: Record<string, unknown> } }> };
    const { definition } = password.contexts[0];
    definition.attributes.userPassword = definition.attributes[definition.password];
    delete definition.attributes[definition.password];
    definition.password = 'userPassword';
    expect(problemsOf(password)).toEqual([]);
  });

  it('a reloaded file is read by the same validation: refused, naming the path', () => {
    const file = join(dir, 'reload.json');
    writeFileSync(file, JSON.stringify(withAttribute('nickname', { ldap: { ...LDAP, attributeMap: { nickname: 'userPassword' } } })));
    let refused: unknown;
    try {
      loadConfigFile(file, { SVC_LDAP_PASSWORD: 'x' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems).toEqual([expect.stringMatching(/^stores\.ldap\.attributeMap\.nickname: "userPassword" is a password attribute/)]);
  });
});
