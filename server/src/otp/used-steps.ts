/**
 * The last time step accepted per subject (RFC 6238 §5.2, SPEC 15): a code is accepted only for a
 * step later than the last one, on every instance, so a code seen once (over a shoulder, in a log of
 * a proxy) cannot be replayed within its 90 s of validity. Kept where the sessions are: in memory
 * here, in Redis beside a Redis session store (redis-used-steps.ts, one script).
 */
export interface UsedSteps {
  /** Atomically: true and `step` remembered when it is later than the subject's last; else false. */
  accept(subject: string, step: number): Promise<boolean>;
}

/** How long a step is remembered: past it, a code of that step is no longer valid anyway. */
export const USED_STEP_TTL_SECONDS = 5 * 60;

export class MemoryUsedSteps implements UsedSteps {
  private readonly last = new Map<string, { step: number; until: number }>();

  constructor(
    private readonly now: () => number,
    private readonly maxKeys = 100_000,
  ) {}

  async accept(subject: string, step: number): Promise<boolean> {
    const now = this.now();
    const held = this.last.get(subject);
    if (held && held.until > now && held.step >= step) return false;
    if (!held && this.last.size >= this.maxKeys) this.sweep(now);
    this.last.set(subject, { step, until: now + USED_STEP_TTL_SECONDS * 1000 });
    return true;
  }

  private sweep(now: number): void {
    for (const [subject, held] of this.last) if (held.until <= now) this.last.delete(subject);
    // Still full: only subjects that logged in within 5 min are held; the oldest entry goes.
    if (this.last.size >= this.maxKeys) this.last.delete(this.last.keys().next().value!);
  }
}
