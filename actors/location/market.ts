// Regional markets as pure functions (core rules 19 and 20). A price follows supply:
// scarce goods are dear, plentiful ones cheap, always within fixed bounds around the
// resource's base price. Every day the population eats, construction draws on timber and
// ore, local producers restock, and supply drifts back toward its usual level, so a
// world left alone neither blows up nor empties. What producers make varies from day to
// day (seeded), with the local seasons, and now and then a bad or a bumper spell, so
// prices move on their own and differ between regions.
import { own, setOwn } from '../own';
import { hash32, rng } from '../random';

export interface MarketEntry {
  resource: string;
  /** The usual level of supply; the price equals base_price there. */
  target_supply: number;
  supply: number;
  base_price: number;
  price: number;
  /** What local producers make, as a share of what the people use: their farms, mills and mines grow with them. */
  production_factor: number;
  /** Units each inhabitant uses each day. */
  per_person: number;
  /** Set by world events (market price modifier); 1 when none is active. */
  price_factor?: number;
}

export type Market = Record<string, MarketEntry>;

export const PRICE_FLOOR_RATIO = 0.2;
export const PRICE_CEILING_RATIO = 5;
export const PRICE_ELASTICITY = 0.8;
/** Share of the gap to the usual supply closed each day (traders from elsewhere, spoilage). */
export const SUPPLY_REVERSION = 0.1;
export const MAX_SUPPLY_RATIO = 5;
/** What each inhabitant uses per day: food above all, some timber and ore. */
export const PER_PERSON: Record<string, number> = { food: 0.01, timber: 0.002, ore: 0.001 };
/** Days of usual demand a market keeps in supply. */
export const STOCK_DAYS = 30;
/** What one active construction project draws from its location's market each day, when its budget pays for it (constructionShare). */
export const CONSTRUCTION_DRAW: Record<string, number> = { timber: 3, ore: 2 };
/** A settlement's usual prices before its profile (openingMarket). */
export const REFERENCE_BASE_PRICES: Readonly<Record<string, number>> = { food: 2, timber: 4, ore: 6 };
/** What a day's CONSTRUCTION_DRAW is worth at the usual prices: 24 gold. */
export const CONSTRUCTION_GOLD_PER_DAY = Object.entries(CONSTRUCTION_DRAW).reduce((sum, [r, q]) => sum + q * (own(REFERENCE_BASE_PRICES, r) ?? 0), 0);

/**
 * The share of a day's CONSTRUCTION_DRAW an active construction project takes from its
 * market: what its budget spends a day, against what the draw is worth, at most all of it.
 * A project of 1 gold over 60 days draws next to nothing, where it drew a full day's
 * materials and could empty a market's timber and ore for a few gold.
 */
export const constructionShare = (p: { budget: number; duration_days: number }) =>
  Math.min(1, Math.max(0, p.budget / Math.max(1, p.duration_days) / CONSTRUCTION_GOLD_PER_DAY));

const round2 = (n: number) => Math.round(n * 100) / 100;
/** Prices keep four decimals, so even a one-unit trade moves them (core rule 19). */
const round4 = (n: number) => Math.round(n * 10000) / 10000;

/**
 * A world event's price factor, kept within what the market's own bounds allow a price to
 * move: at most five times lower or higher (PRICE_FLOOR_RATIO, PRICE_CEILING_RATIO). A
 * modifier of -100 or below would otherwise give goods away, to be sold again once the
 * event ends, and one of +100,000 would make a cart of grain a fortune.
 */
export const boundedPriceFactor = (factor: number) => Math.min(PRICE_CEILING_RATIO, Math.max(PRICE_FLOOR_RATIO, factor));

export function priceFor(e: Pick<MarketEntry, 'base_price' | 'target_supply' | 'price_factor'>, supply: number): number {
  const ratio = e.target_supply / Math.max(supply, 1);
  const raw = e.base_price * Math.pow(ratio, PRICE_ELASTICITY);
  const bounded = Math.min(e.base_price * PRICE_CEILING_RATIO, Math.max(e.base_price * PRICE_FLOOR_RATIO, raw));
  return Math.max(0.0001, round4(bounded * (e.price_factor ?? 1)));
}

/**
 * The gold the supply's passage from `low` to `high` is worth: the area under the price
 * curve (priceFor, before rounding) between them. Areas add up, so what a trade costs does
 * not depend on how it is split: the curve is convex, and a price taken at the two ends of
 * a trade (their mean) would make one large sale fetch more than the small buys it undoes.
 */
export function valueBetween(e: Pick<MarketEntry, 'base_price' | 'target_supply' | 'price_factor'>, low: number, high: number): number {
  const ceiling = e.base_price * PRICE_CEILING_RATIO;
  const floor = e.base_price * PRICE_FLOOR_RATIO;
  const scale = e.base_price * Math.pow(e.target_supply, PRICE_ELASTICITY);
  const raw = (s: number) => scale * Math.pow(Math.max(s, 1), -PRICE_ELASTICITY);
  // Below a supply of 1 the price is that of 1 (priceFor); elsewhere the curve, within its bounds.
  const atCeiling = Math.pow(scale / ceiling, 1 / PRICE_ELASTICITY);
  const atFloor = Math.pow(scale / floor, 1 / PRICE_ELASTICITY);
  const bends = [1, atCeiling, atFloor].filter((x) => x > low && x < high).sort((a, b) => a - b);
  // (PRICE_ELASTICITY is not 1: the area under s^-1 would be a logarithm.)
  const antiderivative = (s: number) => (scale * Math.pow(s, 1 - PRICE_ELASTICITY)) / (1 - PRICE_ELASTICITY);
  let area = 0;
  for (let i = 0, from = low; i <= bends.length; i++) {
    const to = i < bends.length ? bends[i] : high;
    const p = raw((from + to) / 2);
    if (from < 1 || p >= ceiling || p <= floor) area += Math.min(ceiling, Math.max(floor, p)) * (to - from);
    else area += antiderivative(to) - antiderivative(from);
    from = to;
  }
  return area * (e.price_factor ?? 1);
}

/**
 * How much more of a resource the market buys: its supply never goes above MAX_SUPPLY_RATIO
 * times the usual (the day's end keeps it there too), so a flood of goods does not fetch
 * even the floor price without end.
 */
export const marketRoom = (e: Pick<MarketEntry, 'supply' | 'target_supply'>) => Math.max(0, Math.floor(e.target_supply * MAX_SUPPLY_RATIO) - e.supply);

/**
 * The gold a trade of `quantity` costs (buy) or fetches (sell): the area under the price
 * curve over the supply it moves (valueBetween), rounded up for a buyer (at least 1) and
 * down for a seller. A large order moves the price against itself, and no split of an order
 * costs less or fetches more than the order whole: buying in lots and selling at once, or
 * the other way round, at one market on one day, never gains gold.
 */
export function tradeTotal(e: MarketEntry, side: 'buy' | 'sell', quantity: number): { total: number; supplyAfter: number; priceAfter: number } {
  const supplyAfter = side === 'buy' ? e.supply - quantity : e.supply + quantity;
  const priceAfter = priceFor(e, supplyAfter);
  // Rounded to the hundred-thousandth first, so float noise never adds or takes a gold.
  const value = Math.round(valueBetween(e, Math.min(e.supply, supplyAfter), Math.max(e.supply, supplyAfter)) * 1e5) / 1e5;
  const total = side === 'buy' ? Math.max(1, Math.ceil(value)) : Math.max(0, Math.floor(value));
  return { total, supplyAfter, priceAfter };
}

export interface DayInputs {
  population: number;
  /** Active construction projects at this location, each weighed by what its budget pays of its materials (constructionShare). */
  construction: number;
  /** World events: the factor on local producers, and price factors by resource ('*' for all). */
  production?: number;
  prices?: Record<string, number>;
  /** Today's harvest by resource (harvestFactors): the factor on what local producers make; 1 when absent. */
  harvest?: Record<string, number>;
}

/** Days of the world's year; each settlement's season for each resource has its own phase. */
export const YEAR_DAYS = 120;
/** How far the seasons swing production above and below the usual, by resource (fields more than mines). */
export const SEASON_AMPLITUDE: Record<string, number> = { food: 0.35, timber: 0.2, ore: 0.1 };
/** Day-to-day variation of production: a uniform draw within this share either side. */
export const DAILY_VARIATION = 0.25;
/** Production is judged in spells of this many days: each spell may be a shortage or a glut. */
export const SPELL_DAYS = 10;
export const SHORTAGE = { chance: 0.12, factor: 0.3 } as const;
export const GLUT = { chance: 0.08, factor: 1.8 } as const;

/**
 * What local producers make today, as a factor on their usual output, per resource: the
 * season (a sine over YEAR_DAYS, its phase drawn per settlement and resource), times a
 * daily draw, times a shortage or glut when the current spell is one. A pure function of
 * the seed, the place and the day, so every node and every replay agree.
 */
export function harvestFactors(seed: string, locationId: string, day: number, resources: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const resource of resources) {
    const phase = (hash32(seed, 'season', locationId, resource) % YEAR_DAYS) / YEAR_DAYS;
    const season = 1 + (own(SEASON_AMPLITUDE, resource) ?? 0) * Math.sin(2 * Math.PI * (day / YEAR_DAYS + phase));
    const daily = 1 + DAILY_VARIATION * (2 * rng(seed, 'harvest', locationId, resource, day)() - 1);
    const spell = rng(seed, 'spell', locationId, resource, Math.floor(day / SPELL_DAYS))();
    const shock = spell < SHORTAGE.chance ? SHORTAGE.factor : spell > 1 - GLUT.chance ? GLUT.factor : 1;
    setOwn(out, resource, Math.max(0, season * daily * shock));
  }
  return out;
}

/** Whether the spell a day falls in is a shortage or a glut of a resource at a place (for the pulse and tests). */
export function spellOf(seed: string, locationId: string, resource: string, day: number): 'shortage' | 'glut' | 'usual' {
  const spell = rng(seed, 'spell', locationId, resource, Math.floor(day / SPELL_DAYS))();
  return spell < SHORTAGE.chance ? 'shortage' : spell > 1 - GLUT.chance ? 'glut' : 'usual';
}

/**
 * How far the supply moves toward the usual in a day: SUPPLY_REVERSION of the gap, but a
 * whole unit at least (the gap itself when smaller), so a gap under ten units, whose tenth
 * would round away, still closes instead of staying for good.
 */
export function reversion(gap: number): number {
  const share = gap * SUPPLY_REVERSION;
  return Math.abs(share) >= 1 ? share : Math.sign(gap) * Math.min(1, Math.abs(gap));
}

/** The market after one day: consumption, production and drift toward the usual supply. */
export function marketDay(market: Market, inputs: DayInputs): Market {
  const next: Market = {};
  for (const [resource, e] of Object.entries(market)) {
    const used = inputs.population * e.per_person;
    const built = (own(CONSTRUCTION_DRAW, resource) ?? 0) * inputs.construction;
    const made = inputs.population * e.per_person * e.production_factor * (inputs.production ?? 1) * (own(inputs.harvest, resource) ?? 1);
    let supply = e.supply + made - used - built;
    supply += reversion(e.target_supply - supply);
    supply = Math.round(Math.min(e.target_supply * MAX_SUPPLY_RATIO, Math.max(0, supply)));
    const priceFactor = boundedPriceFactor(own(inputs.prices, resource) ?? own(inputs.prices, '*') ?? 1);
    const entry = { ...e, supply, price_factor: priceFactor };
    setOwn(next, resource, { ...entry, price: priceFor(entry, supply) });
  }
  return next;
}

/** Population growth toward the place's capacity while fed; deaths when food runs short. */
export const GROWTH_RATE = 0.002;
export const FAMINE_RATE = 0.004;
export const FAMINE_SUPPLY_RATIO = 0.2;

export function populationDay(population: number, capacity: number, market: Market, growthFactor = 1): number {
  if (population <= 0 || !market.food) return population;
  const food = market.food;
  if (food.supply < food.target_supply * FAMINE_SUPPLY_RATIO) {
    return Math.max(1, Math.floor(population * (1 - FAMINE_RATE)));
  }
  const growth = population * GROWTH_RATE * growthFactor * (1 - population / capacity);
  // Growth stops at what the land can feed.
  const grown = growth > 0 ? Math.min(Math.max(population, capacity), population + growth) : population + growth;
  return Math.max(1, Math.round(grown));
}

/**
 * The market a settlement starts with: producers make what the people use and supply
 * holds STOCK_DAYS of it. A favoured resource is made in surplus and kept in plenty at
 * half the price; a scarce one is made short of need, kept thin, at twice the price.
 */
export function openingMarket(population: number, profile: { favours?: string[]; scarce?: string[] }): Market {
  const market: Market = {};
  for (const [resource, price0] of Object.entries(REFERENCE_BASE_PRICES)) {
    const demand = Math.max(1, population * PER_PERSON[resource]);
    let price = price0;
    let target = Math.round(demand * STOCK_DAYS);
    let factor = 1;
    if (profile.favours?.includes(resource)) { price = round2(price * 0.5); target *= 3; factor = 1.5; }
    if (profile.scarce?.includes(resource)) { price = round2(price * 2); target = Math.round(target / 3); factor = 0.85; }
    market[resource] = {
      resource, target_supply: target, supply: target, base_price: price, price, production_factor: factor, per_person: PER_PERSON[resource],
    };
  }
  return market;
}

/** A resource brought to a market by a world event: it stays for good (core rule 23). */
export function introducedEntry(resource: string, price: number, supply: number): MarketEntry {
  const base = round2(Math.max(0.01, price));
  const stock = Math.max(1, Math.round(supply));
  return { resource, target_supply: stock, supply: stock, base_price: base, price: base, production_factor: 0, per_person: 0 };
}
