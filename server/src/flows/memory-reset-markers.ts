/**
 * Reset markers in memory, per process (reset-markers.ts has the rules). At most one per subject, and
 * at most `maxKeys` subjects: markers are issued only to visitors who answered a subject's questions,
 * so the table holds real subjects only; past the bound, expired markers go first, then the oldest.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ResetMarkers } from './reset-markers';

export class MemoryResetMarkers implements ResetMarkers {
  private readonly markers = new Map<string, { value: Buffer; expires: number }>();

  constructor(
    private readonly now: () => number,
    private readonly maxKeys = 10_000,
  ) {}

  async issue(subject: string, ttlSeconds: number): Promise<string> {
    const value = randomBytes(16);
    this.markers.delete(subject);
    if (this.markers.size >= this.maxKeys) this.makeRoom();
    this.markers.set(subject, { value, expires: this.now() + ttlSeconds * 1000 });
    return value.toString('base64url');
  }

  async consume(subject: string, value: string): Promise<number | undefined> {
    const marker = this.markers.get(subject);
    if (!marker) return undefined;
    const given = Buffer.from(value, 'base64url');
    if (marker.expires <= this.now()) {
      this.markers.delete(subject);
      return undefined;
    }
    if (given.length !== marker.value.length || !timingSafeEqual(given, marker.value)) return undefined;
    this.markers.delete(subject);
    return marker.expires;
  }

  async restore(subject: string, value: string, expires: number): Promise<void> {
    if (this.markers.has(subject) || expires <= this.now()) return;
    if (this.markers.size >= this.maxKeys) this.makeRoom();
    this.markers.set(subject, { value: Buffer.from(value, 'base64url'), expires });
  }

  private makeRoom(): void {
    const now = this.now();
    for (const [subject, marker] of this.markers) if (marker.expires <= now) this.markers.delete(subject);
    if (this.markers.size >= this.maxKeys) this.markers.delete(this.markers.keys().next().value!);
  }
}
