// Brings the generated world into being through the actors, once. Every step is
// idempotent (an entity that exists ignores its seed), so a start interrupted halfway
// simply seeds the rest on the next start.
import { forEachLimited } from '../concurrency';
import type { Entities } from '../ports/entities';
import { StoreUnavailableError, type Store } from '../ports/store';
import { CLOCK_ID } from '../clock/actor';
import { FIRST_DAY } from '../clock/rules';
import { generateWorld } from './generate';

const SEEDED = 'world_seeded';

/** `at`: when the world begins (wall-clock milliseconds), from which the background clock counts its first day. */
export async function seedWorld(entities: Entities, store: Store, seed: string, at?: number): Promise<void> {
  if (await store.setting(SEEDED)) return;
  const world = generateWorld(seed);
  const must = async (what: string, p: Promise<{ ok: boolean; refusal?: { status: number; detail: string } }>) => {
    const r = await p;
    if (r.ok || r.refusal?.detail.includes('already exists')) return;
    // A write that failed (503) is worth another try: the start-up waits and seeds the rest.
    if (r.refusal?.status === 503) throw new StoreUnavailableError(`seeding ${what}: ${r.refusal.detail}`);
    throw new Error(`seeding ${what} failed: ${r.refusal?.detail}`);
  };
  await must('clock', entities.ask('clock', CLOCK_ID, { type: 'begin', seed, ...(at === undefined ? {} : { at }) }));
  for (const { profile, ...location } of world.locations) {
    await must(`location ${location.id}`, entities.ask('location', location.id, { type: 'seed', location, profile, day: FIRST_DAY }));
  }
  await store.reserveIdsUpTo('organization', world.organizations.length);
  for (const o of world.organizations) {
    await must(`organization ${o.id}`, entities.ask('organization', o.id, {
      type: 'found', id: o.id, agent_id: null, name: o.name, kind: o.kind, location_id: o.location_id,
      description: o.description, goals: o.goals, motto: o.motto, day: FIRST_DAY, seeded_treasury: o.treasury,
    }));
  }
  await store.reserveIdsUpTo('adventurer', world.adventurers.length);
  await forEachLimited(world.adventurers, 64, (adventurer) =>
    must(`adventurer ${adventurer.id}`, entities.ask('adventurer', adventurer.id, { type: 'seed', adventurer, day: FIRST_DAY })));
  await store.setSetting(SEEDED, seed);
}
