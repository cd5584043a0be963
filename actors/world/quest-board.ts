// The world keeps itself busy: its organizations post quests suited to the dangers of
// the wild places, and new adventurers arrive while the pool of available ones is thin.
// Both are pure decisions on seeded draws; the daily fan-out carries them out.
import { intBetween, pick, rng } from '../random';
import type { QuestSpec } from '../quest/messages';
import { LEAN_DAYS } from '../organization/policy';

export const MAX_OPEN_QUESTS_PER_SEEDED = 2;
export const POST_CHANCE = 0.35;
export const QUEST_DEADLINE_DAYS = 20;
export const AVAILABLE_POOL_TARGET = 25;
/** Chance a newcomer arrives on a day while the pool of available adventurers is thin, and while it is not. */
export const RECRUIT_CHANCE = 0.7;
export const RECRUIT_CHANCE_FULL_POOL = 0.3;

interface Place { id: string; name: string; kind: string; danger: number }

const TITLES: Record<string, string[]> = {
  wilderness: ['Clear the beasts of {name}', 'Escort the caravan through {name}', 'Hunt the raiders of {name}'],
  dungeon: ['Delve into {name}', 'Put the dead of {name} to rest', 'Recover the relics of {name}'],
};

/**
 * A quest an organization of the world (seeded, or founded by the world) posts today (the
 * caller gives it its id), or null. It posts only from gold beyond LEAN_DAYS of its upkeep
 * (the mark below which it lets members go): a newly founded one (a few hundred gold)
 * otherwise put its grant into rewards within weeks and went bankrupt, its refunds passing
 * to the world.
 */
export function seededQuest(seed: string, day: number, requester: { id: number; treasury: number; daily_maintenance?: number }, openQuests: number, places: Place[]): Omit<QuestSpec, 'id'> | null {
  const r = rng(seed, 'quest-board', requester.id, day);
  if (openQuests >= MAX_OPEN_QUESTS_PER_SEEDED || r() >= POST_CHANCE) return null;
  const wild = places.filter((p) => TITLES[p.kind]);
  if (wild.length === 0) return null;
  const place = pick(r, wild);
  const reward = 40 + place.danger * 8 + intBetween(r, 0, 40);
  if (requester.treasury - reward < (requester.daily_maintenance ?? 0) * LEAN_DAYS) return null;
  return {
    title: pick(r, TITLES[place.kind]).replace('{name}', place.name),
    description: `${place.name} grows more dangerous by the day (danger ${place.danger}, and the beasts may be more than the scouts counted). Bring a strong party and come back alive.`,
    requester_id: requester.id,
    location_id: place.id,
    reward,
    deadline_days: QUEST_DEADLINE_DAYS,
    minimum_strength: Math.floor(place.danger / 2),
    minimum_reputation: 0,
    minimum_relationship: -100,
  };
}

/**
 * Whether the world already posted a quest for this seeded organization today: posted
 * (not the world's own reward: a world event's quest), or still being posted. The day's
 * initiative taken again after a crash posts none twice.
 */
export function postedToday(
  requesterId: number, day: number,
  quests: Array<{ requester_id: number; posted_day: number; world_funded: boolean }>,
  pending: Array<{ kind: string; intent: string; day: number; organization_id?: number }>,
): boolean {
  return quests.some((q) => q.requester_id === requesterId && q.posted_day === day && !q.world_funded)
    || pending.some((p) => p.kind === 'quest' && p.intent === 'posting' && p.day === day && p.organization_id === requesterId);
}

/** Whether today's newcomer is among these adventurers (the day's initiative taken again brings none twice). */
export const arrivedToday = (day: number, adventurers: Array<{ joined_day: number }>) => adventurers.some((a) => a.joined_day === day);

/**
 * Whether a new adventurer arrives today (generateAdventurer makes it, with its new id):
 * newcomers keep coming, more often while few are looking for work. `recruitment` is the
 * extra chance the recruiting establishments of the world add (see establishments).
 */
export function recruits(seed: string, day: number, available: number, recruitment = 0): boolean {
  const chance = (available < AVAILABLE_POOL_TARGET ? RECRUIT_CHANCE : RECRUIT_CHANCE_FULL_POOL) + recruitment;
  return rng(seed, 'recruits', day)() < chance;
}
