// The rules that keep a world alive without agents (issue 13): harvests that move
// markets, the spread of the danger a party meets, adventurers' careers and arrivals,
// and what establishments do.
import assert from 'assert/strict';
import {
  CONSTRUCTION_DRAW, CONSTRUCTION_GOLD_PER_DAY, DAILY_VARIATION, GLUT, SEASON_AMPLITUDE, SHORTAGE, YEAR_DAYS, constructionShare, harvestFactors, marketDay, openingMarket, spellOf,
} from '../../actors/location/market';
import { decideDay as decideLocationDay, decideSeed, evolve as evolveLocation } from '../../actors/location/rules';
import { DANGER_SPREAD, dangerMet, outcomeFor, outcomeOdds } from '../../actors/quest/rules';
import { CAREER_DAYS, NO_AGENT, careerDays, decideDay as decideAdventurerDay, decideEmploymentAnswer, decideHire, decideRecordDueDay, decideRetirement, dueDay, evolve as evolveAdventurer } from '../../actors/adventurer/rules';
import type { Adventurer, AdventurerEvent } from '../../actors/adventurer/messages';
import { RECRUIT_CHANCE, RECRUIT_CHANCE_FULL_POOL, recruits, seededQuest } from '../../actors/world/quest-board';
import { LEAN_DAYS } from '../../actors/organization/policy';
import {
  ESTABLISHMENT_FAMILIES, INCOME_MAX_PAYING, INCOME_PER_DAY, RECRUITMENT_MAX, SAFETY_DANGER_CUT, SAFETY_MAX_CUT, TRAVEL_DAY_CUT, TRAVEL_MAX_CUT,
  establishmentIncome, establishmentRole, recruitmentBonus, safetyCut, travelCut,
} from '../../actors/organization/establishments';
import { decideDay as decideOrganizationDay, decideEmploy, decideFound, decideStartProject, evolve as evolveOrganization } from '../../actors/organization/rules';
import { ESTABLISHMENT_MIN_BUDGET, WORKER_OUTPUT, workersRequired } from '../../actors/organization/projects';
import { EFFECT_KINDS, locationModifiers } from '../../actors/world-event/effects';
import type { OrganizationState } from '../../actors/organization/messages';
import { travelDays } from '../../actors/organization/travel';
import { FLOWS } from '../../actors/ledger';
import { rulebook } from '../../actors/world/rulebook';
import type { LocationState } from '../../actors/location/messages';

describe('a living world: rules', () => {
  describe('construction draws what its budget pays for', () => {
    it('draws a full day of materials for a budget that pays it, and next to nothing for a few gold over many days', () => {
      assert.equal(CONSTRUCTION_GOLD_PER_DAY, 24);
      assert.equal(constructionShare({ budget: 100, duration_days: 1 }), 1);
      assert.equal(constructionShare({ budget: 24 * 30, duration_days: 30 }), 1);
      assert.equal(constructionShare({ budget: 12 * 30, duration_days: 30 }), 0.5);
      assert.ok(constructionShare({ budget: 1, duration_days: 60 }) < 0.001);
      const market = openingMarket(10000, {});
      const quiet = marketDay(market, { population: 10000, construction: 0 });
      const cheap = marketDay(market, { population: 10000, construction: 150 * constructionShare({ budget: 1, duration_days: 60 }) });
      const paid = marketDay(market, { population: 10000, construction: 150 });
      assert.ok(quiet.timber.supply - cheap.timber.supply <= 1, 'a hundred and fifty projects of 1 gold take next to no timber');
      assert.ok(quiet.timber.supply - paid.timber.supply >= Math.floor(150 * CONSTRUCTION_DRAW.timber * 0.9) - 1, 'as many paid-for projects take their full draw');
    });
  });

  describe('harvests move markets', () => {
    const days = Array.from({ length: YEAR_DAYS }, (_, i) => i + 1);

    it('varies production from day to day within the season, the daily spread and a spell', () => {
      const low = (1 - SEASON_AMPLITUDE.food) * (1 - DAILY_VARIATION) * SHORTAGE.factor;
      const high = (1 + SEASON_AMPLITUDE.food) * (1 + DAILY_VARIATION) * GLUT.factor;
      const seen = days.map((d) => harvestFactors('s', 'emberfall', d, ['food']).food);
      assert.ok(seen.every((f) => f >= low && f <= high));
      assert.ok(new Set(seen).size === seen.length, 'no two days alike');
    });

    it('is a pure function of seed, place and day: equal inputs, equal harvests; other places, other harvests', () => {
      assert.deepEqual(harvestFactors('s', 'ironcrag', 7, ['food', 'ore']), harvestFactors('s', 'ironcrag', 7, ['food', 'ore']));
      assert.notDeepEqual(harvestFactors('s', 'ironcrag', 7, ['food']), harvestFactors('s', 'emberfall', 7, ['food']));
      assert.notDeepEqual(harvestFactors('s', 'ironcrag', 7, ['food']), harvestFactors('t', 'ironcrag', 7, ['food']));
    });

    it('has shortages and gluts over a year, spell by spell', () => {
      const spells = ['emberfall', 'greenhollow', 'ironcrag'].flatMap((p) => ['food', 'timber', 'ore'].flatMap((r) => days.map((d) => spellOf('s', p, r, d))));
      assert.ok(spells.includes('shortage') && spells.includes('glut') && spells.includes('usual'));
    });

    it('a shortage raises the price and a glut lowers it, against the usual harvest', () => {
      const m = openingMarket(10000, {});
      const usual = marketDay(m, { population: 10000, construction: 0 });
      const poor = marketDay(m, { population: 10000, construction: 0, harvest: { food: SHORTAGE.factor } });
      const rich = marketDay(m, { population: 10000, construction: 0, harvest: { food: GLUT.factor } });
      assert.ok(poor.food.price > usual.food.price && rich.food.price < usual.food.price);
      assert.equal(poor.ore.price, usual.ore.price, 'only the resource named');
    });

    it('moves a settlement\'s prices every day when the location is given the seed, and not without it', () => {
      const seeded = evolveLocation(null, (decideSeed(null, { type: 'seed', day: 1, profile: {}, location: { id: 'emberfall', name: 'Emberfall', kind: 'city', description: 'The reference market.', danger: 5, population: 12000, monster_population: 0, routes: [] } }) as { events: never[] }).events[0]) as LocationState;
      let withSeed = seeded;
      let without = seeded;
      const seen: string[] = [];
      for (let d = 2; d <= 30; d++) {
        for (const e of (decideLocationDay(withSeed, d, 0, undefined, 'seed') as { events: never[] }).events) withSeed = evolveLocation(withSeed, e);
        for (const e of (decideLocationDay(without, d, 0) as { events: never[] }).events) without = evolveLocation(without, e);
        seen.push(JSON.stringify(Object.values(withSeed!.market!).map((x) => x.price)));
      }
      assert.equal(new Set(seen).size, seen.length, 'a new price every day');
      const prices = (m: LocationState) => Object.values(m!.market!).map((x) => [x.price, x.supply]);
      assert.deepEqual(prices(without), prices(seeded), 'the usual harvest keeps a market at rest');
    });
  });

  describe('quest risk: the danger a party meets', () => {
    it(`spreads evenly within ${DANGER_SPREAD * 100}% either side of the expected danger`, () => {
      assert.equal(dangerMet(40, 0), Math.round(40 * (1 - DANGER_SPREAD)));
      assert.equal(dangerMet(40, 0.5), 40);
      assert.equal(dangerMet(40, 0.999999), Math.round(40 * (1 + DANGER_SPREAD)));
    });

    it('lets a party that meets a seeded quest\'s minimum strength fail, and a party as strong as the danger fall short', () => {
      for (const danger of [20, 35, 50, 80]) {
        const q = seededQuest('s', 3, { id: 1, treasury: 100000 }, 0, [{ id: 'wood', name: 'Wood', kind: 'wilderness', danger }])
          ?? seededQuest('s', 4, { id: 1, treasury: 100000 }, 0, [{ id: 'wood', name: 'Wood', kind: 'wilderness', danger }])
          ?? seededQuest('s', 5, { id: 1, treasury: 100000 }, 0, [{ id: 'wood', name: 'Wood', kind: 'wilderness', danger }]);
        assert.ok(q, 'a seeded quest is posted on one of these days');
        const odds = outcomeOdds(q!.minimum_strength, danger);
        assert.ok(odds.failure > 0.3, `danger ${danger}: failure ${odds.failure}`);
        assert.ok(outcomeOdds(danger, danger).partial > 0.3);
      }
    });

    it('has an organization of the world post only from gold beyond 20 days of its upkeep', () => {
      const wood = [{ id: 'wood', name: 'Wood', kind: 'wilderness', danger: 35 }];
      // A day on which it posts, rich.
      const day = [3, 4, 5, 6, 7, 8].find((d) => seededQuest('s', d, { id: 1, treasury: 100000, daily_maintenance: 10 }, 0, wood))!;
      const reward = seededQuest('s', day, { id: 1, treasury: 100000, daily_maintenance: 10 }, 0, wood)!.reward;
      assert.ok(seededQuest('s', day, { id: 1, treasury: reward + 10 * LEAN_DAYS, daily_maintenance: 10 }, 0, wood));
      assert.equal(seededQuest('s', day, { id: 1, treasury: reward + 10 * LEAN_DAYS - 1, daily_maintenance: 10 }, 0, wood), null, 'a newly founded one keeps its grant for upkeep');
    });

    it('gives odds that add up to one and follow core rule 8 on the danger met', () => {
      const odds = outcomeOdds(30, 40);
      assert.ok(Math.abs(odds.full + odds.partial + odds.failure - 1) < 1e-9);
      assert.equal(outcomeOdds(200, 40).full, 1);
      assert.equal(outcomeOdds(5, 40).failure, 1);
      assert.equal(outcomeFor(30, dangerMet(40, 0)), 'full');
      assert.equal(outcomeFor(30, dangerMet(40, 0.99)), 'partial');
    });
  });

  describe('adventurers: careers and newcomers', () => {
    const spec = { id: 7, name: 'Wren Oakheart', strength: 12, level: 1, experience: 0, traits: ['brave' as const] };
    const appeared = evolveAdventurer(null, { type: 'appeared', day: 1, adventurer: spec }) as Adventurer;

    it(`lasts ${CAREER_DAYS.min} to ${CAREER_DAYS.max} days from arrival, by id`, () => {
      const lengths = Array.from({ length: 500 }, (_, i) => careerDays(i + 1));
      assert.ok(lengths.every((n) => n >= CAREER_DAYS.min && n <= CAREER_DAYS.max));
      assert.ok(new Set(lengths).size > 50);
      assert.equal(appeared.career_end_day, 1 + careerDays(7));
      assert.equal(dueDay(appeared), appeared.career_end_day, 'settled the day its career ends');
    });

    it('out of work when its career ends, it dies of old age; not a day before', () => {
      assert.deepEqual(decideAdventurerDay(appeared, appeared.career_end_day! - 1), { events: [] });
      const d = decideAdventurerDay(appeared, appeared.career_end_day!) as { events: never[] };
      assert.deepEqual(d.events, [{ type: 'aged-out', day: appeared.career_end_day }]);
      const dead = evolveAdventurer(appeared, d.events[0]) as Adventurer;
      assert.equal(dead.status, 'dead');
      assert.equal(dead.moments[dead.moments.length - 1].text, 'died of old age');
      assert.equal(dueDay(dead), null);
    });

    it('employed, it writes its row again when asked (a world of an older version gave it no due day); anyone else writes nothing', () => {
      const hired = evolveAdventurer(appeared, { type: 'hired', day: 2, organization_id: 3, agent_id: 1, organization_name: 'Guild' }) as Adventurer;
      const d = decideRecordDueDay(hired, 9) as { events: AdventurerEvent[] };
      assert.deepEqual(d.events, [{ type: 'due-day-recorded', day: 9 }]);
      assert.equal(evolveAdventurer(hired, d.events[0]), hired, 'the state is as it was');
      assert.deepEqual(decideRecordDueDay(appeared, 9), { events: [] }, 'one for hire has its due day already');
      assert.equal((decideRecordDueDay(null, 9) as { refusal: { status: number } }).refusal.status, 404);
    });

    it('employed, it is settled from the day its career ends; at home, it leaves its organization of its own accord (no agent\'s), then dies', () => {
      const hired = evolveAdventurer(appeared, { type: 'hired', day: 2, organization_id: 3, agent_id: 1, organization_name: 'Guild' }) as Adventurer;
      const end = appeared.career_end_day!;
      assert.equal(dueDay(hired), end, 'settled the day its career ends, employed or not');
      assert.deepEqual(decideRetirement(hired, end - 1, false, 'Guild'), { events: [] }, 'not a day before');
      assert.deepEqual(decideRetirement(hired, end, true, 'Guild'), { events: [] }, 'not while away with its party');
      const begun = decideRetirement(hired, end + 3, false, 'Guild') as { events: AdventurerEvent[] };
      assert.deepEqual(begun.events, [{ type: 'employment-begun', day: end + 3, change: 'release', organization_id: 3, agent_id: NO_AGENT, op: 'adventurer:7:employment:1', organization_name: 'Guild', career_over: true }]);
      const leaving = evolveAdventurer(hired, begun.events[0]) as Adventurer;
      assert.equal(dueDay(leaving), null, 'nothing more to settle while its release is under way');
      assert.deepEqual(decideRetirement(leaving, end + 4, false), { events: [] }, 'one release at a time');
      // The organization agrees: it leaves, naming no agent, and dies of old age the same day.
      const left = decideEmploymentAnswer(leaving, { ok: true }) as { events: AdventurerEvent[] };
      assert.deepEqual(left.events, [{ type: 'released', day: end + 3, organization_id: 3, agent_id: null, reason: 'its career is over', organization_name: 'Guild' }]);
      const free = evolveAdventurer(leaving, left.events[0]) as Adventurer;
      assert.deepEqual((decideAdventurerDay(free, end + 3, 3) as { events: AdventurerEvent[] }).events, [{ type: 'aged-out', day: end + 3, organization_id: 3 }], 'its death names the organization it has just left');
      // Refused (its party set out meanwhile), it stays, and tries again on a later day.
      const refused = decideEmploymentAnswer(leaving, { ok: false, refusal: { status: 409, detail: 'away with the party' } }) as { events: AdventurerEvent[] };
      const stays = evolveAdventurer(leaving, refused.events[0]) as Adventurer;
      assert.equal(stays.status, 'employed');
      assert.equal(dueDay(stays), end);
      assert.equal((decideRetirement(stays, end + 4, false) as { events: AdventurerEvent[] }).events.length, 1);
    });

    it('past its career, it can be hired no more', () => {
      const hire = { type: 'hire' as const, organization_id: 3, agent_id: 1 };
      assert.equal((decideHire(appeared, { ...hire, day: appeared.career_end_day! - 1 }) as { events: unknown[] }).events.length, 1);
      const refused = decideHire(appeared, { ...hire, day: appeared.career_end_day! }) as { refusal: { status: number; detail: string } };
      assert.equal(refused.refusal.status, 409);
      assert.match(refused.refusal.detail, /career ended on day \d+; it takes no more work/);
    });

    it('its organization lets it go without its agent, unless it is away with a party', () => {
      const found = decideFound(null, { type: 'found', id: 3, agent_id: 5, name: 'Guild', kind: 'adventuring company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 }) as { events: never[] };
      const org = { ...found.events.reduce(evolveOrganization, null as OrganizationState)!, employees: [7] };
      const ask = { type: 'unemploy' as const, agent_id: NO_AGENT, day: 50, adventurer_id: 7, op: 'adventurer:7:employment:2' };
      assert.equal((decideEmploy(org, ask) as { refusal: { status: number } }).refusal.status, 403, 'no agent\'s release without the career\'s end');
      assert.deepEqual((decideEmploy(org, { ...ask, career_over: true }) as { events: unknown[] }).events, [{ type: 'adventurer-left', day: 50, agent_id: NO_AGENT, adventurer_id: 7, op: 'adventurer:7:employment:2' }]);
      const away = { ...org, parties: [{ id: 4, name: 'Guild Party 40', status: 'dispatched', members: [7], quest_id: 9 }] } as typeof org;
      assert.equal((decideEmploy(away, { ...ask, career_over: true }) as { refusal: { status: number } }).refusal.status, 409);
    });

    it('newcomers keep arriving: often while few look for work, sometimes while many do; recruiting establishments add to it', () => {
      const share = (available: number, bonus = 0) => Array.from({ length: 2000 }, (_, d) => recruits('s', d, available, bonus)).filter(Boolean).length / 2000;
      assert.ok(Math.abs(share(5) - RECRUIT_CHANCE) < 0.05);
      assert.ok(Math.abs(share(100) - RECRUIT_CHANCE_FULL_POOL) < 0.05);
      assert.ok(Math.abs(share(100, 0.2) - (RECRUIT_CHANCE_FULL_POOL + 0.2)) < 0.05);
    });
  });

  describe('establishments do what their kind says', () => {
    it('reads the kind by its words', () => {
      assert.equal(establishmentRole('watchtower'), 'safety');
      assert.equal(establishmentRole('Stone Watchtower'), 'safety');
      assert.equal(establishmentRole('inn'), 'income');
      assert.equal(establishmentRole('trading post'), 'income');
      assert.equal(establishmentRole('guild hall'), 'recruitment');
      assert.equal(establishmentRole('shrine'), null);
      assert.equal(establishmentRole('printer'), null, 'whole words only: no inn in printer');
    });

    it('reads travel kinds by their words, whole words only, after the other families', () => {
      for (const kind of ['stable', 'Royal Stables', 'waystation', 'Way Station', 'river ferry', 'harbor', 'Harbour', 'port', 'dock', 'the docks', 'Stone Bridge', 'caravanserai', 'coaching house']) {
        assert.equal(establishmentRole(kind), 'travel', kind);
      }
      assert.equal(establishmentRole('passport office'), null, 'no port in passport');
      assert.equal(establishmentRole('bridgework'), null, 'no bridge in bridgework');
      assert.equal(establishmentRole('trading post'), 'income', 'post is not port');
      // A kind with words of two families is of the first in the order: safety, income, recruitment, travel.
      assert.deepEqual(Object.keys(ESTABLISHMENT_FAMILIES), ['safety', 'income', 'recruitment', 'travel']);
      assert.equal(establishmentRole('bridge tower'), 'safety');
      assert.equal(establishmentRole('harbour market'), 'income');
      assert.equal(establishmentRole('ferry hall'), 'recruitment');
      // No word of another family is a travel word, so no kind read before reads otherwise now.
      const others = (['safety', 'income', 'recruitment'] as const).flatMap((f) => ESTABLISHMENT_FAMILIES[f].words);
      for (const w of others) assert.notEqual(establishmentRole(w), 'travel', w);
      for (const w of ESTABLISHMENT_FAMILIES.travel.words) assert.equal(others.includes(w), false, w);
    });

    it('travel takes a day off the journeys setting out from its place only, up to a limit, never under 1 day', () => {
      const es = [{ kind: 'stables', location_id: 'emberfall' }, { kind: 'inn', location_id: 'wood' }, { kind: 'watchtower', location_id: 'wood' }];
      assert.equal(travelCut(es, 'emberfall'), TRAVEL_DAY_CUT);
      assert.equal(travelCut(es, 'wood'), 0, 'an inn and a watchtower do not speed journeys');
      assert.equal(travelCut([], 'emberfall'), 0);
      assert.equal(travelCut(Array.from({ length: 5 }, () => ({ kind: 'ferry', location_id: 'emberfall' })), 'emberfall'), TRAVEL_MAX_CUT);
      assert.equal(TRAVEL_MAX_CUT, 1);
      // The journey's days (travel.ts travelDays) take the cut: road 2, danger 30 -> 4 days, 3 from stables.
      assert.equal(travelDays(2, 30), 4);
      assert.equal(travelDays(2, 30, travelCut(es, 'emberfall')), 3);
      assert.equal(travelDays(2, 30, travelCut(es, 'wood')), 4);
      // Never under 1 day; the journey to where one stands stays none.
      assert.equal(travelDays(1, 0, 1), 1);
      assert.equal(travelDays(1, 0, 5), 1);
      assert.equal(travelDays(0, 0, 1), 0);
    });

    it('safety lowers the danger of its place only, up to a limit', () => {
      const es = [{ kind: 'watchtower', location_id: 'wood' }, { kind: 'inn', location_id: 'wood' }, { kind: 'fort', location_id: 'crag' }];
      assert.equal(safetyCut(es, 'wood'), SAFETY_DANGER_CUT);
      assert.equal(safetyCut(es, 'emberfall'), 0);
      assert.equal(safetyCut(Array.from({ length: 9 }, () => ({ kind: 'tower', location_id: 'wood' })), 'wood'), SAFETY_MAX_CUT);
    });

    it('recruitment adds to the chance of newcomers, up to a limit', () => {
      assert.equal(recruitmentBonus([]), 0);
      assert.equal(recruitmentBonus(Array.from({ length: 9 }, () => ({ kind: 'academy', location_id: 'x' }))), RECRUITMENT_MAX);
    });

    it('income pays its active owner every day, before upkeep, as a named source of gold', () => {
      const founded = evolveOrganization(null, {
        type: 'founded', day: 1, id: 9, agent_id: 1, name: 'Hearth Keepers', kind: 'innkeepers guild', location_id: 'emberfall', description: '', goals: '', motto: '', treasury: 100, reputation: 10,
      }) as OrganizationState;
      const withInn = { ...founded!, establishments: [{ id: 1, name: 'The Hearth', kind: 'inn', location_id: 'emberfall', organization_id: 9, project_id: 1, founded_day: 1 }] } as OrganizationState;
      const d = decideOrganizationDay(withInn, { day: 2 }) as { events: Array<{ type: string; gold?: number; paid?: number }> };
      assert.deepEqual(d.events.map((e) => e.type), ['establishment-income', 'maintenance-paid']);
      assert.equal(d.events[0].gold, INCOME_PER_DAY);
      const after = d.events.reduce<OrganizationState>((s, e) => evolveOrganization(s, e as never), withInn);
      assert.equal(after!.treasury, 100 + INCOME_PER_DAY - d.events[1].paid!);
      assert.equal(establishmentIncome([{ kind: 'shrine', location_id: 'x' }]), 0);
      assert.equal(FLOWS.establishment_income.kind, 'source');
    });

    it('income pays for at most INCOME_MAX_PAYING income establishments of one owner', () => {
      const inns = (n: number) => Array.from({ length: n }, () => ({ kind: 'inn', location_id: 'emberfall' }));
      assert.equal(establishmentIncome(inns(1)), INCOME_PER_DAY);
      assert.equal(establishmentIncome(inns(INCOME_MAX_PAYING)), INCOME_MAX_PAYING * INCOME_PER_DAY);
      assert.equal(establishmentIncome(inns(50)), INCOME_MAX_PAYING * INCOME_PER_DAY, 'fifty inns pay what three do');
    });

    it('cost at least ESTABLISHMENT_MIN_BUDGET to build: a cheaper project that would open one is refused (409)', () => {
      const found = decideFound(null, { type: 'found', id: 9, agent_id: 1, name: 'Builders', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 });
      assert.ok('events' in found);
      const org = found.events.reduce(evolveOrganization, null as OrganizationState);
      const spec = (budget: number, establishment_kind: string | null) => ({
        id: 1, title: 'An inn', kind: 'construction', description: 'A warm place.', location_id: 'emberfall', budget, duration_days: 1, output_resource: null, output_quantity: 0, establishment_kind,
      });
      const cheap = decideStartProject(org, 1, 1, spec(ESTABLISHMENT_MIN_BUDGET - 1, 'inn'), null);
      assert.ok('refusal' in cheap && cheap.refusal.status === 409);
      assert.match((cheap as { refusal: { detail: string } }).refusal.detail, new RegExp(`at least ${ESTABLISHMENT_MIN_BUDGET}`));
      assert.ok('events' in decideStartProject(org, 1, 1, spec(ESTABLISHMENT_MIN_BUDGET, 'inn'), null));
      assert.ok('events' in decideStartProject(org, 1, 1, spec(1, null), null), 'a project without an establishment has no such floor');
    });

    it('are written in the rulebook, with the market, quest risk and careers', () => {
      const book = rulebook() as unknown as { living_world: Record<string, unknown> };
      for (const key of ['markets', 'quest_risk', 'adventurers', 'establishments']) assert.ok(book.living_world[key], key);
      const est = book.living_world.establishments as { families: Record<string, { words: string[]; effect: string }>; numbers: Record<string, number> };
      assert.deepEqual(Object.keys(est.families), ['safety', 'income', 'recruitment', 'travel']);
      assert.ok(est.families.travel.words.includes('waystation'));
      assert.match(est.families.travel.effect, /journey setting out from its location takes 1 day less/);
      assert.equal(est.numbers.travel_day_cut, TRAVEL_DAY_CUT);
      assert.equal(est.numbers.travel_max_cut, TRAVEL_MAX_CUT);
      const travelRule = (rulebook() as unknown as { core_rules: string[] }).core_rules.find((r) => r.startsWith('Travel:'));
      assert.match(travelRule!, /1 day less when it sets out from a place with a travel establishment/);
    });

    it('say what each kind of world event effect does, and how many workers a production plan needs', () => {
      const rules = (rulebook() as unknown as { core_rules: string[] }).core_rules;
      const events = rules.find((r) => r.startsWith('World events'))!;
      for (const kind of EFFECT_KINDS.filter((k) => k !== 'resource_introduction')) assert.match(events, new RegExp(kind), kind);
      assert.match(events, /value 50 multiplies by 1\.5/);
      // As the rules apply it: 50 more on every price is a factor of 1.5.
      assert.equal(locationModifiers([{ kind: 'market_price_modifier', value: 50, resource: null, location_id: null, price: null }], { id: 'x', name: 'X', kind: 'city', description: '' }).prices['*'], 1.5);
      const workers = rules.find((r) => r.startsWith('Workers'))!;
      assert.match(workers, new RegExp(`ceil\\(output_quantity / ${WORKER_OUTPUT}\\)`));
      assert.equal(workersRequired(11), Math.ceil(11 / WORKER_OUTPUT));
    });
  });
});
