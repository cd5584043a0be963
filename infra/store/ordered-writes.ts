// The bookkeeping of ordered writes for a store that sends several batches at once
// (Cassandra on one node): every persist is numbered as it is called, depends on its
// actor's previous persist and on the numbers it names (Writes.after), and may be sent only
// once those are acknowledged (or go earlier in the same all-or-nothing batch). A persist
// whose dependency failed, or whose actor had an earlier persist fail in this life, fails
// unsent: it was decided on a state that never became durable (actors/region.ts).

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
  number(key: string, sequenceNumber: number, after: number[] | undefined): { seq: number; after: number[] | undefined; refused: string | null } {
    const seq = ++this.lastSeq;
    const previous = this.lastOfKey.get(key);
    const deps = previous === undefined ? after : [...(after ?? []), previous];
    this.unsettled.add(seq);
    this.lastOfKey.set(key, seq);
    this.unsettledOfKey.set(key, (this.unsettledOfKey.get(key) ?? 0) + 1);
    return { seq, after: deps?.length ? deps : undefined, refused: this.refusal(key, sequenceNumber, deps) };
  }

  /** Why a persist may not be written (an earlier persist of its actor, or one it depends on, failed), or null. */
  refusal(key: string, sequenceNumber: number, after: number[] | undefined): string | null {
    const poisoned = this.poisoned.get(key);
    if (poisoned !== undefined && sequenceNumber > poisoned) return `an earlier write of ${key} failed`;
    if (after?.some((n) => this.failed.has(n))) return 'a write it depends on failed';
    return null;
  }

  /** Every persist it depends on is acknowledged, or in `batch` (sent with it, all or nothing). */
  ready(after: number[] | undefined, batch: ReadonlySet<number>): boolean {
    return !after || after.every((n) => !this.unsettled.has(n) || batch.has(n));
  }

  /** A persist was acknowledged (`ok`) or failed. */
  settle(seq: number, key: string, sequenceNumber: number, ok: boolean): void {
    if (!this.unsettled.delete(seq)) return;
    if (!ok) {
      this.failed.add(seq);
      if (this.failed.size > FAILURES_KEPT) this.failed.delete(this.failed.values().next().value!);
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

  /** A persist of this actor failed at or before `sequenceNumber` in this life (a snapshot there would hold a state never durable). */
  poisonedAt(key: string, sequenceNumber: number): boolean {
    const poisoned = this.poisoned.get(key);
    return poisoned !== undefined && sequenceNumber >= poisoned;
  }

  /** A new life of the actor of `key` begins, from what is durable: its writes are accepted again. */
  recovering(key: string): void {
    this.poisoned.delete(key);
  }
}
