/**
 * `stores.ldap` in the one configuration schema (SPEC 2, 13): its defaults, what is refused, and the
 * lockout limits a core derives from `maxFailures`. No directory is needed here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LDAP } from '../../server/src/config/defaults';
import { buildConfig, ConfigError } from '../../server/src/config/load';
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
  const doc = structuredClone(valid) as { contexts: Array<Record<string, unknown>>; stores?: unknown };
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
