// The location's rules: its daily life (population and market) and trade at its market.
import { accept, conflict, notFound, refuse, type Decision } from '../result';
import { marketDay, openingMarket, populationDay, priceFor, tradeTotal } from './market';
import type { LocationEvent, LocationState, SeedLocationCommand, TradeCommand } from './messages';

export const CAPACITY_RATIO = 1.5;

export function decideSeed(state: LocationState, c: SeedLocationCommand): Decision<LocationEvent> {
  if (state) return accept();
  const market = c.location.population > 0 ? openingMarket(c.location.population, c.profile) : null;
  return accept({ type: 'seeded', day: c.day, location: c.location, market });
}

export function decideDay(state: LocationState, day: number, construction: number): Decision<LocationEvent> {
  if (!state || state.settled_day >= day) return accept();
  if (!state.market) return accept({ type: 'day-settled', day, population: state.population, market: null });
  const market = marketDay(state.market, { population: state.population, construction });
  const population = populationDay(state.population, state.capacity, market);
  return accept({ type: 'day-settled', day, population, market });
}

/** A trade's terms at this market, or why it cannot happen (the organization's side is checked by the organization). */
export function quoteTrade(state: LocationState, c: TradeCommand): Decision<LocationEvent> {
  if (!state) return notFound('location not found');
  if (!state.market) return conflict(`${state.name} has no market: nobody lives there`);
  const entry = state.market[c.resource];
  if (!entry) {
    return refuse(404, `${c.resource} is not traded at ${state.name}; traded here: ${Object.keys(state.market).join(', ')}`);
  }
  if (c.side === 'buy' && c.quantity > entry.supply) {
    return conflict(`only ${entry.supply} ${c.resource} is for sale at ${state.name}`);
  }
  const { total, supplyAfter, priceAfter } = tradeTotal(entry, c.side, c.quantity);
  return accept({
    type: 'traded', day: c.day, agent_id: c.agent_id, organization_id: c.organization_id, resource: c.resource,
    side: c.side, quantity: c.quantity, total, supply_after: supplyAfter, price_after: priceAfter,
  });
}

export function evolve(state: LocationState, e: LocationEvent): LocationState {
  if (e.type === 'seeded') {
    return { ...e.location, routes: e.location.routes.map((r) => ({ ...r })), capacity: Math.round(e.location.population * CAPACITY_RATIO), market: e.market, settled_day: e.day };
  }
  if (!state) return state;
  switch (e.type) {
    case 'day-settled':
      return { ...state, population: e.population, market: e.market, settled_day: e.day };
    case 'traded': {
      if (!state.market) return state;
      const entry = state.market[e.resource];
      return { ...state, market: { ...state.market, [e.resource]: { ...entry, supply: e.supply_after, price: priceFor(entry, e.supply_after) } } };
    }
  }
}
