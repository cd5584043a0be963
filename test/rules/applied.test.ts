// What an entity has applied once, by name (actors/applied.ts): a retried step of a saga is
// recognized for APPLIED_KEPT_DAYS days of the world, and the memory of an entity that lives
// for years stays the size of a month.
import assert from 'assert/strict';
import { APPLIED_KEPT_DAYS, APPLIED_KEPT_MAX, hasApplied, withApplied, type Applied } from '../../actors/applied';
import type { AdventurerState } from '../../actors/adventurer/messages';
import { decideQuestOutcome, evolve as evolveAdventurer } from '../../actors/adventurer/rules';
import type { LocationState } from '../../actors/location/messages';
import { decideMonstersChanged, decideSeed, evolve as evolveLocation } from '../../actors/location/rules';
import type { FoundCommand, Organization, OrganizationState, QuestSettledCommand } from '../../actors/organization/messages';
import { decideFound, decideQuestSettled, evolve as evolveOrganization } from '../../actors/organization/rules';
import { generateWorld } from '../../actors/world/generate';

type D<E> = { events: E[] } | { refusal: { status: number; detail: string } };
const eventsOf = <E>(d: D<E> | null): E[] => {
  assert.ok(d && 'events' in d, `expected events, got ${JSON.stringify(d)}`);
  return d.events;
};

describe('applied names (actors/applied.ts)', () => {
  it('recognizes a name from the day it is applied until APPLIED_KEPT_DAYS days later', () => {
    let applied: Applied<string> | undefined;
    assert.equal(hasApplied(applied, 'quest:1:resolved'), false, 'nothing applied yet');
    applied = withApplied(applied, 'quest:1:resolved', 10);
    assert.equal(hasApplied(applied, 'quest:1:resolved'), true);
    assert.equal(hasApplied(applied, 'quest:2:resolved'), false, 'another name is another step');
    assert.equal(hasApplied(applied, undefined), false, 'an unnamed step is never applied before');
    applied = withApplied(applied, 'quest:2:resolved', 10 + APPLIED_KEPT_DAYS - 1);
    assert.equal(hasApplied(applied, 'quest:1:resolved'), true, `still known ${APPLIED_KEPT_DAYS - 1} days later`);
    applied = withApplied(applied, 'quest:3:resolved', 10 + APPLIED_KEPT_DAYS);
    assert.equal(hasApplied(applied, 'quest:1:resolved'), false, `forgotten once ${APPLIED_KEPT_DAYS} days have passed`);
    assert.deepEqual(applied, [['quest:2:resolved', 10 + APPLIED_KEPT_DAYS - 1], ['quest:3:resolved', 10 + APPLIED_KEPT_DAYS]]);
  });

  it('stays the size of its last days however long the entity lives', () => {
    let applied: Applied<number> | undefined;
    for (let day = 1; day <= 1000; day++) applied = withApplied(applied, day, day);
    assert.equal(applied!.length, APPLIED_KEPT_DAYS, 'one a day for a thousand days keeps the last month');
    let busy: Applied<number> | undefined;
    for (let n = 0; n < APPLIED_KEPT_MAX + 500; n++) busy = withApplied(busy, n, 7);
    assert.equal(busy!.length, APPLIED_KEPT_MAX, 'thousands in a day keep the newest');
    assert.equal(hasApplied(busy, APPLIED_KEPT_MAX + 499), true);
    assert.equal(hasApplied(busy, 0), false);
  });

  it('reads the bare names of older records and dates them with the next name applied', () => {
    const older: Applied<string> = ['adventurer:4:employment:1', 'quest:2:reserved:1'];
    assert.equal(hasApplied(older, 'quest:2:reserved:1'), true);
    const next = withApplied(older, 'quest:9:resolved', 50);
    assert.deepEqual(next, [['adventurer:4:employment:1', 50], ['quest:2:reserved:1', 50], ['quest:9:resolved', 50]]);
    assert.equal(hasApplied(withApplied(next, 'x', 50 + APPLIED_KEPT_DAYS - 1), 'quest:2:reserved:1'), true, 'kept a month from then');
    assert.equal(withApplied(older, undefined, 50), older, 'an unnamed step leaves the memory as it was');
  });

  it("an organization pays a named settlement once, and its memory of it ends a month later", () => {
    const found: FoundCommand = { type: 'found', id: 7, agent_id: 1, name: 'Lantern Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
    const org = eventsOf(decideFound(null, found)).reduce<OrganizationState>(evolveOrganization, null) as Organization;
    const paid: QuestSettledCommand = { type: 'quest-settled', day: 4, quest_id: 8, gold: 15, op: 'quest:8:resolved', reputation: 0, trust: {}, party_id: null, dead: [], reason: 'paid' };
    const after = eventsOf(decideQuestSettled(org, paid)).reduce<OrganizationState>(evolveOrganization, org)!;
    assert.equal(after.treasury, org.treasury + 15);
    assert.deepEqual(eventsOf(decideQuestSettled(after, { ...paid, day: 5 })), [], 'asked again the next day, it pays nothing twice');
    let later: OrganizationState = after;
    for (let day = 5; day <= 4 + APPLIED_KEPT_DAYS; day++) {
      later = eventsOf(decideQuestSettled(later, { ...paid, day, quest_id: 100 + day, op: `quest:${100 + day}:resolved` })).reduce<OrganizationState>(evolveOrganization, later);
    }
    assert.equal(later!.applied_ops!.length, APPLIED_KEPT_DAYS, 'a settlement a day keeps a month of names');
    assert.equal(hasApplied(later!.applied_ops, 'quest:8:resolved'), false);
  });

  it("an adventurer takes a quest's outcome once, and a place's monsters change once per quest, each remembered a month", () => {
    const hero = evolveAdventurer(null, { type: 'appeared', day: 1, adventurer: { id: 30, name: 'Wren', strength: 12, level: 1, experience: 0, traits: ['brave'] } });
    const outcome = { type: 'quest-outcome' as const, day: 3, quest_id: 5, quest_title: 'Clear the fields', outcome: 'full' as const, experience: 25, injury_days: 0, died: false, bonds: {} };
    let a = eventsOf(decideQuestOutcome(hero, outcome)).reduce<AdventurerState>(evolveAdventurer, hero);
    assert.deepEqual(eventsOf(decideQuestOutcome(a, outcome)), [], 'asked again, it changes nothing');
    a = eventsOf(decideQuestOutcome(a, { ...outcome, quest_id: 6, day: 3 + APPLIED_KEPT_DAYS })).reduce<AdventurerState>(evolveAdventurer, a);
    assert.deepEqual(a!.quests_endured, [[6, 3 + APPLIED_KEPT_DAYS]], 'the quest of a month ago is forgotten');

    const { profile, ...spec } = generateWorld('applied').locations.find((l) => l.id === 'greenhollow')!;
    let place = eventsOf(decideSeed(null, { type: 'seed', location: spec, profile, day: 1 })).reduce<LocationState>(evolveLocation, null);
    const slain = { type: 'monsters-changed' as const, day: 3, change: -5, quest_id: 5 };
    place = eventsOf(decideMonstersChanged(place, slain)).reduce<LocationState>(evolveLocation, place);
    assert.deepEqual(eventsOf(decideMonstersChanged(place, { ...slain, day: 4 })), [], 'asked again, it changes nothing');
    for (let q = 6; q < 6 + 100; q++) place = eventsOf(decideMonstersChanged(place, { ...slain, change: 0, quest_id: q, day: 3 + q })).reduce<LocationState>(evolveLocation, place);
    assert.equal(place!.quests_fought!.length, APPLIED_KEPT_DAYS, 'a quest fought a day for a hundred days keeps a month of them');
  });
});
