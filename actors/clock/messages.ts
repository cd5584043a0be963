// What the clock actor is told, and what it records.
/** `at`: when the world began, in wall-clock milliseconds (absent from an older node). */
export interface BeginCommand { type: 'begin'; seed: string; at?: number }
/**
 * Advance one day (the background ticker, or POST /api/tick); `at`: when the day begins, in
 * wall-clock milliseconds; `from_day`: the day the ticker saw, so that a day another tick
 * began meanwhile is not followed by a second (both absent from an older node, or the operator's tick).
 */
export interface AdvanceCommand { type: 'advance'; at?: number; from_day?: number }
/** After a restart: settle the current day again; entities that already settled it ignore it. */
export interface ResumeCommand { type: 'resume' }
export interface NowCommand { type: 'now' }

export type ClockCommand = BeginCommand | AdvanceCommand | ResumeCommand | NowCommand;

export interface WorldBegan { type: 'world-began'; day: number; seed: string; at?: number }
export interface DayAdvanced { type: 'day-advanced'; day: number; at?: number }

export type ClockEvent = WorldBegan | DayAdvanced;

/** `began_at`: when the current day began (wall-clock milliseconds), so the background clock keeps its beat across restarts; null when not known. */
export interface Clock { day: number; seed: string; began_at?: number | null }
export type ClockState = Clock | null;

/** The message the bus carries when a day begins. */
export interface DayBegan {
  day: number;
}
