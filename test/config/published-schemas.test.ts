/**
 * The JSON Schemas `svc config-schema` prints lint real files (issue 27 item 5): the demo's files,
 * and files that keep their secrets and addresses as `${ENV}` placeholders (as the docs recommend),
 * validate against the printed schemas with an independent validator; all four declare `$schema`
 * and `$id`. The loaders still check the value a placeholder stands for strictly.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv from 'ajv';
import { buildConfig, ConfigError } from '../../server/src/config/load';
import { demoConfigDocument } from '../../server/src/demo/demo-config';
import { demoPortalDocument } from '../../server/src/demo/demo-portal';
import { buildGatewayConfig, GatewayConfigError, gatewaySchema, substituteEnv } from '../../gateway/src/config';
import { buildPortalConfig, PortalConfigError } from '../../portlet-adapter/src/portal/config/load';
import { TEST_CREDENTIALS } from '../helpers/core-server';
import { runSvc } from '../helpers/svc-process';

const ROOT = join(__dirname, '..', '..');
const HASH = '$argon2id$v=19$m=1024,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$7ZGy1SKj0HkDCaJMrMk8sUnzpSXvdM2bWZt+Pc0cZL8';
const SECRET = 'c2VjcmV0LW9mLWZvcnR5LXRocmVlLWNoYXJhY3RlcnMtaGVyZQ';

jest.setTimeout(120_000);

const printed: Record<string, object> = {};

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT });
  for (const which of ['core', 'gateway', 'portal', 'portlet']) {
    const answer = await runSvc(['config-schema', which]);
    expect(answer).toMatchObject({ code: 0, stderr: '' });
    printed[which] = JSON.parse(answer.stdout) as object;
  }
}, 180_000);

/** The errors of `document` against a printed schema, by an ajv of its own (draft-07, strict). */
function problems(which: string, document: unknown): unknown[] {
  const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(printed[which]);
  return validate(document) ? [] : (validate.errors ?? []);
}

const demoCore = () => demoConfigDocument({ credentials: TEST_CREDENTIALS, systemPasswordHash: HASH, dataDir: './data', host: '127.0.0.1', port: 8080 });
const demoGateway = () => ({
  gateway: { host: '127.0.0.1', port: 8081, cores: ['http://127.0.0.1:8080/svc'], clientId: 'portal-gateway', secret: TEST_CREDENTIALS.clients['portal-gateway'], portals: [{ id: 'demo-portal', secret: TEST_CREDENTIALS.portals['demo-portal'] }] },
});
const demoPortal = () => demoPortalDocument({ credentials: TEST_CREDENTIALS, host: '127.0.0.1', gateway: 'http://127.0.0.1:8081/gw', dataDir: './data', descriptor: './portlet.json' });

/** The demo's files with their secrets, hashes and addresses given as placeholders. */
function coreWithPlaceholders() {
  const doc = demoCore() as { $schema?: string; clients: Array<{ secret?: unknown }>; system: { passwordHash: string }; server: { host: string } };
  doc.$schema = 'urn:svc:config:v1';
  for (const client of doc.clients) if (client.secret !== undefined) client.secret = '${SVC_CLIENT_SECRET}';
  doc.system.passwordHash = '${SVC_SYSTEM_HASH}';
  doc.server.host = '${SVC_LISTEN_HOST}';
  return doc;
}
const gatewayWithPlaceholders = () => ({
  $schema: 'urn:svc:schema:gateway.json',
  gateway: { cores: ['${SVC_CORE_URL}', 'https://${SVC_CORE_HOST}/svc'], secret: '${SVC_GATEWAY_SECRET}', portals: [{ id: 'demo-portal', secret: ['${SVC_PORTAL_SECRET}', '${SVC_PORTAL_SECRET_OLD}'] }], redis: { url: '${SVC_REDIS_URL}' } },
});
const portalWithPlaceholders = () => {
  const doc = demoPortal() as { $schema?: string; portal: Record<string, unknown> };
  doc.$schema = 'urn:svc:schema:portal.json';
  Object.assign(doc.portal, { secret: '${SVC_PORTAL_SECRET}', gateways: ['${SVC_GATEWAY_URL}'], publicOrigin: '${SVC_PORTAL_ORIGIN}' });
  return doc;
};

const ENV = {
  SVC_CLIENT_SECRET: SECRET,
  SVC_SYSTEM_HASH: HASH,
  SVC_LISTEN_HOST: '127.0.0.1',
  SVC_CORE_URL: 'http://127.0.0.1:8080/svc',
  SVC_CORE_HOST: 'core.example',
  SVC_GATEWAY_SECRET: SECRET,
  SVC_PORTAL_SECRET: SECRET,
  SVC_PORTAL_SECRET_OLD: SECRET.replace('c', 'd'),
  SVC_REDIS_URL: 'redis://127.0.0.1:6379',
  SVC_GATEWAY_URL: 'http://127.0.0.1:8081/gw',
  SVC_PORTAL_ORIGIN: 'https://portal.example',
};

test('all four printed schemas declare $schema (draft-07) and an $id', () => {
  for (const which of ['core', 'gateway', 'portal', 'portlet']) {
    expect(printed[which]).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', $id: expect.stringMatching(/^urn:svc:/) });
  }
});

test("the demo's files validate against the printed schemas", () => {
  expect(problems('core', demoCore())).toEqual([]);
  expect(problems('gateway', demoGateway())).toEqual([]);
  expect(problems('portal', demoPortal())).toEqual([]);
  expect(problems('portlet', JSON.parse(readFileSync(join(ROOT, 'portlet-adapter/src/portlets/portlet.json'), 'utf8')))).toEqual([]);
});

test('files with ${ENV} placeholders validate against the printed schemas, which the strict ones refuse', () => {
  expect(problems('core', coreWithPlaceholders())).toEqual([]);
  expect(problems('gateway', gatewayWithPlaceholders())).toEqual([]);
  expect(problems('portal', portalWithPlaceholders())).toEqual([]);
  // The gateway's own (strict) schema: what `svc config-schema gateway` printed before.
  const strict = new Ajv({ allErrors: true, strict: true }).compile(gatewaySchema);
  expect(strict(gatewayWithPlaceholders())).toBe(false);
});

test('a placeholder does not let a wrong value through: only strings take one, and the rest of the schema holds', () => {
  const gateway = gatewayWithPlaceholders() as { gateway: Record<string, unknown> };
  gateway.gateway.port = '${SVC_PORT}';
  gateway.gateway.bogus = 'x';
  gateway.gateway.secret = 'short';
  const paths = problems('gateway', gateway).map((e) => (e as { instancePath: string }).instancePath);
  expect(paths).toEqual(expect.arrayContaining(['/gateway/port', '/gateway', '/gateway/secret']));
});

test('the loaders check the value a placeholder stands for against the strict rule', () => {
  expect(() => buildConfig(coreWithPlaceholders(), ENV)).not.toThrow();
  expect(() => buildGatewayConfig(substituteEnv(gatewayWithPlaceholders(), ENV))).not.toThrow();
  expect(() => buildPortalConfig(portalWithPlaceholders(), { env: ENV })).not.toThrow();

  expect(() => buildConfig(coreWithPlaceholders(), { ...ENV, SVC_SYSTEM_HASH: 'not-a-hash' })).toThrow(ConfigError);
  expect(() => buildPortalConfig(portalWithPlaceholders(), { env: { ...ENV, SVC_PORTAL_SECRET: 'short' } })).toThrow(PortalConfigError);
  expect(() => buildGatewayConfig(substituteEnv(gatewayWithPlaceholders(), { ...ENV, SVC_GATEWAY_SECRET: 'short' }))).toThrow(GatewayConfigError);
});
