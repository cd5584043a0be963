// The latencies /healthz shows for a node's cross-node asks: those of the last minute, at
// most the last 1,000. A window in time rather than a count, so that what an operator reads
// is how asks cross now, not a burst long past (the seeding of a new world sends hundreds at
// once) or an hour-old figure of a quiet world.

export const WINDOW_MS = 60_000;
const KEPT = 1_000;

export class Latencies {
  private readonly values: Array<{ at: number; ms: number }> = [];

  constructor(private readonly now: () => number = () => Date.now(), private readonly windowMs = WINDOW_MS) {}

  add(ms: number): void {
    this.values.push({ at: this.now(), ms });
    if (this.values.length > KEPT) this.values.shift();
  }

  /** The p-th percentile (nearest rank, ms to one decimal) of the latencies in the window, or null when there are none. */
  percentile(p: number): number | null {
    const since = this.now() - this.windowMs;
    let first = 0;
    while (first < this.values.length && this.values[first].at < since) first++;
    this.values.splice(0, first);
    if (this.values.length === 0) return null;
    const sorted = this.values.map((v) => v.ms).sort((a, b) => a - b);
    return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
  }
}
