// What an agent needs to decide well (issue 13), over HTTP on a real world: quotes that
// equal what the action then does and change nothing, filtered listings, a contract's
// withdrawal by its proposer, who fulfils a service contract, and a history that names
// organizations by name.
import assert from 'assert/strict';
import { startTestWorld, type TestWorld } from '../support/world';
import { expect422At, expectStatus, foundOrg, historyCount, orgOf } from '../support/http';
import { outcomeOdds } from '../../actors/quest/rules';

type Founded = Awaited<ReturnType<typeof foundOrg>>;

/** Everything a read must leave as it was: the history, the organization, the board. */
async function snapshot(w: TestWorld, orgId: number) {
  const org = await orgOf(w, orgId);
  return { history: await historyCount(w), treasury: org.treasury, holdings: org.holdings, travel: org.travel, board: (await w.get('/api/market?location_id=emberfall')).body };
}

describe('what an agent needs to decide (issue 13)', function () {
  this.timeout(120_000);
  let w: TestWorld;
  let a: Founded; // the adventuring company
  let b: Founded; // the merchants who post quests and sign contracts

  before(async () => {
    w = await startTestWorld();
    a = await foundOrg(w, 'Lantern Company', 'adventuring company');
    b = await foundOrg(w, 'Ashvale Traders', 'merchant company');
  });
  after(async () => { await w?.close(); });

  describe('a trade quote', () => {
    it('equals the trade that follows it and changes nothing', async () => {
      const before = await snapshot(w, a.org.id);
      const q = await w.get('/api/market/food/quote?side=buy&quantity=25', a.key);
      expectStatus(q, 200);
      assert.equal(q.body.location_id, 'emberfall');
      assert.deepEqual(await snapshot(w, a.org.id), before, 'a quote changes nothing');
      const t = await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 25 }, a.key);
      expectStatus(t, 200);
      assert.equal(q.body.possible, true);
      assert.equal(t.body.trade.total, q.body.total);
      assert.equal(t.body.trade.price_after, q.body.price_after);
      assert.equal(t.body.trade.supply_after, q.body.supply_after);
      assert.equal(q.body.price_before, before.board.find((m: { resource: string }) => m.resource === 'food').price);
    });

    it('prices a sale as the sale is then paid', async () => {
      const q = await w.get('/api/market/food/quote?side=sell&quantity=10&location_id=emberfall');
      expectStatus(q, 200);
      const t = await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'sell', quantity: 10 }, a.key);
      expectStatus(t, 200);
      assert.equal(t.body.trade.total, q.body.total);
    });

    it('quotes the refusal the market would give, and refuses an unknown resource (404) and bad input (422)', async () => {
      const board = (await w.get('/api/market/ore?location_id=emberfall')).body;
      const tooMuch = await w.get(`/api/market/ore/quote?side=buy&quantity=${board.supply + 1}&location_id=emberfall`);
      expectStatus(tooMuch, 200);
      assert.equal(tooMuch.body.possible, false);
      assert.equal(tooMuch.body.total, null);
      const trade = await w.post('/api/trade', { organization_id: a.org.id, resource: 'ore', side: 'buy', quantity: board.supply + 1 }, a.key);
      expectStatus(trade, 409);
      assert.equal(tooMuch.body.refusal, trade.body.detail, 'the quote names the refusal the trade meets');
      expectStatus(await w.get('/api/market/mithril/quote?side=buy&quantity=1&location_id=emberfall'), 404);
      const nobody = await w.get('/api/market/food/quote?side=buy&quantity=1&location_id=frostmaw-deep');
      expectStatus(nobody, 404);
      assert.match(nobody.body.detail, /has no market: nobody lives there/, 'as its board answers');
      expect422At(await w.get('/api/market/ore/quote?side=steal&quantity=1'), ['query', 'side']);
      expect422At(await w.get('/api/market/ore/quote?side=buy&quantity=0'), ['query', 'quantity']);
      expect422At(await w.get('/api/market/ore/quote?side=buy'), ['query', 'quantity']);
    });
  });

  describe('a travel plan', () => {
    it('names the route, the places passed, the danger on the way and the arrival day the journey then keeps', async () => {
      const traveller = await foundOrg(w, 'Wandering Scribes', 'scholars guild');
      const before = await snapshot(w, traveller.org.id);
      const p = await w.get(`/api/travel/plan?organization_id=${traveller.org.id}&destination_id=sunken-crypt`);
      expectStatus(p, 200);
      assert.deepEqual(p.body.path, ['emberfall', 'greenhollow', 'whisperwood', 'sunken-crypt']);
      assert.deepEqual(p.body.passes_through, ['greenhollow', 'whisperwood']);
      assert.equal(p.body.road_days, 5);
      assert.equal(p.body.legs.length, 3);
      assert.equal(p.body.max_danger, Math.max(...p.body.legs.flatMap((l: { road_danger: number; place_danger: number }) => [l.road_danger, l.place_danger])));
      assert.equal(p.body.can_set_out, true);
      assert.deepEqual(await snapshot(w, traveller.org.id), before, 'a plan changes nothing');
      const t = await w.post('/api/travel', { organization_id: traveller.org.id, destination_id: 'sunken-crypt' }, traveller.key);
      expectStatus(t, 200);
      assert.equal(t.body.travel.arrives_day, p.body.arrives_day);
      const again = await w.get(`/api/travel/plan?organization_id=${traveller.org.id}&destination_id=greenhollow`);
      expectStatus(again, 200);
      assert.equal(again.body.can_set_out, false, 'a journey under way runs to its end');
      assert.match(again.body.blocked_reason, /on the road/);
    });

    it('plans from a place without an organization, and refuses what cannot be', async () => {
      const p = await w.get('/api/travel/plan?from_id=ironcrag&destination_id=greenhollow');
      expectStatus(p, 200);
      assert.equal(p.body.can_set_out, null);
      expectStatus(await w.get('/api/travel/plan?destination_id=atlantis'), 404);
      const still = await w.get(`/api/travel/plan?organization_id=${a.org.id}&destination_id=emberfall`);
      expectStatus(still, 200);
      assert.equal(still.body.days, 0);
      assert.equal(still.body.can_set_out, false, 'a journey to where one stands is refused');
      expectStatus(await w.post('/api/travel', { organization_id: a.org.id, destination_id: 'emberfall' }, a.key), 409);
      expectStatus(await w.get('/api/travel/plan?organization_id=99999&destination_id=emberfall'), 404);
      const elsewhere = await w.get(`/api/travel/plan?organization_id=${a.org.id}&from_id=greenhollow&destination_id=ironcrag`);
      expectStatus(elsewhere, 200);
      assert.equal(elsewhere.body.can_set_out, false, 'a plan from a place it does not stand at is not a journey it can make');
      assert.match(elsewhere.body.blocked_reason, /stands at emberfall, not greenhollow/);
      // A place no road reaches: no plan (404, a read), and the journey is refused (409, an action).
      const lonely = { id: 'lonely-isle', name: 'Lonely Isle', kind: 'village', description: 'A rock far out at sea.', danger: 5, population: 50, monster_population: 0, routes: [] };
      expectStatus(await w.call('POST', '/api/world-events', { admin: 'test-admin-key', body: {
        title: 'Land ho', description: 'Sailors sight an island nobody knew.', duration_days: 1,
        effects: [{ kind: 'maintenance_modifier', value: 0, resource: null, location_id: null, price: null }], quest: null, location: lonely,
      } }), 201);
      expectStatus(await w.get(`/api/travel/plan?organization_id=${a.org.id}&destination_id=lonely-isle`), 404);
      expectStatus(await w.post('/api/travel', { organization_id: a.org.id, destination_id: 'lonely-isle' }, a.key), 409);
      expect422At(await w.get('/api/travel/plan'), ['query', 'destination_id']);
    });
  });

  describe("a party's odds against a quest", () => {
    let questId: number;
    let partyId: number;

    before(async () => {
      const quest = await w.post('/api/quests', { title: 'Clear the cellars', description: 'Rats the size of dogs in the cellars.', requester_id: b.org.id, location_id: 'emberfall', reward: 120, deadline_days: 10 }, b.key);
      expectStatus(quest, 201);
      questId = quest.body.id;
      const free = (await w.get('/api/adventurers?status=available&limit=2')).body as Array<{ id: number }>;
      assert.equal(free.length, 2);
      const party = await w.post('/api/parties', { organization_id: a.org.id, name: 'The Lanterns' }, a.key);
      expectStatus(party, 201);
      partyId = party.body.id;
      for (const adventurer of free) {
        expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: adventurer.id }, a.key), 200);
        expectStatus(await w.post(`/api/parties/${partyId}/members`, { adventurer_id: adventurer.id }, a.key), 200);
      }
    });

    it('equals the resolution that follows it and changes nothing', async () => {
      const before = await snapshot(w, a.org.id);
      const odds = await w.get(`/api/quests/${questId}/odds?party_id=${partyId}`);
      expectStatus(odds, 200);
      assert.ok(odds.body.party_strength > 0);
      assert.equal(odds.body.requirements_met, true);
      // The danger met is drawn around the expected one: the chances of each outcome, summing to 1.
      const { full, partial, failure } = odds.body.chances;
      assert.ok(Math.abs(full + partial + failure - 1) < 1e-9, JSON.stringify(odds.body.chances));
      assert.deepEqual(odds.body.chances, outcomeOdds(odds.body.party_strength, odds.body.effective_danger));
      assert.doesNotMatch(odds.body.note, /refused/);
      assert.deepEqual(await snapshot(w, a.org.id), before, 'odds change nothing');
      expectStatus(await w.post(`/api/quests/${questId}/accept`, { organization_id: a.org.id }, a.key), 200);
      expectStatus(await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: questId }, a.key), 200);
      const done = await w.post(`/api/quests/${questId}/complete`, undefined, a.key);
      expectStatus(done, 200);
      assert.equal(done.body.outcome, odds.body.outcome);
      assert.equal(done.body.resolution.party_strength, odds.body.party_strength);
      assert.equal(done.body.resolution.effective_danger, odds.body.effective_danger);
      assert.equal(done.body.resolution.reward_paid, odds.body.reward_paid);
    });

    it('says in its note when the party would be refused at dispatch', async () => {
      const hard = await w.post('/api/quests', { title: 'Slay the wyrm', description: 'A wyrm of legend in the cellars.', requester_id: b.org.id, location_id: 'emberfall', reward: 50, minimum_strength: 9999 }, b.key);
      expectStatus(hard, 201);
      const odds = await w.get(`/api/quests/${hard.body.id}/odds?party_id=${partyId}`);
      expectStatus(odds, 200);
      assert.equal(odds.body.requirements_met, false);
      assert.match(odds.body.note, /^this party would be refused at dispatch \(.*strength.*\)/);
    });

    it('answers 404 for an unknown quest or party and 422 without a party', async () => {
      expectStatus(await w.get(`/api/quests/99999/odds?party_id=${partyId}`), 404);
      expectStatus(await w.get(`/api/quests/${questId}/odds?party_id=99999`), 404);
      expect422At(await w.get(`/api/quests/${questId}/odds`), ['query', 'party_id']);
    });
  });

  describe('filters on the growing listings', () => {
    let postedIds: number[];

    before(async () => {
      postedIds = [];
      for (const [reward, place] of [[10, 'greenhollow'], [25, 'greenhollow'], [40, 'ironcrag']] as const) {
        const q = await w.post('/api/quests', { title: `Errand for ${reward}`, description: 'An errand worth doing well.', requester_id: b.org.id, location_id: place, reward, deadline_days: 20 }, b.key);
        expectStatus(q, 201);
        postedIds.push(q.body.id);
      }
      expectStatus(await w.post(`/api/quests/${postedIds[2]}/cancel`, undefined, b.key), 200);
    });

    it('quests by status, place, requester and reward', async () => {
      const mine = (await w.get(`/api/quests?requester_id=${b.org.id}`)).body as Array<{ id: number; requester_id: number; status: string }>;
      assert.ok(mine.length >= 3 && mine.every((q) => q.requester_id === b.org.id && q.status !== 'withdrawn'));
      const here = (await w.get(`/api/quests?location_id=greenhollow&requester_id=${b.org.id}`)).body as Array<{ id: number }>;
      assert.deepEqual(here.map((q) => q.id), postedIds.slice(0, 2));
      const rich = (await w.get(`/api/quests?requester_id=${b.org.id}&min_reward=20&max_reward=30`)).body as Array<{ id: number }>;
      assert.deepEqual(rich.map((q) => q.id), [postedIds[1]]);
      const withdrawn = (await w.get('/api/quests?status=withdrawn')).body as Array<{ id: number; status: string }>;
      assert.deepEqual(withdrawn.map((q) => q.id), [postedIds[2]]);
      const resolved = (await w.get('/api/quests?status=resolved')).body as Array<{ status: string }>;
      assert.ok(resolved.length >= 1 && resolved.every((q) => q.status === 'resolved'));
      expect422At(await w.get('/api/quests?status=lost'), ['query', 'status']);
      expect422At(await w.get('/api/quests?min_reward=lots'), ['query', 'min_reward']);
    });

    it('pages a filtered listing by after_id', async () => {
      const first = await w.get(`/api/quests?requester_id=${b.org.id}&location_id=greenhollow&limit=1`);
      assert.deepEqual(first.body.map((q: { id: number }) => q.id), [postedIds[0]]);
      const second = await w.get(`/api/quests?requester_id=${b.org.id}&location_id=greenhollow&limit=1&after_id=${postedIds[0]}`);
      assert.deepEqual(second.body.map((q: { id: number }) => q.id), [postedIds[1]]);
    });

    it('adventurers by status, organization and place', async () => {
      const employed = (await w.get(`/api/adventurers?organization_id=${a.org.id}`)).body as Array<{ organization_id: number; status: string }>;
      assert.equal(employed.length, 2);
      assert.ok(employed.every((x) => x.organization_id === a.org.id && x.status === 'employed'));
      const atEmberfall = (await w.get('/api/adventurers?location_id=emberfall')).body as Array<{ organization_id: number | null }>;
      assert.ok(atEmberfall.length >= 2 && atEmberfall.every((x) => x.organization_id !== null));
      assert.equal((await w.get('/api/adventurers?location_id=frostmaw-deep')).body.length, 0);
      const available = (await w.get('/api/adventurers?status=available')).body as Array<{ status: string }>;
      assert.ok(available.every((x) => x.status === 'available'));
      expect422At(await w.get('/api/adventurers?status=sleeping'), ['query', 'status']);
    });

    it("an organization's view without its members' histories", async () => {
      const full = await w.get(`/api/organizations/${a.org.id}`);
      const brief = await w.get(`/api/organizations/${a.org.id}?members=brief`);
      expectStatus(brief, 200);
      assert.equal(brief.body.members.length, full.body.members.length);
      for (const m of brief.body.members) assert.ok(!('moments' in m) && !('party_history' in m) && !('bonds' in m) && typeof m.strength === 'number');
      assert.ok(full.body.members.every((m: { moments: unknown[] }) => Array.isArray(m.moments)));
      assert.ok(brief.text.length < full.text.length);
      expect422At(await w.get(`/api/organizations/${a.org.id}?members=some`), ['query', 'members']);
    });
  });

  describe('contracts: withdrawal, the service rule, and filters by organization', () => {
    const contract = (over: Record<string, unknown> = {}) => ({ proposer_id: a.org.id, counterparty_id: b.org.id, title: 'Escort duty', terms: 'Escort the caravan to the gate.', value: 40, resource: null, ...over });

    it('a proposer withdraws a proposal nobody accepted; nobody else may, and never twice', async () => {
      const c = await w.post('/api/contracts', contract(), a.key);
      expectStatus(c, 201);
      const before = await historyCount(w);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/withdraw`, { organization_id: b.org.id }, b.key), 403);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/withdraw`, { organization_id: a.org.id }, b.key), 403);
      assert.equal(await historyCount(w), before, 'a refused withdrawal records nothing');
      const done = await w.post(`/api/contracts/${c.body.id}/withdraw`, { organization_id: a.org.id }, a.key);
      expectStatus(done, 200);
      assert.equal(done.body.status, 'rejected');
      assert.equal(done.body.withdrawn, true);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/withdraw`, { organization_id: a.org.id }, a.key), 409);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: b.org.id }, b.key), 409);
      expectStatus(await w.post('/api/contracts/99999/withdraw', { organization_id: a.org.id }, a.key), 404);
      const events = (await w.get(`/api/events?organization_id=${a.org.id}&category=contract&limit=5`)).body as Array<{ summary: string }>;
      assert.match(events[0].summary, /^Lantern Company withdrew the contract "Escort duty"/);
    });

    it('an accepted contract cannot be withdrawn', async () => {
      const c = await w.post('/api/contracts', contract({ title: 'Guard duty' }), a.key);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/withdraw`, { organization_id: a.org.id }, a.key), 409);
    });

    it('a service contract is fulfilled by the side that pays, never by the side paid', async () => {
      const c = await w.post('/api/contracts', contract({ title: 'Night watch', value: 30 }), a.key);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
      const before = { a: (await orgOf(w, a.org.id)).treasury, b: (await orgOf(w, b.org.id)).treasury, history: await historyCount(w) };
      expectStatus(await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: a.org.id }, a.key), 409);
      assert.deepEqual({ a: (await orgOf(w, a.org.id)).treasury, b: (await orgOf(w, b.org.id)).treasury, history: await historyCount(w) }, before, 'the refusal moved nothing');
      const paid = await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: b.org.id }, b.key);
      expectStatus(paid, 200);
      assert.equal(paid.body.status, 'fulfilled');
      assert.equal((await orgOf(w, a.org.id)).treasury, before.a + 30);
      assert.equal((await orgOf(w, b.org.id)).treasury, before.b - 30);
    });

    it('a resource contract may still be fulfilled by its proposer, who hands the goods over', async () => {
      const c = await w.post('/api/contracts', contract({ title: 'Food delivery', value: 20, resource: 'food', quantity: 5 }), a.key);
      expectStatus(c, 201);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
      const done = await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: a.org.id }, a.key);
      expectStatus(done, 200);
      assert.equal(done.body.fulfilled_by, a.org.id);
    });

    it('contracts and alliances filter by organization and status', async () => {
      const outsider = await foundOrg(w, 'Quiet Cartographers', 'mapmakers guild');
      expectStatus(await w.post('/api/alliances', { proposer_id: outsider.org.id, counterparty_id: b.org.id, terms: 'Maps for safe passage.' }, outsider.key), 201);
      const ofA = (await w.get(`/api/contracts?organization_id=${a.org.id}`)).body as Array<{ proposer_id: number; counterparty_id: number }>;
      assert.ok(ofA.length >= 4 && ofA.every((c) => c.proposer_id === a.org.id || c.counterparty_id === a.org.id));
      assert.equal((await w.get(`/api/contracts?organization_id=${outsider.org.id}`)).body.length, 0);
      const fulfilled = (await w.get(`/api/contracts?organization_id=${b.org.id}&status=fulfilled`)).body as Array<{ status: string }>;
      assert.equal(fulfilled.length, 2);
      const alliances = (await w.get(`/api/alliances?organization_id=${outsider.org.id}`)).body as Array<{ proposer_id: number; counterparty: { name: string } }>;
      assert.equal(alliances.length, 1);
      assert.equal(alliances[0].counterparty.name, 'Ashvale Traders');
      assert.equal((await w.get(`/api/alliances?organization_id=${a.org.id}`)).body.length, 0);
      assert.equal((await w.get(`/api/alliances?organization_id=${outsider.org.id}&status=active`)).body.length, 0);
      expect422At(await w.get('/api/contracts?organization_id=zero'), ['query', 'organization_id']);
      expect422At(await w.get('/api/alliances?status=friendly'), ['query', 'status']);
    });
  });

  describe('the rulebook', () => {
    it('states the travel rule, the price rule, who fulfils a service contract, and withdrawal', async () => {
      const rules = (await w.get('/api/rules')).body;
      const text = rules.core_rules.join('\n');
      assert.match(text, /passes through the places between without stopping/);
      assert.match(text, /cannot be cancelled/);
      assert.match(text, /price = base price x \(usual supply \/ supply\)\^0\.8/);
      assert.match(text, /a service contract \(no resource\), only the counterparty/);
      assert.match(text, /withdraw its contract while it is still proposed/);
      assert.deepEqual(rules.numbers.price, { elasticity: 0.8, floor_ratio: 0.2, ceiling_ratio: 5 });
      for (const path of ['/api/market/{resource}/quote', '/api/travel/plan', '/api/quests/{quest_id}/odds', '/api/contracts/{contract_id}/withdraw']) {
        assert.ok(rules.api.some((r: { path: string }) => r.path === path), `the API surface lists ${path}`);
      }
    });
  });

  describe('the history names organizations, parties and quests by name', () => {
    it('in quest, party, contract, alliance, message and hiring summaries, under categories the rulebook lists', async () => {
      expectStatus(await w.post('/api/messages', { sender_id: a.org.id, recipient_id: b.org.id, body: 'Your caravan is safe.' }, a.key), 201);
      const mira = await w.register('Mira of the Maps');
      expectStatus(await w.post('/api/suggestions', { title: 'More roads', body: 'A road to the crypt would help.', category: 'world' }, mira.key), 201);
      const events: Array<{ id: number; category: string; summary: string }> = [];
      let page = (await w.get('/api/events?limit=100')).body as typeof events;
      while (page.length) {
        events.push(...page);
        page = (await w.get(`/api/events?limit=100&before_id=${page[page.length - 1].id}`)).body;
      }
      const categories = (await w.get('/api/rules')).body.event_categories as Record<string, string>;
      for (const e of events) assert.ok(e.category in categories, `the rulebook lists the category ${e.category}`);
      const told = events.filter((e) => ['contract', 'alliance', 'message', 'adventurer', 'quest', 'party', 'suggestion'].includes(e.category));
      assert.ok(told.length > 10, `enough history to judge: ${told.length}`);
      const numbered = told.filter((e) => /\borganizations? \d+/i.test(e.summary));
      assert.deepEqual(numbered.map((e) => e.summary), [], 'no summary names an organization by number');
      const questNumbered = told.filter((e) => /\b(quest|party|contract|agent) \d+/i.test(e.summary));
      assert.deepEqual(questNumbered.map((e) => e.summary), [], 'no summary names a quest, a party, a contract or an agent by number');
      const summaries = told.map((e) => e.summary);
      // The organization's side of a quest names the quest by its title (its id stays in data.quest_id).
      assert.ok(summaries.includes('Ashvale Traders set aside 120 gold for the reward of "Clear the cellars"'), summaries.join('\n'));
      assert.ok(summaries.includes('Lantern Company dispatched the party "The Lanterns" on "Clear the cellars"'), summaries.join('\n'));
      assert.ok(summaries.includes('The party "The Lanterns" of Lantern Company set out on "Clear the cellars" at emberfall'), summaries.join('\n'));
      assert.ok(summaries.some((s) => /^(Lantern Company|Ashvale Traders) received \d+ gold from "Clear the cellars" \(quest (full|partial|failure)\)$/.test(s)), summaries.join('\n'));
      assert.ok(summaries.some((s) => /^Ashvale Traders received 40 gold from "Errand for 40" \(/.test(s)), 'the withdrawn errand\'s reward comes back, named');
      const reserved = events.find((e) => e.summary === 'Ashvale Traders set aside 120 gold for the reward of "Clear the cellars"') as unknown as { data: { quest_id: number } };
      assert.equal(typeof reserved.data.quest_id, 'number', 'the id stays in data');
      assert.ok(summaries.includes('Ashvale Traders posted "Clear the cellars" at emberfall for 120 gold'), summaries.join('\n'));
      assert.ok(summaries.includes('Lantern Company accepted "Clear the cellars"'));
      assert.ok(summaries.includes('Lantern Company sent a private message to Ashvale Traders (2 gold)'));
      assert.ok(summaries.some((s) => / was hired by Lantern Company$/.test(s)));
      assert.ok(summaries.some((s) => /^Lantern Company paid \d+ gold to hire /.test(s)), 'the hiring fee, named');
      assert.ok(summaries.some((s) => / \(the contract "Food delivery"\)$/.test(s)), 'a contract\'s movements name the contract');
      assert.ok(summaries.includes('Mira of the Maps sent a suggestion to the operator'));
      assert.ok(summaries.some((s) => s.startsWith('Quiet Cartographers proposed an alliance to Ashvale Traders')));
      assert.ok(summaries.some((s) => /^Night watch|paid 30 gold to Lantern Company$/.test(s) || s.includes('Ashvale Traders paid 30 gold to Lantern Company')));
    });
  });
});
