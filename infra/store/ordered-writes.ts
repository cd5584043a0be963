// The bookkeeping of ordered writes, shared by both stores: every persist is numbered as it
// is called, depends on its actor's previous persist and on the numbers it names
// (Writes.after), and may be written only once those are (the embedded store commits in
// number order, one batch at a time; Cassandra on one node sends several batches at once and
// asks `ready`). A persist whose dependency failed, or whose actor had an earlier persist fail
// in this life, fails unwritten: it was decided on a state that never became durable
// (actors/region.ts). A snapshot that a store queues is counted too (a recovery waits for it)
// but nothing depends on it, and its failure leaves the actor's events as they are.

/** Failed numbers remembered (dependencies are recent writes: the oldest failures are forgotten). */
const FAILURES_KEPT = 65_536;

export class OrderedWrites {
  private lastSeq = 0;
  /** Numbered and not yet acknowledged or failed. */
  private readonly unsettled = new Set<number>();
  private readonly failed = new Set<number>();
  /** Each actor's newest persist while any of its persists is unsettled (persistence key → number). */
  private readonly lastOfKey = new Map<string, number>();
  /** How many of each actor's persists are unsettled: a later one may fail (refused) before an earlier one is acknowledged. */
  private readonly unsettledOfKey = new Map<string, number>();
  private readonly keyWaiters = new Map<string, Array<() => void>>();
  /** Actors whose persist failed in this life: persistence key → the sequence number that failed. */
  private readonly poisoned = new Map<string, number>();
  private readonly waiters = new Map<number, Array<() => void>>();

  /**
   * Numbers a persist of `key` (event `sequenceNumber`): the numbers it depends on (`after`
   * and the actor's previous unsettled persist), and why it may not be written, if it may not.
   */
  number(key: string, sequenceNumber: number, after: number[] | undefined, snapshot = false): { seq: number; after: number[] | undefined; refused: string | null } {
    const seq = ++this.lastSeq;
    this.unsettled.add(seq);
    this.unsettledOfKey.set(key, (this.unsettledOfKey.get(key) ?? 0) + 1);
    if (snapshot) return { seq, after: undefined, refused: this.refusal(key, sequenceNumber, undefined, true) };
    const previous = this.lastOfKey.get(key);
    const deps = previous === undefined ? after : [...(after ?? []), previous];
    this.lastOfKey.set(key, seq);
    return { seq, after: deps?.length ? deps : undefined, refused: this.refusal(key, sequenceNumber, deps) };
  }

  /**
   * Why a persist may not be written (an earlier persist of its actor, or one it depends on,
   * failed), or null. A snapshot at the failed number would hold the failed event's state.
   */
  refusal(key: string, sequenceNumber: number, after: number[] | undefined, snapshot = false): string | null {
    const poisoned = this.poisoned.get(key);
    if (poisoned !== undefined && (sequenceNumber > poisoned || (snapshot && sequenceNumber === poisoned))) return `an earlier write of ${key} failed`;
    if (after?.some((n) => this.failed.has(n))) return 'a write it depends on failed';
    return null;
  }

  /** Every persist it depends on is acknowledged, or in `batch` (sent with it, all or nothing). */
  ready(after: number[] | undefined, batch: ReadonlySet<number>): boolean {
    return !after || after.every((n) => !this.unsettled.has(n) || batch.has(n));
  }

  /** A persist (or a counted snapshot) was acknowledged (`ok`) or failed. */
  settle(seq: number, key: string, sequenceNumber: number, ok: boolean, snapshot = false): void {
    if (!this.unsettled.delete(seq)) return;
    if (!ok) {
      this.failed.add(seq);
      if (this.failed.size > FAILURES_KEPT) this.failed.delete(this.failed.values().next().value!);
    }
    if (!ok && !snapshot) {
      const poisoned = this.poisoned.get(key);
      if (poisoned === undefined || sequenceNumber < poisoned) this.poisoned.set(key, sequenceNumber);
    }
    const waiting = this.waiters.get(seq);
    if (waiting) {
      this.waiters.delete(seq);
      for (const w of waiting) w();
    }
    const left = (this.unsettledOfKey.get(key) ?? 1) - 1;
    if (left > 0) { this.unsettledOfKey.set(key, left); return; }
    this.unsettledOfKey.delete(key);
    this.lastOfKey.delete(key);
    const idle = this.keyWaiters.get(key);
    if (idle) {
      this.keyWaiters.delete(key);
      for (const w of idle) w();
    }
  }

  /**
   * Resolves once no persist of `key` is unsettled (an actor's recovery: its previous life
   * writes no more, and a failed persist may have been refused while an earlier one was
   * still on its way). With `chase` false, once its newest persist so far is settled (a
   * snapshot: a busy actor may never be idle; that persist is sent only after the earlier
   * ones are acknowledged, and if it failed the snapshot is not taken).
   */
  settledFor(key: string, chase = true): Promise<void> {
    if (!this.unsettledOfKey.has(key)) return Promise.resolve();
    if (!chase) {
      const last = this.lastOfKey.get(key)!;
      if (!this.unsettled.has(last)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const waiting = this.waiters.get(last);
        if (waiting) waiting.push(resolve); else this.waiters.set(last, [resolve]);
      });
    }
    return new Promise<void>((resolve) => {
      const waiting = this.keyWaiters.get(key);
      if (waiting) waiting.push(resolve); else this.keyWaiters.set(key, [resolve]);
    });
  }

  /** A new life of the actor of `key` begins, from what is durable: its writes are accepted again. */
  recovering(key: string): void {
    this.poisoned.delete(key);
  }
}
