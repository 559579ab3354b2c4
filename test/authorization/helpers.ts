import { SvcError } from '../../common/src/errors';
import type { TestServer } from '../helpers/core-server';

/** The principals the authorization suites act as. */
export type Who = 'ANON' | 'BOB' | 'ALICE' | 'SYSTEM';
export const WHO: readonly Who[] = ['ANON', 'BOB', 'ALICE', 'SYSTEM'];

/** A live session of each kind, made directly by the session manager (no login round trip). */
export async function sessionCookies(server: TestServer): Promise<Record<Who, string>> {
  const make = async (input: Parameters<TestServer['core']['sessions']['create']>[0]) => `SVCSESSIONID=${(await server.core.sessions.create(input)).cookieValue}`;
  return {
    ANON: await make({ type: 'ANON', clientId: '', principal: null, level: 0, authenticator: 'anonymous' }),
    BOB: await make({ type: 'USER', clientId: 'svc-web', principal: { uniqueId: 'bob', contextId: 'employees' }, level: 2, authenticator: 'employees-password' }),
    ALICE: await make({ type: 'USER', clientId: 'svc-web', principal: { uniqueId: 'alice', contextId: 'employees' }, level: 2, authenticator: 'employees-password' }),
    SYSTEM: await make({ type: 'SYSTEM', clientId: 'svc-web', principal: { uniqueId: 'svcadmin', contextId: '' }, level: 2, authenticator: 'system' }),
  };
}

/** The contexts and subjects the check properties draw from: each kind of subject, a missing one, a missing context. */
export const CONTEXTS = ['employees', 'customers', 'nowhere'] as const;
export const SUBJECTS = ['alice', 'bob', 'svcadmin', 'ghost', 'Bob'] as const;

/**
 * Replaces the subject service's writes with a stub throwing a distinctive 418
 * (calling `onReached` first): a real request that passes authorization is seen without changing
 * anything. jest.restoreAllMocks() puts the writes back.
 */
export function stubSubjectWrites(server: TestServer, onReached: () => void = () => undefined): void {
  const stub = async (): Promise<never> => {
    onReached();
    // 418: a status no real refusal has (the code must be one of the list: the status tells it apart).
    throw new SvcError(418, 'internal_error', 'Reached the operation');
  };
  jest.spyOn(server.core.subjects, 'create').mockImplementation(stub);
  jest.spyOn(server.core.subjects, 'update').mockImplementation(stub);
  jest.spyOn(server.core.subjects, 'delete').mockImplementation(stub);
}

/** Every subject of every context with its version: equal dumps mean nothing was written. */
export async function dumpStore(server: TestServer): Promise<string> {
  const out: unknown[] = [];
  for (const context of server.core.config.contexts) {
    const { store } = server.core.subjects.context(context.id);
    const page = await store.search(context.id, { offset: 0, quantity: 100_000 });
    out.push([context.id, page.results.map((s) => [s.uniqueId, s.version, s.attributes])]);
  }
  return JSON.stringify(out);
}

export interface Answer {
  status: number;
  decision: string | null;
  authenticate: string | null;
  code?: string;
  body?: Record<string, unknown>;
}

/** One request, its status, decision headers and JSON body (if any). */
export async function call(url: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Answer> {
  const res = await fetch(url, { redirect: 'manual', ...init, headers: { accept: 'application/json', ...init.headers } });
  const text = await res.text();
  let body: Record<string, unknown> | undefined;
  if (text) {
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
  }
  return {
    status: res.status,
    decision: res.headers.get('x-svc-decision'),
    authenticate: res.headers.get('www-authenticate'),
    code: typeof body?.code === 'string' ? body.code : undefined,
    body,
  };
}
