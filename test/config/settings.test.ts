/**
 * The file's `global` section arrives as SvcConfig's typed `settings` (config/settings.ts, issue 26):
 * every key the schema declares lands in a field of its own, so a new `global` key that the mapping
 * forgets fails here, and nothing reads a setting by its dotted name any more.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildConfig } from '../../server/src/config/load';
import { configSchema } from '../../server/src/config/schema';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { testConfigDocument, TEST_HASH } from '../helpers/core-server';

interface PropertySchema {
  default: unknown;
  enum?: readonly unknown[];
}

const globalKeys = configSchema.properties.global.properties as Record<string, PropertySchema>;

let dir: string;
let valid: Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-settings-'));
  valid = await testConfigDocument(dir, new PasswordHasher({ ...TEST_HASH, precomputeDummy: false }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every leaf of an object by its dotted path. */
function leaves(value: unknown, path = ''): Map<string, unknown> {
  if (!value || typeof value !== 'object') return new Map([[path, value]]);
  return new Map(Object.entries(value).flatMap(([key, child]) => [...leaves(child, path ? `${path}.${key}` : key)]));
}

/** A valid value other than the key's default. */
function otherValue(key: string, property: PropertySchema, clientIds: string[]): unknown {
  if (property.enum) return property.enum.find((v) => v !== property.default);
  if (typeof property.default === 'number') return property.default + 1;
  // The references check wants a configured client here.
  if (key === 'server.defaultclient') return clientIds.find((id) => id !== property.default);
  return `${String(property.default)}-set`;
}

test('every key of the schema\'s global section lands in a typed field of its own, with the value the file sets', () => {
  const defaults = leaves(buildConfig(valid, {}).settings);
  const clientIds = (valid.clients as Array<{ id: string }>).map((c) => c.id);
  const reached = new Map<string, string>();
  for (const [key, property] of Object.entries(globalKeys)) {
    const value = otherValue(key, property, clientIds);
    expect({ key, value }).toEqual({ key, value: expect.anything() });
    const settings = leaves(buildConfig({ ...valid, global: { [key]: value } }, {}).settings);
    const changed = [...settings].filter(([path, v]) => defaults.get(path) !== v);
    expect({ key, changed }).toEqual({ key, changed: [[expect.any(String), value]] });
    reached.set(changed[0][0], key);
  }
  // One field per key, and no field that no key sets.
  expect(reached.size).toBe(Object.keys(globalKeys).length);
  expect([...reached.keys()].sort()).toEqual([...defaults.keys()].sort());
});

test('the typed settings are frozen, and the dotted section is not exposed', () => {
  const config = buildConfig(valid, {});
  expect(Object.isFrozen(config.settings)).toBe(true);
  expect(Object.isFrozen(config.settings.credentialNames)).toBe(true);
  expect('global' in config).toBe(false);
  expect(config.settings.credentialNames.httpHeader).toBe(globalKeys['auth.token.name.httpheader'].default);
});
