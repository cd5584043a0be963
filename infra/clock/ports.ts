// The clock port: what starts a new world day. Embedded: a timer in this process.
export interface Ticker {
  /** Calls `advance` every `periodMs`; 0 disables the background clock. */
  start(periodMs: number, advance: () => Promise<unknown>): void;
  stop(): void;
}
