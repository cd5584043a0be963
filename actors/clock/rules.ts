// The clock's rules (core rule 1): the world begins on day 1; each advance adds exactly one day.
import { accept, conflict, type Decision } from '../result';
import type { ClockEvent, ClockState } from './messages';

export const FIRST_DAY = 1;

/**
 * The most days a place or an organization lives through at once: a day whose settling
 * failed for it is caught up the next time it settles, up to this many days back.
 */
export const MAX_CATCH_UP_DAYS = 30;

export function decideBegin(state: ClockState, seed: string): Decision<ClockEvent> {
  if (state) return accept();
  return accept({ type: 'world-began', day: FIRST_DAY, seed });
}

export function decideAdvance(state: ClockState): Decision<ClockEvent> {
  if (!state) return conflict('the world has not begun yet');
  return accept({ type: 'day-advanced', day: state.day + 1 });
}

export function evolve(state: ClockState, e: ClockEvent): ClockState {
  switch (e.type) {
    case 'world-began': return { day: e.day, seed: e.seed };
    case 'day-advanced': return state ? { ...state, day: e.day } : state;
  }
}
