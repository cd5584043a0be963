// Locations and adventurers as the seeded world has them.
import { AdventurerPath, AdventurersQuery, LocationPath, PlaceQuery } from '../../codecs/requests';
import type { QueryName } from '../../actors/ports/store';
import { notFoundError } from '../errors';
import { JsonText } from '../read-cache';
import { type Listed, nextPageUrl, pageOf, readJsonPage } from '../paging';
import { route } from '../route';

/**
 * What a place's answer lists, each from the named query of what is there now, and the
 * listing (with its filters) whose pages go on where the place's list stops.
 */
const PLACE_LISTS: ReadonlyArray<{ name: string; counted: string; query: QueryName; listing: (place: string) => string }> = [
  { name: 'organizations', counted: 'organization_count', query: 'activeOrganizationsAt', listing: (p) => `/api/organizations?location_id=${encodeURIComponent(p)}` },
  { name: 'quests', counted: 'quest_count', query: 'openQuestsAt', listing: (p) => `/api/quests?location_id=${encodeURIComponent(p)}&status=open` },
  { name: 'projects', counted: 'project_count', query: 'activeProjectsAt', listing: (p) => `/api/projects?location_id=${encodeURIComponent(p)}&status=active` },
  { name: 'establishments', counted: 'establishment_count', query: 'establishmentsAt', listing: (p) => `/api/establishments?location_id=${encodeURIComponent(p)}` },
];

export const placeRoutes = [
  route({
    method: 'GET', path: '/api/locations', auth: 'none', summary: 'Every location with its danger, population, monsters and routes.',
    handle: (_r, s) => s.read.list('locations'),
  }),
  route({
    method: 'GET', path: '/api/locations/{location_id}', auth: 'none', params: LocationPath, query: PlaceQuery,
    summary: 'A location with what is there now: its active organizations, open quests, active projects and establishments, each list at most limit long (in id order), with how many there are in all and, for a list cut short, the listing that goes on from it.',
    async handle({ params, query }, s) {
      const location = await s.read.row<Record<string, unknown>>('location', params.location_id);
      if (!location) throw notFoundError(`location ${params.location_id} not found`);
      const here = params.location_id;
      const lists = await Promise.all(PLACE_LISTS.map(async (l) => {
        // Each list is the first page of its listing; the count is read only when more follows.
        const page = await readJsonPage(s.read, l.query, { limit: query.limit }, here);
        return {
          ...l, page,
          count: page.next ? await s.read.count(l.query, here) : page.size,
          more: page.next ? nextPageUrl(l.listing(here), page.next) : null,
        };
      }));
      const { organizations: _o, quests: _q, projects: _p, establishments: _e, ...place } = location;
      const more = Object.fromEntries(lists.filter((l) => l.more !== null).map((l) => [l.name, l.more]));
      const head = JSON.stringify({ ...place, ...Object.fromEntries(lists.map((l) => [l.counted, l.count])), more });
      // The lists' rows are passed on as stored (JSON text), not parsed only to be written again.
      const listed = lists.map((l) => `"${l.name}":${l.page.body.text}`).join(',');
      return new JsonText(`${head.slice(0, -1)},${listed}}`);
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
      // Their ids alone: their documents are not needed.
      const here = query.location_id === undefined ? null : (await s.read.ids('activeOrganizationsAt', query.location_id)).map(Number);
      const rows: Row[] = query.organization_id !== undefined
        ? await s.read.list<Row>('membersOf', query.organization_id)
        : (await Promise.all(here!.map((id) => s.read.list<Row>('membersOf', id)))).flat();
      const byPlace = here === null ? null : new Set(here);
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
