/**
 * The exceptions of `javax.portlet`, plus the two `java.lang` ones whose throwing the JSR-168 rules
 * name (`IllegalStateException`, `IllegalArgumentException`), which TypeScript does not have.
 * `instanceof` holds across copies of this API in one process (a portlet's @svc/portlet-api beside
 * the portal's own): common/src/cross-copy-identity.ts.
 */
import { brand, isBranded } from '../../../common/src/cross-copy-identity';

/** `javax.portlet.PortletException`: a portlet failed; the container shows a short message in its window. */
export class PortletException extends Error {
  constructor(message?: string, options?: { cause?: unknown }) {
    super(message ?? 'portlet failure', options);
    this.name = new.target.name;
    brand(this, new.target, PortletException);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(this, value);
  }
}

/**
 * `javax.portlet.UnavailableException`: the portlet cannot serve. Without `seconds` (or with
 * `seconds <= 0`) it is permanent: the container calls `destroy` and takes the portlet out until
 * the portal restarts. With `seconds > 0` the portlet is out for that long only.
 */
export class UnavailableException extends PortletException {
  readonly #seconds: number;

  constructor(message?: string, seconds = 0) {
    super(message ?? 'portlet unavailable');
    this.#seconds = seconds > 0 ? Math.ceil(seconds) : 0;
  }

  isPermanent(): boolean {
    return this.#seconds === 0;
  }

  /** Seconds of temporary unavailability; -1 when permanent (as in JSR-168). */
  getUnavailableSeconds(): number {
    return this.#seconds === 0 ? -1 : this.#seconds;
  }
}

/** A mode the portlet, the window or the portal does not support was asked for. */
export class PortletModeException extends PortletException {
  readonly #mode: string;
  constructor(message: string, mode: { toString(): string }) {
    super(message);
    this.#mode = String(mode);
  }
  getMode(): string {
    return this.#mode;
  }
}

/** A window state the portal does not support was asked for. */
export class WindowStateException extends PortletException {
  readonly #state: string;
  constructor(message: string, state: { toString(): string }) {
    super(message);
    this.#state = String(state);
  }
  getState(): string {
    return this.#state;
  }
}

/** `javax.portlet.PortletSecurityException`: a request the portlet refuses for security reasons. */
export class PortletSecurityException extends PortletException {}

/** A write to a preference the descriptor declares read-only. */
export class ReadOnlyException extends PortletException {}

/** The preferences validator refused `store()`: `getFailedKeys()` names the preferences, nothing was stored. */
export class ValidatorException extends PortletException {
  readonly #failedKeys: readonly string[];
  constructor(message: string, failedKeys: Iterable<string> = []) {
    super(message);
    this.#failedKeys = Object.freeze([...failedKeys]);
  }
  getFailedKeys(): readonly string[] {
    return this.#failedKeys;
  }
}

/** `java.lang.IllegalStateException`: a call not allowed now (e.g. `store()` during render). */
export class IllegalStateException extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
    brand(this, new.target, IllegalStateException);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(this, value);
  }
}

/** `java.lang.IllegalArgumentException`: a caller's argument is unusable (e.g. a null parameter name). */
export class IllegalArgumentException extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
    brand(this, new.target, IllegalArgumentException);
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBranded(this, value);
  }
}
