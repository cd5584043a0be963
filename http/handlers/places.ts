// Locations and adventurers as the seeded world has them.
import { AdventurerPath, LocationPath, PageQuery } from '../../codecs/requests';
import { notFoundError } from '../errors';
import { readPage } from '../paging';
import { route } from '../route';

export const placeRoutes = [
  route({
    method: 'GET', path: '/api/locations', auth: 'none', summary: 'Every location with its danger, population, monsters and routes.',
    handle: (_r, s) => s.read.list('locations'),
  }),
  route({
    method: 'GET', path: '/api/locations/{location_id}', auth: 'none', params: LocationPath,
    summary: 'A location with its organizations, quests, projects and establishments.',
    async handle({ params }, s) {
      const location = await s.read.row<Record<string, unknown>>('location', params.location_id);
      if (!location) throw notFoundError(`location ${params.location_id} not found`);
      const here = params.location_id;
      return {
        ...location,
        organizations: await s.read.list('activeOrganizationsAt', here),
        quests: await s.read.list('questsAt', here),
        projects: await s.read.list('projectsAt', here),
        establishments: await s.read.list('establishmentsAt', here),
      };
    },
  }),
  route({
    method: 'GET', path: '/api/adventurers', auth: 'none', summary: 'Available and employed adventurers.',
    query: PageQuery,
    handle: ({ query }, s) => readPage(s.read, 'adventurersListed', query),
  }),
  route({
    method: 'GET', path: '/api/adventurers/{adventurer_id}', auth: 'none', params: AdventurerPath,
    summary: 'An adventurer profile and party history.',
    async handle({ params }, s) {
      const a = await s.read.row('adventurer', params.adventurer_id);
      if (!a) throw notFoundError(`adventurer ${params.adventurer_id} not found`);
      return a;
    },
  }),
];
