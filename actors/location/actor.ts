// The location actor: a place and its regional market. A trade is agreed here and then
// settled with the organization (lower in the ask order) before it is recorded, so the
// market is never changed by a trade the organization refused.
import { own } from '../own';
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import type { Refusal } from '../result';
import { intentEnded, intentRow } from '../intents';
import { RANK } from '../order';
import type { Location, LocationCommand, LocationEvent, LocationState, TradeCommand, Traded } from './messages';
import type { MarketEntry } from './market';
import { decideAddRoute, decideBeginTrade, decideMonstersChanged, decideDay, decideIntroduceResource, decideSeed, decideTradeAnswer, evolve } from './rules';

export const locationView = (l: Location) => ({
  id: l.id, name: l.name, kind: l.kind, description: l.description, danger: l.danger, population: l.population,
  monster_population: l.monster_population, routes: l.routes.map((r) => ({ ...r })), has_market: l.market !== null,
});

export const marketEntryView = (l: Pick<Location, 'id'>, e: MarketEntry) => ({
  resource: e.resource, price: e.price, supply: e.supply, location_id: l.id, base_price: e.base_price, usual_supply: e.target_supply,
  // The world events' factor on the price (1 when none): with it a quote prices a trade as the market will.
  price_factor: e.price_factor ?? 1,
});

/**
 * Whether the place's row reads the same before and after: every field of its view equal
 * (the routes, which the view copies, by the state's own list). A field the view gains
 * later that is an object never compares equal, so its row is written: the safe side.
 */
function sameView(before: Location, after: Location): boolean {
  const a = locationView(before) as Record<string, unknown>;
  const b = locationView(after) as Record<string, unknown>;
  return Object.keys(b).every((k) => (k === 'routes' ? before.routes === after.routes : a[k] === b[k]));
}

function project(l: LocationState, before?: LocationState): ProjectionRow[] {
  if (!l) return [];
  // A trade changes one market entry (evolve keeps the others, the same objects) and none of
  // the place's own fields: its row and the other entries' rows are on record already.
  const placeKept = before ? sameView(before, l) : false;
  const rows: ProjectionRow[] = placeKept ? [] : [{ kind: 'location', id: l.id, location_id: l.id, doc: locationView(l) }];
  for (const e of Object.values(l.market ?? {})) {
    if (own(before?.market, e.resource) === e) continue;
    rows.push({ kind: 'market', id: `${l.id}/${e.resource}`, location_id: l.id, doc: marketEntryView(l, e) });
  }
  return rows;
}

function chronicle(e: LocationEvent, after: LocationState, before: LocationState): HistoryEntry[] {
  if (!after) return [];
  switch (e.type) {
    case 'seeded': return [];
    case 'route-added':
      return [{ day: e.day, category: 'world', agent_id: null, organization_ids: [], summary: `A road now leads from ${after.name} to ${e.route.destination_id} (${e.route.distance_days} days, danger ${e.route.danger})`, data: { location_id: after.id, route: e.route } }];
    case 'resource-introduced':
      return [{ day: e.day, category: 'market', agent_id: null, organization_ids: [], summary: `${e.entry.resource} is now traded at ${after.name}, at ${e.entry.base_price} gold`, data: { location_id: after.id, resource: e.entry.resource, world_event_id: e.world_event_id } }];
    case 'monsters-changed':
      return [{
        day: e.day, category: 'monsters', agent_id: null, organization_ids: [],
        summary: e.change < 0 ? `${-e.change} monsters were slain at ${after.name}; danger is now ${after.danger}` : `The monsters of ${after.name} grew bolder by ${e.change}; danger is now ${after.danger}`,
        data: { location_id: after.id, change: e.change, quest_id: e.quest_id, monster_population: after.monster_population, danger: after.danger },
      }];
    case 'day-settled': {
      if (!after.market || !before?.market) {
        const grown = after.monster_population - (before?.monster_population ?? after.monster_population);
        return grown > 0 ? [{
          day: e.day, category: 'monsters', agent_id: null, organization_ids: [],
          summary: `Monsters multiply at ${after.name}: ${after.monster_population} (+${grown}), danger ${after.danger}`,
          data: { location_id: after.id, monster_population: after.monster_population, danger: after.danger },
        }] : [];
      }
      const moves = Object.values(after.market).map((m) => {
        const was = own(before.market, m.resource)?.price ?? m.price;
        const pct = was ? Math.round(((m.price - was) / was) * 100) : 0;
        return `${m.resource} ${m.price}${pct ? ` (${pct > 0 ? '+' : ''}${pct}%)` : ''}`;
      });
      const people = after.population - before.population;
      return [{
        day: e.day, category: 'market', agent_id: null, organization_ids: [],
        summary: `${after.name}: ${moves.join(', ')}; population ${after.population}${people ? ` (${people > 0 ? '+' : ''}${people})` : ''}`,
        data: { location_id: after.id, population: after.population, prices: Object.fromEntries(Object.values(after.market).map((m) => [m.resource, m.price])) },
      }];
    }
    case 'traded':
    case 'trade-begun':
    case 'trade-abandoned':
      return []; // the organization's record of the trade is the history entry: it carries the ledger with the gold and goods it moved
  }
}

export interface TradeReceipt {
  trade: Omit<Traded, 'type'>;
  market: ReturnType<typeof marketEntryView>;
  organization: unknown;
}

/**
 * A trade, a saga: the market quotes it and records its intent (`trade-begun`, numbered),
 * then asks the organization to pay or deliver (it settles each numbered trade of a market
 * once), then records the trade. A crash between the steps leaves the intent, which
 * `resume` finishes; a new trade finishes one left pending first.
 */
async function beginTrade(state: LocationState, c: TradeCommand, io: EntityIO): Promise<Outcome<LocationState, LocationEvent>> {
  if (state?.pending_trade) {
    const pending = await continueTrade(state, io);
    if ('refusal' in pending && !pending.events?.length) return pending;
    return { events: pending.events ?? [], andThen: (s) => beginTrade(s, c, io) };
  }
  const d = decideBeginTrade(state, c);
  if ('refusal' in d) return d;
  return { events: d.events, andThen: (s) => continueTrade(s, io) };
}

async function continueTrade(state: LocationState, io: EntityIO): Promise<Outcome<LocationState, LocationEvent>> {
  const p = state?.pending_trade;
  if (!p) return { events: [] };
  const settled = await io.ask('organization', p.organization_id, {
    type: 'settle-trade', agent_id: p.agent_id, day: p.day, location_id: state!.id,
    resource: p.resource, side: p.side, quantity: p.quantity, gold: p.total, price_after: p.price_after, serial: p.serial,
  });
  const d = decideTradeAnswer(state, settled);
  if (d === null) return { refusal: (settled as { refusal: Refusal }).refusal }; // unknown: the intent stays
  if ('refusal' in d) return d;
  if (!settled.ok) return { events: d.events, refusal: settled.refusal };
  const { type: _t, ...trade } = d.events[0] as Traded;
  return {
    events: d.events,
    reply: (s: LocationState): TradeReceipt => ({ trade, market: marketEntryView(s!, own(s!.market, p.resource)!), organization: settled.value }),
  };
}

export const locationKind: EntityKind<LocationState, LocationCommand, LocationEvent> = {
  kind: 'location',
  rank: RANK.location,
  commands: { seed: true, status: true, 'day-began': true, trade: true, 'monsters-changed': true, 'add-route': true, 'introduce-resource': true, resume: true },
  initialState: null,
  evolve,
  project,
  chronicle,
  // A trade is an intent until it ends (actors/intents.ts).
  eventRows: (e, after) => {
    if (!after) return [];
    if (e.type === 'trade-begun') return [intentRow({ kind: 'location', id: after.id, intent: 'trade', day: e.day, organization_id: e.trade.organization_id })];
    if (e.type === 'traded' || e.type === 'trade-abandoned') return [intentEnded('location', after.id)];
    return [];
  },
  view: (s) => (s ? locationView(s) : null),
  async handle(state, c, io) {
    switch (c.type) {
      case 'seed': return decideSeed(state, c);
      case 'day-began': return decideDay(state, c.day, c.construction, c.modifiers, c.seed);
      case 'add-route': return decideAddRoute(state, c.route, c.day);
      case 'introduce-resource': return decideIntroduceResource(state, c);
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'location not found' } };
      case 'monsters-changed': return decideMonstersChanged(state, c);
      case 'trade': return beginTrade(state, c, io);
      case 'resume': return continueTrade(state, io);
    }
  },
};
