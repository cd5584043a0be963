// Locations and adventurers as the seeded world has them.
import { AdventurerPath, LocationPath } from '../../codecs/requests';
import { notFoundError } from '../errors';
import { route } from '../route';

export const placeRoutes = [
  route({
    method: 'GET', path: '/api/locations', auth: 'none', summary: 'Every location with its danger, population, monsters and routes.',
    handle: (_r, s) => s.read.rows('location'),
  }),
  route({
    method: 'GET', path: '/api/locations/{location_id}', auth: 'none', params: LocationPath,
    summary: 'A location with its organizations, quests, projects and establishments.',
    handle({ params }, s) {
      const location = s.read.row<Record<string, unknown>>('location', params.location_id);
      if (!location) throw notFoundError(`location ${params.location_id} not found`);
      const here = { location_id: params.location_id };
      return {
        ...location,
        organizations: s.read.rows('organization', { ...here, status: 'active' }),
        quests: s.read.rows('quest', here),
        projects: s.read.rows('project', here),
        establishments: s.read.rows('establishment', here),
      };
    },
  }),
  route({
    method: 'GET', path: '/api/adventurers', auth: 'none', summary: 'Available and employed adventurers.',
    handle: (_r, s) => s.read.rows('adventurer', { status: ['available', 'employed'] }),
  }),
  route({
    method: 'GET', path: '/api/adventurers/{adventurer_id}', auth: 'none', params: AdventurerPath,
    summary: 'An adventurer profile and party history.',
    handle({ params }, s) {
      const a = s.read.row('adventurer', params.adventurer_id);
      if (!a) throw notFoundError(`adventurer ${params.adventurer_id} not found`);
      return a;
    },
  }),
];
