/**
 * The portlets' view of svc: the few operations they perform, as typed calls over the portal's
 * gateway client (gateway-client.ts), which the portal hands every request as an attribute, bound
 * to the portal user or visitor. No portlet holds a session, a secret or an address of its own.
 */
import type { PortletRequest } from '../../api';
import { PortletException } from '../../api';
import type { ContextDefinition } from './definition';

/** The request attribute under which the portal provides the gateway client (SPEC 10.3). */
export const GATEWAY_ATTRIBUTE = 'svc.gateway';

export type AttributeValue = string | string[];
export type Attributes = Record<string, AttributeValue>;

export interface Subject {
  uniqueId: string;
  attributes: Attributes;
}

export interface SearchPage {
  results: Subject[];
  offset: number;
  quantity: number;
  total: number;
}

export interface GatewayCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Under `{gw}/api`, e.g. `/contexts/employees/subjects/bob`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface GatewayAnswer {
  status: number;
  /** The parsed JSON body; undefined for 204. */
  body: unknown;
  etag?: string;
}

/** What a portlet needs of the gateway client: one signed JSON call; problem answers throw typed errors. */
export interface PortletGateway {
  call(call: GatewayCall): Promise<GatewayAnswer>;
}

const seg = encodeURIComponent;
const subjectPath = (context: string, subject: string) => `/contexts/${seg(context)}/subjects/${seg(subject)}`;

export interface AccessQuestion {
  action: 'CREATE' | 'READ' | 'UPDATE' | 'DELETE' | 'SEARCH';
  resource: { type: 'subjects' | 'subject' | 'subject.password' | 'subject.lockout'; id: string };
}

/** svc's operations as the current portal user or visitor. */
export class Svc {
  constructor(private readonly gateway: PortletGateway) {}

  async context(contextId: string): Promise<ContextDefinition> {
    const answer = await this.gateway.call({ method: 'GET', path: `/contexts/${seg(contextId)}` });
    return (answer.body as { context: ContextDefinition }).context;
  }

  async read(contextId: string, uniqueId: string): Promise<{ subject: Subject; etag?: string }> {
    const answer = await this.gateway.call({ method: 'GET', path: subjectPath(contextId, uniqueId) });
    return { subject: (answer.body as { subject: Subject }).subject, etag: answer.etag };
  }

  async search(contextId: string, query: { search?: string; filter?: string; offset: number; quantity: number }): Promise<SearchPage> {
    const answer = await this.gateway.call({
      method: 'GET',
      path: `/contexts/${seg(contextId)}/subjects`,
      query: { search: query.search || undefined, filter: query.filter || undefined, offset: String(query.offset), quantity: String(query.quantity) },
    });
    return answer.body as SearchPage;
  }

  async create(contextId: string, uniqueId: string, attributes: Record<string, AttributeValue>): Promise<Subject> {
    const answer = await this.gateway.call({ method: 'POST', path: `/contexts/${seg(contextId)}/subjects`, body: { subject: { uniqueId, attributes } } });
    return (answer.body as { subject: Subject }).subject;
  }

  /** `etag` makes a repeated or stale form fail with 412 instead of writing twice. */
  async update(contextId: string, uniqueId: string, attributes: Record<string, AttributeValue | null>, etag: string | undefined): Promise<Subject> {
    const headers = etag ? { 'If-Match': etag } : undefined;
    const answer = await this.gateway.call({ method: 'PUT', path: subjectPath(contextId, uniqueId), body: { subject: { attributes } }, headers });
    return (answer.body as { subject: Subject }).subject;
  }

  async remove(contextId: string, uniqueId: string): Promise<void> {
    await this.gateway.call({ method: 'DELETE', path: subjectPath(contextId, uniqueId) });
  }

  async liftLockout(contextId: string, uniqueId: string): Promise<void> {
    await this.gateway.call({ method: 'DELETE', path: `${subjectPath(contextId, uniqueId)}/lockout` });
  }

  async changePassword(contextId: string, uniqueId: string, oldPassword: string, newPassword: string): Promise<void> {
    await this.gateway.call({ method: 'PUT', path: `${subjectPath(contextId, uniqueId)}/password`, body: { oldPassword, newPassword } });
  }

  async forgotQuestions(contextId: string, name: string): Promise<string[]> {
    const answer = await this.gateway.call({ method: 'GET', path: `${subjectPath(contextId, name)}/password/forgot` });
    return (answer.body as { questions: string[] }).questions;
  }

  async forgotAnswers(contextId: string, name: string, answers: string[]): Promise<void> {
    await this.gateway.call({ method: 'PUT', path: `${subjectPath(contextId, name)}/password/forgot`, body: { answers } });
  }

  async forgotReset(contextId: string, name: string, password: string): Promise<void> {
    await this.gateway.call({ method: 'PUT', path: `${subjectPath(contextId, name)}/password/forgot`, body: { password } });
  }

  /** One AuthZEN batch; an item the core could not answer (an error) counts as a refusal. */
  async evaluate(questions: readonly AccessQuestion[]): Promise<boolean[]> {
    if (questions.length === 0) return [];
    const evaluations = questions.map((q) => ({ action: { name: q.action }, resource: q.resource }));
    const answer = await this.gateway.call({ method: 'POST', path: '/access/v1/evaluations', body: { evaluations } });
    const results = (answer.body as { evaluations?: Array<{ decision?: unknown }> }).evaluations ?? [];
    return questions.map((_q, i) => results[i]?.decision === true);
  }
}

/** The svc operations for this request, through the gateway client the portal provides. */
export function svcOf(request: PortletRequest): Svc {
  const gateway = request.getAttribute(GATEWAY_ATTRIBUTE) as PortletGateway | null | undefined;
  if (!gateway || typeof gateway.call !== 'function') throw new PortletException('the portal provides no gateway client');
  return new Svc(gateway);
}
