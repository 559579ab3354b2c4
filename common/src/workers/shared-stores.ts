/**
 * What `--workers N` requires (SPEC section 12, "Workers"): every store a worker decides with must be
 * shared between processes, or a decision would depend on which worker a request reached (a session
 * known to one worker only, a lockout counter counted per worker, a nonce replayable at the other).
 * Each process lists the stores its configuration uses (server/src/stores-in-use.ts,
 * gateway/src/stores-in-use.ts); this says which of them forbid workers, and how to fix each.
 */

/** One store a process's configuration makes it use. */
export interface StoreInUse {
  /** What is kept there, e.g. `subjects of context "employees"`. */
  what: string;
  /** The setting that chooses it, e.g. `contexts[0].store` or `gateway.redis`. */
  setting: string;
  /** What the setting says, e.g. `sqlite`, or `absent`. */
  kind: string;
  /** Whether every process on the same configuration sees the same store. */
  shared: boolean;
  /** How to share it, e.g. `use "postgres" or "ldap"`. */
  fix: string;
}

/** A start refused: `--workers` with stores that are not shared (each named in the message). */
export class UnsharedStoresError extends Error {
  constructor(
    readonly command: string,
    readonly stores: readonly StoreInUse[],
  ) {
    const lines = stores.map((s) => `  - ${s.what}: ${s.setting} is ${s.kind === 'absent' ? 'absent' : `"${s.kind}"`}, one per process; ${s.fix}`);
    super(`${command} refused: every store must be shared between workers, and these are not:\n${lines.join('\n')}`);
    this.name = 'UnsharedStoresError';
  }
}

/** The error refusing `command` (e.g. `svc server --workers 2`) for `stores`, or none when all are shared. */
export function unsharedStores(command: string, stores: readonly StoreInUse[]): UnsharedStoresError | undefined {
  const unshared = stores.filter((s) => !s.shared);
  return unshared.length ? new UnsharedStoresError(command, unshared) : undefined;
}
