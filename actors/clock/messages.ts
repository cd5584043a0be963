// What the clock actor is told, and what it records.
export interface BeginCommand { type: 'begin'; seed: string }
/** Advance one day (the background ticker, or POST /api/tick). */
export interface AdvanceCommand { type: 'advance' }
/** After a restart: settle the current day again; entities that already settled it ignore it. */
export interface ResumeCommand { type: 'resume' }
export interface NowCommand { type: 'now' }

export type ClockCommand = BeginCommand | AdvanceCommand | ResumeCommand | NowCommand;

export interface WorldBegan { type: 'world-began'; day: number; seed: string }
export interface DayAdvanced { type: 'day-advanced'; day: number }

export type ClockEvent = WorldBegan | DayAdvanced;

export interface Clock { day: number; seed: string }
export type ClockState = Clock | null;

/** The message the bus carries when a day begins. */
export interface DayBegan {
  day: number;
}
