/** Latency samples in milliseconds; percentiles from the sorted array (nearest rank). */
export class Latencies {
  private readonly samples: number[] = [];

  record(ms: number): void {
    this.samples.push(ms);
  }

  summary(): { p50Ms: number; p99Ms: number } {
    const sorted = Float64Array.from(this.samples).sort();
    const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN);
    return { p50Ms: at(50), p99Ms: at(99) };
  }
}
