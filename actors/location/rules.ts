// The location's rules: its daily life (population and market) and trade at its market.
import { own } from '../own';
import { MAX_CATCH_UP_DAYS } from '../clock/rules';
import { accept, conflict, notFound, refuse, type Decision } from '../result';
import { hasApplied, withApplied } from '../applied';
import { MAX_SUPPLY_RATIO, type MarketEntry, harvestFactors, introducedEntry, marketDay, marketRoom, openingMarket, populationDay, priceFor, tradeTotal } from './market';
import type { IntroduceResourceCommand, Location, LocationEvent, LocationState, MonstersChangedCommand, Route, SeedLocationCommand, TradeCommand, Traded } from './messages';
import { NO_LOCATION_MODIFIERS, type LocationModifiers } from '../world-event/effects';

export const CAPACITY_RATIO = 1.5;
export const WILD_KINDS = ['wilderness', 'dungeon'];
/** Daily growth of wild monster populations, slowing as they near MONSTER_CAP_RATIO times their original number. */
export const MONSTER_GROWTH = 0.01;
export const MONSTER_CAP_RATIO = 3;
/**
 * Below their original number, the wild fills again faster: each day at least this share of
 * what is missing comes back. Breeding alone (1% of a few survivors, a beast a day) could not
 * undo the quarter a successful quest slays, and a world whose parties cleared the wild
 * every few days kept its danger near nothing for good: quests without risk.
 */
export const MONSTER_REFILL = 0.05;

/** Danger follows the monsters: the original danger scaled by the square root of how their number has changed. */
export function derivedDanger(baseDanger: number, baseMonsters: number, monsters: number): number {
  if (baseMonsters <= 0) return baseDanger;
  return Math.max(0, Math.min(100, Math.round(baseDanger * Math.sqrt(monsters / baseMonsters))));
}

/** Wilderness and dungeon monsters breed every day (core rule 10); `factor` scales the growth (world events). */
export function monsterGrowth(kind: string, monsters: number, baseMonsters: number, factor = 1): number {
  if (!WILD_KINDS.includes(kind) || baseMonsters <= 0) return 0;
  const cap = baseMonsters * MONSTER_CAP_RATIO;
  const room = 1 - monsters / cap;
  const bred = Math.max(monsters * MONSTER_GROWTH * room, (baseMonsters - monsters) * MONSTER_REFILL);
  // Never past the cap, however fast a world event makes them breed.
  return Math.max(0, Math.min(Math.floor(cap) - monsters, Math.ceil(bred * factor)));
}

export function decideSeed(state: LocationState, c: SeedLocationCommand): Decision<LocationEvent> {
  // Seeded again by the same hand (a retried seeding or world event) it is done; another world event's place is taken.
  if (state) return c.world_event_id !== undefined && state.seeded_by_event !== c.world_event_id ? conflict(`location ${state.id} already exists`) : accept();
  const market = c.location.population > 0 ? openingMarket(c.location.population, c.profile) : null;
  return accept({ type: 'seeded', day: c.day, location: c.location, market, ...(c.world_event_id === undefined ? {} : { world_event_id: c.world_event_id }) });
}

/**
 * The place lives through every day since it last settled, up to `day` (normally just
 * `day`; more when an earlier day failed to settle it), each with today's conditions.
 */
export function decideDay(state: LocationState, day: number, construction: number, modifiers: LocationModifiers = NO_LOCATION_MODIFIERS, seed?: string): Decision<LocationEvent> {
  if (!state || state.settled_day >= day) return accept();
  const events: LocationEvent[] = [];
  let s: LocationState = state;
  for (let d = Math.max(state.settled_day + 1, day - MAX_CATCH_UP_DAYS + 1); d <= day; d++) {
    const e = oneDay(s!, d, construction, modifiers, seed);
    events.push(e);
    s = evolve(s, e);
  }
  return accept(...events);
}

/** Without a seed (a caller that gives none) the producers make exactly their usual output. */
function oneDay(state: Location, day: number, construction: number, modifiers: LocationModifiers, seed?: string): LocationEvent {
  const monsters = state.monster_population + monsterGrowth(state.kind, state.monster_population, state.base_monsters, modifiers.monster_growth);
  const common = { type: 'day-settled' as const, day, monster_population: monsters, danger_modifier: modifiers.danger };
  if (!state.market) return { ...common, population: state.population, market: null };
  const harvest = seed === undefined ? undefined : harvestFactors(seed, state.id, day, Object.keys(state.market));
  const market = marketDay(state.market, { population: state.population, construction, production: modifiers.production, prices: modifiers.prices, harvest });
  const population = populationDay(state.population, state.capacity, market, modifiers.population_growth);
  return { ...common, population, market };
}

export function decideAddRoute(state: LocationState, route: Route, day: number): Decision<LocationEvent> {
  if (!state) return notFound('location not found');
  if (route.destination_id === state.id) return conflict('a route cannot lead back to the same place');
  // The same road again (a world event's retried beginning) changes nothing.
  if (state.routes.some((r) => r.destination_id === route.destination_id && r.distance_days === route.distance_days && r.danger === route.danger)) return accept();
  return accept({ type: 'route-added', day, route });
}

export function decideIntroduceResource(state: LocationState, c: IntroduceResourceCommand): Decision<LocationEvent> {
  if (!state) return notFound('location not found');
  if (!state.market) return conflict(`${state.name} has no market`);
  if (own(state.market, c.resource)) return accept();
  return accept({ type: 'resource-introduced', day: c.day, entry: introducedEntry(c.resource, c.price, c.supply), world_event_id: c.world_event_id });
}

const effectiveDanger = (base: number, baseMonsters: number, monsters: number, modifier: number) =>
  Math.max(0, Math.min(100, derivedDanger(base, baseMonsters, monsters) + modifier));

/** The fewest units, more than `quantity` and at most `room`, whose sale fetches a gold piece; null when none does. */
function leastPayingSale(entry: MarketEntry, quantity: number, room: number): number | null {
  for (let q = quantity + 1; q <= room; q++) if (tradeTotal(entry, 'sell', q).total > 0) return q;
  return null;
}

/** A trade's terms at this market, or why it cannot happen (the organization's side is checked by the organization). */
export function quoteTrade(state: LocationState, c: TradeCommand): Decision<LocationEvent> {
  if (!state) return notFound('location not found');
  if (!state.market) return conflict(`${state.name} has no market: nobody lives there`);
  const entry = own(state.market, c.resource);
  if (!entry) {
    return refuse(404, `${c.resource} is not traded at ${state.name}; traded here: ${Object.keys(state.market).join(', ')}`);
  }
  if (c.side === 'buy' && c.quantity > entry.supply) {
    return conflict(`only ${entry.supply} ${c.resource} is for sale at ${state.name}`);
  }
  const room = marketRoom(entry);
  if (c.side === 'sell' && c.quantity > room) {
    return conflict(`${state.name} takes at most ${room} more ${c.resource} now: its buyers hold at most ${MAX_SUPPLY_RATIO} times its usual supply of ${entry.target_supply}`);
  }
  const { total, supplyAfter, priceAfter } = tradeTotal(entry, c.side, c.quantity);
  if (total === 0) {
    // A sale is paid in whole gold, rounded down: goods given away for nothing are refused, saying what would fetch a gold piece.
    const least = leastPayingSale(entry, c.quantity, room);
    return conflict(`${c.quantity} ${c.resource} would fetch nothing at ${state.name}: at ${entry.price} gold a unit they are worth less than one gold piece, and a sale is paid in whole gold rounded down; `
      + (least === null ? `${state.name} takes too little more ${c.resource} now for any sale to fetch a gold piece` : `sell at least ${least}`));
  }
  return accept({
    type: 'traded', day: c.day, agent_id: c.agent_id, organization_id: c.organization_id, resource: c.resource,
    side: c.side, quantity: c.quantity, total, supply_after: supplyAfter, price_after: priceAfter,
  });
}

/** A quest's fight changes the monsters, once per quest (the quest's retried closing asks again). */
export function decideMonstersChanged(state: LocationState, c: MonstersChangedCommand): Decision<LocationEvent> {
  if (!state) return notFound('location not found');
  if (hasApplied(state.quests_fought, c.quest_id)) return accept();
  return accept({ type: 'monsters-changed', day: c.day, change: c.change, quest_id: c.quest_id });
}

/** The intent of a trade the market agrees to: the quote, numbered, recorded before the organization is asked. */
export function decideBeginTrade(state: LocationState, c: TradeCommand): Decision<LocationEvent> {
  const quote = quoteTrade(state, c);
  if ('refusal' in quote) return quote;
  const { type: _t, ...trade } = quote.events[0] as Traded;
  return accept({ type: 'trade-begun', day: c.day, trade: { ...trade, serial: (state!.trades_begun ?? 0) + 1 } });
}

/**
 * How a trade under way ends once the organization answered: recorded at the market
 * (the quantity leaves or joins today's supply), abandoned when the organization refused,
 * or still pending (null) when the outcome is unknown.
 */
export function decideTradeAnswer(state: LocationState, answer: { ok: true } | { ok: false; refusal: { status: number; detail: string } }): Decision<LocationEvent> | null {
  const p = state?.pending_trade;
  if (!p) return accept();
  if (!answer.ok) {
    if (answer.refusal.status === 503) return null;
    return accept({ type: 'trade-abandoned', day: p.day, serial: p.serial, reason: answer.refusal.detail });
  }
  const { serial: _s, ...trade } = p;
  const entry = own(state!.market, p.resource);
  // The supply as it is now (a day may have passed while the trade was pending), moved by the quantity.
  const supplyAfter = entry ? Math.max(0, p.side === 'buy' ? entry.supply - p.quantity : entry.supply + p.quantity) : p.supply_after;
  return accept({ type: 'traded', ...trade, supply_after: supplyAfter, price_after: entry ? priceFor(entry, supplyAfter) : p.price_after });
}

export function evolve(state: LocationState, e: LocationEvent): LocationState {
  if (e.type === 'seeded') {
    return {
      ...e.location, routes: e.location.routes.map((r) => ({ ...r })), base_danger: e.location.danger, base_monsters: e.location.monster_population, danger_modifier: 0,
      capacity: Math.round(e.location.population * CAPACITY_RATIO), market: e.market, settled_day: e.day,
      ...(e.world_event_id === undefined ? {} : { seeded_by_event: e.world_event_id }),
    };
  }
  if (!state) return state;
  switch (e.type) {
    case 'day-settled':
      return {
        ...state, population: e.population, market: e.market, settled_day: e.day, monster_population: e.monster_population,
        danger_modifier: e.danger_modifier ?? 0,
        danger: effectiveDanger(state.base_danger, state.base_monsters, e.monster_population, e.danger_modifier ?? 0),
      };
    case 'monsters-changed': {
      const monsters = Math.max(0, state.monster_population + e.change);
      return { ...state, monster_population: monsters, quests_fought: withApplied(state.quests_fought, e.quest_id, e.day), danger: effectiveDanger(state.base_danger, state.base_monsters, monsters, state.danger_modifier) };
    }
    case 'route-added':
      return { ...state, routes: [...state.routes.filter((r) => r.destination_id !== e.route.destination_id), { ...e.route }] };
    case 'resource-introduced':
      return state.market ? { ...state, market: { ...state.market, [e.entry.resource]: { ...e.entry } } } : state;
    case 'trade-begun':
      return { ...state, pending_trade: e.trade, trades_begun: e.trade.serial };
    case 'trade-abandoned':
      return { ...state, pending_trade: null };
    case 'traded': {
      if (!state.market) return { ...state, pending_trade: null };
      const entry = own(state.market, e.resource);
      if (!entry) return { ...state, pending_trade: null };
      return { ...state, pending_trade: null, market: { ...state.market, [e.resource]: { ...entry, supply: e.supply_after, price: priceFor(entry, e.supply_after) } } };
    }
  }
}
