// The clock actor. A new day is made durable first; then the clock publishes it on the
// bus (at least once: it tries again while the bus refuses) and waits until every
// settler has recorded the day settled, so POST /api/tick answers with a settled world.
// While the bus cannot be reached, the clock does not advance: a day that could not be
// announced would be a day nobody lives through.
import { BusClosedError, BusUnavailableError, type Bus, type DaySettlements } from '../ports/bus';
import { TOPICS } from '../ports/bus';
import type { EntityKind } from '../entity';
import { RANK } from '../order';
import type { ClockCommand, ClockEvent, ClockState, DayBegan } from './messages';
import { decideAdvance, decideBegin, evolve } from './rules';

/** The history line of a day's beginning (category 'world'): what marks where a day's events start. */
export const dayBeganSummary = (day: number) => `Day ${day} began`;

/** How long the clock waits for a day to be settled before it gives up waiting (the day stays begun). */
export const SETTLE_TIMEOUT_MS = 30 * 60_000;
export const REPUBLISH_MS = 1_000;

export const CLOCK_ID = 'world';

export const clockView = (s: ClockState) => ({ day: s?.day ?? 0 });

export function clockKind(bus: Bus, settlements: DaySettlements, log: (line: string) => void = () => undefined): EntityKind<ClockState, ClockCommand, ClockEvent> {
  const announce = async (s: ClockState) => {
    if (!s) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await bus.publish<DayBegan>(TOPICS.days, { day: s.day }, 'day');
        break;
      } catch (e) {
        if (e instanceof BusClosedError) throw e; // the service is stopping: the next start announces the day
        // Said once, then every half minute while it lasts.
        if (attempt % 30 === 0) log(`clock: day ${s.day} could not be announced (${(e as Error)?.message}); trying again every ${REPUBLISH_MS / 1000} s`);
        await new Promise((r) => setTimeout(r, REPUBLISH_MS));
      }
    }
    await settlements.waitFor(s.day, SETTLE_TIMEOUT_MS);
  };
  return {
    kind: 'clock',
    rank: RANK.clock,
    commands: { begin: true, advance: true, resume: true, now: true },
    initialState: null,
    evolve,
    project: (s) => (s ? [{ kind: 'world', id: CLOCK_ID, doc: { day: s.day, seed: s.seed, began_at: s.began_at ?? null } }] : []),
    chronicle: (e) => [{
      day: e.day, category: 'world', agent_id: null, organization_ids: [],
      summary: e.type === 'world-began' ? 'The world began' : dayBeganSummary(e.day),
    }],
    view: clockView,
    async handle(state, c) {
      switch (c.type) {
        case 'begin': return decideBegin(state, c.seed, c.at);
        case 'advance': {
          const d = decideAdvance(state, c.at, c.from_day);
          if ('refusal' in d || d.events.length === 0) return d;
          try {
            await bus.ready();
          } catch (e) {
            const why = e instanceof BusUnavailableError ? e.message : String((e as Error)?.message ?? e);
            return { refusal: { status: 503, detail: `the day cannot advance: ${why}; it advances once the bus is back` } };
          }
          return { events: d.events, after: announce };
        }
        // After a restart: announce the current day again; a settler that has settled it ignores it.
        case 'resume': return { events: [], after: announce };
        case 'now': return { events: [] };
      }
    },
  };
}
