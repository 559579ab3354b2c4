import { randomBytes } from 'node:crypto';
import type { ApplicationSession } from './services';

/**
 * The portlet application's session, held by a portal session (a user's, or a visitor's once
 * something is stored). The portal decides how long it lives; `touch` marks each request.
 */
export class MemoryApplicationSession implements ApplicationSession {
  #id = newId();
  #attributes = new Map<string, unknown>();
  #containerData = new Map<string, unknown>();
  #creationTime: number;
  #lastAccessedTime: number;
  #isNew = true;

  constructor(
    public maxInactiveInterval: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#creationTime = this.#lastAccessedTime = now();
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
  get lastAccessedTime(): number {
    return this.#lastAccessedTime;
  }
  get isNew(): boolean {
    return this.#isNew;
  }

  /** A new request of the same session: no longer new. */
  touch(): void {
    this.#isNew = false;
    this.#lastAccessedTime = this.now();
  }

  invalidate(): void {
    this.#id = newId();
    this.#attributes = new Map();
    this.#containerData = new Map();
    this.#creationTime = this.#lastAccessedTime = this.now();
    this.#isNew = true;
  }
}

/** Not a credential (the portal session's cookie is): an identifier portlets may log. */
function newId(): string {
  return randomBytes(12).toString('base64url');
}
