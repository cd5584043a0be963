// The embedded ticker: setInterval in this process. A day that is still being settled
// when the next interval fires is not overlapped; the late interval is skipped.
import type { Ticker } from '../../actors/ports/clock';

export class IntervalTicker implements Ticker {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  start(periodMs: number, advance: () => Promise<unknown>): void {
    this.stop();
    if (periodMs <= 0) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      advance().catch(() => undefined).finally(() => { this.running = false; });
    }, periodMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
