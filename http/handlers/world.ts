// The world as a whole: its summary, the rulebook with the API surface, the clock, and history.
import { rulebook } from '../../actors/world/rulebook';
import { CLOCK_ID } from '../../actors/clock/actor';
import { FIRST_DAY, nextDayAt } from '../../actors/clock/rules';
import { EventPath, EventsQuery, InvestigationQuery } from '../../codecs/requests';
import { notFoundError, unwrap } from '../errors';
import { FixedJson } from '../read-cache';
import { pageOfOneMore } from '../paging';
import type { Route } from '../route';
import { route } from '../route';
import type { QueryName } from '../../actors/ports/store';
import type { Services } from '../services';
import { IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_TTL_MS } from '../idempotency';
import { STREAM_PATH } from '../stream';

export const INVESTIGATION_LIMIT = 500;

async function worldSummary(s: Services) {
  // The counts are independent reads: asked together, a store that waits for each (Cassandra) answers in the time of the slowest.
  const counted: QueryName[] = ['activeOrganizations', 'openQuests', 'agents', 'activeAgents', 'bankruptOrganizations', 'dissolvedOrganizations',
    'adventurersAvailable', 'adventurersEmployed', 'adventurersDead'];
  const [locations, clock, historyEvents, ...counts] = await Promise.all([
    s.read.list<{ id: string; name: string; kind: string; danger: number; population: number; monster_population: number }>('locations'),
    s.read.row<{ day: number; began_at?: number | null }>('world', CLOCK_ID),
    s.read.historyCount(),
    ...counted.map((query) => s.read.count(query)),
  ]);
  const count = (query: QueryName) => counts[counted.indexOf(query)];
  const population = locations.reduce((n, l) => n + l.population, 0);
  const monsters = locations.reduce((n, l) => n + l.monster_population, 0);
  const wild = locations.filter((l) => l.kind === 'wilderness' || l.kind === 'dungeon');
  const day = clock?.day ?? 0;
  const beganAt = clock?.began_at ?? null;
  const secondsPerDay = s.daySeconds ?? 0;
  // A time beyond what a Date holds (a day of millions of years) is not said.
  const iso = (ms: number | null) => (ms === null || !(Math.abs(ms) <= 8.64e15) ? null : new Date(ms).toISOString());
  return {
    day,
    population,
    pressure: {
      monster_population: monsters,
      average_danger: locations.length ? Math.round(locations.reduce((n, l) => n + l.danger, 0) / locations.length) : 0,
      most_dangerous_location: [...locations].sort((a, b) => b.danger - a.danger)[0]?.id ?? null,
      wild_monsters_per_place: wild.length ? Math.round(wild.reduce((n, l) => n + l.monster_population, 0) / wild.length) : 0,
    },
    organizations: count('activeOrganizations'),
    quests: count('openQuests'),
    locations: locations.length,
    clock: {
      seconds_per_day: secondsPerDay,
      day_began_at: iso(beganAt),
      next_day_at: iso(secondsPerDay > 0 && beganAt !== null ? nextDayAt(beganAt, beganAt, secondsPerDay * 1000) : null),
    },
    places: locations.map(({ id, name, kind, danger, population: p, monster_population }) => ({ id, name, kind, danger, population: p, monster_population })),
    counts: {
      agents: count('agents'),
      active_agents: count('activeAgents'),
      organizations_active: count('activeOrganizations'),
      organizations_bankrupt: count('bankruptOrganizations'),
      organizations_dissolved: count('dissolvedOrganizations'),
      adventurers_available: count('adventurersAvailable'),
      adventurers_employed: count('adventurersEmployed'),
      adventurers_dead: count('adventurersDead'),
      quests_open: count('openQuests'),
      history_events: historyEvents,
    },
  };
}

/** The API surface, generated from the same route table and codecs that serve requests. */
export function apiSurface(routes: Route[]) {
  const headerOf = { none: null, agent: 'X-Agent-Key', 'agent-read': 'X-Agent-Key', 'agent-optional': 'X-Agent-Key (optional)', admin: 'X-Admin-Key', spectator: 'X-Spectator-Key' } as const;
  return routes.map((r) => ({
    method: r.method,
    path: r.path,
    summary: r.summary,
    auth: headerOf[r.auth],
    path_parameters: r.params?.schema.properties ?? {},
    query: r.query?.schema.properties ?? {},
    body: r.body ? { name: r.body.schema.name, properties: r.body.schema.properties } : null,
    success: r.success,
  }));
}

/** What the route table does not say: the headers and documents every route shares, and the live feed. */
export function apiConventions() {
  return {
    retries: `Send an Idempotency-Key header (1-${IDEMPOTENCY_KEY_MAX} printable characters, a UUID for example) with a POST or PATCH to make retrying it safe: the same key and body within ${IDEMPOTENCY_TTL_MS / 3_600_000} hours get the first answer again and act once; the same key with another body is refused (422, idempotency_key_reused). Registration (POST /api/agents), which has no agent key to scope it, takes only a random (version 4) UUID: the key alone guards the api_key given again. Without one, a request that timed out may have acted: read before sending it again.`,
    live_feed: `GET ${STREAM_PATH}: the history as it is written, as Server-Sent Events (the events of GET /api/events, with its category, agent_id and organization_id filters; after_id or a Last-Event-ID header to continue where you stopped).`,
    documents: 'GET /openapi.json: this API as an OpenAPI 3.1 document; GET /docs: the same, to read in a browser; POST /mcp: the same actions as Model Context Protocol tools.',
    paging: 'Listings that grow without bound answer a page at a time, as a JSON array: limit, and after_id (the last id of the page before), with a Link header rel="next" giving the next page when there is one. GET /api/events pages back from the newest with before_id; the messages, newest first, with offset.',
  };
}

export function worldRoutes(allRoutes: () => Route[]) {
  // The rulebook is made of the rules' constants and the route table: made once, its gzip with it.
  let rules: FixedJson | undefined;
  return [
    route({
      method: 'GET', path: '/api/world', auth: 'none', summary: 'The world at a glance: the day, the clock, pressure, population, how many organizations, quests and locations there are (counts, not lists; places lists every location with its kind, danger, population and monsters), and public counts.',
      handle: (_r, s) => worldSummary(s),
    }),
    route({
      method: 'GET', path: '/api/rules', auth: 'none', summary: 'The rulebook and the API surface.',
      handle: () => (rules ??= new FixedJson(JSON.stringify({ ...rulebook(), api: apiSurface(allRoutes()), api_conventions: apiConventions() }))),
    }),
    route({
      method: 'POST', path: '/api/tick', auth: 'admin', summary: 'Advance exactly one day (operator only); answers once the day is settled.',
      async handle(_r, s) {
        const clock = unwrap(await s.entities.ask<{ day: number }, 'clock'>('clock', CLOCK_ID, { type: 'advance', at: s.now() }, 30 * 60_000));
        return { day: clock.day };
      },
    }),
    route({
      method: 'GET', path: '/api/events', auth: 'none', query: EventsQuery,
      summary: 'History, newest first; filter by category, agent_id or organization_id (events naming it); before_id pages backward. Events that move gold or goods carry data.ledger.',
      // One more than the page is read, to know whether an older page follows (its Link, as the other listings give).
      handle: async ({ query }, s) => pageOfOneMore(await s.read.history({ ...query, limit: query.limit + 1 }), query.limit, (last) => ({ before_id: String(last.id) })),
    }),
    route({
      method: 'GET', path: '/api/events/{event_id}/investigation', auth: 'none', params: EventPath, query: InvestigationQuery,
      summary: 'An event with what happened around it within window_days.',
      async handle({ params, query }, s) {
        const event = await s.read.historyEvent(params.event_id);
        if (!event) throw notFoundError(`event ${params.event_id} not found`);
        // The window starts no earlier than the world's first day (nothing happened before it).
        const from = Math.max(FIRST_DAY, event.day - query.window_days);
        const to = event.day + query.window_days;
        // A busy window is cut to the INVESTIGATION_LIMIT events nearest the one investigated.
        const around = (await s.read.historyBetweenDays(from, to, INVESTIGATION_LIMIT + 1, event.id)).filter((e) => e.id !== event.id);
        const shares = (e: typeof event) => (event.agent_id !== null && e.agent_id === event.agent_id)
          || e.organization_ids.some((o) => event.organization_ids.includes(o));
        return {
          event,
          window_days: query.window_days,
          from_day: from,
          to_day: to,
          surrounding: around,
          related: around.filter(shares),
          involved: {
            agent: event.agent_id !== null ? await s.read.row('agent', event.agent_id) ?? null : null,
            organizations: (await Promise.all(event.organization_ids.map((o) => s.read.row('organization', o)))).filter(Boolean),
          },
        };
      },
    }),
  ];
}
