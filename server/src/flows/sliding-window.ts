import { TooManyRequests } from '../../../common/src/errors';

/**
 * Counts events per key within a sliding window and refuses once a key reaches its limit
 * (429 with Retry-After). Bounded: beyond `maxKeys` the oldest key's count is dropped.
 */
export class SlidingWindow {
  private readonly events = new Map<string, number[]>();

  constructor(private readonly options: { limit: () => number; windowSeconds: () => number; now: () => number; maxKeys?: number }) {}

  /** Throws TooManyRequests when `key` has reached the limit within the window. */
  assertAllowed(key: string, message: string): void {
    const recent = this.recent(key);
    if (recent.length >= this.options.limit()) {
      const retry = Math.max(1, Math.ceil((recent[0] + this.options.windowSeconds() * 1000 - this.options.now()) / 1000));
      throw new TooManyRequests(message, { headers: { 'Retry-After': String(retry) } });
    }
  }

  record(key: string): void {
    const recent = this.recent(key);
    if (!this.events.has(key) && this.events.size >= (this.options.maxKeys ?? 100_000)) this.events.delete(this.events.keys().next().value!);
    recent.push(this.options.now());
    this.events.set(key, recent);
  }

  private recent(key: string): number[] {
    const windowMs = this.options.windowSeconds() * 1000;
    const now = this.options.now();
    return (this.events.get(key) ?? []).filter((t) => now - t < windowMs);
  }
}
