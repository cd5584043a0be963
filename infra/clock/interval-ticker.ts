// The embedded ticker: a timer in this process that looks, a few times a period, whether
// the next day is due: one period after the current day began, as the store keeps it
// (actors/clock/rules.ts, nextDayAt), so a restart keeps the days' beat. A day that is
// still being settled is not overlapped.
import type { Ticker } from '../../actors/ports/clock';
import { dayBeginning, nextDayAt } from '../../actors/clock/rules';

/** How often the ticker looks at most (a shorter period is looked at ten times a period). */
export const TICKER_POLL_MS = 1_000;

export class IntervalTicker implements Ticker {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  start(periodMs: number, dayBeganAt: () => Promise<number | null>, advance: (at: number) => Promise<unknown>): void {
    this.stop();
    if (periodMs <= 0) return;
    const poll = Math.max(1, Math.min(TICKER_POLL_MS, Math.floor(periodMs / 10)));
    // A world that does not know when its day began (an older version's) counts from now.
    let since = Date.now();
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      (async () => {
        const due = nextDayAt(await dayBeganAt(), since, periodMs);
        const now = Date.now();
        if (now < due) return;
        since = now;
        await advance(dayBeginning(due, now, 2 * poll));
      })().catch(() => undefined).finally(() => { this.running = false; });
    }, poll);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
