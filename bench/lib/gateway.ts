import { signPrincipalAssertion, ASSERTION_HEADER, type PrincipalName } from '../../common/src/assertion/principal-assertion';
import type { GatewayMemoryReport, GatewayReady } from '../servers/core-shared';
import { withChild } from './child';
import { settle } from './core';
import { memoryOf } from './memory-signal';

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
  /** The gateway process (its CPU time: lib/cpu.ts). */
  pid: number;
  /** Its memory after full GCs and the nonces held (SIGUSR2); only when started with `nodeArgs: ['--expose-gc']`. */
  memory(): Promise<GatewayMemoryReport>;
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

export interface GatewayChildOptions {
  /** `gateway.redis`: its replay cache and core sessions there, at that URL under that prefix. */
  redis?: { url: string; prefix: string };
  /** Node flags (e.g. --expose-gc for `memory()`). */
  nodeArgs?: string[];
  /** Another build's compiled bench folder (`…/dist/bench`): its gateway, to compare with this one in the same run. */
  dir?: string;
}

/**
 * Runs `body` against a fresh gateway process (servers/gateway.ts) forwarding to the core at
 * `coreBase`, stopped afterwards.
 */
export function withGateway<R>(coreBase: string, body: (gateway: GatewayUnderTest) => Promise<R>, options: GatewayChildOptions = {}): Promise<R> {
  const { redis } = options;
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
      pid: child.process.pid!,
      memory: memoryOf<GatewayMemoryReport>(child),
    });
  }, { nodeArgs: options.nodeArgs, dir: options.dir });
}
