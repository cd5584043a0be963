// The ticker port, owned by the domain: what starts a new world day. The embedded adapter
// (infra/clock/interval-ticker.ts) is a timer in this process.
export interface Ticker {
  /**
   * Begins a day (`advance`, with the time it begins) one `periodMs` after the current day
   * began (`dayBeganAt`, null when not known), across restarts; 0 disables the background clock.
   */
  start(periodMs: number, dayBeganAt: () => Promise<number | null>, advance: (at: number) => Promise<unknown>): void;
  stop(): void;
}
