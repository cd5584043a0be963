// The embedded ticker: a timer in this process that looks, a few times a period, whether
// the next day is due: one period after the current day began, as the store keeps it
// (actors/clock/rules.ts, nextDayAt), so a restart keeps the days' beat. A day that is
// still being settled is not overlapped.
import type { Ticker, TickerWorld } from '../../actors/ports/clock';
import { dayBeginning, nextDayAt } from '../../actors/clock/rules';

/** How often the ticker looks at most (a shorter period is looked at ten times a period). */
export const TICKER_POLL_MS = 1_000;

export class IntervalTicker implements Ticker {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  start(periodMs: number, world: TickerWorld): void {
    this.stop();
    if (periodMs <= 0) return;
    const poll = Math.max(1, Math.min(TICKER_POLL_MS, Math.floor(periodMs / 10)));
    // A world that does not know when its day began (an older version's) counts from now.
    let since = Date.now();
    const timer = setInterval(() => {
      if (this.running || !world.hostsClock()) return;
      this.running = true;
      (async () => {
        const current = await world.current();
        // Stopped meanwhile (the world is closing): no day begins.
        if (this.timer !== timer || current === null) return;
        const due = nextDayAt(current.began_at, since, periodMs);
        const now = Date.now();
        if (now < due) return;
        since = now;
        await world.advance(dayBeginning(due, now, 2 * poll), current.day);
      })().catch(() => undefined).finally(() => { this.running = false; });
    }, poll);
    timer.unref?.();
    this.timer = timer;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
