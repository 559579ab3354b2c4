import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GATEWAY_DEFAULTS, GatewayConfigError, buildGatewayConfig, loadGatewayConfigFile } from '../../gateway/src/config';

const SECRET = 'a'.repeat(43);
const valid = { gateway: { cores: ['http://127.0.0.1:8080/svc'], secret: SECRET, portals: [{ id: 'demo-portal', secret: SECRET }] } };

function problemsOf(doc: unknown, env: Record<string, string> = {}): string[] {
  try {
    buildGatewayConfig(doc, env);
  } catch (error) {
    if (error instanceof GatewayConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('gateway configuration', () => {
  it('fills the defaults (port 8081, root /gw, 1 MiB bodies, client portal-gateway)', () => {
    expect(buildGatewayConfig(valid)).toMatchObject({ ...GATEWAY_DEFAULTS, port: 8081, root: '/gw', bodyLimit: 1048576, clientId: 'portal-gateway' });
  });

  it('SVC_GATEWAY_PORT wins over the file', () => {
    expect(buildGatewayConfig({ gateway: { ...valid.gateway, port: 9000 } }, { SVC_GATEWAY_PORT: '9100' }).port).toBe(9100);
    expect(problemsOf(valid, { SVC_GATEWAY_PORT: 'x' })).toEqual(['SVC_GATEWAY_PORT: must be a port number']);
  });

  it('lists every problem by path', () => {
    const problems = problemsOf({ gateway: { cores: ['ftp://x'], secret: 'short', portals: [{ id: 'bad id', secret: SECRET }], extra: 1 } });
    expect(problems).toEqual(expect.arrayContaining([
      'gateway.extra: is not allowed',
      expect.stringMatching(/^gateway\.cores\[0\]: /),
      expect.stringMatching(/^gateway\.secret: /),
      expect.stringMatching(/^gateway\.portals\[0\]\.id: /),
    ]));
    expect(problemsOf({})).toEqual(['gateway: is required']);
    expect(problemsOf({ gateway: { ...valid.gateway, portals: [valid.gateway.portals[0], valid.gateway.portals[0]] } })).toEqual([
      'gateway.portals: portal "demo-portal" is listed twice',
    ]);
  });

  it('reads a file with ${ENV} substitution', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-gw-')), 'gateway.json');
    writeFileSync(file, JSON.stringify({ gateway: { ...valid.gateway, secret: '${GW_SECRET}' } }));
    expect(loadGatewayConfigFile(file, { GW_SECRET: 'b'.repeat(43) }).secret).toBe('b'.repeat(43));
    expect(() => loadGatewayConfigFile(file, {})).toThrow(/GW_SECRET/);
  });
});
