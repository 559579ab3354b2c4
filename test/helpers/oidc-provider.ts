import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface RunningProvider {
  issuer: string;
  audience: string;
  introspectorSecret: string;
  /** An access token for `sub` minted by the provider (`jwt` signed with its JWKS, or `opaque`). */
  mint(sub: string, format: 'jwt' | 'opaque', ttlSeconds?: number): Promise<string>;
  stop(): Promise<void>;
}

/** Starts test/fixtures/oidc-provider.mjs (a real oidc-provider) as a child process on port 0. */
export async function startOidcProvider(): Promise<RunningProvider> {
  const introspectorSecret = 'introspector-secret-for-tests';
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, '../fixtures/oidc-provider.mjs')], {
    env: { ...process.env, INTROSPECTOR_SECRET: introspectorSecret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`oidc-provider exited with ${code}: ${stderr}`)));
  });
  const { issuer, audience } = JSON.parse(line) as { issuer: string; audience: string };
  return {
    issuer,
    audience,
    introspectorSecret,
    async mint(sub, format, ttlSeconds = 60) {
      const response = await fetch(`${issuer}/mint?sub=${encodeURIComponent(sub)}&format=${format}&ttl=${ttlSeconds}`);
      const text = await response.text();
      if (!response.ok) throw new Error(`mint failed: ${text}`);
      return text;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
