// What active world events do (core rule 23), as pure functions of the events and the
// place or organization at hand. Every modifier stops the day its event expires; only a
// resource introduction (applied once, when the event begins) is permanent.
import { own, setOwn } from '../own';
export const EFFECT_KINDS = [
  'forest_danger_modifier', 'monster_growth_modifier', 'maintenance_modifier', 'production_modifier',
  'market_price_modifier', 'population_growth_modifier', 'resource_introduction',
] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

export interface Effect { kind: EffectKind; value: number; resource: string | null; location_id: string | null; price: number | null }

export interface PlaceLike { id: string; name: string; kind: string; description: string }

/** Modifiers for one location today. Percentages are summed, then turned into factors (never below 0). */
export interface LocationModifiers {
  danger: number;
  monster_growth: number;
  population_growth: number;
  production: number;
  /** Price factors by resource; '*' applies to every resource. */
  prices: Record<string, number>;
}

/**
 * An organization's day: upkeep where it stands, and the production modifiers (summed
 * percentages) by the place they aim at, '*' for everywhere (`production_at`): a
 * production plan is worked where it is, whoever owns it and wherever the owner stands
 * (productionFactorAt). `production`, the sum where it stands, is what a command of an
 * older version carried alone; it is still sent, for a node of that version.
 */
export interface OrganizationModifiers { maintenance: number; production: number; production_at: Record<string, number> }

/** A forest: wild land of trees (the forest danger modifier aims at these unless it names a place). */
export const isForest = (p: PlaceLike) => p.kind === 'forest'
  || (p.kind === 'wilderness' && /forest|wood|grove|trees/i.test(`${p.name} ${p.description}`));

const here = (e: Effect, locationId: string) => e.location_id === null || e.location_id === locationId;
const factor = (percent: number) => Math.max(0, 1 + percent / 100);

/** A world event moves a rate (production, population growth, monster growth) at most this many times its usual. */
export const RATE_FACTOR_MAX = 5;

/**
 * A summed percentage as a factor on a rate, within 0 and RATE_FACTOR_MAX: as with prices
 * (boundedPriceFactor), a modifier of +1,000,000% would otherwise make goods from a budget
 * that paid for a ten-thousandth of them, and people or monsters far past what a place holds.
 */
export const rateFactor = (percent: number) => Math.min(RATE_FACTOR_MAX, factor(percent));

export function locationModifiers(effects: Effect[], place: PlaceLike): LocationModifiers {
  const m = { danger: 0, monster: 0, population: 0, production: 0, prices: {} as Record<string, number> };
  for (const e of effects) {
    if (!here(e, place.id)) continue;
    switch (e.kind) {
      case 'forest_danger_modifier': if (e.location_id !== null || isForest(place)) m.danger += e.value; break;
      case 'monster_growth_modifier': m.monster += e.value; break;
      case 'population_growth_modifier': m.population += e.value; break;
      case 'production_modifier': m.production += e.value; break;
      case 'market_price_modifier': { const key = e.resource ?? '*'; setOwn(m.prices, key, (own(m.prices, key) ?? 0) + e.value); break; }
      default: break;
    }
  }
  // A modifier for every resource ('*') adds to one for a single resource.
  const all = m.prices['*'] ?? 0;
  const prices: Record<string, number> = {};
  for (const [k, v] of Object.entries(m.prices)) prices[k] = factor(k === '*' ? v : v + all);
  return { danger: m.danger, monster_growth: rateFactor(m.monster), population_growth: rateFactor(m.population), production: rateFactor(m.production), prices };
}

export function organizationModifiers(effects: Effect[], locationId: string): OrganizationModifiers {
  let maintenance = 0;
  let production = 0;
  const productionAt: Record<string, number> = {};
  for (const e of effects) {
    if (e.kind === 'maintenance_modifier' && here(e, locationId)) maintenance += e.value;
    if (e.kind !== 'production_modifier') continue;
    if (here(e, locationId)) production += e.value;
    const key = e.location_id ?? '*';
    setOwn(productionAt, key, (own(productionAt, key) ?? 0) + e.value);
  }
  return { maintenance, production, production_at: productionAt };
}

/**
 * The factor on a production plan's output at `locationId`: the modifiers aimed there and
 * everywhere; from a command without `production_at` (an older version's), its one sum.
 */
export function productionFactorAt(modifiers: Partial<OrganizationModifiers> | undefined, locationId: string): number {
  const at = modifiers?.production_at;
  if (!at) return rateFactor(modifiers?.production ?? 0);
  return rateFactor((own(at, '*') ?? 0) + (own(at, locationId) ?? 0));
}

export const NO_LOCATION_MODIFIERS: LocationModifiers = { danger: 0, monster_growth: 1, population_growth: 1, production: 1, prices: {} };
