// What an establishment does, by its kind: the kind is free text (ProjectCreate's
// establishment_kind), so the world reads it by its words. Each family has one effect:
// safety lowers the danger of its place, income pays its owner every day, recruitment
// draws newcomer adventurers to the world, travel shortens the journeys that set out from
// its place. A kind with words of two families is of the first in the order below
// (safety, income, recruitment, travel): a "bridge tower" keeps its place safe.
// A kind matching no family is a named service without an effect. Pure functions; the
// daily fan-out, the organization's day and whatever computes a journey's days apply them.

export type EstablishmentRole = 'safety' | 'income' | 'recruitment' | 'travel';

export const SAFETY_DANGER_CUT = 5;
export const SAFETY_MAX_CUT = 15;
export const INCOME_PER_DAY = 6;
/** The income establishments of one owner that pay: more of them pay nothing more. */
export const INCOME_MAX_PAYING = 3;
export const RECRUITMENT_CHANCE = 0.1;
export const RECRUITMENT_MAX = 0.3;
export const TRAVEL_DAY_CUT = 1;
export const TRAVEL_MAX_CUT = 1;

export const ESTABLISHMENT_FAMILIES: Record<EstablishmentRole, { words: string[]; effect: string }> = {
  safety: { words: ['watchtower', 'tower', 'fort', 'fortress', 'wall', 'walls', 'garrison', 'keep', 'palisade', 'outpost'], effect: `lowers the danger of its location by ${SAFETY_DANGER_CUT} (at most ${SAFETY_MAX_CUT} for all of them there)` },
  income: { words: ['inn', 'tavern', 'market', 'shop', 'store', 'trading post', 'bank', 'workshop', 'smithy', 'mill'], effect: `pays its owner ${INCOME_PER_DAY} gold every day while the owner is active (at most ${INCOME_MAX_PAYING} of an owner's pay)` },
  recruitment: { words: ['guild hall', 'guildhall', 'training', 'academy', 'barracks', 'school', 'hall'], effect: `adds ${RECRUITMENT_CHANCE} to the daily chance that a newcomer adventurer arrives (at most ${RECRUITMENT_MAX} for all of them)` },
  travel: { words: ['stable', 'stables', 'waystation', 'way station', 'ferry', 'harbor', 'harbour', 'port', 'dock', 'docks', 'bridge', 'caravanserai', 'coaching house'], effect: `a journey setting out from its location takes ${TRAVEL_DAY_CUT} day less (at most ${TRAVEL_MAX_CUT} for all of them there; never under 1 day)` },
};

export interface EstablishmentLike { kind: string; location_id: string }

/** The family whose word the kind contains (as a whole word), the first in the order above. */
export function establishmentRole(kind: string): EstablishmentRole | null {
  const k = ` ${kind.toLowerCase().replace(/[^a-z]+/g, ' ').trim()} `;
  for (const [role, f] of Object.entries(ESTABLISHMENT_FAMILIES) as Array<[EstablishmentRole, { words: string[] }]>) {
    if (f.words.some((w) => k.includes(` ${w} `))) return role;
  }
  return null;
}

const count = (es: EstablishmentLike[], role: EstablishmentRole, locationId?: string) =>
  es.filter((e) => establishmentRole(e.kind) === role && (locationId === undefined || e.location_id === locationId)).length;

/** How much the safety establishments at a place lower its danger. */
export const safetyCut = (es: EstablishmentLike[], locationId: string) => Math.min(SAFETY_MAX_CUT, SAFETY_DANGER_CUT * count(es, 'safety', locationId));

/**
 * How many days the travel establishments at a place take off a journey setting out from
 * there (travel.ts travelDays applies it, and keeps a journey at 1 day at least).
 */
export const travelCut = (es: EstablishmentLike[], locationId: string) => Math.min(TRAVEL_MAX_CUT, TRAVEL_DAY_CUT * count(es, 'travel', locationId));

/** The gold an owner's establishments pay it each day (at most INCOME_MAX_PAYING of them pay). */
export const establishmentIncome = (es: EstablishmentLike[]) => INCOME_PER_DAY * Math.min(INCOME_MAX_PAYING, count(es, 'income'));

/** The extra daily chance of a newcomer the world's recruiting establishments give. */
export const recruitmentBonus = (es: EstablishmentLike[]) => Math.min(RECRUITMENT_MAX, RECRUITMENT_CHANCE * count(es, 'recruitment'));
