import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadClientConfig } from '../../client/src';

const SECRET = 'c3ZjLWFwaS10ZXN0LXNlY3JldC1mb3ItdGVzdHMtb25seS0wMQ';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-client-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(doc: unknown, mode: number): string {
  const path = join(dir, 'client.json');
  writeFileSync(path, JSON.stringify(doc));
  chmodSync(path, mode);
  return path;
}

describe('loadClientConfig', () => {
  it('reads the environment', () => {
    const env = { SVC_BASE_URL: 'http://127.0.0.1:8080/svc/', SVC_CLIENT_ID: 'svc-api', SVC_CLIENT_SECRET: SECRET };
    expect(loadClientConfig({ env })).toEqual({ baseUrl: 'http://127.0.0.1:8080/svc', clientId: 'svc-api', secret: SECRET });
  });

  it('file < environment < object', () => {
    const path = file({ baseUrl: 'http://file/svc', clientId: 'from-file', secret: SECRET }, 0o600);
    const config = loadClientConfig({ file: path, env: { SVC_CLIENT_ID: 'from-env' }, config: { baseUrl: 'http://object/svc' } });
    expect(config).toEqual({ baseUrl: 'http://object/svc', clientId: 'from-env', secret: SECRET });
  });

  it('takes the file from SVC_CLIENT_CONFIG', () => {
    const path = file({ baseUrl: 'http://file/svc' }, 0o644);
    expect(loadClientConfig({ env: { SVC_CLIENT_CONFIG: path } }).baseUrl).toBe('http://file/svc');
  });

  it('refuses a secret in a file others can read', () => {
    const path = file({ baseUrl: 'http://file/svc', clientId: 'svc-api', secret: SECRET }, 0o644);
    expect(() => loadClientConfig({ file: path, env: false })).toThrow(/readable by others/);
  });

  it('names what is wrong', () => {
    expect(() => loadClientConfig({ env: false })).toThrow(/baseUrl is required/);
    expect(() => loadClientConfig({ env: false, config: { baseUrl: 'http://x/svc', secret: SECRET } })).toThrow(/needs its clientId/);
    expect(() => loadClientConfig({ env: false, file: file({ baseUrl: 'http://x', extra: 1 }, 0o600) })).toThrow(/unknown member extra/);
  });
});
