// World events (core rule 23): temporary scenarios created by the operator. While active,
// their modifiers are read by the daily fan-out (effects.ts); a resource introduction is
// carried out once, when the event begins, and stays. An event may bring a new settlement
// (connected both ways to the route graph) and a quest funded by the world itself.
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import type { LocationSpec, Route } from '../location/messages';
import { RANK } from '../order';
import { accept, conflict, notFound, type Decision } from '../result';
import type { QuestSpec } from '../quest/messages';
import type { Effect } from './effects';
import { intentEnded, intentRow } from '../intents';

export interface WorldEventSpec {
  id: number;
  title: string;
  description: string;
  duration_days: number;
  effects: Effect[];
  quest: QuestSpec | null;
  location: LocationSpec | null;
}

export interface WorldEvent extends WorldEventSpec {
  /** beginning: its intent is recorded and its settlement, resources and quest are being brought in (no row yet). */
  status: 'beginning' | 'active' | 'expired';
  started_day: number;
  ends_day: number;
  ended_day: number | null;
  ended_early: boolean;
  quest_id: number | null;
  location_id: string | null;
  introduced: Array<{ location_id: string; resource: string }>;
}
export type WorldEventState = WorldEvent | null;

export type WorldEventCommand =
  | { type: 'begin'; event: WorldEventSpec; day: number }
  /** Finish a beginning a crash cut short (actors/intents.ts); nothing when none is under way. */
  | { type: 'resume' }
  | { type: 'end'; day: number }
  | { type: 'day-began'; day: number }
  | { type: 'status' };

export type WorldEventEvent =
  /** The intent, recorded before anyone is asked: the event and the markets that take its new resources. */
  | { type: 'beginning'; day: number; event: WorldEventSpec; introduced: Array<{ location_id: string; resource: string }> }
  | { type: 'beginning-abandoned'; day: number; id: number; reason: string }
  | { type: 'began'; day: number; event: WorldEventSpec; quest_id: number | null; location_id: string | null; introduced: Array<{ location_id: string; resource: string }> }
  | { type: 'expired'; day: number; early: boolean };

export function decideEnd(state: WorldEventState, day: number, early: boolean): Decision<WorldEventEvent> {
  if (!state) return notFound('world event not found');
  if (state.status !== 'active') return conflict(`world event ${state.id} has already expired`);
  if (!early && day < state.ends_day) return accept();
  return accept({ type: 'expired', day, early });
}

export function evolve(state: WorldEventState, e: WorldEventEvent): WorldEventState {
  if (e.type === 'beginning') {
    return {
      ...e.event, effects: e.event.effects.map((x) => ({ ...x })), status: 'beginning', started_day: e.day, ends_day: e.day + e.event.duration_days,
      ended_day: null, ended_early: false, quest_id: e.event.quest?.id ?? null, location_id: e.event.location?.id ?? null, introduced: e.introduced,
    };
  }
  if (e.type === 'beginning-abandoned') return null;
  if (e.type === 'began') {
    return {
      ...e.event, effects: e.event.effects.map((x) => ({ ...x })), status: 'active', started_day: e.day, ends_day: e.day + e.event.duration_days,
      ended_day: null, ended_early: false, quest_id: e.quest_id, location_id: e.location_id, introduced: e.introduced,
    };
  }
  return state ? { ...state, status: 'expired', ended_day: e.day, ended_early: e.early } : state;
}

function chronicle(e: WorldEventEvent, after: WorldEventState): HistoryEntry[] {
  if (!after || e.type === 'beginning' || e.type === 'beginning-abandoned') return [];
  const base = { day: e.day, category: 'world_event', agent_id: null, organization_ids: [], data: { world_event_id: after.id } };
  return e.type === 'began'
    ? [{ ...base, summary: `${after.title}: ${after.description} (until day ${after.ends_day})` }]
    : [{ ...base, summary: `${after.title} is over${e.early ? ', ended early by the operator' : ''}` }];
}

// A world event appears once it has begun.
const project = (s: WorldEventState): ProjectionRow[] => (s && s.status !== 'beginning' ? [{ kind: 'world_event', id: s.id, status: s.status, doc: { ...s } }] : []);

/**
 * Beginning a world event, a saga: it records its intent (`beginning`: the event and the
 * markets that take its new resources, decided now), then brings its settlement, roads,
 * resources and quest into the world, in that order, and records that it began. Each
 * step changes nothing when asked again (a place that exists ignores its seed, a road or
 * a resource it has already, a quest the world already posted), so a crash between the
 * steps leaves the intent, which `resume` finishes. A step refused for good ends it
 * refused (`beginning-abandoned`), leaving what earlier steps brought.
 */
async function beginEvent(io: EntityIO, spec: WorldEventSpec, day: number): Promise<Outcome<WorldEventState, WorldEventEvent>> {
  const introduced: Array<{ location_id: string; resource: string }> = [];
  const introductions = spec.effects.filter((x) => x.kind === 'resource_introduction');
  // A market that trades the resource already is left alone (the location's rule): it is not named as introduced.
  const traded = introductions.length === 0 ? new Set<string>()
    : new Set((await io.read.list<{ location_id: string; resource: string }>('markets')).map((m) => `${m.location_id}:${m.resource}`));
  for (const e of introductions) {
    const targets = e.location_id ? [e.location_id] : (await io.read.list<{ id: string; has_market: boolean }>('locations')).filter((l) => l.has_market).map((l) => l.id);
    for (const target of targets) {
      if (!traded.has(`${target}:${e.resource}`)) introduced.push({ location_id: target, resource: e.resource! });
    }
  }
  return { events: [{ type: 'beginning', day, event: spec, introduced }], andThen: (s) => continueBeginning(s, io) };
}

async function continueBeginning(state: WorldEventState, io: EntityIO): Promise<Outcome<WorldEventState, WorldEventEvent>> {
  if (!state || state.status !== 'beginning') return { events: [] };
  const { status: _s, started_day: day, ends_day: _e, ended_day: _d, ended_early: _x, quest_id: _q, location_id: _l, introduced, ...spec } = state;
  const fail = (what: string, r: { ok: false; refusal: { status: any; detail: string } }): Outcome<WorldEventState, WorldEventEvent> => {
    const refusal = { status: r.refusal.status, detail: `${what}: ${r.refusal.detail}` };
    // Unknown (a failed write, a timeout): the intent stays. Refused: it ends refused.
    return r.refusal.status === 503 ? { refusal } : { events: [{ type: 'beginning-abandoned', day, id: spec.id, reason: refusal.detail }], refusal };
  };
  if (spec.location) {
    const l = spec.location;
    const seeded = await io.ask('location', l.id, { type: 'seed', location: l, profile: {}, day, world_event_id: spec.id });
    if (!seeded.ok) return fail(`location ${l.id}`, seeded);
    for (const r of l.routes) {
      const back: Route = { destination_id: l.id, distance_days: r.distance_days, danger: r.danger };
      const added = await io.ask('location', r.destination_id, { type: 'add-route', day, route: back });
      if (!added.ok) return fail(`route to ${r.destination_id}`, added);
    }
  }
  for (const { location_id: target, resource } of introduced) {
    const e = spec.effects.find((x) => x.kind === 'resource_introduction' && x.resource === resource && (x.location_id === null || x.location_id === target))!;
    const r = await io.ask('location', target, {
      type: 'introduce-resource', day, resource, price: e.price ?? 10, supply: e.value > 0 ? e.value : 100, world_event_id: spec.id,
    });
    if (!r.ok) return fail(`resource ${resource} at ${target}`, r);
  }
  if (spec.quest) {
    const posted = await io.ask('quest', spec.quest.id, { type: 'post', quest: spec.quest, agent_id: null, day, world_funded: true });
    if (!posted.ok) return fail('quest', posted);
  }
  return { events: [{ type: 'began', day, event: spec, quest_id: spec.quest?.id ?? null, location_id: spec.location?.id ?? null, introduced }] };
}

/** A world event is announced as a free chronicle report among the public messages (core rule 15). */
function announcement(e: WorldEventEvent, after: WorldEventState): ProjectionRow[] {
  if (e.type !== 'began' || !after) return [];
  return [{
    kind: 'message', id: `world-event-${after.id}`, status: 'chronicle',
    doc: {
      id: `world-event-${after.id}`, sender_id: null, sender_name: 'The Chronicle', recipient_id: null, body: `${after.title}. ${after.description}`,
      kind: 'chronicle', public: true, verified: true, sent_day: e.day, deliver_day: e.day, cost: 0, world_event_id: after.id,
    },
  }];
}

export const worldEventKind: EntityKind<WorldEventState, WorldEventCommand, WorldEventEvent> = {
  kind: 'world-event',
  rank: RANK['world-event'],
  commands: { begin: true, end: true, 'day-began': true, status: true, resume: true },
  initialState: null,
  evolve,
  project,
  chronicle,
  // Its beginning is an intent until it ends (actors/intents.ts); its announcement comes with the beginning.
  eventRows: (e, after) => {
    if (e.type === 'beginning' && after) return [intentRow({ kind: 'world-event', id: after.id, intent: 'beginning', day: e.day })];
    if (e.type === 'beginning-abandoned') return [intentEnded('world-event', e.id)];
    if (e.type === 'began' && after) return [...announcement(e, after), intentEnded('world-event', after.id)];
    return [];
  },
  view: (s) => (s ? { ...s } : null),
  async handle(state, c, io) {
    if (c.type === 'resume') return continueBeginning(state, io);
    if (state?.status === 'beginning' && c.type !== 'status') {
      // A beginning a crash cut short is finished first; a retried begin answers with it.
      const pending = await continueBeginning(state, io);
      if ('refusal' in pending || c.type === 'begin') return pending;
      return { events: pending.events, andThen: (s) => worldEventKind.handle(s, c, io) };
    }
    switch (c.type) {
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'world event not found' } };
      case 'begin': return state ? { refusal: { status: 409, detail: `world event ${c.event.id} already exists` } } : beginEvent(io, c.event, c.day);
      case 'end': return decideEnd(state, c.day, true);
      case 'day-began': return state?.status === 'active' ? decideEnd(state, c.day, false) : { events: [] };
    }
  },
};
