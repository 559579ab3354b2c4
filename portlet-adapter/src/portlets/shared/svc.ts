/**
 * The portlets' view of svc: the few operations they perform, as typed calls over the portal's
 * gateway client (gateway-client.ts), which the portal hands every request as an attribute, bound
 * to the portal user or visitor. No portlet holds a session, a secret or an address of its own.
 */
import type { PrincipalName } from '../../../../common/src/principal-name';
import type { PortletRequest } from '../../api';
import { PortletException } from '../../api';
import { apiPath, GATEWAY_ATTRIBUTE, SECOND_FACTOR_PAGE_ATTRIBUTE, type Decision, type Evaluation, type SvcGateway } from '../../gateway-client';
import type { SubjectEventPage } from '../../../../common/src/wire/subject-event';
import { READ_INCLUDES, type OtpState, type ReadInclude, type ReadIncluded } from '../../../../common/src/wire/subject-parts';
import type { ContextDefinition } from './definition';

export type { SubjectEvent, SubjectEventPage } from '../../../../common/src/wire/subject-event';
export type { LockoutState, MailPending, OtpState } from '../../../../common/src/wire/subject-parts';

export type AttributeValue = string | string[];
export type Attributes = Record<string, AttributeValue>;

export interface Subject {
  uniqueId: string;
  attributes: Attributes;
}

/** What `include=status` adds to a SEARCH result the caller may READ the `…/lockout` of (SPEC 3). */
export interface SubjectStatus {
  disabled: boolean;
  locked: boolean;
  /** ISO 8601; null: locked with no end, or not locked. */
  lockedUntil: string | null;
}

export interface SearchResult extends Subject {
  status?: SubjectStatus;
}

export interface SearchQuery {
  search?: string;
  filter?: string;
  /** `uniqueId` or a search attribute of the context; absent: uniqueId. */
  sort?: string;
  order?: 'asc' | 'desc';
  offset: number;
  quantity: number;
  /** Each result's status (locked, disabled), from the core's one batch per page. */
  includeStatus?: boolean;
}

export interface SearchPage {
  results: SearchResult[];
  offset: number;
  quantity: number;
  total: number;
}

export type AccessQuestion = Evaluation;

/** An enrollment's secret (base32) and its `otpauth://` URI, answered once. */
export interface OtpEnrollment {
  secret: string;
  uri: string;
}

const subjectPath = (context: string, subject: string, ...rest: string[]) => apiPath('contexts', context, 'subjects', subject, ...rest);

/** svc's operations as the current portal user or visitor. */
export class Svc {
  constructor(private readonly gateway: SvcGateway) {}

  async context(contextId: string): Promise<ContextDefinition> {
    return (await this.gateway.get<{ context: ContextDefinition }>(apiPath('contexts', contextId))).body!.context;
  }

  /**
   * The subject, and in the same request the parts asked for (core's READ `include`) that the user may
   * read, each as its own route answers it: `otp`, whether it has a second factor; `mail`, a pending
   * address change (SPEC 16); `lockout`, GET …/lockout; `events`, its newest 20 events. A part the
   * user may not read is absent.
   */
  async read(contextId: string, uniqueId: string, options: { [P in ReadInclude]?: boolean } = {}): Promise<{ subject: Subject; etag?: string } & ReadIncluded> {
    const include = READ_INCLUDES.filter((part) => options[part]).join(',');
    const answer = await this.gateway.get<{ subject: Subject } & ReadIncluded>(subjectPath(contextId, uniqueId), include ? { include } : undefined);
    const { subject, otp, mailPending, lockout, events } = answer.body!;
    return { subject, etag: answer.headers.etag, ...(otp && { otp }), ...(mailPending !== undefined && { mailPending }), ...(lockout && { lockout }), ...(events && { events }) };
  }

  async search(contextId: string, query: SearchQuery): Promise<SearchPage> {
    const answer = await this.gateway.get<SearchPage>(apiPath('contexts', contextId, 'subjects'), searchParameters(query));
    return answer.body!;
  }

  /** A subject's events, newest first (SPEC 10.4). */
  async events(contextId: string, uniqueId: string, offset: number, quantity: number): Promise<SubjectEventPage> {
    return (await this.gateway.get<SubjectEventPage>(subjectPath(contextId, uniqueId, 'events'), { offset, quantity })).body!;
  }

  async create(contextId: string, uniqueId: string, attributes: Record<string, AttributeValue>): Promise<Subject> {
    return (await this.gateway.post<{ subject: Subject }>(apiPath('contexts', contextId, 'subjects'), { subject: { uniqueId, attributes } })).body!.subject;
  }

  /** A visitor's registration: the subject, or, in a context that verifies addresses (SPEC 16), `verification_sent` whatever happened. */
  async register(contextId: string, uniqueId: string, attributes: Record<string, AttributeValue>): Promise<Subject | { status: 'verification_sent' }> {
    const body = (await this.gateway.post<{ subject: Subject } | { status: 'verification_sent' }>(apiPath('contexts', contextId, 'subjects'), { subject: { uniqueId, attributes } })).body!;
    return 'subject' in body ? body.subject : body;
  }

  /** `etag` makes a repeated or stale form fail with 412 instead of writing twice. The subject as written, with its new ETag. */
  async update(contextId: string, uniqueId: string, attributes: Record<string, AttributeValue | null>, etag: string | undefined): Promise<{ subject: Subject; etag?: string }> {
    const answer = await this.gateway.put<{ subject: Subject }>(subjectPath(contextId, uniqueId), { subject: { attributes } }, etag ? { 'If-Match': etag } : undefined);
    return { subject: answer.body!.subject, etag: answer.headers.etag };
  }

  async remove(contextId: string, uniqueId: string): Promise<void> {
    await this.gateway.delete(subjectPath(contextId, uniqueId));
  }

  async liftLockout(contextId: string, uniqueId: string): Promise<void> {
    await this.gateway.delete(subjectPath(contextId, uniqueId, 'lockout'));
  }

  async changePassword(contextId: string, uniqueId: string, oldPassword: string, newPassword: string): Promise<void> {
    await this.gateway.put(subjectPath(contextId, uniqueId, 'password'), { oldPassword, newPassword });
  }

  async forgotQuestions(contextId: string, name: string): Promise<string[]> {
    return (await this.gateway.get<{ questions: string[] }>(subjectPath(contextId, name, 'password', 'forgot'))).body!.questions;
  }

  async forgotAnswers(contextId: string, name: string, answers: string[]): Promise<void> {
    await this.gateway.put(subjectPath(contextId, name, 'password', 'forgot'), { answers });
  }

  async forgotReset(contextId: string, name: string, password: string): Promise<void> {
    await this.gateway.put(subjectPath(contextId, name, 'password', 'forgot'), { password });
  }

  async otpState(contextId: string, uniqueId: string): Promise<OtpState> {
    return (await this.gateway.get<{ otp: OtpState }>(subjectPath(contextId, uniqueId, 'otp'))).body!.otp;
  }

  /** Enrollment, proved by the password (SPEC 15): a new pending secret. */
  async otpEnroll(contextId: string, uniqueId: string, password: string): Promise<OtpEnrollment> {
    return (await this.gateway.post<OtpEnrollment>(subjectPath(contextId, uniqueId, 'otp'), { password })).body!;
  }

  /** The first code confirms the pending secret; the recovery codes are answered this once. */
  async otpConfirm(contextId: string, uniqueId: string, code: string): Promise<string[]> {
    return (await this.gateway.put<{ recoveryCodes: string[] }>(subjectPath(contextId, uniqueId, 'otp'), { code })).body!.recoveryCodes;
  }

  /** One's own factor goes with the password and a code; another's (an admin's removal, at level 3) with no body. */
  async otpRemove(contextId: string, uniqueId: string, proof?: { password: string; code: string }): Promise<void> {
    await this.gateway.request({ method: 'DELETE', path: subjectPath(contextId, uniqueId, 'otp'), body: proof });
  }

  /** SPEC 16: a reset link to the subject's address, pointing at `returnTo` (the window); the same answer whatever the name. */
  async requestResetLink(contextId: string, name: string, returnTo: string): Promise<string> {
    return (await this.gateway.post<{ message: string }>(apiPath('contexts', contextId, 'password-reset'), { name, returnTo })).body!.message;
  }

  /** SPEC 16: a reset link's token and the new password. */
  async useResetLink(token: string, password: string): Promise<void> {
    await this.gateway.put(apiPath('password-reset'), { token, password });
  }

  /** SPEC 16: one's address and a pending change. */
  async mail(contextId: string, uniqueId: string): Promise<{ mail: string | null; pending: { mail: string; expires: string } | null }> {
    return (await this.gateway.get<{ mail: string | null; pending: { mail: string; expires: string } | null }>(subjectPath(contextId, uniqueId, 'mail'))).body!;
  }

  /** SPEC 16: one's new address, confirmed by a link mailed there. */
  async changeMail(contextId: string, uniqueId: string, mail: string, password: string): Promise<void> {
    await this.gateway.put(subjectPath(contextId, uniqueId, 'mail'), { mail, password });
  }

  /** One AuthZEN batch for every control of a render; an item the core could not answer is a refusal. */
  evaluate(questions: readonly AccessQuestion[]): Promise<boolean[]> {
    return this.gateway.evaluations(questions);
  }

  /**
   * The same batch, a denial that only a step-up would lift told apart (`step_up`, SPEC 15): such a
   * control is shown as a link to the step-up. A portal whose client predates decisions: allow or deny.
   */
  async decide(questions: readonly AccessQuestion[]): Promise<Decision[]> {
    if (typeof this.gateway.decisions === 'function') return this.gateway.decisions(questions);
    return (await this.gateway.evaluations(questions)).map((allowed) => (allowed ? 'allow' : 'deny'));
  }
}

/** A SEARCH's query parameters, as the core reads them (SPEC 3); empty ones left out. */
export function searchParameters(query: Partial<SearchQuery>): Record<string, string | number | undefined> {
  return {
    search: query.search || undefined,
    filter: query.filter || undefined,
    sort: query.sort || undefined,
    order: query.order === 'desc' ? 'desc' : undefined,
    offset: query.offset,
    quantity: query.quantity,
    include: query.includeStatus ? 'status' : undefined,
  };
}

/**
 * The path, under the portal's REST pass-through (`{portal}/api`, SPEC 10.3), of the CSV of every
 * subject a search matches in its order: the core's `text/csv` SEARCH (`format=csv`, so a plain link
 * asks for it), streamed through the gateway and the pass-through with its Content-Disposition.
 */
export function csvExportPath(contextId: string, query: Pick<SearchQuery, 'search' | 'filter' | 'sort' | 'order'>): string {
  const parameters = new URLSearchParams();
  const { search, filter, sort, order } = query;
  for (const [name, value] of Object.entries(searchParameters({ search, filter, sort, order }))) if (value !== undefined) parameters.set(name, String(value));
  parameters.set('format', 'csv');
  return `api${apiPath('contexts', contextId, 'subjects')}?${parameters.toString()}`;
}

/**
 * The svc subject this request acts for: the principal the portal bound its gateway client to,
 * structured (never parsed back out of the portal principal's name); null for a visitor, or when the
 * portal provides no client.
 */
export function svcUserOf(request: PortletRequest): PrincipalName | null {
  const gateway = request.getAttribute(GATEWAY_ATTRIBUTE) as SvcGateway | null;
  return gateway?.principal?.user ?? null;
}

/** The page where the portal shows this user how to turn two-step sign-in on (Self-Service, SPEC 15); undefined when it says none. */
export function secondFactorPageOf(request: PortletRequest): string | undefined {
  const page = request.getAttribute(SECOND_FACTOR_PAGE_ATTRIBUTE);
  return typeof page === 'string' ? page : undefined;
}

/** The svc operations for this request, through the gateway client the portal provides. */
export function svcOf(request: PortletRequest): Svc {
  const gateway = request.getAttribute(GATEWAY_ATTRIBUTE) as SvcGateway | null;
  // By shape, not instanceof: a portlet package may bring its own copy of the client module.
  if (typeof gateway?.request !== 'function' || typeof gateway.evaluations !== 'function') throw new PortletException('the portal provides no gateway client');
  return new Svc(gateway);
}
