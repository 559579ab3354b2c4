/**
 * A connection to the core (seed 5.3): opened in one of three kinds, XML on the wire, one session
 * cookie, and one transparent re-login when the server says the session is gone.
 *
 * @example
 *   const conn = await Connection.open({ kind: 'password', user: 'alice', password }, { config: { baseUrl, clientId: 'svc-web' } });
 *   const bob = await conn.get('bob');
 *   if (await conn.isAllowed('DELETE', 'bob')) await conn.delete('bob');
 *   await conn.close();
 */
import { ClientSealer } from './clientcred/sealer';
import { loadClientConfig, validateClientConfig, type ClientConfig, type ConfigSources } from './config';
import { decodeCheck, decodeContexts, decodeEvents, decodeProblem, decodeRead, decodeSearch, decodeSession, decodeSubject } from './decode';
import { SvcSessionError, clientFailure, errorFromProblem, type SvcClientError } from './errors';
import { HttpTransport, type TransportOptions, type WireRequest, type WireResponse } from './http-transport';
import { MEDIA } from '../../common/src/wire/media';
import { checkCredentials, loginForm, type Credentials } from './login';
import { OPERATIONS, type AttributeChanges, type CheckDecision, type ConnectionKind, type ContextInfo, type MailStatus, type Operation, type ReadOptions, type SearchPage, type SearchQuery, type SessionInfo, type Subject, type SubjectEventPage, type SubjectRead, type VerificationSent } from './types';

export interface ConnectionOptions extends TransportOptions {
  /** The configuration, or where to read it; default: the environment (see config.ts). */
  config?: ClientConfig | ConfigSources;
  /** The context to start in; default the one the server marks default, else the first listed. */
  contextId?: string;
}

/** What a caller may persist to carry a session over to another process (the CLI). Secret: the cookie. */
export interface SavedSession {
  kind: Credentials['kind'];
  baseUrl: string;
  clientId?: string;
  cookie: string;
  contextId: string;
}

const SESSION_CODES = new Set(['authentication_required', 'session_expired']);
const seg = encodeURIComponent;

export class Connection {
  readonly kind: ConnectionKind;
  readonly config: ClientConfig;
  readonly #transport: HttpTransport;
  readonly #credentials: Credentials | undefined;
  readonly #sealer: ClientSealer | undefined;
  #contexts: ContextInfo[] = [];
  #contextId = '';
  /** Bumped by every login, so concurrent requests refused for one dead session log in once. */
  #generation = 0;
  #reopening: Promise<void> | undefined;
  #closed = false;

  private constructor(config: ClientConfig, credentials: Credentials | undefined, options: ConnectionOptions, resumedKind: ConnectionKind = 'anonymous') {
    this.config = config;
    this.kind = credentials?.kind ?? resumedKind;
    this.#credentials = credentials;
    // PBKDF2 runs once per connection, not per login; a certificate login seals nothing.
    this.#sealer = config.secret !== undefined && config.clientId !== undefined && credentials?.kind !== 'certificate' ? new ClientSealer(config.clientId, config.secret) : undefined;
    const tls = credentials?.kind === 'certificate' ? { ...options.tls, cert: credentials.cert, key: credentials.key, ...(credentials.ca ? { ca: credentials.ca } : {}) } : options.tls;
    this.#transport = new HttpTransport(config.baseUrl, { ...options, tls });
  }

  /** Logs in (POST {base}/login) and selects the starting context. */
  static async open(credentials: Credentials, options: ConnectionOptions = {}): Promise<Connection> {
    const config = resolveConfig(options.config);
    checkCredentials(credentials, config);
    const conn = new Connection(config, credentials, options);
    try {
      await conn.#login();
      await conn.#selectContext(options.contextId);
    } catch (error) {
      await conn.#transport.close();
      throw error;
    }
    return conn;
  }

  /** Continues a saved session. It holds no credentials, so it cannot log in again: an ended session is a SvcSessionError. */
  static async resume(saved: SavedSession, options: Omit<ConnectionOptions, 'config'> = {}): Promise<Connection> {
    const config = validateClientConfig({ baseUrl: saved.baseUrl, clientId: saved.clientId });
    const conn = new Connection(config, undefined, options, saved.kind);
    conn.#transport.sessionCookie = saved.cookie;
    try {
      await conn.#selectContext(options.contextId ?? saved.contextId);
    } catch (error) {
      await conn.#transport.close();
      throw error;
    }
    return conn;
  }

  /** The current context id: where get, search, create, update, delete and the check go. */
  get contextId(): string {
    return this.#contextId;
  }

  /** Switches context; only to one of `availableContexts` (TypeError otherwise). */
  set contextId(id: string) {
    if (!this.#contexts.some((c) => c.id === id)) throw new TypeError(`svc client: context "${id}" is not available to this client (${this.availableContexts.join(', ')})`);
    this.#contextId = id;
  }

  /** The context ids listed when the connection opened (see `contexts()` for a fresh list). */
  get availableContexts(): string[] {
    return this.#contexts.map((c) => c.id);
  }

  /** The session to persist; it holds the cookie, a credential: store it readable by its owner only. */
  exportSession(): SavedSession {
    const cookie = this.#transport.sessionCookie;
    if (cookie === undefined) throw new TypeError('svc client: the connection has no session');
    return { kind: this.kind, baseUrl: this.config.baseUrl, ...(this.config.clientId ? { clientId: this.config.clientId } : {}), cookie, contextId: this.#contextId };
  }

  /** The session structure (GET {base}/resources/session). */
  async session(): Promise<SessionInfo> {
    return decodeSession((await this.#call({ method: 'GET', path: '/resources/session' }, [200])).document);
  }

  /** The contexts this client may use (GET {base}/resources/contexts). */
  async contexts(): Promise<ContextInfo[]> {
    this.#contexts = decodeContexts((await this.#call({ method: 'GET', path: '/resources/contexts' }, [200])).document);
    return this.#contexts.map((c) => ({ ...c }));
  }

  /** READ; `include` adds parts of the subject the session may read (otp, mail, lockout, events), in the same request. */
  async get(subjectId: string, options: ReadOptions = {}): Promise<SubjectRead> {
    const include = options.include?.length ? options.include.join(',') : undefined;
    if (include === undefined) return withEtag(await this.#call({ method: 'GET', path: this.#subjectPath(subjectId) }, [200]));
    const res = await this.#call({ method: 'GET', path: this.#subjectPath(subjectId), query: { include } }, [200]);
    const etag = res.headers.etag;
    return { ...decodeRead(res.document), ...(typeof etag === 'string' && { etag }) };
  }

  async search(query: SearchQuery = {}): Promise<SearchPage> {
    const { search, filter, sort, order, offset, quantity } = query;
    return decodeSearch((await this.#call({ method: 'GET', path: this.#subjectsPath(), query: { search, filter, sort, order, offset, quantity } }, [200])).document);
  }

  /**
   * Every subject the query selects as RFC 4180 CSV (SEARCH with `Accept: text/csv`), in chunks of
   * text as they arrive: the server streams it, and so can the caller (to a file, to stdout).
   */
  async *searchCsv(query: Omit<SearchQuery, 'offset' | 'quantity'> = {}): AsyncGenerator<string> {
    const { search, filter, sort, order } = query;
    const headers = { accept: `text/csv, ${MEDIA.problemXml}` };
    const res = await this.#call({ method: 'GET', path: this.#subjectsPath(), query: { search, filter, sort, order }, headers, stream: 'text/csv' }, [200]);
    if (!res.stream) throw clientFailure('bad_response', 'the server did not answer text/csv', res.status);
    const decoder = new TextDecoder();
    for await (const chunk of res.stream) yield decoder.decode(chunk, { stream: true });
    const rest = decoder.decode();
    if (rest) yield rest;
  }

  /** A subject's events, newest first (GET …/subjects/{s}/events). */
  async events(subjectId: string, page: { offset?: number; quantity?: number } = {}): Promise<SubjectEventPage> {
    return decodeEvents((await this.#call({ method: 'GET', path: `${this.#subjectPath(subjectId)}/events`, query: { offset: page.offset, quantity: page.quantity } }, [200])).document);
  }

  async create(subject: Subject): Promise<Subject> {
    const body = { subject: { uniqueId: subject.uniqueId, attributes: subject.attributes } };
    return withEtag(await this.#call({ method: 'POST', path: this.#subjectsPath(), body }, [201]));
  }

  /**
   * A visitor's registration (an anonymous connection): the subject, or, in a context that verifies
   * addresses (SPEC 16), `{status: "verification_sent"}` whether the address was new or taken.
   */
  async register(subject: Subject): Promise<Subject | VerificationSent> {
    const body = { subject: { uniqueId: subject.uniqueId, attributes: subject.attributes } };
    const res = await this.#call({ method: 'POST', path: this.#subjectsPath(), body }, [201, 202]);
    if (res.status === 201) return withEtag(res);
    return { status: 'verification_sent' };
  }

  /**
   * SPEC 16: asks for a reset link to the address of `name` (resolved as login resolves a name) in
   * the current context; the server's sentence, the same whatever the name. `returnTo`: a page of an
   * origin in the core's `mail.linkOrigins` the link points at instead of the core's own page.
   */
  async requestPasswordReset(name: string, options: { returnTo?: string } = {}): Promise<string> {
    const body = { passwordReset: { name, ...(options.returnTo ? { returnTo: options.returnTo } : {}) } };
    return messageOf((await this.#call({ method: 'POST', path: `/resources/contexts/${seg(this.#contextId)}/password-reset`, body }, [202])).document, 'passwordReset');
  }

  /** SPEC 16: a reset link's token and the new password (SvcValidationError `invalid_token` or `weak_password`). */
  async resetPassword(token: string, password: string): Promise<void> {
    await this.#call({ method: 'PUT', path: '/resources/password-reset', body: { passwordReset: { token, password } } }, [204]);
  }

  /** SPEC 16: a verification or address-change link's token. */
  async verifyEmail(token: string): Promise<void> {
    await this.#call({ method: 'POST', path: '/resources/email-verification', body: { emailVerification: { token } } }, [204]);
  }

  /** SPEC 16: a new verification link for an unverified registrant of the current context; the same answer whatever the name. */
  async resendVerification(name: string): Promise<string> {
    return messageOf((await this.#call({ method: 'POST', path: `/resources/contexts/${seg(this.#contextId)}/email-verification`, body: { emailVerification: { name } } }, [202])).document, 'emailVerification');
  }

  /** SPEC 16: one's own new address, proved by the password; it changes when the link mailed there is followed. */
  async changeMail(subjectId: string, mail: string, password: string): Promise<void> {
    await this.#call({ method: 'PUT', path: `${this.#subjectPath(subjectId)}/mail`, body: { mail: { mail, password } } }, [202]);
  }

  /** SPEC 16: a subject's address and a change waiting for its link. */
  async mail(subjectId: string): Promise<MailStatus> {
    const doc = (await this.#call({ method: 'GET', path: `${this.#subjectPath(subjectId)}/mail` }, [200])).document as Record<string, unknown> | undefined;
    const inner = (doc && typeof doc.mail === 'object' && doc.mail !== null && !Array.isArray(doc.mail) ? doc.mail : doc) as Record<string, unknown> | undefined;
    const pending = inner?.pending as Record<string, unknown> | null | undefined;
    return {
      mail: typeof inner?.mail === 'string' ? inner.mail : null,
      pending: pending && typeof pending === 'object' && typeof pending.mail === 'string' ? { mail: pending.mail, expires: String(pending.expires) } : null,
    };
  }

  /** Replaces the attributes given (`null` removes one); `ifMatch` (an ETag from get) guards against lost updates. */
  async update(subjectId: string, changes: AttributeChanges, options: { ifMatch?: string } = {}): Promise<Subject> {
    const headers = options.ifMatch === undefined ? undefined : { 'if-match': options.ifMatch };
    return withEtag(await this.#call({ method: 'PUT', path: this.#subjectPath(subjectId), body: { subject: { attributes: changes } }, headers }, [200]));
  }

  async delete(subjectId: string): Promise<void> {
    await this.#call({ method: 'DELETE', path: this.#subjectPath(subjectId) }, [204]);
  }

  /**
   * The check (seed 4.1, form 3: GET with ?isAllowed=OP): would the operation be allowed now?
   * CREATE and SEARCH address the collection, READ, UPDATE and DELETE a subject. Nothing is performed.
   */
  async check(operation: Operation, subjectId?: string): Promise<CheckDecision> {
    if (!OPERATIONS.includes(operation)) throw new TypeError(`svc client: unknown operation ${String(operation)}`);
    const path = subjectId === undefined ? this.#subjectsPath() : this.#subjectPath(subjectId);
    const deny = (r: WireResponse) => decisionHeader(r) === 'DENY' && !isSessionProblem(r);
    const res = await this.#call({ method: 'GET', path, query: { isAllowed: operation } }, [200], deny);
    return decodeCheck(res.document);
  }

  /** `check(...).allowed`: 200 ALLOW is true; a 401/403 DENY is false; anything else throws. */
  async isAllowed(operation: Operation, subjectId?: string): Promise<boolean> {
    return (await this.check(operation, subjectId)).allowed;
  }

  /** Logs out (POST {base}/logout) and releases the sockets. Safe to call twice. */
  async close(): Promise<void> {
    try {
      if (this.#transport.sessionCookie !== undefined && !this.#closed) {
        const res = await this.#transport.send({ method: 'POST', path: '/logout', form: {} });
        // An already ended session has nothing left to end; any other refusal is reported.
        if (res.status >= 400 && !isSessionProblem(res)) throw errorOf(res);
      }
    } finally {
      this.#closed = true;
      this.#transport.sessionCookie = undefined;
      await this.#transport.close();
    }
  }

  /** Releases the sockets and keeps the session alive on the server (after `exportSession`). */
  async detach(): Promise<void> {
    this.#closed = true;
    await this.#transport.close();
  }

  #subjectsPath(): string {
    return `/resources/contexts/${seg(this.#contextId)}/subjects`;
  }

  #subjectPath(subjectId: string): string {
    if (typeof subjectId !== 'string' || subjectId === '') throw new TypeError('svc client: subjectId must be a non-empty string');
    return `${this.#subjectsPath()}/${seg(subjectId)}`;
  }

  async #selectContext(wanted: string | undefined): Promise<void> {
    const contexts = await this.contexts();
    if (wanted !== undefined) this.contextId = wanted;
    else this.#contextId = (contexts.find((c) => c.default) ?? contexts[0])?.id ?? '';
  }

  /**
   * Sends, logs in again once when the session is gone, and turns refusals into typed errors.
   * `accept` says which other answers are results rather than errors (the check's DENY).
   */
  async #call(req: WireRequest, ok: number[], accept: (res: WireResponse) => boolean = () => false): Promise<WireResponse> {
    let retried = false;
    for (;;) {
      await this.#reopening; // a request started during a re-login waits for its session
      const generation = this.#generation;
      const res = await this.#transport.send(req);
      // A logged-in session that the server replaced (an ended one gets a default-client session):
      // the answer was computed for the wrong principal, so a safe request is asked again.
      const replaced = res.cookieReplaced && this.kind !== 'anonymous';
      const gone = isSessionProblem(res) || (replaced && req.method === 'GET');
      if (gone && !retried && this.#credentials) {
        retried = true;
        await this.#reopen(generation);
        continue;
      }
      if (replaced) {
        if (!this.#credentials) throw new SvcSessionError(res.status, 'session_expired', { title: 'Session expired', detail: 'the saved session has ended; log in again' });
        await this.#reopen(generation);
      }
      if (ok.includes(res.status) || accept(res)) return res;
      throw errorOf(res);
    }
  }

  /** One login for all the requests that met the same dead session. */
  async #reopen(generation: number): Promise<void> {
    if (generation !== this.#generation) return;
    this.#reopening ??= this.#login().finally(() => {
      this.#reopening = undefined;
    });
    await this.#reopening;
  }

  async #login(): Promise<void> {
    const credentials = this.#credentials;
    if (!credentials) throw new TypeError('svc client: a resumed session cannot log in');
    // `fresh`: no cookie goes with a login (the old session is dead or about to be), and its answer's
    // cookie wins over any late answer to a request that still carried the old one.
    let res = credentials.kind === 'anonymous' && this.config.clientId === undefined
      ? // No client: the server's default client makes the anonymous session on any request.
        await this.#transport.send({ method: 'GET', path: '/resources/session', fresh: true })
      : await this.#transport.send({ method: 'POST', path: '/login', form: loginForm(this.config, this.#sealer, credentials), fresh: true });
    const second = res.status === 401 && credentials.kind === 'password' && typeof credentials.otp === 'function' ? pendingOf(res) : undefined;
    if (second !== undefined && credentials.kind === 'password' && typeof credentials.otp === 'function') {
      // SPEC 15: the password was right and the subject has a second factor: ask for the code now.
      const form = loginForm(this.config, this.#sealer, credentials, { pending: second, otp: await credentials.otp() });
      res = await this.#transport.send({ method: 'POST', path: '/login', form, fresh: true });
    }
    if (res.status !== 200) throw errorOf(res);
    if (this.#transport.sessionCookie === undefined) throw clientFailure('bad_response', 'the login answer set no session cookie', res.status);
    this.#generation++;
  }
}

function resolveConfig(config: ClientConfig | ConfigSources | undefined): ClientConfig {
  if (config && 'baseUrl' in config && typeof config.baseUrl === 'string') return validateClientConfig(config);
  return loadClientConfig(config as ConfigSources | undefined);
}

/** The typed error of a refusal; a check's DENY for a dead session has no problem body, only its challenge. */
function errorOf(res: WireResponse): SvcClientError {
  if (res.status >= 300 && res.status < 400) return clientFailure('bad_response', `unexpected redirect (${res.status})`, res.status);
  const problem = decodeProblem(res.document, res.status);
  if (typeof problem.code !== 'string' && isSessionProblem(res)) problem.code = 'session_expired';
  // A revoked session is not logged in again (its credentials changed): a HEAD's answer has only the challenge.
  if (typeof problem.code !== 'string' && /error="?session_revoked"?/.test(String(res.headers['www-authenticate'] ?? ''))) problem.code = 'session_revoked';
  return errorFromProblem(res.status, problem);
}

/** The `pending` of an `otp_required` answer (SPEC 15), if it is one. */
function pendingOf(res: WireResponse): string | undefined {
  const problem = decodeProblem(res.document, res.status) as { code?: unknown; pending?: unknown };
  return problem.code === 'otp_required' && typeof problem.pending === 'string' ? problem.pending : undefined;
}

function decisionHeader(res: WireResponse): string | undefined {
  const value = res.headers['x-svc-decision'];
  return Array.isArray(value) ? value[0] : value;
}

/** authentication_required or session_expired, from the problem's code or, for a check's DENY, the challenge. */
function isSessionProblem(res: WireResponse): boolean {
  if (res.status !== 401 && res.status !== 403) return false;
  const problem = res.document?.problem ?? res.document;
  const code = problem && typeof problem === 'object' && !Array.isArray(problem) ? problem.code : undefined;
  if (typeof code === 'string' && SESSION_CODES.has(code)) return true;
  const challenge = res.headers['www-authenticate'];
  return /error="?session_expired"?/.test(Array.isArray(challenge) ? challenge.join(',') : (challenge ?? ''));
}

function withEtag(res: WireResponse): Subject {
  const subject = decodeSubject(res.document);
  const etag = res.headers.etag;
  return typeof etag === 'string' ? { ...subject, etag } : subject;
}

/** The `message` of a 202 answer, in JSON (`{"message"}`) or XML (`<root><message>`). */
function messageOf(doc: unknown, root: string): string {
  const outer = doc as Record<string, unknown> | undefined;
  const inner = (outer && typeof outer[root] === 'object' && outer[root] !== null ? outer[root] : outer) as Record<string, unknown> | undefined;
  if (typeof inner?.message !== 'string') throw clientFailure('bad_response', 'the answer has no message', 202);
  return inner.message;
}
