// The operator's desk: world events, suggestions, and (in agents.ts) departures.
import type { Effect } from '../../actors/world-event/effects';
import type { WorldEventSpec } from '../../actors/world-event/actor';
import { SuggestionCreate, SuggestionPath, SuggestionReview, WorldEventCreate, WorldEventPath, WorldEventsQuery, PageQuery } from '../../codecs/requests';
import { detailItem } from '../../codecs/report';
import { conflictError, invalid, notFoundError, unwrap } from '../errors';
import { readJsonPage } from '../paging';
import { route } from '../route';

const WORLD_EVENTS_BY_STATUS = { active: 'activeWorldEvents', expired: 'expiredWorldEvents' } as const;

export const operatorRoutes = [
  route({
    method: 'POST', path: '/api/world-events', auth: 'admin', body: WorldEventCreate, success: 201,
    summary: 'Begin a world event (operator): 1-10 effects for duration_days, optionally a world-funded quest and a new settlement.',
    async handle({ body }, s) {
      const problems = body.effects.flatMap((e, i) => (e.kind === 'resource_introduction' && e.resource === null
        ? [detailItem(['body', 'effects', i, 'resource'], 'missing', 'A resource_introduction effect needs a resource', null)] : []));
      // A new place's roads lead to different places: a second road to the same one would be one-sided (a place keeps one road to each).
      (body.location?.routes ?? []).forEach((r, i, all) => {
        if (all.findIndex((o) => o.destination_id === r.destination_id) < i) {
          problems.push(detailItem(['body', 'location', 'routes', i, 'destination_id'], 'duplicate_route', `A second road to ${r.destination_id}; a place has one road to each other place`, r.destination_id));
        }
      });
      if (problems.length) throw invalid(problems);
      const newPlace = body.location?.id ?? null;
      if (newPlace && await s.read.row('location', newPlace)) throw conflictError(`location ${newPlace} already exists`);
      const exists = async (id: string) => id === newPlace || !!await s.read.row('location', id);
      for (const r of body.location?.routes ?? []) if (!await s.read.row('location', r.destination_id)) throw notFoundError(`route destination ${r.destination_id} not found`);
      for (const e of body.effects) if (e.location_id !== null && !await exists(e.location_id)) throw notFoundError(`location ${e.location_id} not found`);
      // Everything is checked before anything happens: a refused event changes nothing.
      for (const e of body.effects) {
        if (e.kind !== 'resource_introduction' || e.location_id === null) continue;
        const market = e.location_id === newPlace ? (body.location!.population > 0) : (await s.read.row<{ has_market: boolean }>('location', e.location_id))!.has_market;
        if (!market) throw conflictError(`nobody lives at ${e.location_id}, so no market can take ${e.resource}`);
      }
      if (body.quest) {
        const requester = await s.read.row<{ name: string; status: string }>('organization', body.quest.requester_id);
        if (!requester) throw notFoundError(`organization ${body.quest.requester_id} not found`);
        // As for a quest an agent posts (core rule 6): an ended organization posts no quest, and one posted for it could never be withdrawn.
        if (requester.status !== 'active') throw conflictError(`organization ${body.quest.requester_id} (${requester.name}) is ${requester.status} and can post no quest; name an active organization as the requester`);
        if (!await exists(body.quest.location_id)) throw notFoundError(`location ${body.quest.location_id} not found`);
      }
      const id = await s.store.nextId('world_event');
      const spec: WorldEventSpec = {
        id, title: body.title, description: body.description, duration_days: body.duration_days, effects: body.effects as Effect[],
        quest: body.quest ? { id: await s.store.nextId('quest'), ...body.quest } : null,
        location: body.location,
      };
      return unwrap(await s.entities.ask('world-event', id, { type: 'begin', event: spec, day: await s.day() }));
    },
  }),
  route({
    method: 'POST', path: '/api/world-events/{event_id}/end', auth: 'admin', params: WorldEventPath,
    summary: 'End an active world event early (operator): it expires now and shapes no further day (the day already shaped stays as it is).',
    async handle({ params }, s) {
      if (!await s.read.row('world_event', params.event_id)) throw notFoundError(`world event ${params.event_id} not found`);
      return unwrap(await s.entities.ask('world-event', params.event_id, { type: 'end', day: await s.day() }));
    },
  }),
  route({
    method: 'GET', path: '/api/world-events', auth: 'none', query: WorldEventsQuery, summary: 'World events, optionally only active or only expired ones.',
    handle: ({ query }, s) => readJsonPage(s.read, query.status === undefined ? 'worldEvents' : WORLD_EVENTS_BY_STATUS[query.status], query),
  }),
  route({
    method: 'POST', path: '/api/suggestions', auth: 'agent', body: SuggestionCreate, success: 201,
    summary: 'Send the operator a private suggestion. It changes nothing in the world.',
    async handle({ body, caller }, s) {
      const id = await s.store.nextId('suggestion');
      return unwrap(await s.entities.ask('suggestion', id, { type: 'create', id, agent_id: caller!.id, agent_name: caller!.name, title: body.title, body: body.body, category: body.category, day: await s.day() }));
    },
  }),
  route({
    method: 'GET', path: '/api/suggestions', auth: 'admin', summary: 'Every suggestion (operator only).',
    query: PageQuery,
    handle: ({ query }, s) => readJsonPage(s.read, 'suggestions', query),
  }),
  route({
    // The sender's own: what it sent and how the operator answered. Private still: no one else's, and only to its key.
    method: 'GET', path: '/api/agents/me/suggestions', auth: 'agent-read', summary: 'The suggestions this agent sent, with their review status and the operator\'s note.',
    query: PageQuery,
    handle: ({ query, caller }, s) => readJsonPage(s.read, 'suggestionsOfAgent', query, caller!.id),
  }),
  route({
    method: 'PATCH', path: '/api/suggestions/{suggestion_id}', auth: 'admin', params: SuggestionPath, body: SuggestionReview,
    summary: 'Review a suggestion (operator): reviewed, accepted or declined, with an optional note.',
    async handle({ params, body }, s) {
      if (!await s.read.row('suggestion', params.suggestion_id)) throw notFoundError(`suggestion ${params.suggestion_id} not found`);
      return unwrap(await s.entities.ask('suggestion', params.suggestion_id, { type: 'review', status: body.status, admin_note: body.admin_note, day: await s.day() }));
    },
  }),
];
