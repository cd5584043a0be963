// Locations and adventurers as the seeded world has them.
import { AdventurerPath, AdventurersQuery, LocationPath } from '../../codecs/requests';
import { notFoundError } from '../errors';
import { JsonText } from '../read-cache';
import { type Listed, pageOf, readJsonPage } from '../paging';
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
      // The lists grow with the world (every organization at a busy market): their rows' JSON
      // is passed on as it is stored, not parsed only to be written again.
      const lists = {
        organizations: await s.read.listJson('activeOrganizationsAt', here),
        quests: await s.read.listJson('questsAt', here),
        projects: await s.read.listJson('projectsAt', here),
        establishments: await s.read.listJson('establishmentsAt', here),
      };
      const { organizations: _o, quests: _q, projects: _p, establishments: _e, ...place } = location;
      const head = JSON.stringify(place);
      const listed = Object.entries(lists).map(([name, docs]) => `"${name}":[${docs.join(',')}]`).join(',');
      return new JsonText(`${head.length > 2 ? `${head.slice(0, -1)},` : '{'}${listed}}`);
    },
  }),
  route({
    method: 'GET', path: '/api/adventurers', auth: 'none',
    summary: "Available and employed adventurers (the dead only when asked for by status); filter by status, organization_id, and location_id (employed ones whose organization stands there: the available have no place).",
    query: AdventurersQuery,
    async handle({ query }, s) {
      if (query.location_id === undefined && query.organization_id === undefined) {
        // Only the page is read: the listing's index gives its rows in id order.
        const listing = query.status === undefined ? 'adventurersListed' : ({ available: 'adventurersAvailable', employed: 'adventurersEmployed', dead: 'adventurersDead' } as const)[query.status];
        return readJsonPage(s.read, listing, query);
      }
      type Row = Listed & { id: number; status: string; organization_id: number | null };
      // The organizations standing at the place, read once: the members of them all, or a filter on one's.
      const here = query.location_id === undefined ? null : await s.read.list<{ id: number }>('activeOrganizationsAt', query.location_id);
      const rows: Row[] = query.organization_id !== undefined
        ? await s.read.list<Row>('membersOf', query.organization_id)
        : (await Promise.all(here!.map((o) => s.read.list<Row>('membersOf', o.id)))).flat();
      const byPlace = here === null ? null : new Set(here.map((o) => o.id));
      const matching = rows.filter((a) => (query.status === undefined ? a.status !== 'dead' : a.status === query.status)
        && (query.organization_id === undefined || a.organization_id === query.organization_id)
        && (byPlace === null || (a.organization_id !== null && byPlace.has(a.organization_id))))
        .sort((a, b) => a.id - b.id);
      return pageOf(matching, query);
    },
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
