/**
 * What the workers suites share: configuration files for the real `svc` command, requests each on a
 * connection of its own (node:cluster hands out connections, not requests, so a kept-alive
 * connection would stay on one worker), and which process served a request (its `X-Request-Id` in
 * the request log lines, which carry the pid).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PasswordHasher } from '../../server/src/passwords/password-hasher';
import { testGatewaySection } from '../gateway/gateway-helpers';
import { TEST_HASH, testConfigDocument } from '../helpers/core-server';
import type { Running } from '../helpers/svc-process';

/** Temporary directories of a suite, removed after it. Call inside the describe block. */
export function suiteDirs(): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-workers-'));
    made.push(dir);
    return dir;
  };
}

/** A core configuration file of the test shape (TEST_CREDENTIALS) in `dataDir`, changed by `change`. */
export async function coreConfigFile(dataDir: string, change: (doc: Record<string, unknown>) => void = () => undefined): Promise<string> {
  const doc = await testConfigDocument(dataDir, new PasswordHasher(TEST_HASH));
  change(doc);
  const file = join(dataDir, 'svc.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** A gateway configuration file in `dir` for `cores`, with `redis` as `gateway.redis` when given. */
export function gatewayConfigFile(dir: string, cores: string[], redis?: Record<string, unknown>): string {
  const file = join(dir, 'gateway.json');
  const gateway = { ...testGatewaySection(cores), ...(redis ? { redis } : {}) };
  writeFileSync(file, JSON.stringify({ gateway }));
  return file;
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * One request on a new connection (closed after it), so that the cluster may hand it to any worker.
 * An answer that takes 20 s is an error (a lost connection fails its test instead of hanging it).
 */
export function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: { connection: 'close', ...options.headers }, agent: false, timeout: 20_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 20 s`)));
    req.end(options.body);
  });
}

/** The session cookie's value that an answer sets. */
export function sessionCookie(answer: Answer): string {
  for (const header of answer.headers['set-cookie'] ?? []) {
    const match = /^SVCSESSIONID=([^;]+)/.exec(header);
    if (match) return match[1];
  }
  throw new Error(`no session cookie in an answer ${answer.status}: ${answer.text}`);
}

/** The pid of the process whose request log line has this request id (waits for the line: the log is written asynchronously). */
export async function servedBy(running: Running, answer: Answer): Promise<number> {
  const id = answer.headers['x-request-id'];
  if (typeof id !== 'string') throw new Error('the answer has no X-Request-Id');
  for (let tries = 0; tries < 200; tries++) {
    for (const line of running.log) {
      if (!line.includes(id)) continue;
      const entry = JSON.parse(line) as { reqId?: string; pid: number };
      if (entry.reqId === id) return entry.pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no request log line for ${id}`);
}

/** Resolves once `condition()` holds, polling (a process's exit, a log line). */
export async function eventually(condition: () => boolean | Promise<boolean>, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`still not so after ${tries * 50} ms: ${what}`);
}
