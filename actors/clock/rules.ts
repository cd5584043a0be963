// The clock's rules (core rule 1): the world begins on day 1; each advance adds exactly one day.
import { accept, conflict, type Decision } from '../result';
import type { ClockEvent, ClockState } from './messages';

export const FIRST_DAY = 1;

/**
 * The most days a place or an organization lives through at once: a day whose settling
 * failed for it is caught up the next time it settles, up to this many days back.
 */
export const MAX_CATCH_UP_DAYS = 30;

export function decideBegin(state: ClockState, seed: string, at?: number): Decision<ClockEvent> {
  if (state) return accept();
  return accept({ type: 'world-began', day: FIRST_DAY, seed, ...(at === undefined ? {} : { at }) });
}

export function decideAdvance(state: ClockState, at?: number, fromDay?: number): Decision<ClockEvent> {
  if (!state) return conflict('the world has not begun yet');
  // The ticker saw an earlier day: another tick began the day it meant to begin.
  if (fromDay !== undefined && state.day !== fromDay) return accept();
  return accept({ type: 'day-advanced', day: state.day + 1, ...(at === undefined ? {} : { at }) });
}

export function evolve(state: ClockState, e: ClockEvent): ClockState {
  switch (e.type) {
    case 'world-began': return { day: e.day, seed: e.seed, began_at: e.at ?? null };
    // A day an older node began without its time leaves the time unknown, not that of the day before.
    case 'day-advanced': return state ? { ...state, day: e.day, began_at: e.at ?? null } : state;
  }
}

/**
 * When the background clock begins the next day (wall-clock milliseconds): one period
 * after the current day began, across restarts, so a restart neither delays the next day
 * nor brings it sooner. A world whose next day is overdue (it was stopped) begins it at
 * once: the time it was stopped makes one day, not one per period missed. `since` stands
 * for the day's beginning when it is not known (a world of an older version).
 */
export function nextDayAt(beganAt: number | null, since: number, periodMs: number): number {
  return (beganAt ?? since) + periodMs;
}

/**
 * The time a day the background clock begins at `now` records: the time it was due when it
 * is at most `slackMs` late (a poll's delay), so the days keep their beat; `now` when it is
 * later (the world was stopped, or the bus was down), and the beat goes on from there.
 */
export function dayBeginning(due: number, now: number, slackMs: number): number {
  return now - due <= slackMs ? Math.min(due, now) : now;
}
