// Day settlements kept in the store's settings: each settler writes the last day it
// settled under `settled_day:<settler>`; the clock waits until every settler's day has
// come. The settlers are this node alone today (the many-nodes layout will list the
// owners of the shards). A settlement recorded in this process wakes the waiter at once;
// one recorded elsewhere is seen by polling.
import { EventEmitter } from 'events';
import type { DaySettlements } from '../../actors/ports/bus';
import type { Store } from '../../actors/ports/store';

export const SETTLEMENT_POLL_MS = 100;

export class StoreSettlements implements DaySettlements {
  private readonly local = new EventEmitter();

  constructor(private readonly store: Store, private readonly settler: string, private readonly settlers: () => string[] = () => [settler]) {
    this.local.setMaxListeners(0);
  }

  private async read(name: string): Promise<number | null> {
    const v = await this.store.setting(name);
    return v === undefined ? null : Number(v);
  }

  lastSettled(): Promise<number | null> {
    return this.read(`settled_day:${this.settler}`);
  }

  async record(day: number): Promise<void> {
    await this.store.setSetting(`settled_day:${this.settler}`, String(day));
    this.local.emit('settled');
  }

  lastInitiative(): Promise<number | null> {
    return this.read('initiative_day');
  }

  async recordInitiative(day: number): Promise<void> {
    await this.store.setSetting('initiative_day', String(day));
  }

  async waitFor(day: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const days = await Promise.all(this.settlers().map((s) => this.read(`settled_day:${s}`)));
      if (days.every((d) => d !== null && d >= day)) return;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`day ${day} was not settled within ${Math.round(timeoutMs / 1000)} s`);
      await new Promise<void>((resolve) => {
        const done = () => { clearTimeout(timer); this.local.off('settled', done); resolve(); };
        const timer = setTimeout(done, Math.min(SETTLEMENT_POLL_MS, left));
        this.local.once('settled', done);
      });
    }
  }
}
