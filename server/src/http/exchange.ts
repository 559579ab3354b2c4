import type { Request, Response } from 'express';
import type { SvcConfig } from '../config/types';
import type { RequestState } from './request-state';

/** A path's ids as the route's template names them (`:contextId`, `:subjectId`), percent-decoded. */
export type PathIds = Readonly<Record<string, string>> & { readonly contextId?: string; readonly subjectId?: string };

/**
 * One request on its way through its route's steps: what every step and handler receives instead
 * of the whole core. The services a step uses are given to it when the route table is built; what
 * belongs to this request alone is here.
 */
export interface Exchange {
  readonly req: Request;
  readonly res: Response;
  /** The configuration the request is served under, taken once as it arrives: a reload mid-request changes nothing of it. */
  readonly config: SvcConfig;
  /** The path below the context root (`/contexts/employees/subjects/bob`), without the query. */
  readonly path: string;
  /** Where the route was reached: `{root}/resources` or `{root}` for the REST API (its Location headers follow it), else `{root}`. */
  readonly mount: string;
  /** The route's path ids, percent-decoded (the `pathIds` step checks their syntax). */
  readonly ids: PathIds;
  /** The session and peer, set by the `authenticate` step (before it, only `id`). */
  readonly state: RequestState;
  /** Errors are answered as an HTML page (pages, and a browser's form posts): set by the `asPage` step. */
  page: boolean;
}

/**
 * A named step of a route (node-oidc-provider's way: an endpoint is a list of small named steps).
 * A step that answers the request ends it (`res.end`, a redirect); the steps after it do not run.
 * A step that throws has its error answered as problem details (or a page) in one place.
 */
export interface Step {
  readonly name: string;
  run(exchange: Exchange): void | Promise<void>;
  /** The steps it chooses among (by method), for the route table's listing. */
  readonly branches?: Readonly<Record<string, readonly Step[]>>;
}

export const step = (name: string, run: Step['run'], branches?: Step['branches']): Step => ({ name, run, ...(branches ? { branches } : {}) });

/** Runs a route's steps in order until one answers; errors propagate to the caller (the listener answers them). */
export async function runSteps(steps: readonly Step[], exchange: Exchange): Promise<void> {
  for (const { run } of steps) {
    // A step that finishes at once is not awaited: a check passes a dozen steps, most of them synchronous.
    const pending = run(exchange);
    if (pending !== undefined) await pending;
    if (exchange.res.writableEnded) return;
  }
}
