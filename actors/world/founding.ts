// New organizations appear where a place prospers: a pure decision on a seeded draw, which
// the daily turn carries out with the same `found` command an agent's founding sends (no
// agent, and the treasury the world derives from the kind, paid by the founding_grant flow).
import { pick, rng } from '../random';
import { numeral, withArticle } from '../words';
import type { FoundCommand } from '../organization/messages';

/** A place prospers when this many people live there... */
export const PROSPEROUS_POPULATION = 2000;
/** ...and its market holds at least this share of its usual stock (supply valued at base prices). */
export const PROSPEROUS_STOCK_SHARE = 0.8;
/** A place has room for one active organization per this many people. */
export const PEOPLE_PER_ORGANIZATION = 1500;
/** The chance, each day, that the world founds one organization at a prospering place. */
export const FOUNDING_CHANCE = 0.06;
/** At most this many world-founded organizations are active at once. */
export const MAX_WORLD_FOUNDED = 6;

const KINDS = ['adventuring company', 'trading company', 'mercenary band'];
/** The names of each kind (a place's name goes before them), so that a name says what it is. */
const NAMES: Record<string, string[]> = {
  'adventuring company': ['Lantern Company', 'Wayfarers', 'Long Road Company', 'Emberline Company'],
  'trading company': ['Copper Road Traders', 'Salt and Iron Company', 'Silver Scale Traders', 'Merchants of the Ford'],
  'mercenary band': ['Free Blades', 'Oathbound', 'Grey Banners', 'Hearthguard', 'Ravenwatch'],
};
/** A name comes round at most this many times at a place ("... X"). */
const ROUNDS = 10;

/** The first name of the kind at the place not yet taken: "Emberfall Wayfarers", then "Emberfall Wayfarers II" once every name was used. */
function freeNames(place: string, kind: string, taken: Set<string>): string[] {
  for (let n = 1; n <= ROUNDS; n++) {
    const free = NAMES[kind].map((name) => `${place} ${name}${numeral(n)}`).filter((name) => !taken.has(name));
    if (free.length) return free;
  }
  return [];
}

export interface ProsperityPlace { id: string; name: string; population: number; has_market: boolean }
export interface ProsperityMarket { location_id: string; supply: number; base_price: number; usual_supply: number }

/** Whether a place prospers: people enough, a well-stocked market, and room for another organization. */
export function prospers(place: ProsperityPlace, markets: ProsperityMarket[], activeThere: number): boolean {
  if (!place.has_market || place.population < PROSPEROUS_POPULATION) return false;
  const local = markets.filter((m) => m.location_id === place.id);
  const stock = local.reduce((s, m) => s + m.supply * m.base_price, 0);
  const usual = local.reduce((s, m) => s + m.usual_supply * m.base_price, 0);
  return usual > 0 && stock >= usual * PROSPEROUS_STOCK_SHARE && activeThere < Math.floor(place.population / PEOPLE_PER_ORGANIZATION);
}

/** Whether the world founds an organization today, if a place prospers (the first draw of the day's founding). */
export const foundsToday = (seed: string, day: number): boolean => rng(seed, 'founding', day)() < FOUNDING_CHANCE;

/** The organization the world founds today (the caller gives it its id), or null. */
export function founding(
  seed: string, day: number, places: ProsperityPlace[], markets: ProsperityMarket[],
  activeAt: (placeId: string) => number, worldFounded: number, takenNames: Set<string>,
): Omit<FoundCommand, 'id' | 'type'> | null {
  if (worldFounded >= MAX_WORLD_FOUNDED) return null;
  const r = rng(seed, 'founding', day);
  if (r() >= FOUNDING_CHANCE) return null;
  const prospering = places.filter((p) => prospers(p, markets, activeAt(p.id)));
  if (prospering.length === 0) return null;
  const place = pick(r, prospering);
  const kind = pick(r, KINDS);
  const free = freeNames(place.name, kind, takenNames);
  const name = free.length ? pick(r, free) : `${place.name} Company of Day ${day}`;
  return {
    agent_id: null, name, kind, location_id: place.id, day,
    description: `${withArticle(kind).replace(/^a/, 'A')} that rose in ${place.name} while it prospered.`,
    goals: 'Take the quests it can win, trade where prices favour it, and stay solvent.',
    motto: 'Fortune favours the ready.',
  };
}
