// Pure rules of quests (core rules 8, 9, 11, 12, 13), of adventurer progression, and of
// monsters and derived danger at a location (core rule 10).
import assert from 'assert/strict';
import fc from 'fast-check';
import type { Adventurer, AdventurerEvent, AdventurerState, QuestOutcomeCommand, Trait } from '../../actors/adventurer/messages';
import { EXPERIENCE_PER_LEVEL, STRENGTH_PER_LEVEL, decideQuestOutcome, evolve as evolveAdventurer, hiringFee, levelFor } from '../../actors/adventurer/rules';
import { decideDay, decideSeed, derivedDanger, evolve as evolveLocation, monsterGrowth } from '../../actors/location/rules';
import type { LocationEvent, LocationState } from '../../actors/location/messages';
import type { Fund, Quest, QuestOutcome, QuestSpec } from '../../actors/quest/messages';
import {
  ACCEPTANCE_DAYS, acceptanceLapse, bondsFor, checkAcceptor, checkRequirements, dueDay, effectiveDanger, evolve as evolveQuest, experienceFor, fateOf, memberStrength, outcomeFor, partyStrength,
  refunds, rewardPaid, totalReward, type Member, type Place,
} from '../../actors/quest/rules';

const member = (id: number, strength: number, ...traits: Trait[]): Member => ({ id, strength, traits });
const at = (kind: string, danger: number, monsters = 100): Place => ({ kind, danger, monster_population: monsters });
/** A draw function that answers the given values in turn, then the last one forever. */
const draws = (...values: number[]) => { let i = 0; return () => values[Math.min(i++, values.length - 1)]; };
const OUTCOMES: QuestOutcome[] = ['full', 'partial', 'failure'];

describe('quest rules', () => {
  describe('outcome by strength against danger (core rule 8)', () => {
    it('is full at strength equal to the danger and above', () => {
      assert.equal(outcomeFor(40, 40), 'full');
      assert.equal(outcomeFor(41, 40), 'full');
      assert.equal(outcomeFor(41, 41), 'full');
      assert.equal(outcomeFor(0, 0), 'full');
    });

    it('is partial just below the danger and down to exactly half of it', () => {
      assert.equal(outcomeFor(39, 40), 'partial');
      assert.equal(outcomeFor(20, 40), 'partial');
      assert.equal(outcomeFor(40, 41), 'partial');
      assert.equal(outcomeFor(21, 41), 'partial', '21 >= 20.5');
    });

    it('is a failure one below half of the danger', () => {
      assert.equal(outcomeFor(19, 40), 'failure');
      assert.equal(outcomeFor(20, 41), 'failure', '20 < 20.5');
      assert.equal(outcomeFor(0, 1), 'failure');
    });

    it('agrees with the rule as written for any strength and danger', () => {
      fc.assert(fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 100 }), (s, d) => {
        const expected = s >= d ? 'full' : s >= d / 2 ? 'partial' : 'failure';
        assert.equal(outcomeFor(s, d), expected);
      }));
    });
  });

  describe('traits (core rule 12)', () => {
    it('brave: stronger only where danger is 40 or more', () => {
      assert.equal(memberStrength(member(1, 10, 'brave'), at('dungeon', 39)), 10);
      assert.ok(memberStrength(member(1, 10, 'brave'), at('dungeon', 40)) > 10);
      assert.equal(memberStrength(member(1, 10, 'brave'), at('dungeon', 40)), 12);
      assert.equal(memberStrength(member(1, 10, 'patient'), at('dungeon', 80)), 10, 'no bonus without the trait');
      assert.equal(partyStrength([member(1, 10, 'brave'), member(2, 10)], at('wilderness', 45)), 22);
      assert.equal(partyStrength([member(1, 10, 'brave'), member(2, 10)], at('wilderness', 35)), 20);
    });

    it('reckless: hits harder anywhere', () => {
      assert.ok(memberStrength(member(1, 20, 'reckless'), at('town', 5)) > 20);
      assert.equal(memberStrength(member(1, 20, 'reckless'), at('town', 5)), 23);
      assert.equal(partyStrength([member(1, 20, 'reckless'), member(2, 20, 'brave', 'reckless')], at('dungeon', 60)), 23 + 27);
    });

    it('reckless: dies twice as often on a failure', () => {
      const plain = member(1, 10);
      const reckless = member(2, 10, 'reckless');
      // A first draw between the plain and the doubled death chance kills only the reckless one.
      assert.equal(fateOf('failure', plain, draws(0.3, 0.99)).died, false);
      assert.equal(fateOf('failure', reckless, draws(0.3, 0.99)).died, true);
      assert.equal(fateOf('failure', plain, draws(0.19)).died, true);
      assert.equal(fateOf('failure', reckless, draws(0.39)).died, true);
      assert.equal(fateOf('failure', reckless, draws(0.4, 0.99)).died, false);
      // Over many draws the reckless die about twice as often.
      let plainDeaths = 0;
      let recklessDeaths = 0;
      for (let i = 0; i < 1000; i++) {
        const d = (i + 0.5) / 1000;
        if (fateOf('failure', plain, draws(d, 0.99)).died) plainDeaths++;
        if (fateOf('failure', reckless, draws(d, 0.99)).died) recklessDeaths++;
      }
      assert.ok(plainDeaths > 0);
      assert.equal(recklessDeaths, 2 * plainDeaths);
    });

    it('cautious: lowers the effective danger, each by a share, up to the cap', () => {
      const place = at('dungeon', 60);
      assert.equal(effectiveDanger([member(1, 10)], place), 60);
      assert.equal(effectiveDanger([member(1, 10, 'cautious')], place), 54);
      assert.equal(effectiveDanger([member(1, 10, 'cautious'), member(2, 10, 'cautious')], place), 48);
      const three = [1, 2, 3].map((i) => member(i, 10, 'cautious'));
      assert.equal(effectiveDanger(three, place), 42);
      assert.equal(effectiveDanger([...three, member(4, 10, 'cautious'), member(5, 10, 'cautious')], place), 42, 'capped');
      assert.ok(effectiveDanger([...three, member(4, 10, 'cautious')], place) >= Math.round(60 * 0.7));
    });

    it('cautious can turn a partial success into a full one', () => {
      const place = at('dungeon', 60);
      const bold = [member(1, 28), member(2, 28)];
      const careful = [member(1, 28, 'cautious'), member(2, 28)];
      assert.equal(outcomeFor(partyStrength(bold, place), effectiveDanger(bold, place)), 'partial');
      assert.equal(outcomeFor(partyStrength(careful, place), effectiveDanger(careful, place)), 'full');
    });

    it('patient: injuries heal in half the time (rounded up)', () => {
      // Partial: injured when the first draw is below the injury chance; days from the second.
      const partialPlain = fateOf('partial', member(1, 10), draws(0.1, 0.99));
      const partialPatient = fateOf('partial', member(1, 10, 'patient'), draws(0.1, 0.99));
      assert.equal(partialPlain.injury_days, 5);
      assert.equal(partialPatient.injury_days, 3);
      // Failure: survives the first draw, injured on the second, days from the third.
      const failPlain = fateOf('failure', member(1, 10), draws(0.9, 0.1, 0.99));
      const failPatient = fateOf('failure', member(1, 10, 'patient'), draws(0.9, 0.1, 0.99));
      assert.equal(failPlain.injury_days, 8);
      assert.equal(failPatient.injury_days, 4);
      assert.equal(fateOf('failure', member(1, 10, 'patient'), draws(0.9, 0.1, 0)).injury_days, 2, 'ceil(3 / 2)');
    });

    it('loyal: doubles positive bonds and resents less', () => {
      const pair = [member(1, 10, 'loyal'), member(2, 10)];
      for (const outcome of ['full', 'partial'] as const) {
        const b = bondsFor(outcome, pair);
        const plain = b.get(2)!['1'];
        assert.ok(plain > 0, `${outcome} strengthens bonds`);
        assert.equal(b.get(1)!['2'], 2 * plain, `${outcome}: the loyal one bonds twice as strongly`);
      }
      const fail = bondsFor('failure', pair);
      assert.ok(fail.get(2)!['1'] < 0, 'failure breeds resentment');
      assert.ok(fail.get(1)!['2'] < 0 && fail.get(1)!['2'] > fail.get(2)!['1'], 'the loyal one resents less');
    });

    it('bonds run between every pair of members and never toward oneself', () => {
      const three = [member(1, 10), member(2, 10), member(3, 10, 'loyal')];
      const b = bondsFor('full', three);
      for (const m of three) {
        const toward = Object.keys(b.get(m.id)!).map(Number).sort();
        assert.deepEqual(toward, three.map((x) => x.id).filter((id) => id !== m.id));
      }
      assert.deepEqual(bondsFor('full', [member(1, 10)]).get(1), {});
    });

    it('curious: learns more in dungeons only', () => {
      const curious = member(1, 10, 'curious');
      const plain = member(2, 10);
      assert.equal(experienceFor('full', plain, at('dungeon', 60)), 10);
      assert.equal(experienceFor('partial', plain, at('dungeon', 60)), 5);
      assert.ok(experienceFor('full', curious, at('dungeon', 60)) > 10);
      assert.equal(experienceFor('full', curious, at('dungeon', 60)), 15);
      assert.ok(experienceFor('partial', curious, at('dungeon', 60)) > 5);
      assert.equal(experienceFor('full', curious, at('wilderness', 35)), 10);
      assert.equal(experienceFor('full', curious, at('town', 15)), 10);
      assert.equal(experienceFor('partial', curious, at('city', 5)), 5);
      assert.equal(experienceFor('failure', curious, at('dungeon', 60)), 0);
    });
  });

  describe('experience and levels (core rule 11)', () => {
    const appeared = (experience = 0, level = levelFor(experience)): Adventurer =>
      evolveAdventurer(null, { type: 'appeared', day: 1, adventurer: { id: 1, name: 'Wren Oakheart', strength: 12, level, experience, traits: ['brave'] } }) as Adventurer;
    const outcome = (over: Partial<QuestOutcomeCommand> = {}): QuestOutcomeCommand => ({
      type: 'quest-outcome', day: 5, quest_id: 9, quest_title: 'Delve', outcome: 'full', experience: 10, injury_days: 0, died: false, bonds: {}, ...over,
    });
    function endure(a: AdventurerState, c: QuestOutcomeCommand): Adventurer {
      const d = decideQuestOutcome(a, c);
      assert.ok('events' in d, JSON.stringify(d));
      return d.events.reduce<AdventurerState>((s, e: AdventurerEvent) => evolveAdventurer(s, e), a) as Adventurer;
    }

    it('grants 10 for a full success and 5 for a partial one', () => {
      assert.equal(experienceFor('full', member(1, 10), at('town', 10)), 10);
      assert.equal(experienceFor('partial', member(1, 10), at('town', 10)), 5);
      assert.equal(experienceFor('failure', member(1, 10), at('town', 10)), 0);
    });

    it('raises the level every 20 experience', () => {
      assert.equal(EXPERIENCE_PER_LEVEL, 20);
      assert.equal(levelFor(0), 1);
      assert.equal(levelFor(19), 1);
      assert.equal(levelFor(20), 2);
      assert.equal(levelFor(39), 2);
      assert.equal(levelFor(40), 3);
    });

    it('gains a level and strength on reaching 20, none before', () => {
      const a = appeared(0);
      const once = endure(a, outcome());
      assert.equal(once.experience, 10);
      assert.equal(once.level, 1);
      assert.equal(once.strength, 12);
      const twice = endure(once, outcome({ quest_id: 10 }));
      assert.equal(twice.experience, 20);
      assert.equal(twice.level, 2);
      assert.equal(twice.strength, 12 + STRENGTH_PER_LEVEL);
      assert.ok(STRENGTH_PER_LEVEL > 0);
      assert.ok(twice.moments.some((m) => m.kind === 'level'), 'levelling is a moment');
    });

    it('gains the next level at 40, with strength again', () => {
      const a = appeared(35);
      assert.equal(a.level, 2);
      const up = endure(a, outcome({ outcome: 'partial', experience: 5 }));
      assert.equal(up.experience, 40);
      assert.equal(up.level, 3);
      assert.equal(up.strength, 12 + STRENGTH_PER_LEVEL);
      const still = endure(appeared(34), outcome({ outcome: 'partial', experience: 5 }));
      assert.equal(still.level, 2);
      assert.equal(still.strength, 12);
    });

    it('gives the dead no experience and keeps a moment of each quest', () => {
      const a = appeared(15);
      const dead = endure(a, outcome({ outcome: 'failure', experience: 10, died: true }));
      assert.equal(dead.status, 'dead');
      assert.equal(dead.experience, 15);
      assert.ok(dead.moments.some((m) => m.kind === 'quest') && dead.moments.some((m) => m.kind === 'died'));
      const hurt = endure(a, outcome({ outcome: 'partial', experience: 5, injury_days: 3 }));
      assert.equal(hurt.injured_until, 8);
      assert.ok(hurt.moments.some((m) => m.kind === 'injured'));
    });
  });

  describe('casualties (core rule 8)', () => {
    it('never kills on a full or partial success, whatever the draws', () => {
      const members = [member(1, 10), member(2, 10, 'reckless'), member(3, 10, 'patient'), member(4, 10, 'reckless', 'brave')];
      fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1, maxLength: 6 }), (values) => {
        for (const outcome of ['full', 'partial'] as const) {
          for (const m of members) assert.equal(fateOf(outcome, m, draws(...values)).died, false);
        }
      }));
      for (let i = 0; i < 100; i++) {
        for (const m of members) {
          assert.equal(fateOf('full', m, draws(i / 100)).died, false);
          assert.equal(fateOf('partial', m, draws(i / 100)).died, false);
        }
      }
    });

    it('leaves a full success unhurt', () => {
      for (let i = 0; i < 100; i++) assert.deepEqual(fateOf('full', member(1, 10), draws(i / 100)), { died: false, injury_days: 0 });
    });

    it('may kill on a failure', () => {
      assert.equal(fateOf('failure', member(1, 10), draws(0)).died, true);
      assert.equal(fateOf('failure', member(1, 10), draws(0.99)).died, false);
    });
  });

  describe('gold: reward paid and refunds', () => {
    it('pays all, half rounded down, or nothing', () => {
      assert.equal(rewardPaid('full', 101), 101);
      assert.equal(rewardPaid('partial', 101), 50);
      assert.equal(rewardPaid('partial', 100), 50);
      assert.equal(rewardPaid('failure', 101), 0);
      for (const o of OUTCOMES) assert.ok(rewardPaid(o, 1) <= 1);
    });

    it('refunds exactly the amount, to every funder in proportion', () => {
      const funds: Fund[] = [{ organization_id: 5, amount: 100 }, { organization_id: 6, amount: 50 }, { organization_id: 7, amount: 1 }];
      const all = refunds(funds, 151);
      assert.deepEqual(all, funds, 'a full refund returns each its own');
      const half = refunds(funds, 75);
      assert.equal(half.reduce((n, f) => n + f.amount, 0), 75);
      const byOrg = new Map(half.map((f) => [f.organization_id, f.amount]));
      assert.ok(Math.abs(byOrg.get(5)! - 75 * 100 / 151) <= 1);
      assert.ok(Math.abs(byOrg.get(6)! - 75 * 50 / 151) <= 1);
      assert.deepEqual(refunds(funds, 0), []);
      assert.deepEqual(refunds([], 10), []);
    });

    it('merges the shares of a funder who pledged twice', () => {
      const r = refunds([{ organization_id: 5, amount: 10 }, { organization_id: 6, amount: 7 }, { organization_id: 5, amount: 3 }], 20);
      assert.deepEqual(r, [{ organization_id: 5, amount: 13 }, { organization_id: 6, amount: 7 }]);
    });

    it('always sums exactly to the amount, each share within one gold of its exact proportion', () => {
      const fund = fc.record({ organization_id: fc.integer({ min: 1, max: 1000 }), amount: fc.integer({ min: 1, max: 100000 }) });
      fc.assert(fc.property(fc.uniqueArray(fund, { minLength: 1, maxLength: 8, selector: (f) => f.organization_id }), fc.double({ min: 0, max: 1, noNaN: true }), (funds, share) => {
        const total = funds.reduce((n, f) => n + f.amount, 0);
        const amount = Math.floor(total * share);
        const r = refunds(funds, amount);
        assert.equal(r.reduce((n, f) => n + f.amount, 0), amount);
        for (const f of r) {
          assert.ok(f.amount > 0);
          const exact = (funds.find((x) => x.organization_id === f.organization_id)!.amount * amount) / total;
          assert.ok(f.amount >= Math.floor(exact) && f.amount <= Math.floor(exact) + 1, `share ${f.amount} for exact ${exact}`);
        }
        for (const f of funds) {
          const exact = (f.amount * amount) / total;
          if (exact >= 1) assert.ok(r.some((x) => x.organization_id === f.organization_id), 'every funder owed a gold gets one');
        }
      }));
    });

    it('resolution never pays out more than the reward holds: paid + refunds = reward', () => {
      fc.assert(fc.property(fc.constantFrom(...OUTCOMES), fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 5 }), (outcome, amounts) => {
        const funds = amounts.map((amount, i) => ({ organization_id: i + 1, amount }));
        const reward = totalReward({ funds });
        const paid = rewardPaid(outcome, reward);
        const back = refunds(funds, reward - paid).reduce((n, f) => n + f.amount, 0);
        assert.equal(paid + back, reward);
      }));
    });
  });

  describe('requirements (core rule 9)', () => {
    const quest = (over: Partial<QuestSpec> = {}): Quest =>
      evolveQuest(null, {
        type: 'posted', day: 3, agent_id: 1,
        quest: {
          id: 1, title: 'Delve', description: 'Into the deep dark', requester_id: 5, location_id: 'sunken-crypt', reward: 100,
          deadline_days: 4, minimum_strength: 30, minimum_reputation: 12, minimum_relationship: 5, ...over,
        },
      }) as Quest;

    it('is met at exactly the minimums', () => {
      assert.equal(checkRequirements(quest(), { strength: 30, reputation: 12, trust: 5 }), null);
      assert.equal(checkRequirements(quest(), { strength: 300, reputation: 99, trust: 100 }), null);
    });

    it('names each unmet requirement with what is held and what is required', () => {
      assert.equal(checkRequirements(quest(), { strength: 29, reputation: 12, trust: 5 }), 'requirements not met: strength 29 is below the required 30');
      assert.equal(checkRequirements(quest(), { strength: 29, reputation: 12, trust: 5 }, 'the party\'s'), 'requirements not met: the party\'s strength 29 is below the required 30', 'it names whose strength was weighed');
      assert.equal(checkRequirements(quest(), { strength: 30, reputation: 11, trust: 5 }), 'requirements not met: reputation 11 is below the required 12');
      assert.equal(checkRequirements(quest(), { strength: 30, reputation: 12, trust: 4 }), 'requirements not met: trust with the requester 4 is below the required 5');
      const all = checkRequirements(quest(), { strength: 1, reputation: 2, trust: -3 })!;
      assert.match(all, /strength 1 is below the required 30/);
      assert.match(all, /reputation 2 is below the required 12/);
      assert.match(all, /trust with the requester -3 is below the required 5/);
      assert.equal(all.split('; ').length, 3);
    });

    it('has no relationship requirement by default (-100)', () => {
      assert.equal(checkRequirements(quest({ minimum_relationship: -100, minimum_strength: 0, minimum_reputation: 0 }), { strength: 0, reputation: 0, trust: -100 }), null);
    });

    it('posting keeps the deadline as a day and the requester as the first funder', () => {
      const q = quest();
      assert.equal(q.deadline_day, 7);
      assert.equal(q.status, 'open');
      assert.deepEqual(q.funds, [{ organization_id: 5, amount: 100 }]);
      const sponsored = evolveQuest(q, { type: 'sponsored', day: 3, organization_id: 8, amount: 40, agent_id: 2 }) as Quest;
      assert.equal(sponsored.reward, 140);
      assert.equal(totalReward(sponsored), 140);
    });
  });

  describe('an acceptance holds for ACCEPTANCE_DAYS', () => {
    const open = evolveQuest(null, {
      type: 'posted', day: 3, agent_id: 1,
      quest: { id: 2, title: 'Hold', description: 'A reward nobody should lock', requester_id: 5, location_id: 'emberfall', reward: 500, deadline_days: null, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: -100 },
    }) as Quest;
    const accepted = evolveQuest(open, { type: 'accepted', day: 4, organization_id: 9, agent_id: 2 }) as Quest;
    const sent = { ...accepted, party_id: 11, party_members: [1] };
    const last = 4 + ACCEPTANCE_DAYS;

    it('stands through its last day, then reopens the quest with no party sent, or fails it with one that never reported back', () => {
      assert.equal(acceptanceLapse(accepted, last), null);
      assert.equal(acceptanceLapse(accepted, last + 1), 'reopen');
      assert.equal(acceptanceLapse(sent, last + 1), 'fail');
      assert.equal(acceptanceLapse(open, last + 100), null, 'an open quest has no acceptance to lapse');
    });

    it('makes the quest due the day after, or after its deadline when that comes first', () => {
      assert.equal(dueDay(open), null, 'no deadline, not accepted: never due');
      assert.equal(dueDay(accepted), last + 1);
      assert.equal(dueDay({ ...accepted, deadline_day: 10 }), 11);
      assert.equal(dueDay({ ...accepted, status: 'resolved' }), null);
    });

    it('reopened by the lapse, the quest will not take the same organization again; others may', () => {
      const reopened = evolveQuest(accepted, { type: 'reopened', day: last + 1, reason: 'lapsed', lapsed_organization_id: 9 }) as Quest;
      assert.equal(reopened.status, 'open');
      assert.equal(reopened.accepted_organization_id, null);
      assert.match(checkAcceptor(reopened, 9)!, /cannot accept it again/);
      assert.equal(checkAcceptor(reopened, 10), null);
      const endedAcceptor = evolveQuest(accepted, { type: 'reopened', day: 6, reason: 'the organization that accepted it ended' }) as Quest;
      assert.equal(checkAcceptor(endedAcceptor, 9), null, 'only a lapse bars it');
    });
  });
});

describe('monsters and derived danger (core rule 10)', () => {
  it('derives danger from the monsters: unchanged at the original number, scaled by the square root otherwise', () => {
    assert.equal(derivedDanger(35, 100, 100), 35);
    assert.equal(derivedDanger(35, 100, 25), 18);
    assert.equal(derivedDanger(35, 100, 400), 70);
    assert.equal(derivedDanger(35, 100, 0), 0);
    assert.equal(derivedDanger(60, 100, 10000), 100, 'capped at 100');
    assert.equal(derivedDanger(15, 0, 0), 15, 'a place without monsters keeps its danger');
  });

  it('slain monsters lower the danger; more monsters raise it', () => {
    for (let m = 1; m <= 300; m++) assert.ok(derivedDanger(50, 150, m - 1) <= derivedDanger(50, 150, m));
    assert.ok(derivedDanger(50, 150, 100) < derivedDanger(50, 150, 150));
    assert.ok(derivedDanger(50, 150, 200) > derivedDanger(50, 150, 150));
  });

  it('a place founded by a world event is taken: another event founding it is refused (409), the same one seeding it again changes nothing', () => {
    const spec = { id: 'twinville', name: 'Twinville', kind: 'town', description: 'New.', danger: 5, population: 1000, monster_population: 0, routes: [] };
    const first = decideSeed(null, { type: 'seed', day: 3, profile: {}, location: spec, world_event_id: 4 });
    assert.ok('events' in first);
    const town = first.events.reduce<LocationState>((s, e: LocationEvent) => evolveLocation(s, e), null)!;
    assert.deepEqual(decideSeed(town, { type: 'seed', day: 3, profile: {}, location: { ...spec, kind: 'dungeon', population: 0 }, world_event_id: 5 }),
      { refusal: { status: 409, detail: 'location twinville already exists' } });
    assert.deepEqual(decideSeed(town, { type: 'seed', day: 3, profile: {}, location: spec, world_event_id: 4 }), { events: [] });
    // The world's own places are seeded again at every start: nothing changes.
    const own = decideSeed(null, { type: 'seed', day: 1, profile: {}, location: { ...spec, id: 'emberfall' } });
    const emberfall = (own as { events: LocationEvent[] }).events.reduce<LocationState>((s, e) => evolveLocation(s, e), null);
    assert.deepEqual(decideSeed(emberfall, { type: 'seed', day: 1, profile: {}, location: { ...spec, id: 'emberfall' } }), { events: [] });
    assert.equal(decideSeed(emberfall, { type: 'seed', day: 3, profile: {}, location: { ...spec, id: 'emberfall' }, world_event_id: 6 }).hasOwnProperty('refusal'), true);
  });

  it('a quest outcome changing the monsters changes the danger of the place', () => {
    const seeded = decideSeed(null, {
      type: 'seed', day: 1, profile: {},
      location: { id: 'whisperwood', name: 'Whisperwood', kind: 'wilderness', description: 'An old forest.', danger: 35, population: 0, monster_population: 100, routes: [] },
    });
    assert.ok('events' in seeded);
    const wood = seeded.events.reduce<LocationState>((s, e: LocationEvent) => evolveLocation(s, e), null)!;
    const cleared = evolveLocation(wood, { type: 'monsters-changed', day: 2, change: -25, quest_id: 1 })!;
    assert.equal(cleared.monster_population, 75);
    assert.equal(cleared.danger, 30);
    const worse = evolveLocation(wood, { type: 'monsters-changed', day: 2, change: 44, quest_id: 2 })!;
    assert.equal(worse.monster_population, 144);
    assert.equal(worse.danger, 42);
    const emptied = evolveLocation(wood, { type: 'monsters-changed', day: 2, change: -500, quest_id: 3 })!;
    assert.equal(emptied.monster_population, 0, 'never below zero');
  });

  it('grows wilderness and dungeon monsters each day, never those of towns or cities', () => {
    assert.ok(monsterGrowth('wilderness', 100, 100) > 0);
    assert.ok(monsterGrowth('dungeon', 300, 300) > 0);
    assert.equal(monsterGrowth('wilderness', 100, 100), 1);
    assert.equal(monsterGrowth('dungeon', 1000, 1000), 7);
    assert.equal(monsterGrowth('town', 30, 20), 0);
    // However fast a world event makes them breed, never past three times their original number.
    assert.equal(monsterGrowth('dungeon', 1000, 1000, 1_000_000), 2000);
    assert.equal(monsterGrowth('dungeon', 2999, 1000, 1_000_000), 1);
    assert.equal(monsterGrowth('dungeon', 3000, 1000, 5), 0);
    assert.equal(monsterGrowth('town', 20, 20), 0);
    assert.equal(monsterGrowth('city', 50, 50), 0);
  });

  it('fills a cleared wild again: below the original number at least 5% of what is missing comes back each day', () => {
    // A few survivors of 357 would breed one beast a day; the wild fills again instead.
    assert.equal(monsterGrowth('dungeon', 8, 357), Math.ceil((357 - 8) * 0.05));
    assert.equal(monsterGrowth('wilderness', 75, 100), 2, 'a quarter slain: back within weeks');
    assert.equal(monsterGrowth('wilderness', 0, 100), 5, 'even from none');
    assert.equal(monsterGrowth('wilderness', 99, 100), 1, 'near the original number, breeding is the larger');
    assert.equal(monsterGrowth('wilderness', 8, 357, 0), 0, 'a world event that stops the growth stops the filling too');
    assert.equal(monsterGrowth('wilderness', 8, 357, 2), Math.ceil((357 - 8) * 0.05 * 2));
    // A world of strong parties clearing one wild place every fourth day holds about a third of its beasts, not a handful.
    let monsters = 357;
    for (let day = 1; day <= 400; day++) {
      monsters += monsterGrowth('dungeon', monsters, 357);
      if (day % 4 === 0) monsters -= Math.round(monsters * 0.25);
    }
    assert.ok(monsters > 357 * 0.3 && monsters < 357 * 0.5, `${monsters} of 357 after 400 days`);
    assert.ok(derivedDanger(80, 357, monsters) >= 40, 'the danger stays at half its original or more');
  });

  it('slows wild growth toward three times the original number and stops there', () => {
    assert.ok(monsterGrowth('wilderness', 1000, 1000) > monsterGrowth('wilderness', 2500, 1000));
    assert.equal(monsterGrowth('wilderness', 3000, 1000), 0);
    assert.equal(monsterGrowth('wilderness', 4000, 1000), 0);
    assert.equal(monsterGrowth('wilderness', 100, 100, 0), 0, 'a world event may stop the growth');
    assert.ok(monsterGrowth('wilderness', 1000, 1000, 2) > monsterGrowth('wilderness', 1000, 1000));
  });

  it('a day in the wild breeds monsters and raises the danger; a day in town does not', () => {
    const seed = (kind: string, id: string) => {
      const d = decideSeed(null, {
        type: 'seed', day: 1, profile: {},
        location: { id, name: id, kind, description: 'A place.', danger: 40, population: 0, monster_population: 1000, routes: [] },
      });
      assert.ok('events' in d);
      return d.events.reduce<LocationState>((s, e: LocationEvent) => evolveLocation(s, e), null)!;
    };
    const wild = seed('dungeon', 'pit');
    const day = decideDay(wild, 2, 0);
    assert.ok('events' in day);
    const next = day.events.reduce<LocationState>((s, e: LocationEvent) => evolveLocation(s, e), wild)!;
    assert.ok(next.monster_population > 1000);
    assert.ok(next.danger >= 40);
    const town = seed('town', 'hamlet');
    const townDay = decideDay(town, 2, 0);
    assert.ok('events' in townDay);
    const townNext = townDay.events.reduce<LocationState>((s, e: LocationEvent) => evolveLocation(s, e), town)!;
    assert.equal(townNext.monster_population, 1000);
    assert.equal(townNext.danger, 40);
  });
});

describe('the hiring fee of an adventurer', () => {
  it('is 20 gold at level 1 and 10 more for each level above it', () => {
    assert.deepEqual([1, 2, 3, 6].map((level) => hiringFee({ level })), [20, 30, 40, 70]);
  });
});
