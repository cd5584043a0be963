// Id sequences for the Cassandra store, hi-lo style like the SQLite store's ID_BLOCK: a
// process reserves a block of ids with one lightweight transaction on the sequence's row
// (compare-and-set of the highest id reserved), then hands them out from memory. The
// `sequences` table is written only by lightweight transactions, so two processes never
// get the same block. Ids are unique; within one process they increase in the order they
// are asked for; across processes they are ordered only block by block.
import type { Client, types } from 'cassandra-driver';

/** Ids first..last, reserved by this process; next is the first not handed out yet. */
interface Block { first: number; next: number; last: number }

/** Reserves blocks of a sequence with compare-and-set on sequences.value. */
export class SequenceReserver {
  /** The value each sequence had when last seen: the first guess of the next compare-and-set. */
  private readonly seen = new Map<string, number | null>();

  constructor(
    private readonly client: Client,
    private readonly keyspace: string,
    /** The world whose sequences these are (the first partition-key column of `sequences`). */
    private readonly world: string,
    private readonly run: <T>(what: string, fn: () => Promise<T>) => Promise<T>,
    private readonly serialConsistency: number,
    private readonly consistency: number,
  ) {}

  private options() {
    return { prepare: true, consistency: this.consistency, serialConsistency: this.serialConsistency };
  }

  /** The highest id reserved so far (0 when none), read at SERIAL. */
  async current(name: string): Promise<number> {
    const r = await this.run('sequence read', () => this.client.execute(
      `SELECT value FROM ${this.keyspace}.sequences WHERE world = ? AND name = ?`, [this.world, name],
      { prepare: true, consistency: this.serialConsistency }));
    const row = r.first();
    const value = row ? Number(row.value) : null;
    this.seen.set(name, value);
    return value ?? 0;
  }

  /**
   * Moves the sequence to max(value, f(value)) with compare-and-set, retrying with the
   * value the failed attempt saw. Returns [before, after].
   */
  private async advance(name: string, to: (current: number) => number): Promise<[number, number]> {
    let current: number | null | undefined = this.seen.get(name);
    if (current === undefined) { await this.current(name); current = this.seen.get(name) ?? null; }
    for (let attempt = 0; ; attempt++) {
      const base = current ?? 0;
      const target = to(base);
      if (target <= base && current !== null) return [base, base];
      const r: types.ResultSet = current === null
        ? await this.run('id block', () => this.client.execute(
          `INSERT INTO ${this.keyspace}.sequences (world, name, value) VALUES (?, ?, ?) IF NOT EXISTS`, [this.world, name, target], this.options()))
        : await this.run('id block', () => this.client.execute(
          `UPDATE ${this.keyspace}.sequences SET value = ? WHERE world = ? AND name = ? IF value = ?`, [target, this.world, name, current], this.options()));
      if (r.wasApplied()) {
        this.seen.set(name, target);
        return [base, target];
      }
      // Lost the race: the answer carries the value that won.
      const seen: unknown = r.first()?.get('value');
      current = seen === null || seen === undefined ? null : Number(seen);
      this.seen.set(name, current);
      if (attempt > 1000) throw new Error(`sequence ${name}: too much contention`);
    }
  }

  /** Reserves `size` new ids; returns the block. */
  async reserve(name: string, size: number): Promise<Block> {
    const [before, after] = await this.advance(name, (v) => v + size);
    return { first: before + 1, next: before + 1, last: after };
  }

  /** Makes sure the sequence's value is at least `value`. */
  async reserveUpTo(name: string, value: number): Promise<void> {
    await this.advance(name, (v) => Math.max(v, value));
  }

  /**
   * Gives back the unused top of the sequence: moves it from `top` down to `to`, only if
   * nobody reserved past `top` meanwhile (compare-and-set). True when it was given back.
   */
  async giveBack(name: string, top: number, to: number): Promise<boolean> {
    if (to >= top) return false;
    const r = await this.run('id block', () => this.client.execute(
      `UPDATE ${this.keyspace}.sequences SET value = ? WHERE world = ? AND name = ? IF value = ?`, [to, this.world, name, top], this.options()));
    const seen: unknown = r.wasApplied() ? to : r.first()?.get('value');
    this.seen.set(name, seen === null || seen === undefined ? null : Number(seen));
    return r.wasApplied();
  }
}

interface Waiter { n: number; ids: number[]; resolve: (ids: number[]) => void; reject: (e: unknown) => void }

const left = (b: Block | null) => (b ? Math.max(0, b.last - b.next + 1) : 0);

/**
 * One sequence of one process: blocks reserved through a SequenceReserver, handed out in
 * the order asked for (a FIFO of waiters), optionally with the next block reserved while
 * half of the current one is still left, so that callers rarely wait for the transaction.
 */
export class Sequence {
  private current: Block | null = null;
  /** The next block once its reservation has succeeded. */
  private ready: Block | null = null;
  /** The reservation of the next block, under way. */
  private spare: Promise<Block> | null = null;
  private readonly queue: Waiter[] = [];
  private pumping = false;
  /** No id up to this value is handed out (reserveIdsUpTo). */
  private floor = 0;

  constructor(private readonly reserver: SequenceReserver, readonly name: string, readonly blockSize: number, readonly prefetch: boolean) {}

  /** n new ids, increasing in the order of calls; synchronously when the blocks in memory have them. */
  take(n: number): number[] | Promise<number[]> {
    if (n === 0) return [];
    if (this.queue.length === 0) {
      const ids = this.takeNow(n);
      if (ids) {
        this.maybePrefetch();
        return ids;
      }
    }
    return new Promise<number[]>((resolve, reject) => {
      this.queue.push({ n, ids: [], resolve, reject });
      void this.pump();
    });
  }

  async next(): Promise<number> {
    return (await this.take(1))[0];
  }

  /** Ids up to `value` are never handed out from now on. */
  raiseFloor(value: number): void {
    this.floor = Math.max(this.floor, value);
  }

  private applyFloor(): void {
    for (const b of [this.current, this.ready]) if (b) b.next = Math.max(b.next, this.floor + 1);
  }

  /** n ids from the blocks in memory, or null when they do not have that many. */
  private takeNow(n: number): number[] | null {
    this.applyFloor();
    if (left(this.current) + left(this.ready) < n) return null;
    const ids: number[] = [];
    while (ids.length < n) {
      if (left(this.current) === 0) {
        this.current = this.ready;
        this.ready = null;
        this.spare = null;
      }
      ids.push(this.current!.next++);
    }
    return ids;
  }

  private maybePrefetch(): void {
    if (!this.prefetch || this.spare || this.ready || left(this.current) > this.blockSize / 2) return;
    const spare = this.reserver.reserve(this.name, this.blockSize);
    this.spare = spare;
    spare.then((block) => { if (this.spare === spare) this.ready = block; }, () => { if (this.spare === spare) this.spare = null; });
  }

  /** A fresh block: the one reserved ahead, or a new reservation. */
  private async nextBlock(): Promise<Block> {
    const ready = this.ready;
    const spare = this.spare;
    this.ready = null;
    this.spare = null;
    if (ready) return ready;
    if (spare) {
      try { return await spare; } catch { /* reserve afresh below */ }
    }
    return this.reserver.reserve(this.name, this.blockSize);
  }

  /**
   * Stops handing out ids and gives back the ids reserved but never handed out, when this
   * process holds the top of the sequence; ids then run on without a gap after a clean
   * restart. After a crash (or when another process reserved after us) they are skipped.
   */
  async release(): Promise<void> {
    this.queue.splice(0).forEach((w) => w.reject(new Error('store is closed')));
    if (this.spare) {
      const spare = this.spare;
      await spare.then((block) => { if (this.spare === spare) this.ready = block; }, () => undefined);
      this.spare = null;
    }
    const { current, ready } = this;
    this.current = null;
    this.ready = null;
    const top = ready ?? current;
    if (!top) return;
    // What this process holds at the top: the block reserved ahead (never used), and the
    // rest of the current one when nobody reserved between the two.
    const from = ready && !(current && current.last + 1 === ready.first) ? ready.first : current!.next;
    const to = Math.max(from - 1, this.floor);
    await this.reserver.giveBack(this.name, top.last, to).catch(() => false);
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        const head = this.queue[0];
        try {
          while (head.ids.length < head.n) {
            const got = this.takeNow(1);
            if (got) head.ids.push(got[0]);
            else this.current = await this.nextBlock();
          }
        } catch (e) {
          // The store is out of reach: every waiter fails now rather than one timeout after another.
          for (const w of this.queue.splice(0)) w.reject(e);
          break;
        }
        this.queue.shift();
        head.resolve(head.ids);
      }
      this.maybePrefetch();
    } finally {
      this.pumping = false;
    }
  }
}

/** What a store hands ids out with: blocks in memory (`Sequence`) or an exact reservation per call (`ExactSequence`). */
export interface IdSource {
  take(n: number): number[] | Promise<number[]>;
  next(): Promise<number>;
  raiseFloor(value: number): void;
  release(): Promise<void>;
}

/**
 * Ids in the order they are asked for across every process (many nodes): no block is kept
 * in memory; the callers waiting at one moment get their ids from ONE lightweight
 * transaction that reserves exactly as many as they need, one transaction in flight at a
 * time. An id handed out after another anywhere is therefore higher, so listings ordered
 * by id are ordered by time on every node. It costs a transaction for each group of
 * callers instead of one per block.
 */
export class ExactSequence implements IdSource {
  private readonly queue: Waiter[] = [];
  private running = false;
  private closed = false;

  constructor(private readonly reserver: SequenceReserver, readonly name: string) {}

  take(n: number): number[] | Promise<number[]> {
    if (n === 0) return [];
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return new Promise<number[]>((resolve, reject) => {
      this.queue.push({ n, ids: [], resolve, reject });
      if (!this.running) { this.running = true; setImmediate(() => void this.run()); }
    });
  }

  async next(): Promise<number> {
    return (await this.take(1))[0];
  }

  /** The store moves the sequence itself (reserveUpTo): every later reservation is above it. */
  raiseFloor(): void { /* nothing kept in memory */ }

  async release(): Promise<void> {
    this.closed = true;
    this.queue.splice(0).forEach((w) => w.reject(new Error('store is closed')));
  }

  private async run(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const waiting = this.queue.splice(0);
        const total = waiting.reduce((sum, w) => sum + w.n, 0);
        try {
          const block = await this.reserver.reserve(this.name, total);
          let next = block.first;
          for (const w of waiting) {
            const ids = Array.from({ length: w.n }, () => next++);
            w.resolve(ids);
          }
        } catch (e) {
          for (const w of waiting) w.reject(e);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
