// Fair play over HTTP (docs/accounting.md, docs/decisions.md): no gold or goods from
// nothing, an ended organization keeps nothing, the history names every organization
// whose gold moves, goods change hands in person, and every uniqueness or balance rule
// holds under concurrent requests.
import assert from 'assert/strict';
import sinon from 'sinon';
import { eventsOf, expectStatus, forfeitedGold, foundOrg, ledgerOf, orgOf } from '../support/http';
import { holdWrite } from '../support/sagas';
import { fateOf } from '../../actors/quest/rules';
import { rng } from '../../actors/random';
import { startTestWorld, type Answer, type TestWorld } from '../support/world';

const today = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.day;
const countAnswers = (rs: Answer[]) => rs.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});

const projectBody = (owner: number, over: Record<string, unknown> = {}) => ({
  owner_id: owner, title: 'Deep works', kind: 'construction', description: 'Digging for what the earth gives.', location_id: 'emberfall',
  budget: 100, duration_days: 1, output_resource: null, output_quantity: 0, establishment_kind: null, ...over,
});

const questBody = (requester: number, over: Record<string, unknown> = {}) => ({
  title: 'Trouble in town', description: 'Something must be done about it.', requester_id: requester, location_id: 'emberfall', reward: 50, ...over,
});

/** `adventurer` (else the first available one) hired by `who` and put in a new party of its own. */
async function partyOfOne(w: TestWorld, who: { org: { id: number }; key: string }, name: string, adventurer?: { id: number; name: string }) {
  const member = adventurer ?? (await w.get('/api/adventurers')).body.find((a: { status: string }) => a.status === 'available');
  expectStatus(await w.post('/api/adventurers/hire', { organization_id: who.org.id, adventurer_id: member.id }, who.key), 200);
  const party = (await w.post('/api/parties', { organization_id: who.org.id, name }, who.key)).body;
  expectStatus(await w.post(`/api/parties/${party.id}/members`, { adventurer_id: member.id }, who.key), 200);
  return { member, party };
}

/** The whole ledger of an organization replays to its treasury and holdings. */
async function assertReplays(w: TestWorld, id: number) {
  const lines = await ledgerOf(w, id);
  const o = await orgOf(w, id);
  assert.equal(lines.reduce((n, l) => n + (l.gold ?? 0), 0), o.treasury, `organization ${id}: its history's ledger gives its treasury`);
  const goods: Record<string, number> = {};
  for (const l of lines) for (const [r, q] of Object.entries(l.goods ?? {})) goods[r] = (goods[r] ?? 0) + q;
  assert.deepEqual(Object.fromEntries(Object.entries(goods).filter(([, q]) => q !== 0)), o.holdings, `organization ${id}: its history's ledger gives its holdings`);
}

describe('fair play over HTTP', function () {
  this.timeout(120_000);
  let w: TestWorld;
  beforeEach(async () => { w = await startTestWorld(); });
  afterEach(async () => { await w?.close(); });

  describe('output is paid for', () => {
    it('refuses a 1-gold project that would yield 10,000 ore, and changes nothing', async () => {
      const a = await foundOrg(w, 'Greedy Diggers', 'mining company');
      const events = (await w.get('/api/world')).body.counts.history_events;
      const r = await w.post('/api/projects', projectBody(a.org.id, { budget: 1, output_resource: 'ore', output_quantity: 10000 }), a.key);
      expectStatus(r, 409);
      // Ore's base price at emberfall is 6: 10,000 of it costs 60,000.
      assert.match(r.body.detail, /at least 60000/);
      const plan = await w.post('/api/projects', projectBody(a.org.id, { kind: 'production', budget: 1, duration_days: 30, output_resource: 'ore', output_quantity: 100 }), a.key);
      expectStatus(plan, 409);
      assert.match(plan.body.detail, /at least 9000/, 'a plan pays half the base price for each unit it may make');
      assert.equal((await orgOf(w, a.org.id)).treasury, a.org.treasury);
      assert.equal((await w.get('/api/world')).body.counts.history_events, events, 'no history');
    });

    it('refuses an establishment built for less than it costs, and pays income for three of an owner\'s at most', async () => {
      const a = await foundOrg(w, 'Inn Speculators', 'merchant company');
      const inn = (budget: number, title: string) => projectBody(a.org.id, { title, budget, establishment_kind: 'inn' });
      const cheap = await w.post('/api/projects', inn(1, 'A one-gold inn'), a.key);
      expectStatus(cheap, 409);
      assert.match(cheap.body.detail, /an establishment costs at least 100/);
      assert.equal((await orgOf(w, a.org.id)).treasury, a.org.treasury, 'nothing reserved');
      for (let i = 1; i <= 5; i++) expectStatus(await w.post('/api/projects', inn(100, `Inn number ${i}`), a.key), 201);
      await w.tick();
      assert.equal((await w.get(`/api/establishments?organization_id=${a.org.id}`)).body.length, 5);
      await w.tick();
      const income = (await ledgerOf(w, a.org.id, 'establishment_income')).map((l) => l.gold);
      assert.ok(income.length >= 1, 'income was paid');
      assert.deepEqual(income, income.map(() => 18), 'five inns, of which three pay 6 gold a day');
      await assertReplays(w, a.org.id);
    });

    it('charges a project that makes output and opens an establishment for both: the building is not free with the goods', async () => {
      const a = await foundOrg(w, 'Bundled Builders', 'merchant company');
      const events = (await w.get('/api/world')).body.counts.history_events;
      // Ore's base price at emberfall is 6: 50 of it costs 300, the inn 100 more.
      const bundle = (budget: number) => projectBody(a.org.id, { title: 'Mine and inn', budget, output_resource: 'ore', output_quantity: 50, establishment_kind: 'inn' });
      const cheap = await w.post('/api/projects', bundle(300), a.key);
      expectStatus(cheap, 409);
      assert.match(cheap.body.detail, /cannot pay for 50 ore and build inn: .*\(300 in all\) and an establishment costs at least 100, so the budget must be at least 400/);
      assert.equal((await orgOf(w, a.org.id)).treasury, a.org.treasury, 'nothing reserved');
      assert.equal((await w.get('/api/world')).body.counts.history_events, events, 'no history');
      expectStatus(await w.post('/api/projects', bundle(400), a.key), 201);
    });

    it('accepts a project whose budget pays for its output, which then yields exactly that', async () => {
      const a = await foundOrg(w, 'Honest Diggers', 'mining company');
      const r = await w.post('/api/projects', projectBody(a.org.id, { budget: 60, output_resource: 'ore', output_quantity: 10 }), a.key);
      expectStatus(r, 201);
      await w.tick();
      await w.tick();
      assert.equal((await orgOf(w, a.org.id)).holdings.ore, 10);
      await assertReplays(w, a.org.id);
    });

    it('prices output where nobody trades at the dearest base price of any market, and refuses a resource no market trades', async () => {
      const a = await foundOrg(w, 'Forest Cutters', 'lumber company', 'whisperwood');
      // Timber's base price is 4 at emberfall, 2 at greenhollow and 8 at ironcrag (scarce there).
      const cheap = await w.post('/api/projects', projectBody(a.org.id, { location_id: 'whisperwood', budget: 79, output_resource: 'timber', output_quantity: 10 }), a.key);
      expectStatus(cheap, 409);
      assert.match(cheap.body.detail, /at least 80/);
      expectStatus(await w.post('/api/projects', projectBody(a.org.id, { location_id: 'whisperwood', budget: 80, output_resource: 'timber', output_quantity: 10 }), a.key), 201);
      const unknown = await w.post('/api/projects', projectBody(a.org.id, { location_id: 'whisperwood', budget: 500, output_resource: 'mithril', output_quantity: 1 }), a.key);
      expectStatus(unknown, 409);
      assert.match(unknown.body.detail, /no market trades mithril/);
    });
  });

  describe('dissolving and founding again mints nothing', () => {
    it('moves gold out, dissolves and founds again: the new organization gets only what the allowance has refilled', async () => {
      const a = await foundOrg(w, 'Pump House', 'merchant company');
      const b = await foundOrg(w, 'Receiving House', 'merchant company');
      assert.equal(a.org.treasury, 800);
      // A pays B through a contract B proposes (the counterparty pays the proposer).
      const c = await w.post('/api/contracts', { proposer_id: b.org.id, counterparty_id: a.org.id, title: 'Consulting', terms: 'Advice on every matter.', value: 790 }, b.key);
      expectStatus(c, 201);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: a.org.id }, a.key), 200);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: a.org.id }, a.key), 200);
      expectStatus(await w.post(`/api/organizations/${a.org.id}/dissolve`, undefined, a.key), 200);
      assert.equal(await forfeitedGold(w, a.org.id), 10, 'what it kept passed to the world');
      const today = (await w.get('/api/world')).body.day as number;
      const again = await w.post('/api/organizations', { name: 'Pump House Again', kind: 'merchant company' }, a.key);
      expectStatus(again, 409);
      assert.match(again.body.detail, new RegExp(`granted only 0 gold .* less than its first day's upkeep of 5 gold: it would go bankrupt at once. From day ${today + 1} it would be granted 8 gold`),
        'founded the same day, the allowance has not refilled at all: an organization that would go bankrupt at once is not founded');
      // Half of the refill period later, half of the kind's amount.
      for (let i = 0; i < 45; i++) await w.tick();
      const third = await w.post('/api/organizations', { name: 'Pump House Third', kind: 'merchant company' }, a.key);
      expectStatus(third, 201);
      assert.equal(third.body.treasury, 400);
      const grants = (await w.get(`/api/agents/${a.agentId}`)).body;
      assert.deepEqual(grants.organization_ids, [a.org.id, third.body.id], 'the refused founding founded nothing');
      const rules = (await w.get('/api/rules')).body;
      assert.deepEqual(rules.numbers.founding_allowance, { first: 1, refill_days: 90 });
    });
  });

  describe('the estate of an ended organization', () => {
    it('passes its gold and goods to the world and sends its workers home; the history says so, organization by organization', async () => {
      const a = await foundOrg(w, 'Closing Merchants', 'merchant company');
      expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'ore', side: 'buy', quantity: 10 }, a.key), 200);
      expectStatus(await w.post('/api/workers/hire', { organization_id: a.org.id, quantity: 2 }, a.key), 200);
      const before = await orgOf(w, a.org.id);
      const r = await w.post(`/api/organizations/${a.org.id}/dissolve`, undefined, a.key);
      expectStatus(r, 200);
      const after = await orgOf(w, a.org.id);
      assert.equal(after.status, 'dissolved');
      assert.equal(after.treasury, 0);
      assert.deepEqual(after.holdings, {});
      assert.equal(after.workers, 0);
      const estate = (await eventsOf(w, a.org.id)).find((e) => (e.data.ledger ?? []).some((l) => l.flow === 'estate_forfeited'));
      assert.ok(estate, 'the estate is in the history');
      assert.deepEqual(estate.data.ledger, [{ organization_id: a.org.id, flow: 'estate_forfeited', gold: -before.treasury, goods: { ore: -10 } }]);
      assert.equal(estate.data.workers, 2);
      await assertReplays(w, a.org.id);
    });

    it("a refund that reaches a bankrupt requester passes to the world; the withdrawal names every funder it paid back", async () => {
      const r = await foundOrg(w, 'Doomed Scholars', 'scholars');
      const s = await foundOrg(w, 'Generous Patrons', 'merchant company');
      const q = await w.post('/api/quests', questBody(r.org.id, { reward: 20 }), r.key);
      expectStatus(q, 201);
      expectStatus(await w.post(`/api/quests/${q.body.id}/sponsors`, { organization_id: s.org.id, amount: 15 }, s.key), 201);
      // Spend the rest on workers so that tomorrow's upkeep cannot be paid.
      const left = (await orgOf(w, r.org.id)).treasury;
      expectStatus(await w.post('/api/workers/hire', { organization_id: r.org.id, quantity: Math.floor(left / 25) }, r.key), 200);
      await w.tick();
      assert.equal((await orgOf(w, r.org.id)).status, 'bankrupt');
      const withdrawal = (await eventsOf(w, s.org.id)).find((e) => e.category === 'quest' && e.data.quest_id === q.body.id && /withdrawn/.test(String((e as { summary?: string }).summary)));
      assert.ok(withdrawal, "the withdrawal is among the sponsor's events");
      assert.ok(withdrawal.organization_ids.includes(s.org.id) && withdrawal.organization_ids.includes(r.org.id), JSON.stringify(withdrawal));
      assert.deepEqual(withdrawal.data.payments, [
        { organization_id: r.org.id, flow: 'quest_escrow', gold: 20 },
        { organization_id: s.org.id, flow: 'quest_escrow', gold: 15 },
      ]);
      // Each funder's own record carries its refund, written with the change to its treasury.
      const refundOf = async (id: number) => (await eventsOf(w, id)).flatMap((e) => (e.data.quest_id === q.body.id ? e.data.ledger ?? [] : []))
        .filter((l) => l.organization_id === id && l.gold! > 0);
      assert.deepEqual(await refundOf(r.org.id), [{ organization_id: r.org.id, flow: 'quest_escrow', gold: 20 }]);
      assert.deepEqual(await refundOf(s.org.id), [{ organization_id: s.org.id, flow: 'quest_escrow', gold: 15 }]);
      assert.equal((await orgOf(w, r.org.id)).treasury, 0, 'the refund passed to the world');
      await assertReplays(w, r.org.id);
      await assertReplays(w, s.org.id);
    });
  });

  describe('the market', () => {
    it('gives nothing for buying in small lots and selling in one, or the reverse, however often', async () => {
      const a = await foundOrg(w, 'Lot Splitters', 'merchant company');
      const trade = (side: string, quantity: number) => w.post('/api/trade', { organization_id: a.org.id, resource: 'ore', side, quantity }, a.key);
      const board = async () => (await w.get('/api/market/ore?location_id=emberfall')).body;
      const before = await board();
      const treasury = async () => (await orgOf(w, a.org.id)).treasury;
      let gold = a.org.treasury;
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 5; i++) expectStatus(await trade('buy', 20), 200);
        expectStatus(await trade('sell', 100), 200);
        assert.ok(await treasury() <= gold, `bought in lots, sold at once: ${gold} -> ${await treasury()}`);
        gold = await treasury();
        expectStatus(await trade('buy', 100), 200);
        for (let i = 0; i < 5; i++) expectStatus(await trade('sell', 20), 200);
        assert.ok(await treasury() <= gold, `bought at once, sold in lots: ${gold} -> ${await treasury()}`);
        gold = await treasury();
      }
      const after = await orgOf(w, a.org.id);
      assert.deepEqual(after.holdings, {});
      assert.equal((await board()).supply, before.supply, 'the market is where it was');
      await assertReplays(w, a.org.id);
    });

    it('buys goods only up to five times its usual supply: a flood is refused, quoted as impossible, and changes nothing', async () => {
      const a = await foundOrg(w, 'Flood Sellers', 'merchant company');
      const board = async () => (await w.get('/api/market/ore?location_id=emberfall')).body;
      const before = await board();
      const room = before.usual_supply * 5 - before.supply;
      assert.ok(room > 0, JSON.stringify(before));
      expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'ore', side: 'buy', quantity: 10 }, a.key), 200);
      const now = await board();
      const roomNow = now.usual_supply * 5 - now.supply;
      const quote = await w.get(`/api/market/ore/quote?location_id=emberfall&side=sell&quantity=${roomNow + 1}`);
      expectStatus(quote, 200);
      assert.equal(quote.body.possible, false);
      assert.match(quote.body.refusal, new RegExp(`takes at most ${roomNow} more ore`));
      const treasury = (await orgOf(w, a.org.id)).treasury;
      const r = await w.post('/api/trade', { organization_id: a.org.id, resource: 'ore', side: 'sell', quantity: roomNow + 1 }, a.key);
      expectStatus(r, 409);
      assert.match(r.body.detail, new RegExp(`takes at most ${roomNow} more ore`));
      assert.equal((await orgOf(w, a.org.id)).treasury, treasury, 'no gold');
      assert.equal((await board()).supply, now.supply, 'no supply');
      const fits = await w.get(`/api/market/ore/quote?location_id=emberfall&side=sell&quantity=${roomNow}`);
      assert.equal(fits.body.possible, true, 'as much as it takes is quoted');
      expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'ore', side: 'sell', quantity: 10 }, a.key), 200);
      await assertReplays(w, a.org.id);
    });
  });

  describe('names every JavaScript object answers are no resources', () => {
    const INHERITED = ['toString', 'valueOf', 'constructor', '__proto__', 'hasOwnProperty'];

    it('trades none of them: each is not traded here (404), and neither the market nor the treasury moves', async () => {
      const a = await foundOrg(w, 'Prototype Traders', 'merchant company');
      const market = (await w.get('/api/market?location_id=emberfall')).body;
      for (const resource of INHERITED) {
        for (const side of ['buy', 'sell']) {
          const r = await w.post('/api/trade', { organization_id: a.org.id, resource, side, quantity: 1 }, a.key);
          expectStatus(r, 404);
          assert.match(r.body.detail, /is not traded at/);
        }
        expectStatus(await w.get(`/api/market/${resource}/quote?location_id=emberfall&side=buy&quantity=1`), 404);
      }
      assert.deepEqual((await w.get('/api/market?location_id=emberfall')).body, market);
      const after = await orgOf(w, a.org.id);
      assert.equal(after.treasury, a.org.treasury);
      assert.deepEqual(after.holdings, {});
      await assertReplays(w, a.org.id);
    });

    it('delivers none of them under a contract: the proposer holds none (409), and no gold moves', async () => {
      const seller = await foundOrg(w, 'Empty Hands', 'merchant company');
      const buyer = await foundOrg(w, 'Trusting Buyers', 'merchant company');
      for (const resource of ['valueOf', 'toString']) {
        const c = await w.post('/api/contracts', { proposer_id: seller.org.id, counterparty_id: buyer.org.id, title: 'A delivery', terms: 'Goods for a great deal of gold.', value: 700, resource, quantity: 500 }, seller.key);
        expectStatus(c, 201);
        expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: buyer.org.id }, buyer.key), 200);
        const r = await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: seller.org.id }, seller.key);
        expectStatus(r, 409);
        assert.match(r.body.detail, new RegExp(`holds 0 ${resource}`));
        assert.equal((await w.get(`/api/contracts/${c.body.id}`)).body.status, 'accepted');
      }
      for (const o of [seller, buyer]) {
        const now = await orgOf(w, o.org.id);
        assert.equal(now.treasury, o.org.treasury);
        assert.deepEqual(now.holdings, {});
      }
    });
  });

  describe('quest gold nobody can lock', () => {
    it('an acceptance with no party sent lapses after 20 days: the quest is open again, the requester may withdraw it, and the holder may not take it again', async () => {
      const owner = await foundOrg(w, 'Patient Patrons', 'merchant company');
      const squatter = await foundOrg(w, 'Idle Squatters', 'merchant company');
      const q = await w.post('/api/quests', questBody(owner.org.id, { reward: 500, deadline_days: null }), owner.key);
      expectStatus(q, 201);
      const accepted = await w.post(`/api/quests/${q.body.id}/accept`, { organization_id: squatter.org.id }, squatter.key);
      expectStatus(accepted, 200);
      const day = await today(w);
      assert.equal(accepted.body.acceptance_ends_day, day + 20, 'the quest says how long the acceptance holds');
      expectStatus(await w.post(`/api/quests/${q.body.id}/cancel`, undefined, owner.key), 409);
      for (let i = 0; i < 20; i++) await w.tick();
      assert.equal((await w.get(`/api/quests/${q.body.id}`)).body.status, 'accepted', 'it holds through its last day');
      await w.tick();
      const reopened = (await w.get(`/api/quests/${q.body.id}`)).body;
      assert.equal(reopened.status, 'open');
      assert.equal(reopened.accepted_organization_id, null);
      assert.equal(reopened.acceptance_ends_day, null);
      const told = (await eventsOf(w, squatter.org.id)).filter((e) => / is open again \(Idle Squatters accepted it on day \d+ and sent no party within 20 days\)/.test(e.summary));
      assert.equal(told.length, 1, 'the history tells it');
      const again = await w.post(`/api/quests/${q.body.id}/accept`, { organization_id: squatter.org.id }, squatter.key);
      expectStatus(again, 409);
      assert.match(again.body.detail, /cannot accept it again/);
      const treasury = (await orgOf(w, owner.org.id)).treasury;
      expectStatus(await w.post(`/api/quests/${q.body.id}/cancel`, undefined, owner.key), 200);
      assert.equal((await orgOf(w, owner.org.id)).treasury, treasury + 500, 'the reward is back with its requester');
      await assertReplays(w, owner.org.id);
    });
  });

  describe('smaller things', () => {
    it("a party's history gives the day the quest was resolved, and the day its member joined", async () => {
      const a = await foundOrg(w, 'Quest Takers', 'adventurers band');
      const b = await foundOrg(w, 'Quest Givers', 'merchant company');
      const { member: free, party } = await partyOfOne(w, a, 'The Early Birds');
      const joined = await today(w);
      await w.tick();
      await w.tick();
      const q = await w.post('/api/quests', questBody(b.org.id, { reward: 10 }), b.key);
      expectStatus(await w.post(`/api/parties/${party.id}/dispatch`, { quest_id: q.body.id }, a.key), 200);
      expectStatus(await w.post(`/api/quests/${q.body.id}/complete`, undefined, a.key), 200);
      const resolved = await today(w);
      assert.equal(resolved, joined + 2);
      const entry = (await w.get(`/api/adventurers/${free.id}`)).body.party_history.find((h: { quest_id: number }) => h.quest_id === q.body.id);
      assert.equal(entry.day, resolved);
      assert.equal(entry.resolved_day, resolved);
      assert.equal(entry.joined_day, joined);
    });

    it('a party takes one quest a day: a friend\'s cheap quests cannot be farmed for experience and reputation', async () => {
      const x = await foundOrg(w, 'Fame Farmers', 'adventurers band');
      const mill = await foundOrg(w, 'Quest Mill', 'merchant company');
      const { member: free, party } = await partyOfOne(w, x, 'The Farmhands');
      const quest = async (n: number) => (await w.post('/api/quests', questBody(mill.org.id, { reward: 1, title: `Chore number ${n}` }), mill.key)).body;
      const first = await quest(1);
      expectStatus(await w.post(`/api/parties/${party.id}/dispatch`, { quest_id: first.id }, x.key), 200);
      expectStatus(await w.post(`/api/quests/${first.id}/complete`, undefined, x.key), 200);
      const after = { adventurer: (await w.get(`/api/adventurers/${free.id}`)).body, org: await orgOf(w, x.org.id) };
      const second = await quest(2);
      const again = await w.post(`/api/parties/${party.id}/dispatch`, { quest_id: second.id }, x.key);
      expectStatus(again, 409);
      assert.match(again.body.detail, /came back from a quest on day \d+; it sets out again on day \d+ at the earliest/);
      assert.equal((await w.get(`/api/quests/${second.id}`)).body.status, 'open');
      assert.equal((await w.get(`/api/adventurers/${free.id}`)).body.experience, after.adventurer.experience);
      assert.equal((await orgOf(w, x.org.id)).reputation, after.org.reputation);
      await w.tick();
      expectStatus(await w.post(`/api/parties/${party.id}/dispatch`, { quest_id: second.id }, x.key), 200);
    });

    it('nor does releasing the adventurer, hiring it again and sending it with a new party: the adventurer rests too', async () => {
      const x = await foundOrg(w, 'Rehire Farmers', 'adventurers band');
      const mill = await foundOrg(w, 'Second Mill', 'merchant company');
      const quest = async (n: number) => (await w.post('/api/quests', questBody(mill.org.id, { reward: 1, title: `Errand number ${n}` }), mill.key)).body;
      const { member: free, party: firstCrew } = await partyOfOne(w, x, 'The First Crew');
      const first = await quest(1);
      expectStatus(await w.post(`/api/parties/${firstCrew.id}/dispatch`, { quest_id: first.id }, x.key), 200);
      expectStatus(await w.post(`/api/quests/${first.id}/complete`, undefined, x.key), 200);
      const back = await today(w);
      const experience = (await w.get(`/api/adventurers/${free.id}`)).body.experience;
      expectStatus(await w.post('/api/adventurers/release', { organization_id: x.org.id, adventurer_id: free.id }, x.key), 200);
      const { party: second } = await partyOfOne(w, x, 'The Second Crew', free);
      const errand = await quest(2);
      const again = await w.post(`/api/parties/${second.id}/dispatch`, { quest_id: errand.id }, x.key);
      expectStatus(again, 409);
      assert.equal(again.body.detail, `adventurer ${free.name} came back from a quest on day ${back}; it sets out again on day ${back + 1} at the earliest, whatever party it is in`);
      assert.equal((await w.get(`/api/quests/${errand.id}`)).body.status, 'open');
      assert.equal((await w.get(`/api/parties/${second.id}`)).body.status, 'formed');
      assert.equal((await w.get(`/api/adventurers/${free.id}`)).body.experience, experience);
      await w.tick();
      expectStatus(await w.post(`/api/parties/${second.id}/dispatch`, { quest_id: errand.id }, x.key), 200);
    });

    it("many parties cannot farm one friend's quests for reputation either: one requester's quests raise it once a day", async () => {
      const x = await foundOrg(w, 'Many Farmhands', 'adventurers band');
      const mill = await foundOrg(w, 'Chore Mill', 'merchant company');
      const other = await foundOrg(w, 'Other Patron', 'merchant company');
      const parties: number[] = [];
      for (const adv of (await w.get('/api/adventurers')).body.filter((a: { status: string }) => a.status === 'available').slice(0, 3)) {
        expectStatus(await w.post('/api/adventurers/hire', { organization_id: x.org.id, adventurer_id: adv.id }, x.key), 200);
        const party = (await w.post('/api/parties', { organization_id: x.org.id, name: `Crew ${adv.id}` }, x.key)).body;
        expectStatus(await w.post(`/api/parties/${party.id}/members`, { adventurer_id: adv.id }, x.key), 200);
        parties.push(party.id);
      }
      const run = async (requester: { org: { id: number }; key: string }, party: number, n: number) => {
        const q = (await w.post('/api/quests', questBody(requester.org.id, { reward: 1, title: `Errand number ${n}` }), requester.key)).body;
        expectStatus(await w.post(`/api/parties/${party}/dispatch`, { quest_id: q.id }, x.key), 200);
        const done = await w.post(`/api/quests/${q.id}/complete`, undefined, x.key);
        expectStatus(done, 200);
        return done.body.resolution.outcome as string;
      };
      const start = (await orgOf(w, x.org.id)).reputation;
      assert.equal(await run(mill, parties[0], 1), 'full');
      const once = (await orgOf(w, x.org.id)).reputation;
      assert.equal(once, start + 5);
      assert.equal(await run(mill, parties[1], 2), 'full');
      assert.equal((await orgOf(w, x.org.id)).reputation, once, 'the same friend again the same day: nothing');
      assert.equal(await run(other, parties[2], 3), 'full');
      assert.equal((await orgOf(w, x.org.id)).reputation, once + 5, 'another requester counts');
    });

    it("the inbox shows the public broadcasts an organization sent", async () => {
      const a = await foundOrg(w, 'Town Criers', 'merchant company');
      const m = await w.post('/api/messages', { sender_id: a.org.id, recipient_id: null, body: 'Hear ye, hear ye!' }, a.key);
      expectStatus(m, 201);
      const inbox = (await w.get('/api/messages/inbox', a.key)).body;
      assert.ok(inbox.some((x: { id: number }) => x.id === m.body.id), JSON.stringify(inbox));
    });

    it('a private letter reaches its recipient on its day, even after the recipient has moved on', async () => {
      const a = await foundOrg(w, 'Letter Writers', 'merchant company');
      const b = await foundOrg(w, 'Restless Readers', 'merchant company', 'greenhollow');
      const m = await w.post('/api/messages', { sender_id: a.org.id, recipient_id: b.org.id, body: 'Meet me at the ford.' }, a.key);
      expectStatus(m, 201);
      assert.equal(m.body.recipient_location_id, 'greenhollow', 'addressed to where the recipient stood');
      assert.ok(m.body.deliver_day > await today(w));
      expectStatus(await w.post('/api/travel', { organization_id: b.org.id, destination_id: 'ironcrag' }, b.key), 200);
      while (await today(w) < m.body.deliver_day - 1) await w.tick();
      assert.ok(!(await w.get('/api/messages/inbox', b.key)).body.some((x: { id: number }) => x.id === m.body.id), 'not before its day');
      await w.tick();
      assert.equal((await orgOf(w, b.org.id)).travel?.destination_id, 'ironcrag', 'the recipient has left for ironcrag by now');
      assert.ok((await w.get('/api/messages/inbox', b.key)).body.some((x: { id: number }) => x.id === m.body.id), 'delivered on its day, wherever the recipient is');
    });

    it('goods change hands in person: a resource contract waits until both parties stand at the same place; gold needs neither', async () => {
      const seller = await foundOrg(w, 'Ore Sellers', 'merchant company');
      const buyer = await foundOrg(w, 'Ore Buyers', 'merchant company');
      expectStatus(await w.post('/api/trade', { organization_id: seller.org.id, resource: 'ore', side: 'buy', quantity: 5 }, seller.key), 200);
      const c = await w.post('/api/contracts', { proposer_id: seller.org.id, counterparty_id: buyer.org.id, title: 'Ore delivery', terms: 'Five ore for thirty gold.', value: 30, resource: 'ore', quantity: 5 }, seller.key);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: buyer.org.id }, buyer.key), 200);
      expectStatus(await w.post('/api/travel', { organization_id: buyer.org.id, destination_id: 'greenhollow' }, buyer.key), 200);
      const before = [await orgOf(w, seller.org.id), await orgOf(w, buyer.org.id)].map((o) => [o.treasury, o.holdings]);
      const onRoad = await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: seller.org.id }, seller.key);
      expectStatus(onRoad, 409);
      assert.match(onRoad.body.detail, /on the road/);
      assert.deepEqual([await orgOf(w, seller.org.id), await orgOf(w, buyer.org.id)].map((o) => [o.treasury, o.holdings]), before, 'nothing moved');
      while ((await orgOf(w, buyer.org.id)).travel) await w.tick();
      const apart = await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: buyer.org.id }, buyer.key);
      expectStatus(apart, 409);
      assert.match(apart.body.detail, /not at emberfall/);
      expectStatus(await w.post('/api/travel', { organization_id: seller.org.id, destination_id: 'greenhollow' }, seller.key), 200);
      while ((await orgOf(w, seller.org.id)).travel) await w.tick();
      expectStatus(await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: seller.org.id }, seller.key), 200);
      assert.equal((await orgOf(w, buyer.org.id)).holdings.ore, 5);
      // Gold alone travels by letter.
      const far = await foundOrg(w, 'Distant Bank', 'bank');
      const g = await w.post('/api/contracts', { proposer_id: far.org.id, counterparty_id: buyer.org.id, title: 'A loan fee', terms: 'Paid wherever you stand.', value: 10 }, far.key);
      expectStatus(await w.post(`/api/contracts/${g.body.id}/accept`, { organization_id: buyer.org.id }, buyer.key), 200);
      expectStatus(await w.post(`/api/contracts/${g.body.id}/fulfill`, { organization_id: buyer.org.id }, buyer.key), 200);
      for (const id of [seller.org.id, buyer.org.id, far.org.id]) await assertReplays(w, id);
    });

    it('the rulebook names every flow of gold and goods, and the rules that close the holes', async () => {
      const rules = (await w.get('/api/rules')).body;
      assert.deepEqual(Object.keys(rules.accounting.flows).sort(), [
        'contract', 'establishment_income', 'estate_forfeited', 'founding_grant', 'hiring', 'market', 'message', 'production', 'project_budget', 'project_refund', 'quest_escrow', 'upkeep', 'workers', 'world_reward',
      ]);
      const text = rules.core_rules.join('\n');
      for (const words of [/estate of an ended organization/, /founding allowance/, /Output is paid for/, /Goods change hands in person/, /at most one proposed or active alliance/]) {
        assert.match(text, words);
      }
      assert.deepEqual(rules.numbers.output_cost_share_of_base_price, { project: 1, production_plan: 0.5 });
    });
  });

  describe('an arrival the read model has not shown yet', () => {
    // The arrival's write is held back (fault injection into this process's store): one node.
    beforeEach(async () => { if (w.nodes.length > 1) { await w.close(); w = await startTestWorld({ nodes: 1 }); } });

    it('a journey or a letter planned from the place just left is planned again from where it stands', async () => {
      const a = await foundOrg(w, 'Hasty Returners', 'merchant company');
      const b = await foundOrg(w, 'Letter Readers', 'merchant company');
      const set = await w.post('/api/travel', { organization_id: a.org.id, destination_id: 'greenhollow' }, a.key);
      expectStatus(set, 200);
      while (await today(w) < set.body.travel.arrives_day - 1) await w.tick();
      // The organization's arrival waits for its write: the actor has arrived, its row still says emberfall.
      const { holding, release } = holdWrite(w, `organization:${a.org.id}`, 'arrived');
      const asked = sinon.spy(w.services.entities, 'ask');
      const sent = (type: string) => asked.getCalls().some((call) => call.args[0] === 'organization' && call.args[1] === a.org.id && (call.args[2] as { type: string }).type === type);
      const ticking = w.tick();
      await holding;
      assert.equal((await orgOf(w, a.org.id)).location_id, 'emberfall', 'the row has not moved yet');
      const back = w.post('/api/travel', { organization_id: a.org.id, destination_id: 'emberfall' }, a.key);
      const letter = w.post('/api/messages', { sender_id: a.org.id, recipient_id: b.org.id, body: 'We are nearly home.', kind: 'message' }, a.key);
      // Both were planned from the stale row and wait behind the arrival.
      while (!sent('travel') || !sent('send-message')) await new Promise((resolve) => setTimeout(resolve, 10));
      release();
      const [journey, posted] = await Promise.all([back, letter]);
      await ticking;
      asked.restore();
      const plan = (await w.get('/api/travel/plan?from_id=greenhollow&destination_id=emberfall')).body;
      assert.ok(plan.days > 1);
      expectStatus(journey, 200);
      assert.equal(journey.body.travel.arrives_day - journey.body.travel.departed_day, plan.days, 'the journey from greenhollow, not the day from emberfall to itself');
      expectStatus(posted, 201);
      assert.equal(posted.body.deliver_day - posted.body.sent_day, plan.days, 'the letter travels from greenhollow');
      const journeys = (await w.get(`/api/events?organization_id=${a.org.id}&limit=100`)).body.filter((e: { summary: string }) => / set out from /.test(e.summary));
      assert.equal(journeys.length, 2, 'two journeys in all: there and back');
    });
  });

  describe('a party its quest\'s time overtakes', () => {
    /** A party of three sent on a quest of `deadlineDays`; the members as they set out. */
    async function sentParty(deadlineDays: number | null) {
      const band = await foundOrg(w, 'Overdue Blades', 'adventurers band');
      const mill = await foundOrg(w, 'Patient Mill', 'merchant company');
      const hires = (await w.get('/api/adventurers?status=available')).body.slice(0, 3);
      const { party } = await partyOfOne(w, band, 'The Overdue', hires[0]);
      for (const a of hires.slice(1)) {
        expectStatus(await w.post('/api/adventurers/hire', { organization_id: band.org.id, adventurer_id: a.id }, band.key), 200);
        expectStatus(await w.post(`/api/parties/${party.id}/members`, { adventurer_id: a.id }, band.key), 200);
      }
      const quest = (await w.post('/api/quests', questBody(mill.org.id, { reward: 20, deadline_days: deadlineDays }), mill.key)).body;
      expectStatus(await w.post(`/api/parties/${party.id}/dispatch`, { quest_id: quest.id }, band.key), 200);
      const sent = (await w.get(`/api/quests/${quest.id}`)).body;
      const members = await Promise.all(sent.party_members.map(async (id: number) => (await w.get(`/api/adventurers/${id}`)).body));
      return { band, quest: sent, members };
    }

    /** The quest failed, and each member met the fate a completion that failed on that day would have drawn. */
    async function assertFoughtAndFailed(questId: number, members: Array<{ id: number; strength: number; traits: string[] }>, reason: RegExp) {
      const after = (await w.get(`/api/quests/${questId}`)).body;
      assert.equal(after.status, 'resolved');
      assert.equal(after.outcome, 'failure');
      assert.match(after.resolution.reason, reason);
      const draw = rng(w.services.seed, 'quest', questId, after.resolved_day);
      const fates = members.map((m) => ({ id: m.id, ...fateOf('failure', m as never, draw) }));
      const casualties = fates.filter((f) => f.died).map((f) => f.id);
      const injured = fates.filter((f) => f.injury_days > 0).map((f) => f.id);
      assert.ok(casualties.length + injured.length > 0, 'the seed gives this party some wound to meet (else the test shows nothing)');
      assert.deepEqual(after.resolution.casualties, casualties);
      assert.deepEqual(after.resolution.injured, injured);
      for (const f of fates) {
        const a = (await w.get(`/api/adventurers/${f.id}`)).body;
        assert.equal(a.status === 'dead', f.died, `adventurer ${f.id} ${f.died ? 'died' : 'lives'}`);
      }
    }

    it('meets a failed fight\'s fates when its deadline passes before it reports back: waiting is not safer than reporting', async () => {
      const { quest, members } = await sentParty(1);
      await w.tick();
      await w.tick();
      await assertFoughtAndFailed(quest.id, members, /deadline passed/);
    });

    it('meets them too when its acceptance runs out before it reports back (settled by a late completion, one node)', async () => {
      if (w.nodes.length > 1) { await w.close(); w = await startTestWorld({ nodes: 1 }); }
      const { band, quest, members } = await sentParty(null);
      // The day after the acceptance's last: the completion settles the lapse first, as the day would.
      sinon.stub(w.services, 'day').resolves(quest.acceptance_ends_day + 1);
      expectStatus(await w.post(`/api/quests/${quest.id}/complete`, undefined, band.key), 409);
      sinon.restore();
      await assertFoughtAndFailed(quest.id, members, /did not report back within 20 days/);
    });
  });

  describe('a day the tick has not reached yet', () => {
    // The day is moved on for this process's requests only (a fake of time): one node.
    beforeEach(async () => { if (w.nodes.length > 1) { await w.close(); w = await startTestWorld({ nodes: 1 }); } });

    async function sentOnQuest(deadlineDays: number | null) {
      const band = await foundOrg(w, 'Late Runners', 'adventurers band');
      const mill = await foundOrg(w, 'Deadline Mill', 'merchant company');
      const { party } = await partyOfOne(w, band, 'The Latecomers');
      const quest = (await w.post('/api/quests', questBody(mill.org.id, { reward: 20, deadline_days: deadlineDays }), mill.key)).body;
      return { band, mill, party, quest };
    }

    it('a quest completed after its deadline, before the tick reached it, fails as its deadline says', async () => {
      const { band, mill, party, quest } = await sentOnQuest(1);
      expectStatus(await w.post(`/api/parties/${party.id}/dispatch`, { quest_id: quest.id }, band.key), 200);
      await w.tick();
      assert.equal(await today(w), quest.deadline_day);
      const millBefore = (await orgOf(w, mill.org.id)).treasury;
      // The day after the deadline has begun; the tick has not settled the quest yet.
      sinon.stub(w.services, 'day').resolves(quest.deadline_day + 1);
      const late = await w.post(`/api/quests/${quest.id}/complete`, undefined, band.key);
      expectStatus(late, 409);
      const after = (await w.get(`/api/quests/${quest.id}`)).body;
      assert.equal(after.status, 'resolved');
      assert.equal(after.outcome, 'failure');
      assert.equal(after.resolution.reward_paid, 0);
      assert.match(after.resolution.reason, /deadline passed/);
      assert.equal((await orgOf(w, mill.org.id)).treasury, millBefore + 20, 'the reward went back to the requester');
    });

    it('a quest whose acceptance ran out cannot be sent on before the tick reopened it', async () => {
      const { band, party, quest } = await sentOnQuest(null);
      expectStatus(await w.post(`/api/quests/${quest.id}/accept`, { organization_id: band.org.id }, band.key), 200);
      const accepted = (await w.get(`/api/quests/${quest.id}`)).body;
      sinon.stub(w.services, 'day').resolves(accepted.acceptance_ends_day + 1);
      const late = await w.post(`/api/parties/${party.id}/dispatch`, { quest_id: quest.id }, band.key);
      expectStatus(late, 409);
      const after = (await w.get(`/api/quests/${quest.id}`)).body;
      assert.equal(after.status, 'open');
      assert.equal(after.accepted_organization_id, null);
      assert.equal((await w.get(`/api/parties/${party.id}`)).body.status, 'formed');
    });
  });

  describe('a write that fails part-way through an action', () => {
    // Faults are injected into one process's store: these tests run on one node.
    beforeEach(async () => { if (w.nodes.length > 1) { await w.close(); w = await startTestWorld({ nodes: 1 }); } });

    /** Makes the next persist of an actor whose key starts with `prefix` fail (fault injection); restores itself. */
    /** Fails the next write of a key with this prefix (and, when named, whose first event is of this type). */
    function failNextPersist(prefix: string, eventType?: string) {
      const engine = w.services.store.engine as { persist: (...args: unknown[]) => Promise<void> };
      const real = engine.persist.bind(engine);
      const stub = sinon.stub(engine, 'persist').callsFake(async (...args: unknown[]) => {
        const event = args[0] as { key: string; data?: { events?: Array<{ type: string }> } };
        if (String(event.key).startsWith(prefix) && (eventType === undefined || event.data?.events?.[0]?.type === eventType)) {
          stub.restore();
          throw new Error('injected: the write did not happen');
        }
        return real(...args);
      });
      return stub;
    }

    it('an organization whose day could not be settled catches it up the next day: no upkeep is skipped', async () => {
      const a = await foundOrg(w, 'Briefly Unreachable', 'merchant company');
      const engine = w.services.store.engine as { persist: (...args: unknown[]) => Promise<void> };
      const real = engine.persist.bind(engine);
      // Every write of this organization fails for the whole of the next day (every attempt of the tick).
      const stub = sinon.stub(engine, 'persist').callsFake(async (...args: unknown[]) => {
        if ((args[0] as { key: string }).key === `organization:${a.org.id}`) throw new Error('injected: the write did not happen');
        return real(...args);
      });
      const missed = await w.tick();
      stub.restore();
      assert.equal((await orgOf(w, a.org.id)).treasury, a.org.treasury, `day ${missed} could not be settled for it`);
      const next = await w.tick();
      const upkeep = (await eventsOf(w, a.org.id)).filter((e) => e.category === 'maintenance').map((e) => e.day);
      assert.deepEqual(upkeep, [missed, next], 'both days paid, on the next day');
      assert.equal((await orgOf(w, a.org.id)).treasury, a.org.treasury - 10);
      await assertReplays(w, a.org.id);
    });

    it("leaves the organization's books exact when the market's write fails after the organization paid", async () => {
      const a = await foundOrg(w, 'Unlucky Buyers', 'merchant company');
      const supply = async () => (await w.get<Array<{ resource: string; supply: number; location_id: string }>>('/api/market')).body.find((m) => m.location_id === a.org.location_id && m.resource === 'food')!.supply;
      const before = await supply();
      failNextPersist('location:', 'traded');
      const r = await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 10 }, a.key);
      expectStatus(r, 503);
      const o = await orgOf(w, a.org.id);
      assert.equal(o.holdings.food, 10, 'the organization paid and holds the food');
      await assertReplays(w, a.org.id);
      assert.equal(await supply(), before, 'the market has not recorded it yet');
      // The market's next trade finishes the one left pending first (actors/intents.ts), once.
      expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 1 }, a.key), 200);
      assert.ok(Math.abs(await supply() - (before - 11)) < 1e-9, 'the market recorded both trades');
      assert.equal((await orgOf(w, a.org.id)).holdings.food, 11, 'and the organization paid for each once');
      await assertReplays(w, a.org.id);
    });

    it('pays nobody twice when a quest is completed again after its own write failed', async () => {
      const giver = await foundOrg(w, 'Patient Givers', 'merchant company');
      const taker = await foundOrg(w, 'Lucky Takers', 'adventurers band');
      const { party } = await partyOfOne(w, taker, 'The Twice Paid');
      const q = await w.post('/api/quests', questBody(giver.org.id, { reward: 40 }), giver.key);
      expectStatus(await w.post(`/api/parties/${party.id}/dispatch`, { quest_id: q.body.id }, taker.key), 200);
      const before = (await orgOf(w, taker.org.id)).treasury;
      failNextPersist('quest:', 'resolved');
      expectStatus(await w.post(`/api/quests/${q.body.id}/complete`, undefined, taker.key), 503);
      assert.equal((await w.get(`/api/quests/${q.body.id}`)).body.status, 'accepted', 'the quest did not record its end');
      const paidOnce = (await orgOf(w, taker.org.id)).treasury;
      assert.equal(paidOnce, before + 40, 'the reward was paid');
      expectStatus(await w.post(`/api/quests/${q.body.id}/complete`, undefined, taker.key), 200);
      assert.equal((await orgOf(w, taker.org.id)).treasury, paidOnce, 'and not paid again');
      for (const id of [giver.org.id, taker.org.id]) await assertReplays(w, id);
    });
  });

  describe('uniqueness and balance rules hold under concurrent requests', () => {
    it('four concurrent proposals of alliance between one pair: exactly one is made', async () => {
      const a = await foundOrg(w, 'Eager Allies', 'merchant company');
      const b = await foundOrg(w, 'Other Allies', 'merchant company');
      const body = (p: typeof a, q: typeof a) => ({ proposer_id: p.org.id, counterparty_id: q.org.id, terms: 'Together against the dark.' });
      const rs = await Promise.all([
        w.post('/api/alliances', body(a, b), a.key), w.post('/api/alliances', body(b, a), b.key),
        w.post('/api/alliances', body(a, b), a.key), w.post('/api/alliances', body(b, a), b.key),
      ]);
      assert.deepEqual(countAnswers(rs), { 201: 1, 409: 3 }, rs.map((r) => r.text).join('\n'));
      const live = (await w.get('/api/alliances')).body.filter((x: { status: string }) => x.status !== 'ended');
      assert.equal(live.length, 1);
      // Once it ends, the pair may ally again.
      const made = rs.find((r) => r.status === 201)!.body;
      const accepter = made.counterparty_id === a.org.id ? a : b;
      expectStatus(await w.post(`/api/alliances/${made.id}/accept`, { organization_id: accepter.org.id }, accepter.key), 200);
      expectStatus(await w.post(`/api/alliances/${made.id}/end`, { organization_id: a.org.id }, a.key), 200);
      expectStatus(await w.post('/api/alliances', body(a, b), a.key), 201);
    });

    it('four concurrent foundings by one agent: exactly one organization', async () => {
      const agent = await w.register();
      const rs = await Promise.all([1, 2, 3, 4].map((i) => w.post('/api/organizations', { name: `Hasty House ${i}`, kind: 'merchant company' }, agent.key)));
      assert.deepEqual(countAnswers(rs), { 201: 1, 409: 3 }, rs.map((r) => r.text).join('\n'));
      assert.equal((await w.get(`/api/agents/${agent.id}`)).body.organization_ids.length, 1);
    });

    it('concurrent spending never takes a treasury below zero: exactly what it can afford succeeds', async () => {
      const a = await foundOrg(w, 'Busy Spenders', 'merchant company');
      // 800 gold; each request hires 4 workers for 100.
      const rs = await Promise.all(Array.from({ length: 10 }, () => w.post('/api/workers/hire', { organization_id: a.org.id, quantity: 4 }, a.key)));
      assert.deepEqual(countAnswers(rs), { 200: 8, 409: 2 });
      const o = await orgOf(w, a.org.id);
      assert.equal(o.treasury, 0);
      assert.equal(o.workers, 32);
      const b = await foundOrg(w, 'Busy Sponsors', 'merchant company');
      const q = await w.post('/api/quests', questBody(a.org.id, { reward: 1 }), a.key);
      // a has nothing left to post with; b sponsors someone else's quest instead.
      const c = await foundOrg(w, 'Quest Owners', 'merchant company');
      const q2 = await w.post('/api/quests', questBody(c.org.id, { reward: 10 }), c.key);
      assert.equal(q.status, 409);
      const ss = await Promise.all(Array.from({ length: 5 }, () => w.post(`/api/quests/${q2.body.id}/sponsors`, { organization_id: b.org.id, amount: 300 }, b.key)));
      assert.deepEqual(countAnswers(ss), { 201: 2, 409: 3 });
      assert.equal((await orgOf(w, b.org.id)).treasury, 200);
      assert.equal((await w.get(`/api/quests/${q2.body.id}`)).body.reward, 610);
    });

    it('one adventurer, one quest, one party, one contract: each is taken once by concurrent requests', async () => {
      const orgs = [await foundOrg(w, 'Rival One', 'adventurers band'), await foundOrg(w, 'Rival Two', 'adventurers band'), await foundOrg(w, 'Rival Three', 'adventurers band')];
      const free = (await w.get('/api/adventurers')).body.filter((x: { status: string }) => x.status === 'available');
      const hires = await Promise.all(orgs.map((o) => w.post('/api/adventurers/hire', { organization_id: o.org.id, adventurer_id: free[0].id }, o.key)));
      assert.deepEqual(countAnswers(hires), { 200: 1, 409: 2 });

      const giver = await foundOrg(w, 'Quest Board', 'merchant company');
      const q = await w.post('/api/quests', questBody(giver.org.id), giver.key);
      const accepts = await Promise.all(orgs.map((o) => w.post(`/api/quests/${q.body.id}/accept`, { organization_id: o.org.id }, o.key)));
      assert.deepEqual(countAnswers(accepts), { 200: 1, 409: 2 });

      // One adventurer into two parties at once; one party onto two quests at once.
      const me = orgs[0];
      expectStatus(await w.post('/api/adventurers/hire', { organization_id: me.org.id, adventurer_id: free[1].id }, me.key), 200);
      const p1 = (await w.post('/api/parties', { organization_id: me.org.id, name: 'First Band' }, me.key)).body;
      const p2 = (await w.post('/api/parties', { organization_id: me.org.id, name: 'Second Band' }, me.key)).body;
      const joins = await Promise.all([p1, p2].map((p) => w.post(`/api/parties/${p.id}/members`, { adventurer_id: free[1].id }, me.key)));
      assert.deepEqual(countAnswers(joins), { 200: 1, 409: 1 });
      const withMember = joins[0].status === 200 ? p1 : p2;
      const qa = (await w.post('/api/quests', questBody(giver.org.id, { reward: 5 }), giver.key)).body;
      const qb = (await w.post('/api/quests', questBody(giver.org.id, { reward: 6 }), giver.key)).body;
      const sends = await Promise.all([qa, qb].map((x) => w.post(`/api/parties/${withMember.id}/dispatch`, { quest_id: x.id }, me.key)));
      assert.deepEqual(countAnswers(sends), { 200: 1, 409: 1 }, sends.map((r) => r.text).join('\n'));

      // One contract fulfilled twice at once: paid once.
      const c = await w.post('/api/contracts', { proposer_id: giver.org.id, counterparty_id: me.org.id, title: 'Fee', terms: 'Paid once, not twice.', value: 40 }, giver.key);
      expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: me.org.id }, me.key), 200);
      const before = (await orgOf(w, me.org.id)).treasury;
      const fulfils = await Promise.all([
        // A service contract is fulfilled by its counterparty only (docs/decisions.md): twice at once.
        w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: me.org.id }, me.key),
        w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: me.org.id }, me.key),
      ]);
      assert.deepEqual(countAnswers(fulfils), { 200: 1, 409: 1 });
      assert.equal((await orgOf(w, me.org.id)).treasury, before - 40);
      for (const o of [...orgs, giver]) await assertReplays(w, o.org.id);
    });
  });
});
