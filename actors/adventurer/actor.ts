// The adventurer actor.
import type { EntityKind } from '../entity';
import { RANK } from '../order';
import type { Adventurer, AdventurerCommand, AdventurerEvent, AdventurerState } from './messages';

export const adventurerView = (a: Adventurer) => ({
  id: a.id, name: a.name, strength: a.strength, level: a.level, experience: a.experience,
  traits: [...a.traits], status: a.status, organization_id: a.organization_id, joined_day: a.joined_day,
});

export const adventurerKind: EntityKind<AdventurerState, AdventurerCommand, AdventurerEvent> = {
  kind: 'adventurer',
  rank: RANK.adventurer,
  initialState: null,
  evolve: (_s, e) => ({ ...e.adventurer, traits: [...e.adventurer.traits], status: 'available', organization_id: null, joined_day: e.day }),
  project: (s) => (s ? [{ kind: 'adventurer', id: s.id, status: s.status, organization_id: s.organization_id, doc: adventurerView(s) }] : []),
  chronicle: () => [],
  view: (s) => (s ? adventurerView(s) : null),
  handle(state, c) {
    switch (c.type) {
      case 'seed': return state ? { events: [] } : { events: [{ type: 'appeared', day: c.day, adventurer: c.adventurer }] };
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'adventurer not found' } };
    }
  },
};
