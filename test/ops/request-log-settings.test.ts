/**
 * `log.requests` on every process (issue 27 item 7): all (the default) logs a line per request,
 * errors only answers of 400 and more, sampled a share of them, none no request line; audit lines
 * are never affected. Real core, gateway and portal, their log lines captured.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { LogSettings } from '../../common/src/request-log-settings';
import { startTestServer } from '../helpers/core-server';
import { startTestGateway } from '../gateway/gateway-helpers';
import { startTestPortal } from '../portal/portal-helpers';

/** A logger whose JSON lines land in `lines`. */
function capturing(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, destination), lines };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const requestLines = (lines: Array<Record<string, unknown>>) => lines.filter((line) => line.msg === 'request').map((line) => line.status);

describe('the core', () => {
  /** Statuses of the request lines for a 200, a 401 and a 404, and whether a failed login's audit line was written. */
  async function logged(log?: Partial<LogSettings>): Promise<{ statuses: unknown[]; audited: boolean }> {
    const { logger, lines } = capturing();
    const server = await startTestServer({ logger, configure: log ? (doc) => void (doc.log = log) : undefined });
    try {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/resources/contexts/employees/subjects/bob`)).status).toBe(401);
      expect((await fetch(`${server.baseUrl}/no-such-thing`)).status).toBe(404);
      await fetch(`${server.baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'clientid=svc-web&user=alice&password=wrong' });
      await settle();
      return { statuses: requestLines(lines), audited: lines.some((line) => line.audit === true && line.outcome === 'failure') };
    } finally {
      await server.stop();
    }
  }

  test('all, the default: one line per request', async () => {
    const { statuses, audited } = await logged();
    expect(statuses.slice(0, 3)).toEqual([200, 401, 404]);
    expect(audited).toBe(true);
  });

  test('errors: only answers of 400 and more; the audit line stays', async () => {
    const { statuses, audited } = await logged({ requests: 'errors' });
    expect(statuses.slice(0, 2)).toEqual([401, 404]);
    expect(statuses).not.toContain(200);
    expect(audited).toBe(true);
  });

  test('none: no request line, the audit line stays; sampled at the smallest rate logs (almost surely) none, at 1 all', async () => {
    expect(await logged({ requests: 'none' })).toEqual({ statuses: [], audited: true });
    expect(await logged({ requests: 'sampled', sampleRate: 1e-12 })).toEqual({ statuses: [], audited: true });
    expect((await logged({ requests: 'sampled', sampleRate: 1 })).statuses.slice(0, 3)).toEqual([200, 401, 404]);
  });
});

test('the gateway: a line per request by default, none with log.requests "none", errors with "errors"', async () => {
  for (const [log, expected] of [[undefined, [200, 401]], [{ requests: 'none' }, []], [{ requests: 'errors' }, [401]]] as const) {
    const { logger, lines } = capturing();
    const gateway = await startTestGateway(['http://127.0.0.1:9/svc'], log ? { log: { requests: log.requests, sampleRate: 0.01 } } : {}, { logger });
    try {
      expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
      expect((await fetch(`${gateway.baseUrl}/api/session`)).status).toBe(401);
      await settle();
      expect(requestLines(lines)).toEqual(expected);
      if (expected.length) expect(lines.find((line) => line.msg === 'request' && line.status === 401)).toMatchObject({ method: 'GET', path: '/gw/api/session', route: 'unmatched' });
    } finally {
      await gateway.close();
    }
  }
});

test('the portal: a line per request by default, only errors with log.requests "errors"', async () => {
  const pages = [{ id: 'home', title: 'Home', windows: [{ id: 'a', portlet: 'counter' }] }];
  for (const [log, expected] of [[undefined, [302, 404]], [{ requests: 'errors' }, [404]], [{ requests: 'none' }, []]] as const) {
    const { logger, lines } = capturing();
    const portal = await startTestPortal({ pages, ...(log ? { log } : {}) }, undefined, { logger });
    try {
      expect((await fetch(`${portal.baseUrl}/`, { redirect: 'manual' })).status).toBe(302);
      expect((await fetch(`${portal.baseUrl}/no-such-page`)).status).toBe(404);
      await settle();
      expect(requestLines(lines)).toEqual(expected);
    } finally {
      await portal.stop();
    }
  }
});
