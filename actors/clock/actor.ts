// The clock actor. After a new day is durable it publishes it on the bus and waits until
// every subscriber has settled the day, so POST /api/tick answers with a settled world.
import type { Bus } from '../ports/bus';
import { TOPICS } from '../ports/bus';
import type { EntityKind } from '../entity';
import { RANK } from '../order';
import type { ClockCommand, ClockEvent, ClockState, DayBegan } from './messages';
import { decideAdvance, decideBegin, evolve } from './rules';

export const CLOCK_ID = 'world';

export const clockView = (s: ClockState) => ({ day: s?.day ?? 0 });

export function clockKind(bus: Bus): EntityKind<ClockState, ClockCommand, ClockEvent> {
  const publish = (resumed: boolean) => async (s: ClockState) => {
    if (s) await bus.publish<DayBegan>(TOPICS.days, { day: s.day, ...(resumed ? { resumed } : {}) });
  };
  return {
    kind: 'clock',
    rank: RANK.clock,
    commands: { begin: true, advance: true, resume: true, now: true },
    initialState: null,
    evolve,
    project: (s) => (s ? [{ kind: 'world', id: CLOCK_ID, doc: { day: s.day, seed: s.seed } }] : []),
    chronicle: (e) => [{
      day: e.day, category: 'world', agent_id: null, organization_ids: [],
      summary: e.type === 'world-began' ? 'The world began' : `Day ${e.day} began`,
    }],
    view: clockView,
    handle(state, c) {
      switch (c.type) {
        case 'begin': return decideBegin(state, c.seed);
        case 'advance': {
          const d = decideAdvance(state);
          return 'refusal' in d ? d : { events: d.events, after: publish(false) };
        }
        case 'resume': return { events: [], after: publish(true) };
        case 'now': return { events: [] };
      }
    },
  };
}
