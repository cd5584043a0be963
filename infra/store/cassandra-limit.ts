// A counting semaphore: at most `max` requests of one store in flight on the driver at once.
// One connection accepts 2,048 concurrent requests and refuses the next with
// BusyConnectionError; every fan-out of the store waits here instead.
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  /** The most requests ever in flight at once (tests check the bound). */
  peak = 0;

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new Error(`concurrency limit must be at least 1, got ${max}`);
  }

  get inFlight(): number {
    return this.active;
  }

  /** Runs fn once a slot is free; the slot is held only while fn's promise is pending. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    if (this.active > this.peak) this.peak = this.active;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` never dips below the bound.
      if (next) next(); else this.active--;
    }
  }
}

/** Maps items with at most `limit` of fn in flight, keeping the order of the items. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return out;
}
