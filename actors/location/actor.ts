// The location actor.
import type { EntityKind } from '../entity';
import { RANK } from '../order';
import type { LocationCommand, LocationEvent, LocationSpec, LocationState } from './messages';

export const locationView = (l: LocationSpec) => ({ ...l, routes: l.routes.map((r) => ({ ...r })) });

export const locationKind: EntityKind<LocationState, LocationCommand, LocationEvent> = {
  kind: 'location',
  rank: RANK.location,
  initialState: null,
  evolve: (_s, e) => ({ ...e.location }),
  project: (s) => (s ? [{ kind: 'location', id: s.id, location_id: s.id, doc: locationView(s) }] : []),
  chronicle: () => [],
  view: (s) => (s ? locationView(s) : null),
  handle(state, c) {
    switch (c.type) {
      case 'seed': return state ? { events: [] } : { events: [{ type: 'seeded', day: c.day, location: c.location }] };
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'location not found' } };
    }
  },
};
