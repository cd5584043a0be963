// The policy of organizations no agent controls (actors/organization/policy.ts) and the
// world's foundings (actors/world/founding.ts), as pure rules: docs/decisions.md, "The
// world's organizations".
import assert from 'assert/strict';
import { checkControl, evolve } from '../../actors/organization/rules';
import { decideTurn, MAX_MEMBERS, RESERVE_DAYS, WORLD_ACTOR, type PolicyView } from '../../actors/organization/policy';
import { founding, foundsToday, MAX_WORLD_FOUNDED, prospers } from '../../actors/world/founding';

const places = [
  { id: 'emberfall', danger: 5, has_market: true, routes: [{ destination_id: 'ironcrag', distance_days: 4 }, { destination_id: 'moors', distance_days: 3 }] },
  { id: 'ironcrag', danger: 25, has_market: true, routes: [{ destination_id: 'emberfall', distance_days: 4 }] },
  { id: 'moors', danger: 40, has_market: false, routes: [{ destination_id: 'emberfall', distance_days: 3 }] },
];

function view(over: Partial<PolicyView> = {}, org: Partial<PolicyView['org']> = {}): PolicyView {
  return {
    seed: 's', day: 10,
    org: { id: 1, name: 'Guild', treasury: 5000, reputation: 10, location_id: 'emberfall', travel: null, holdings: {}, daily_maintenance: 5, ...org },
    members: [], parties: [], markets: [], quests: [], places, establishments: [], available: [], world: [1, 2], ...over,
  };
}
const quest = (o: Partial<PolicyView['quests'][number]> = {}): PolicyView['quests'][number] => ({
  id: 7, requester_id: 2, location_id: 'moors', reward: 300, status: 'open', minimum_strength: 0, minimum_reputation: 0,
  accepted_organization_id: null, party_id: null, ...o,
});
const member = (id: number, strength: number, o: Partial<PolicyView['members'][number]> = {}) => ({ id, strength, injured_until: null, party_id: null, ...o });

describe('the policy of an organization no agent controls', () => {
  it('completes the quests its parties were sent on, and does nothing else on the road', () => {
    const v = view({ quests: [quest({ status: 'accepted', accepted_organization_id: 1, party_id: 3 })], available: [{ id: 9, strength: 20 }] },
      { travel: { destination_id: 'ironcrag', arrives_day: 12 } });
    assert.deepEqual(decideTurn(v), [{ type: 'complete', quest_id: 7 }]);
  });

  it('declines every contract and alliance proposed to it, first, even on the road', () => {
    const v = view({ proposals: { contracts: [4, 9], alliances: [2] } }, { travel: { destination_id: 'ironcrag', arrives_day: 12 } });
    assert.deepEqual(decideTurn(v), [{ type: 'decline-contract', contract_id: 4 }, { type: 'decline-contract', contract_id: 9 }, { type: 'decline-alliance', alliance_id: 2 }]);
  });

  it('sends its fit free members on a quest it can win where it stands', () => {
    const v = view({ members: [member(1, 25), member(2, 20), member(3, 30, { injured_until: 20 })], quests: [quest()] }, { location_id: 'moors' });
    const send = decideTurn(v).find((a) => a.type === 'send-party');
    assert.deepEqual(send, { type: 'send-party', quest_id: 7, party_id: null, party_name: 'Guild Party 10', add: [1, 2] });
  });

  it('reuses a formed party whose members are all fit', () => {
    const v = view({ members: [member(1, 25, { party_id: 4 }), member(2, 20, { party_id: 4 })], parties: [{ id: 4, status: 'formed', members: [1, 2], quest_id: null }], quests: [quest()] }, { location_id: 'moors' });
    assert.deepEqual(decideTurn(v).find((a) => a.type === 'send-party'), { type: 'send-party', quest_id: 7, party_id: 4, party_name: 'Guild Party 10', add: [] });
    const back = view({ members: v.members, parties: [{ id: 4, status: 'formed', members: [1, 2], quest_id: null, returned_day: 10 }], quests: [quest()] }, { location_id: 'moors' });
    assert.equal(decideTurn(back).find((a) => a.type === 'send-party'), undefined, 'a party back from a quest today rests (it sets out again tomorrow)');
    const rested = view({ members: v.members, parties: [{ id: 4, status: 'formed', members: [1, 2], quest_id: null, returned_day: 9 }], quests: [quest()] }, { location_id: 'moors' });
    assert.equal(decideTurn(rested).find((a) => a.type === 'send-party')?.party_id, 4);
  });

  it('accepts a quest elsewhere and sets out for it, taking the days the travel rule gives', () => {
    const actions = decideTurn(view({ members: [member(1, 45)], quests: [quest()] }));
    assert.deepEqual(actions.filter((a) => a.type === 'accept' || a.type === 'travel'), [
      { type: 'accept', quest_id: 7 }, { type: 'travel', destination_id: 'moors', days: 3 + 2 },
    ]);
  });

  it('sets out a day sooner from a place with a travel establishment, as the travel action counts it', () => {
    const from = (establishments: PolicyView['establishments']) => decideTurn(view({ members: [member(1, 45)], quests: [quest()], establishments })).find((a) => a.type === 'travel');
    assert.deepEqual(from([{ kind: 'Stone Bridge', location_id: 'emberfall' }]), { type: 'travel', destination_id: 'moors', days: 3 + 2 - 1 });
    assert.deepEqual(from([{ kind: 'stables', location_id: 'emberfall' }, { kind: 'ferry', location_id: 'emberfall' }]), { type: 'travel', destination_id: 'moors', days: 3 + 2 - 1 }, 'at most one day less');
    assert.deepEqual(from([{ kind: 'stables', location_id: 'moors' }, { kind: 'inn', location_id: 'emberfall' }]), { type: 'travel', destination_id: 'moors', days: 3 + 2 }, 'only where it sets out, and only travel ones');
  });

  it('leaves alone quests beyond what it dares, its own quests, agents\' quests, and those whose requirements it misses', () => {
    const members = [member(1, 10)];
    for (const q of [quest({ location_id: 'moors' }), quest({ requester_id: 3, location_id: 'ironcrag' }), quest({ requester_id: 1, location_id: 'ironcrag' }), quest({ location_id: 'ironcrag', minimum_reputation: 50 }), quest({ location_id: 'ironcrag', minimum_strength: 11 })]) {
      const actions = decideTurn(view({ members, quests: [q] }));
      assert.equal(actions.some((a) => a.type === 'accept' || a.type === 'send-party'), false, JSON.stringify(q));
    }
  });

  it('hires the strongest adventurer on offer when it has no quest to win and keeps its upkeep in hand', () => {
    const available = [{ id: 5, strength: 12 }, { id: 6, strength: 19 }, { id: 7, strength: 15 }];
    assert.deepEqual(decideTurn(view({ available })).find((a) => a.type === 'hire'), { type: 'hire', adventurer_id: 6 });
    // Not when the upkeep with the new hire would not be covered for RESERVE_DAYS...
    assert.equal(decideTurn(view({ available }, { treasury: 7 * RESERVE_DAYS })).some((a) => a.type === 'hire'), false);
    // ...nor beyond MAX_MEMBERS.
    const full = Array.from({ length: MAX_MEMBERS }, (_, i) => member(i + 1, 1));
    assert.equal(decideTurn(view({ available, members: full })).some((a) => a.type === 'hire'), false);
  });

  it('releases its weakest idle adventurer in lean days, never a party member', () => {
    const members = [member(1, 5, { party_id: 3 }), member(2, 9), member(3, 14)];
    assert.deepEqual(decideTurn(view({ members }, { treasury: 50, daily_maintenance: 11 })).filter((a) => a.type === 'release'), [{ type: 'release', adventurer_id: 2 }]);
    assert.equal(decideTurn(view({ members }, { treasury: 5000, daily_maintenance: 11 })).some((a) => a.type === 'release'), false);
  });

  it('does not release, on lean days, a member it sends out on a quest the same turn', () => {
    // Every member is free and goes out with the new party: nobody is left at home to release.
    const v = view({ members: [member(1, 25), member(2, 20)], quests: [quest()] }, { location_id: 'moors', treasury: 50, daily_maintenance: 11 });
    const actions = decideTurn(v);
    assert.deepEqual(actions.find((a) => a.type === 'send-party'), { type: 'send-party', quest_id: 7, party_id: null, party_name: 'Guild Party 10', add: [1, 2] });
    assert.equal(actions.some((a) => a.type === 'release'), false);
  });

  it('buys what sells dearer elsewhere, sells where the price is (nearly) the best, and carries its goods to the best market', () => {
    const markets = [
      { location_id: 'emberfall', resource: 'food', price: 2, supply: 4000 },
      { location_id: 'ironcrag', resource: 'food', price: 4, supply: 500 },
      { location_id: 'emberfall', resource: 'ore', price: 5, supply: 1000 },
      { location_id: 'ironcrag', resource: 'ore', price: 3, supply: 3000 },
    ];
    const buying = decideTurn(view({ markets }, { treasury: 2000 }));
    // (2000 - 5 × 60) × 10% / 2 = 85, under 5% of the supply (200).
    assert.deepEqual(buying.filter((a) => a.type === 'trade'), [{ type: 'trade', resource: 'food', side: 'buy', quantity: 85 }]);
    const carrying = decideTurn(view({ markets }, { treasury: 2000, holdings: { food: 85 } }));
    assert.equal(carrying.some((a) => a.type === 'trade' && a.side === 'sell'), false, 'food is not sold where it is cheap');
    assert.deepEqual(carrying.find((a) => a.type === 'travel'), { type: 'travel', destination_id: 'ironcrag', days: 4 + 2 });
    const selling = decideTurn(view({ markets }, { location_id: 'ironcrag', holdings: { food: 85 } }));
    assert.deepEqual(selling.find((a) => a.type === 'trade'), { type: 'trade', resource: 'food', side: 'sell', quantity: 85 });
  });

  it('is a pure function of its view: the same seed and day give the same actions, another day may differ', () => {
    const v = view({ available: [{ id: 5, strength: 12 }], markets: [{ location_id: 'ironcrag', resource: 'ore', price: 3, supply: 3000 }] });
    assert.deepEqual(decideTurn(v), decideTurn(structuredClone(v)));
    const days = new Set(Array.from({ length: 40 }, (_, d) => JSON.stringify(decideTurn({ ...v, day: d + 1 }))));
    assert.ok(days.size > 1, 'the seeded draw makes some days differ (an idle organization wanders now and then)');
  });
});

describe('the world acts only for organizations no agent controls', () => {
  const found = (agent_id: number | null) => evolve(null, {
    type: 'founded', day: 1, id: 1, agent_id, name: 'Guild', kind: 'guild', location_id: 'emberfall', description: '', goals: '', motto: '', treasury: 500, reputation: 10,
  });
  it('WORLD_ACTOR controls an organization without an agent, and no agent does', () => {
    assert.equal(checkControl(found(null), WORLD_ACTOR), null);
    assert.equal((checkControl(found(null), 3) as { refusal: { status: number } }).refusal.status, 403);
  });
  it('WORLD_ACTOR cannot move an agent\'s organization', () => {
    assert.equal((checkControl(found(3), WORLD_ACTOR) as { refusal: { status: number } }).refusal.status, 403);
    assert.equal(checkControl(found(3), 3), null);
  });
});

describe('the world founds organizations where a place prospers', () => {
  const town = { id: 'town', name: 'Town', population: 4000, has_market: true };
  const stocked = [{ location_id: 'town', supply: 900, base_price: 2, usual_supply: 1000 }];
  it('a place prospers with people enough, a well-stocked market and room for another organization', () => {
    assert.equal(prospers(town, stocked, 1), true);
    assert.equal(prospers({ ...town, population: 1500 }, stocked, 0), false, 'too few people');
    assert.equal(prospers(town, [{ ...stocked[0], supply: 700 }], 0), false, 'the market is short');
    assert.equal(prospers(town, stocked, 2), false, 'no room: one organization per 1500 people');
    assert.equal(prospers({ ...town, has_market: false }, stocked, 0), false, 'nobody trades there');
  });
  it('founds, on some days, an organization without an agent at a prospering place, with a name not taken', () => {
    const specs = Array.from({ length: 200 }, (_, d) => founding('s', d + 1, [town], stocked, () => 0, 0, new Set(['Town Lantern Company'])));
    const made = specs.filter((s) => s !== null);
    assert.ok(made.length > 0 && made.length < 40, `a founding on some days only (${made.length} of 200)`);
    for (const s of made) {
      assert.equal(s!.agent_id, null);
      assert.equal(s!.location_id, 'town');
      assert.notEqual(s!.name, 'Town Lantern Company');
      assert.equal('seeded_treasury' in s!, false, 'the treasury is the one the world derives from the kind');
    }
    specs.forEach((s, d) => assert.equal(s !== null, foundsToday('s', d + 1), `day ${d + 1}: foundsToday says whether it founds`));
    assert.deepEqual(specs, Array.from({ length: 200 }, (_, d) => founding('s', d + 1, [town], stocked, () => 0, 0, new Set(['Town Lantern Company']))));
  });
  it('names a founding after its kind, and once a place has used every name of the kind, the next with a numeral', () => {
    const fits: Record<string, RegExp> = { 'trading company': /Traders|Company|Merchants/, 'mercenary band': /Blades|Oathbound|Banners|Hearthguard|Ravenwatch/, 'adventuring company': /Company|Wayfarers/ };
    const taken = new Set<string>();
    let numbered = 0;
    for (let d = 1; d <= 400; d++) {
      const s = founding('s', d, [town], stocked, () => 0, 0, taken);
      if (!s) continue;
      assert.match(s.name, fits[s.kind], `${s.name}, ${s.kind}`);
      assert.equal(taken.has(s.name), false, `${s.name} is not taken`);
      assert.doesNotMatch(s.name, /of Day/);
      if (/ II$/.test(s.name)) numbered++;
      assert.match(s.description!, /^An? /);
      assert.equal(s.description!.startsWith('A adventuring'), false);
      taken.add(s.name);
    }
    assert.ok(numbered > 0, 'names come round again, numbered');
  });

  it('founds nothing where no place prospers, nor beyond MAX_WORLD_FOUNDED', () => {
    for (let d = 1; d <= 200; d++) {
      assert.equal(founding('s', d, [town], stocked, () => 5, 0, new Set()), null);
      assert.equal(founding('s', d, [town], stocked, () => 0, MAX_WORLD_FOUNDED, new Set()), null);
    }
  });
});
