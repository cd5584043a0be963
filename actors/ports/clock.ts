// The ticker port, owned by the domain: what starts a new world day. The embedded adapter
// (infra/clock/interval-ticker.ts) is a timer in this process.
export interface Ticker {
  /** Calls `advance` every `periodMs`; 0 disables the background clock. */
  start(periodMs: number, advance: () => Promise<unknown>): void;
  stop(): void;
}
