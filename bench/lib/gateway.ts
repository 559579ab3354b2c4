import { signPrincipalAssertion, ASSERTION_HEADER, type PrincipalName } from '../../common/src/assertion/principal-assertion';
import type { GatewayReady } from '../servers/core-shared';
import { withChild } from './child';
import { settle } from './core';

export interface GatewayUnderTest extends GatewayReady {
  /**
   * Headers carrying a fresh `X-Svc-Principal` assertion (new nonce, current time) for one request
   * of `user` through this gateway; the visitor handle is fixed, as for one portal session.
   */
  assertion(user: PrincipalName | null, method: string, pathAndQuery: string): Record<string, string>;
  /**
   * Waits until the gateway has a healthy core again (GET /ready is 200), then until it answers
   * GET /health within 50 ms (see CoreUnderTest.settle). A load generator that stops closes its
   * connections with requests in flight; the gateway currently takes such an aborted answer for a
   * core failure and skips the core until its next /health probe (2 s), answering 502 meanwhile.
   * So this first gives the gateway half a second to notice the closed connections.
   */
  settle(): Promise<void>;
}

const VISITOR = 'bench-portal-session-1';

async function ready(url: string): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    try {
      const response = await fetch(`${url}/ready`);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not answering yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the gateway had no healthy core within 30 s');
}

/**
 * Runs `body` against a fresh gateway process (servers/gateway.ts) forwarding to the core at
 * `coreBase`, stopped afterwards; with `redis`, its replay cache and core sessions are there
 * (`gateway.redis` at that URL, under that prefix).
 */
export function withGateway<R>(coreBase: string, body: (gateway: GatewayUnderTest) => Promise<R>, redis?: { url: string; prefix: string }): Promise<R> {
  const args = ['--core', coreBase, ...(redis ? ['--redis', redis.url, '--prefix', redis.prefix] : [])];
  return withChild<GatewayReady, R>('servers/gateway', args, (child) => {
    const { portal, secret } = child.ready;
    return body({
      ...child.ready,
      assertion: (user, method, pathAndQuery) => ({
        [ASSERTION_HEADER]: signPrincipalAssertion({ portalId: portal, secret, user, visitor: VISITOR, method, pathAndQuery }),
      }),
      settle: async () => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await ready(child.ready.url);
        await settle(child.ready.url);
      },
    });
  });
}
