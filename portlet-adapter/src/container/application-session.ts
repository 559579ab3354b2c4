import { randomBytes } from 'node:crypto';
import type { ApplicationSession } from './services';

/** An application session's content as it travels (a visitor's cookie) or is stored. */
export interface ApplicationSessionState {
  id: string;
  created: number;
  attributes: [string, unknown][];
  containerData: [string, unknown][];
}

/**
 * The state and accessors every portlet application session shares; the portal's two kinds differ
 * only in where the session lives (MemoryApplicationSession below, a user's, on the server;
 * VisitorApplicationSession, a visitor's, in its sealed cookie) and in how time passes for it.
 */
export abstract class BaseApplicationSession implements ApplicationSession {
  #id: string;
  #attributes: Map<string, unknown>;
  #containerData: Map<string, unknown>;
  #creationTime: number;
  #isNew: boolean;
  abstract readonly lastAccessedTime: number;

  protected constructor(
    public maxInactiveInterval: number,
    now: number,
    from?: ApplicationSessionState,
  ) {
    this.#id = from?.id ?? newId();
    this.#attributes = new Map(from?.attributes ?? []);
    this.#containerData = new Map(from?.containerData ?? []);
    this.#creationTime = from?.created ?? now;
    this.#isNew = from === undefined;
  }

  get id(): string {
    return this.#id;
  }
  get attributes(): Map<string, unknown> {
    return this.#attributes;
  }
  get containerData(): Map<string, unknown> {
    return this.#containerData;
  }
  get creationTime(): number {
    return this.#creationTime;
  }
  get isNew(): boolean {
    return this.#isNew;
  }

  /** Clears everything and starts a new application session at `now`; the portal session stays. */
  protected restart(now: number): void {
    this.#id = newId();
    this.#attributes = new Map();
    this.#containerData = new Map();
    this.#creationTime = now;
    this.#isNew = true;
  }

  /** Seen again by a later request: no longer new. */
  protected seen(): void {
    this.#isNew = false;
  }

  /** As it travels or is stored. */
  state(): ApplicationSessionState {
    return { id: this.#id, created: this.#creationTime, attributes: [...this.#attributes], containerData: [...this.#containerData] };
  }

  abstract invalidate(): void;
}

/**
 * The portlet application's session, held by a portal session (a user's, or a visitor's once
 * something is stored). The portal decides how long it lives; `touch` marks each request.
 */
export class MemoryApplicationSession extends BaseApplicationSession {
  #lastAccessedTime: number;

  constructor(
    maxInactiveInterval: number,
    private readonly now: () => number = Date.now,
  ) {
    const created = now();
    super(maxInactiveInterval, created);
    this.#lastAccessedTime = created;
  }

  get lastAccessedTime(): number {
    return this.#lastAccessedTime;
  }

  /** A new request of the same session: no longer new. */
  touch(): void {
    this.seen();
    this.#lastAccessedTime = this.now();
  }

  invalidate(): void {
    this.#lastAccessedTime = this.now();
    this.restart(this.#lastAccessedTime);
  }
}

/** Not a credential (the portal session's cookie is): an identifier portlets may log. */
function newId(): string {
  return randomBytes(12).toString('base64url');
}
