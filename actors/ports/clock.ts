// The ticker port, owned by the domain: what starts a new world day. The embedded adapter
// (infra/clock/interval-ticker.ts) is a timer in this process.

/** What the ticker needs of the world. */
export interface TickerWorld {
  /** Whether this node begins the days (it hosts the clock); the others do not look. */
  hostsClock(): boolean;
  /** The current day and when it began (null when not known); null before the world began. */
  current(): Promise<{ day: number; began_at: number | null } | null>;
  /** Begins the day after `fromDay`, at `at` (wall-clock ms); nothing when the world is past `fromDay` already. */
  advance(at: number, fromDay: number): Promise<unknown>;
}

export interface Ticker {
  /**
   * Begins a day one `periodMs` after the current day began, across restarts (a world that
   * does not know when counts from the start); 0 disables the background clock.
   */
  start(periodMs: number, world: TickerWorld): void;
  stop(): void;
}
