// Diplomacy over HTTP, end to end on a real server: contracts (core rule 21), alliances
// (core rule 22), trust (core rule 14), messages with their costs and delivery delays
// (core rule 15), and a scenario of two agents who trade, ally, sign and talk.
import assert from 'assert/strict';
import { startTestWorld, type Answer, type TestWorld } from '../support/world';

interface Org {
  id: number; name: string; treasury: number; status: string; location_id: string; agent_id: number | null;
  holdings: Record<string, number>; trust: Record<string, number>; travel: { destination_id: string; arrives_day: number } | null;
  contracts: Array<{ id: number; status: string }>; alliances: Array<{ id: number; status: string }>; contract_count: number;
}
interface Actor { key: string; agentId: number; org: Org }
interface Message {
  id: number; sender_id: number; recipient_id: number | null; body: string; kind: string; public: boolean; verified: boolean;
  sent_day: number; deliver_day: number; cost: number;
}

const SPECTATOR = 'test-spectator-key';

function expectStatus(r: Answer, status: number) {
  assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.text}`);
  if (status >= 400 && status !== 422) assert.ok(typeof r.body.detail === 'string' && r.body.detail.length > 0, `a plain-words detail: ${r.text}`);
  if (status === 422) {
    assert.ok(Array.isArray(r.body.detail) && r.body.detail.length > 0, `422 carries detail items: ${r.text}`);
    for (const item of r.body.detail) {
      assert.ok(Array.isArray(item.loc) && typeof item.msg === 'string' && typeof item.type === 'string', r.text);
    }
  }
}

function expect422Path(r: Answer) {
  expectStatus(r, 422);
  assert.equal(r.body.detail[0].loc[0], 'path', r.text);
}

async function foundOrg(w: TestWorld, name: string, kind = 'merchant company'): Promise<Actor> {
  const agent = await w.register();
  const r = await w.call('POST', '/api/organizations', { key: agent.key, body: { name, kind } });
  expectStatus(r, 201);
  return { key: agent.key, agentId: agent.id, org: r.body };
}

async function orgOf(w: TestWorld, id: number): Promise<Org> {
  const r = await w.get(`/api/organizations/${id}`);
  expectStatus(r, 200);
  return r.body;
}

const day = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.day;
const historyCount = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.counts.history_events;

/** What a refused action must leave as it was, for both sides. */
async function sides(w: TestWorld, ...ids: number[]) {
  const out = [];
  for (const id of ids) {
    const o = await orgOf(w, id);
    out.push({ id, treasury: o.treasury, holdings: o.holdings, trust: o.trust, status: o.status });
  }
  return out;
}

const contractBody = (from: Actor, to: Actor | number, over: Record<string, unknown> = {}) => ({
  proposer_id: from.org.id, counterparty_id: typeof to === 'number' ? to : to.org.id, title: 'Supply agreement',
  terms: 'Goods delivered to the counterparty at Emberfall.', value: 100, resource: null, quantity: 0, ...over,
});

async function propose(w: TestWorld, from: Actor, to: Actor | number, over: Record<string, unknown> = {}) {
  const r = await w.call('POST', '/api/contracts', { key: from.key, body: contractBody(from, to, over) });
  expectStatus(r, 201);
  return r.body as { id: number; status: string; proposer_id: number; counterparty_id: number; value: number; resource: string | null; quantity: number };
}

const contractAct = (w: TestWorld, verb: 'accept' | 'reject' | 'withdraw' | 'fulfill', id: number, who: Actor, orgId = who.org.id) =>
  w.call('POST', `/api/contracts/${id}/${verb}`, { key: who.key, body: { organization_id: orgId } });

const allianceAct = (w: TestWorld, verb: 'accept' | 'end', id: number, who: Actor, orgId = who.org.id) =>
  w.call('POST', `/api/alliances/${id}/${verb}`, { key: who.key, body: { organization_id: orgId } });

async function contractStatus(w: TestWorld, id: number): Promise<string> {
  const r = await w.get(`/api/contracts/${id}`);
  expectStatus(r, 200);
  return r.body.status;
}

async function allianceOf(w: TestWorld, id: number) {
  const r = await w.get('/api/alliances');
  expectStatus(r, 200);
  const a = r.body.find((x: { id: number }) => x.id === id);
  assert.ok(a, `alliance ${id} is listed`);
  return a;
}

async function proposeAlliance(w: TestWorld, from: Actor, to: Actor) {
  const r = await w.call('POST', '/api/alliances', { key: from.key, body: { proposer_id: from.org.id, counterparty_id: to.org.id, terms: 'We stand together on the roads.' } });
  expectStatus(r, 201);
  return r.body as { id: number; status: string };
}

/** The trust between two organizations as GET /api/relationships tells it (undefined when it has no record). */
async function trustBetween(w: TestWorld, a: number, b: number): Promise<number | undefined> {
  const r = await w.get('/api/relationships');
  expectStatus(r, 200);
  assert.ok(Array.isArray(r.body));
  const found = r.body.filter((x: { organization_ids: number[] }) => x.organization_ids.includes(a) && x.organization_ids.includes(b));
  assert.ok(found.length <= 1, `one record per pair: ${JSON.stringify(found)}`);
  return found[0]?.trust;
}

async function buy(w: TestWorld, who: Actor, resource: string, quantity: number): Promise<number> {
  const r = await w.call('POST', '/api/trade', { key: who.key, body: { organization_id: who.org.id, resource, side: 'buy', quantity } });
  expectStatus(r, 200);
  return r.body.trade.total;
}

/** Takes gold from `victim` (as counterparty of a contract it signs) until `left` remains. */
async function drainTo(w: TestWorld, victim: Actor, beneficiary: Actor, left: number) {
  const treasury = (await orgOf(w, victim.org.id)).treasury;
  const c = await propose(w, beneficiary, victim, { value: treasury - left, title: 'Tribute' });
  expectStatus(await contractAct(w, 'accept', c.id, victim), 200);
  expectStatus(await contractAct(w, 'fulfill', c.id, victim), 200);
  assert.equal((await orgOf(w, victim.org.id)).treasury, left);
}

async function send(w: TestWorld, who: Actor, recipient: number | null, body: string, kind?: 'message' | 'rumor') {
  return w.call('POST', '/api/messages', { key: who.key, body: { sender_id: who.org.id, recipient_id: recipient, body, ...(kind ? { kind } : {}) } });
}

const inbox = async (w: TestWorld, who: Actor): Promise<Message[]> => {
  const r = await w.call('GET', '/api/messages/inbox', { key: who.key });
  expectStatus(r, 200);
  return r.body;
};
const publicMessages = async (w: TestWorld): Promise<Message[]> => {
  const r = await w.get('/api/messages');
  expectStatus(r, 200);
  return r.body;
};
const investigation = async (w: TestWorld): Promise<Message[]> => {
  const r = await w.call('GET', '/api/messages/investigation', { spectator: SPECTATOR });
  expectStatus(r, 200);
  return r.body;
};

describe('diplomacy over HTTP', function () {
  this.timeout(60_000);
  let w: TestWorld;
  let a: Actor;
  let b: Actor;
  let c: Actor;

  beforeEach(async () => {
    w = await startTestWorld();
    a = await foundOrg(w, 'Amber Traders', 'merchant company');
    b = await foundOrg(w, 'Birch Crafters', 'crafters workshop');
    c = await foundOrg(w, 'Cobalt Band', 'mercenary band');
  });
  afterEach(async () => { await w.close(); });

  describe('contracts (core rule 21)', () => {
    it('records a proposal with its terms, moves no gold, and shows it with both parties and on both organizations', async () => {
      const before = await sides(w, a.org.id, b.org.id);
      const r = await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, b, { value: 250, resource: 'food', quantity: 12, title: 'Grain run' }) });
      expectStatus(r, 201);
      assert.equal(typeof r.body.id, 'number');
      assert.equal(r.body.status, 'proposed');
      assert.equal(r.body.proposer_id, a.org.id);
      assert.equal(r.body.counterparty_id, b.org.id);
      assert.equal(r.body.title, 'Grain run');
      assert.equal(r.body.terms, 'Goods delivered to the counterparty at Emberfall.');
      assert.equal(r.body.value, 250);
      assert.equal(r.body.resource, 'food');
      assert.equal(r.body.quantity, 12);
      assert.deepEqual(await sides(w, a.org.id, b.org.id), before, 'payment occurs only on fulfilment');

      const one = await w.get(`/api/contracts/${r.body.id}`);
      expectStatus(one, 200);
      assert.equal(one.body.id, r.body.id);
      assert.equal(one.body.proposer.id, a.org.id);
      assert.equal(one.body.proposer.name, 'Amber Traders');
      assert.equal(one.body.counterparty.id, b.org.id);
      assert.equal(one.body.counterparty.name, 'Birch Crafters');

      const list = await w.get('/api/contracts');
      expectStatus(list, 200);
      assert.deepEqual(list.body.filter((x: { id: number }) => x.id === r.body.id).map((x: { status: string }) => x.status), ['proposed']);
      // The listing names both sides, as the alliances' does, so a reader need not look each up.
      const listed = list.body.find((x: { id: number }) => x.id === r.body.id);
      assert.equal(listed.proposer_name, 'Amber Traders');
      assert.equal(listed.counterparty_name, 'Birch Crafters');

      for (const side of [a, b]) {
        const detail = await orgOf(w, side.org.id);
        assert.deepEqual(detail.contracts.map((x) => x.id), [r.body.id], `organization ${side.org.id} lists the contract`);
      }
      assert.deepEqual((await orgOf(w, c.org.id)).contracts, [], 'an uninvolved organization does not list it');
      assert.equal(await contractStatus(w, r.body.id), 'proposed');
    });

    it('refuses bad proposals: no key 401, proposer not controlled 403, unknown counterparty 404, oneself 409, half a resource 409, bad input 422', async () => {
      const history = await historyCount(w);
      expectStatus(await w.call('POST', '/api/contracts', { body: contractBody(a, b) }), 401);
      expectStatus(await w.call('POST', '/api/contracts', { key: 'not-a-key', body: contractBody(a, b) }), 401);
      expectStatus(await w.call('POST', '/api/contracts', { key: c.key, body: contractBody(a, b) }), 403);
      expectStatus(await w.call('POST', '/api/contracts', { key: a.key, body: { ...contractBody(a, b), proposer_id: 1 } }), 403);
      expectStatus(await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, 9999) }), 404);
      expectStatus(await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, a) }), 409);
      expectStatus(await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, b, { resource: 'food', quantity: 0 }) }), 409);
      expectStatus(await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, b, { resource: null, quantity: 3 }) }), 409);
      const badValue = await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, b, { value: 0 }) });
      expectStatus(badValue, 422);
      assert.deepEqual(badValue.body.detail[0].loc, ['body', 'value']);
      expectStatus(await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, b, { title: 'ab' }) }), 422);
      expectStatus(await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, b, { terms: 'short' }) }), 422);
      assert.deepEqual((await w.get('/api/contracts')).body, [], 'no contract was recorded');
      assert.equal(await historyCount(w), history, 'no history for refused proposals');
    });

    it('refuses a proposal to an organization that has ended (409) and answers 404 or 422 for a bad contract id', async () => {
      expectStatus(await w.call('POST', `/api/organizations/${c.org.id}/dissolve`, { key: c.key }), 200);
      expectStatus(await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, c) }), 409);
      expectStatus(await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: c.org.id, terms: 'Allies beyond the grave.' } }), 409);
      expectStatus(await w.call('POST', '/api/contracts', { key: c.key, body: contractBody(c, a) }), 409);
      expectStatus(await w.get('/api/contracts/9999'), 404);
      expect422Path(await w.get('/api/contracts/abc'));
      assert.deepEqual((await w.get('/api/contracts')).body, []);
    });

    it('a contract or an alliance proposed to an organization the world runs is declined on its next turn: rejected, ended, nothing paid', async () => {
      const council = (await w.get('/api/organizations/1')).body;
      assert.equal(council.agent_id, null, 'organization 1 is the world\'s');
      const contract = await w.call('POST', '/api/contracts', { key: a.key, body: { ...contractBody(a, c), counterparty_id: 1 } });
      expectStatus(contract, 201);
      const alliance = await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: 1, terms: 'Together against the dark.' } });
      expectStatus(alliance, 201);
      const aBefore = (await w.get(`/api/organizations/${a.org.id}`)).body;
      await w.tick();
      assert.equal((await w.get(`/api/contracts/${contract.body.id}`)).body.status, 'rejected', 'the world signs no contracts');
      assert.equal((await w.get(`/api/alliances/${alliance.body.id}`)).body.status, 'ended', 'and makes no alliances');
      const aAfter = (await w.get(`/api/organizations/${a.org.id}`)).body;
      assert.equal(aAfter.treasury, aBefore.treasury - aBefore.daily_maintenance, 'no gold moved but the day\'s upkeep');
      const said = (await w.get('/api/events?limit=100')).body.map((e: { summary: string }) => e.summary);
      assert.ok(said.includes(`Emberfall Council rejected the contract "${contract.body.title}" (${contract.body.value} gold)`), 'history tells the rejection');
      assert.ok(said.includes('The alliance of Amber Traders and Emberfall Council ended (the proposal was declined)'), 'and the declined alliance');
    });

    it('pays exactly once when both parties fulfil at the same moment', async () => {
      await buy(w, a, 'ore', 4);
      const k = await propose(w, a, b, { value: 60, resource: 'ore', quantity: 4 });
      expectStatus(await contractAct(w, 'accept', k.id, b), 200);
      const [pa, pb] = await sides(w, a.org.id, b.org.id);
      const answers = await Promise.all([contractAct(w, 'fulfill', k.id, a), contractAct(w, 'fulfill', k.id, b), contractAct(w, 'fulfill', k.id, a)]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409, 409], answers.map((r) => r.text).join(' | '));
      const [xa, xb] = await sides(w, a.org.id, b.org.id);
      assert.equal(xa.treasury, pa.treasury + 60);
      assert.equal(xb.treasury, pb.treasury - 60);
      assert.equal(xa.holdings.ore, undefined);
      assert.equal(xb.holdings.ore, 4);
      assert.equal(xa.trust[String(b.org.id)], 5, 'trust rises once');
    });

    it('lets only the counterparty accept or reject (403 otherwise), and only while proposed (409 otherwise)', async () => {
      const k = await propose(w, a, b);
      // The proposer, a stranger, and an agent naming an organization it does not control.
      expectStatus(await contractAct(w, 'accept', k.id, a), 403);
      expectStatus(await contractAct(w, 'reject', k.id, a), 403);
      expectStatus(await contractAct(w, 'accept', k.id, c), 403);
      expectStatus(await contractAct(w, 'reject', k.id, c), 403);
      expectStatus(await contractAct(w, 'accept', k.id, a, b.org.id), 403);
      expectStatus(await contractAct(w, 'reject', k.id, c, b.org.id), 403);
      expectStatus(await w.call('POST', `/api/contracts/${k.id}/accept`, { body: { organization_id: b.org.id } }), 401);
      expectStatus(await contractAct(w, 'accept', 9999, b), 404);
      expectStatus(await w.call('POST', `/api/contracts/${k.id}/accept`, { key: b.key, body: {} }), 422);
      assert.equal(await contractStatus(w, k.id), 'proposed', 'refusals change nothing');

      const accepted = await contractAct(w, 'accept', k.id, b);
      expectStatus(accepted, 200);
      assert.equal(accepted.body.status, 'accepted');
      assert.equal(await contractStatus(w, k.id), 'accepted');
      expectStatus(await contractAct(w, 'accept', k.id, b), 409);
      expectStatus(await contractAct(w, 'reject', k.id, b), 409);
      assert.equal(await contractStatus(w, k.id), 'accepted');

      const k2 = await propose(w, a, b);
      const rejected = await contractAct(w, 'reject', k2.id, b);
      expectStatus(rejected, 200);
      assert.equal(rejected.body.status, 'rejected');
      expectStatus(await contractAct(w, 'accept', k2.id, b), 409);
      expectStatus(await contractAct(w, 'reject', k2.id, b), 409);
      expectStatus(await contractAct(w, 'fulfill', k2.id, a), 409);
      expectStatus(await contractAct(w, 'fulfill', k2.id, b), 409);
      assert.equal(await contractStatus(w, k2.id), 'rejected');
    });

    it('fulfils only an accepted contract (409 when proposed, rejected or fulfilled), a service contract by the counterparty only (409 for the proposer), never by a stranger (403)', async () => {
      const k = await propose(w, a, b, { value: 40 });
      expectStatus(await contractAct(w, 'fulfill', k.id, a), 409);
      expectStatus(await contractAct(w, 'fulfill', k.id, b), 409);
      expectStatus(await contractAct(w, 'accept', k.id, b), 200);

      const before = await sides(w, a.org.id, b.org.id, c.org.id);
      expectStatus(await contractAct(w, 'fulfill', k.id, c), 403); // uninvolved organization
      expectStatus(await contractAct(w, 'fulfill', k.id, c, a.org.id), 403); // the agent does not control the named org
      expectStatus(await contractAct(w, 'fulfill', k.id, b, a.org.id), 403);
      assert.deepEqual(await sides(w, a.org.id, b.org.id, c.org.id), before);
      assert.equal(await contractStatus(w, k.id), 'accepted');

      // A service contract: the proposer, the side paid, may not collect it (docs/decisions.md).
      expectStatus(await contractAct(w, 'fulfill', k.id, a), 409);
      assert.deepEqual(await sides(w, a.org.id, b.org.id, c.org.id), before);
      const done = await contractAct(w, 'fulfill', k.id, b);
      expectStatus(done, 200);
      assert.equal(done.body.status, 'fulfilled');
      assert.equal(done.body.fulfilled_by, b.org.id);
      expectStatus(await contractAct(w, 'fulfill', k.id, a), 409);
      expectStatus(await contractAct(w, 'fulfill', k.id, b), 409);
      expectStatus(await contractAct(w, 'accept', k.id, b), 409);
      expectStatus(await contractAct(w, 'reject', k.id, b), 409);
      assert.deepEqual((await sides(w, a.org.id, b.org.id)).map((s) => s.treasury), [before[0].treasury + 40, before[1].treasury - 40], 'paid once only');

      // Another, fulfilled by the counterparty as well.
      const k2 = await propose(w, a, b, { value: 15 });
      expectStatus(await contractAct(w, 'accept', k2.id, b), 200);
      const byCounterparty = await contractAct(w, 'fulfill', k2.id, b);
      expectStatus(byCounterparty, 200);
      assert.equal(byCounterparty.body.fulfilled_by, b.org.id);
      assert.equal(await contractStatus(w, k2.id), 'fulfilled');
    });

    it('pays the value and moves the resource quantity from proposer to counterparty on fulfilment, exactly', async () => {
      await buy(w, a, 'food', 30);
      const [pa, pb] = await sides(w, a.org.id, b.org.id);
      assert.equal(pa.holdings.food, 30);
      assert.equal(pb.holdings.food, undefined);

      const k = await propose(w, a, b, { value: 150, resource: 'food', quantity: 20, title: 'Twenty sacks' });
      expectStatus(await contractAct(w, 'accept', k.id, b), 200);
      assert.deepEqual(await sides(w, a.org.id, b.org.id), [pa, pb], 'nothing moves on acceptance');

      const history = await historyCount(w);
      const r = await contractAct(w, 'fulfill', k.id, b);
      expectStatus(r, 200);
      const [xa, xb] = await sides(w, a.org.id, b.org.id);
      assert.equal(xa.treasury, pa.treasury + 150, 'the proposer is paid');
      assert.equal(xb.treasury, pb.treasury - 150, 'the counterparty pays');
      assert.equal(xa.holdings.food, 10, 'the proposer hands over the quantity');
      assert.equal(xb.holdings.food, 20, 'the counterparty receives the quantity');
      assert.equal(await contractStatus(w, k.id), 'fulfilled');
      assert.ok(await historyCount(w) > history, 'the fulfilment is part of the history');
      const events = (await w.get('/api/events?category=contract&limit=10')).body as Array<{ organization_ids: number[]; data?: { contract_id?: number } }>;
      assert.ok(events.some((e) => e.data?.contract_id === k.id && e.organization_ids.includes(a.org.id) && e.organization_ids.includes(b.org.id)));
      // Successful shared work improves trust (core rule 14).
      assert.equal(xa.trust[String(b.org.id)], 5);
      assert.equal(xb.trust[String(a.org.id)], 5);
      assert.equal(await trustBetween(w, a.org.id, b.org.id), 5);
    });

    it('raises trust by a fulfilled contract once a day between two organizations, however many they fulfil (no trust pumped by 1-gold contracts)', async () => {
      const fulfilOne = async () => {
        const k = await propose(w, a, b, { value: 1, title: 'A token of goodwill' });
        expectStatus(await contractAct(w, 'accept', k.id, b), 200);
        expectStatus(await contractAct(w, 'fulfill', k.id, b), 200);
        assert.equal(await contractStatus(w, k.id), 'fulfilled', 'the contract itself is fulfilled and paid as ever');
      };
      for (let i = 0; i < 4; i++) await fulfilOne();
      assert.equal(await trustBetween(w, a.org.id, b.org.id), 5, 'four contracts the same day: trust rises once');
      const k = await propose(w, a, c, { value: 1, title: 'A token of goodwill' });
      expectStatus(await contractAct(w, 'accept', k.id, c), 200);
      expectStatus(await contractAct(w, 'fulfill', k.id, c), 200);
      assert.equal(await trustBetween(w, a.org.id, c.org.id), 5, 'work with another organization counts the same day');
      await w.tick();
      await fulfilOne();
      await fulfilOne();
      assert.equal(await trustBetween(w, a.org.id, b.org.id), 10, 'the next day counts once more');
      assert.equal((await orgOf(w, a.org.id)).trust[String(b.org.id)], 10);
      assert.equal((await orgOf(w, b.org.id)).trust[String(a.org.id)], 10);
    });

    it('refuses a fulfilment the counterparty cannot pay with 409 and changes nothing on either side', async () => {
      await buy(w, a, 'food', 10);
      const k = await propose(w, a, b, { value: 5000, resource: 'food', quantity: 10 });
      expectStatus(await contractAct(w, 'accept', k.id, b), 200);
      const before = await sides(w, a.org.id, b.org.id);
      const history = await historyCount(w);
      for (const who of [a, b]) {
        expectStatus(await contractAct(w, 'fulfill', k.id, who), 409);
        assert.deepEqual(await sides(w, a.org.id, b.org.id), before, 'treasuries, holdings and trust unchanged');
        assert.equal(await contractStatus(w, k.id), 'accepted');
        assert.equal(await historyCount(w), history, 'no history event');
      }
    });

    it('refuses a fulfilment the proposer cannot supply with 409 and changes nothing on either side', async () => {
      await buy(w, a, 'food', 5);
      const k = await propose(w, a, b, { value: 30, resource: 'food', quantity: 6 });
      const k2 = await propose(w, a, b, { value: 30, resource: 'ore', quantity: 1 });
      expectStatus(await contractAct(w, 'accept', k.id, b), 200);
      expectStatus(await contractAct(w, 'accept', k2.id, b), 200);
      const before = await sides(w, a.org.id, b.org.id);
      const history = await historyCount(w);
      for (const [id, who] of [[k.id, b], [k.id, a], [k2.id, b]] as const) {
        expectStatus(await contractAct(w, 'fulfill', id, who), 409);
        assert.deepEqual(await sides(w, a.org.id, b.org.id), before);
        assert.equal(await contractStatus(w, id), 'accepted');
        assert.equal(await historyCount(w), history);
      }
      // Once the goods are there, the same contract goes through.
      await buy(w, a, 'food', 1);
      expectStatus(await contractAct(w, 'fulfill', k.id, b), 200);
      assert.equal((await orgOf(w, b.org.id)).holdings.food, 6);
      assert.equal((await orgOf(w, a.org.id)).holdings.food, undefined);
    });

    it('worsens trust both ways when the counterparty rejects', async () => {
      assert.equal(await trustBetween(w, a.org.id, b.org.id), undefined, 'no record before any dealings');
      const k = await propose(w, a, b);
      expectStatus(await contractAct(w, 'reject', k.id, b), 200);
      const trust = await trustBetween(w, a.org.id, b.org.id);
      assert.equal(trust, -5);
      assert.equal((await orgOf(w, a.org.id)).trust[String(b.org.id)], -5);
      assert.equal((await orgOf(w, b.org.id)).trust[String(a.org.id)], -5);
      assert.equal(await trustBetween(w, a.org.id, c.org.id), undefined, 'bystanders are untouched');
    });
  });

  describe('alliances (core rule 22)', () => {
    it('goes proposed -> active (trust +10 both ways) -> ended by the counterparty (within 30 days: trust -10, back to 0), refusing every other move', async () => {
      const al = await proposeAlliance(w, a, b);
      assert.equal(al.status, 'proposed');
      const listed = await allianceOf(w, al.id);
      assert.equal(listed.proposer_id, a.org.id);
      assert.equal(listed.counterparty_id, b.org.id);
      assert.equal(listed.proposer.id, a.org.id);
      assert.equal(listed.counterparty.id, b.org.id);
      assert.equal(listed.terms, 'We stand together on the roads.');

      expectStatus(await allianceAct(w, 'end', al.id, c, a.org.id), 403); // not controlled
      expectStatus(await allianceAct(w, 'end', al.id, c), 403); // not a member
      expectStatus(await allianceAct(w, 'accept', al.id, a), 403); // the proposer
      expectStatus(await allianceAct(w, 'accept', al.id, c), 403); // a stranger
      expectStatus(await allianceAct(w, 'accept', al.id, c, b.org.id), 403); // not controlled
      expectStatus(await allianceAct(w, 'accept', 9999, b), 404);
      expectStatus(await w.call('POST', `/api/alliances/${al.id}/accept`, { body: { organization_id: b.org.id } }), 401);
      assert.equal((await allianceOf(w, al.id)).status, 'proposed');
      assert.equal(await trustBetween(w, a.org.id, b.org.id), undefined);

      const ok = await allianceAct(w, 'accept', al.id, b);
      expectStatus(ok, 200);
      assert.equal(ok.body.status, 'active');
      assert.equal((await allianceOf(w, al.id)).status, 'active');
      assert.equal(await trustBetween(w, a.org.id, b.org.id), 10);
      assert.equal((await orgOf(w, a.org.id)).trust[String(b.org.id)], 10);
      assert.equal((await orgOf(w, b.org.id)).trust[String(a.org.id)], 10);
      expectStatus(await allianceAct(w, 'accept', al.id, b), 409);
      // A second alliance between the same two is refused while one is active.
      const again = await w.call('POST', '/api/alliances', { key: b.key, body: { proposer_id: b.org.id, counterparty_id: a.org.id, terms: 'Again, and more so.' } });
      expectStatus(again, 409);

      expectStatus(await allianceAct(w, 'end', al.id, c), 403);
      expectStatus(await allianceAct(w, 'end', al.id, c, a.org.id), 403);
      assert.equal((await allianceOf(w, al.id)).status, 'active');
      const ended = await allianceAct(w, 'end', al.id, b);
      expectStatus(ended, 200);
      assert.equal(ended.body.status, 'ended');
      assert.equal((await allianceOf(w, al.id)).status, 'ended');
      assert.equal(await trustBetween(w, a.org.id, b.org.id), 0, 'an alliance ended at once leaves no trust');
      expectStatus(await allianceAct(w, 'end', al.id, a), 409);
      expectStatus(await allianceAct(w, 'end', al.id, b), 409);
      expectStatus(await allianceAct(w, 'accept', al.id, b), 409);
      assert.equal(await trustBetween(w, a.org.id, b.org.id), 0, 'refusals change no trust');
    });

    it('GET /api/alliances/{id} answers one alliance with its proposer and counterparty, as listed; 404 unknown, 422 not an id', async () => {
      const al = await proposeAlliance(w, a, b);
      const one = await w.get(`/api/alliances/${al.id}`);
      expectStatus(one, 200);
      assert.deepEqual(one.body, await allianceOf(w, al.id));
      assert.equal(one.body.proposer.id, a.org.id);
      assert.equal(one.body.counterparty.id, b.org.id);
      expectStatus(await w.get('/api/alliances/99999'), 404);
      expect422Path(await w.get('/api/alliances/abc'));
    });

    it('lets the proposer withdraw a proposal and the counterparty decline one (ended at once, no trust moved), after which the pair may propose again', async () => {
      const first = await proposeAlliance(w, a, b);
      const again = await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: b.org.id, terms: 'We stand together on the roads.' } });
      expectStatus(again, 409);
      assert.match(again.body.detail, new RegExp(`alliance ${first.id}\\); end it first \\(POST /api/alliances/${first.id}/end`));
      const withdrawn = await allianceAct(w, 'end', first.id, a);
      expectStatus(withdrawn, 200);
      assert.equal(withdrawn.body.status, 'ended');
      assert.equal(withdrawn.body.end_reason, 'the proposal was withdrawn');
      assert.equal(withdrawn.body.accepted_day, null);
      expectStatus(await allianceAct(w, 'end', first.id, b), 409); // ended already
      expectStatus(await allianceAct(w, 'accept', first.id, b), 409); // nothing left to accept
      const second = await proposeAlliance(w, a, b);
      const declined = await allianceAct(w, 'end', second.id, b);
      expectStatus(declined, 200);
      assert.equal(declined.body.end_reason, 'the proposal was declined');
      assert.equal(await trustBetween(w, a.org.id, b.org.id), undefined, 'no trust moved either way');
      const events = (await w.get('/api/events?category=alliance&limit=10')).body as Array<{ summary: string; data: { alliance_id: number } }>;
      assert.ok(events.some((e) => e.data.alliance_id === first.id && /withdrawn/.test(e.summary)), JSON.stringify(events));
      assert.ok(events.some((e) => e.data.alliance_id === second.id && /declined/.test(e.summary)), JSON.stringify(events));
      expectStatus(await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: b.org.id, terms: 'We stand together on the roads.' } }), 201);
    });

    it('may be ended by the proposer too, and refuses an alliance with oneself or a proposer not controlled', async () => {
      const al = await proposeAlliance(w, a, c);
      expectStatus(await allianceAct(w, 'accept', al.id, c), 200);
      const ended = await allianceAct(w, 'end', al.id, a);
      expectStatus(ended, 200);
      assert.equal(ended.body.status, 'ended');
      expectStatus(await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: a.org.id, terms: 'Alone against all.' } }), 409);
      expectStatus(await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: b.org.id, counterparty_id: c.org.id, terms: 'Others, bound by me.' } }), 403);
      expectStatus(await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: 9999, terms: 'A friend nobody knows.' } }), 404);
      expectStatus(await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: b.org.id, terms: 'short' } }), 422);
    });

    it('ends every alliance of an organization that dissolves (core rule 7)', async () => {
      const ab = await proposeAlliance(w, a, b);
      expectStatus(await allianceAct(w, 'accept', ab.id, b), 200);
      const ca = await proposeAlliance(w, c, a);
      expectStatus(await allianceAct(w, 'accept', ca.id, a), 200);
      const bc = await proposeAlliance(w, b, c);
      expectStatus(await allianceAct(w, 'accept', bc.id, c), 200);

      const r = await w.call('POST', `/api/organizations/${a.org.id}/dissolve`, { key: a.key });
      expectStatus(r, 200);
      assert.equal((await orgOf(w, a.org.id)).status, 'dissolved');
      assert.equal((await allianceOf(w, ab.id)).status, 'ended');
      assert.equal((await allianceOf(w, ca.id)).status, 'ended');
      assert.equal((await allianceOf(w, bc.id)).status, 'active', 'an alliance without the dissolved member goes on');
      expectStatus(await allianceAct(w, 'end', ab.id, b), 409);
    });

    it('leaves the alliances of a bankrupt organization to its partner: only dissolution ends them (core rule 7)', async () => {
      const ab = await proposeAlliance(w, a, b);
      expectStatus(await allianceAct(w, 'accept', ab.id, b), 200);
      await drainTo(w, b, c, 0);
      await w.tick();
      assert.equal((await orgOf(w, b.org.id)).status, 'bankrupt');
      assert.equal((await allianceOf(w, ab.id)).status, 'active');
      expectStatus(await allianceAct(w, 'end', ab.id, b), 409);
      expectStatus(await allianceAct(w, 'end', ab.id, a), 200);
      assert.equal((await allianceOf(w, ab.id)).status, 'ended');
    });

    it('refuses to accept an alliance its proposer proposed before it went bankrupt (409, nothing moves); the counterparty may still decline it', async () => {
      const ba = await proposeAlliance(w, b, a);
      await drainTo(w, b, c, 0);
      await w.tick();
      assert.equal((await orgOf(w, b.org.id)).status, 'bankrupt');
      const trust = await trustBetween(w, a.org.id, b.org.id);
      const r = await allianceAct(w, 'accept', ba.id, a);
      expectStatus(r, 409);
      assert.match(r.body.detail, new RegExp(`organization ${b.org.id} .*bankrupt`));
      assert.equal((await allianceOf(w, ba.id)).status, 'proposed');
      assert.equal(await trustBetween(w, a.org.id, b.org.id), trust, 'no trust moved');
      expectStatus(await allianceAct(w, 'end', ba.id, a), 200);
      assert.equal((await allianceOf(w, ba.id)).status, 'ended');
    });
  });

  describe('messages (core rule 15)', () => {
    it('charges public 1, private 2 and rumor 3 gold to the sender', async () => {
      const t0 = (await orgOf(w, a.org.id)).treasury;
      const pub = await send(w, a, null, 'Fair prices at the Amber stall!');
      expectStatus(pub, 201);
      assert.equal(pub.body.cost, 1);
      assert.equal(pub.body.public, true);
      assert.equal(pub.body.kind, 'message');
      assert.equal(pub.body.sender_id, a.org.id);
      assert.equal(pub.body.recipient_id, null);
      assert.equal((await orgOf(w, a.org.id)).treasury, t0 - 1);

      const priv = await send(w, a, b.org.id, 'A word in private about timber.');
      expectStatus(priv, 201);
      assert.equal(priv.body.cost, 2);
      assert.equal(priv.body.public, false);
      assert.equal((await orgOf(w, a.org.id)).treasury, t0 - 3);

      const rumor = await send(w, a, null, 'They say the crypt is empty now.', 'rumor');
      expectStatus(rumor, 201);
      assert.equal(rumor.body.cost, 3);
      assert.equal(rumor.body.kind, 'rumor');
      assert.equal((await orgOf(w, a.org.id)).treasury, t0 - 6);

      const privateRumor = await send(w, a, b.org.id, 'Psst: Cobalt is broke.', 'rumor');
      expectStatus(privateRumor, 201);
      assert.equal(privateRumor.body.cost, 3);
      assert.equal((await orgOf(w, a.org.id)).treasury, t0 - 9);
      assert.equal((await orgOf(w, b.org.id)).treasury, b.org.treasury, 'the recipient pays nothing');
    });

    it('refuses a message the sender cannot pay for with 409, changing nothing', async () => {
      await drainTo(w, a, b, 2);
      const history = await historyCount(w);
      expectStatus(await send(w, a, null, 'A rumor I cannot afford.', 'rumor'), 409);
      assert.equal((await orgOf(w, a.org.id)).treasury, 2);
      assert.equal(await historyCount(w), history);
      expectStatus(await send(w, a, b.org.id, 'My last two coins.'), 201);
      assert.equal((await orgOf(w, a.org.id)).treasury, 0);
      expectStatus(await send(w, a, null, 'Nothing left to say.'), 409);
      assert.equal((await orgOf(w, a.org.id)).treasury, 0);
      const texts = (await investigation(w)).map((m) => m.body);
      assert.ok(!texts.includes('A rumor I cannot afford.') && !texts.includes('Nothing left to say.'), 'refused messages are not kept');
    });

    it('charges exactly once for each of several messages sent at the same moment, refusing those it cannot pay', async () => {
      await drainTo(w, a, b, 5);
      const answers = await Promise.all([1, 2, 3, 4].map((i) => send(w, a, b.org.id, `Private note number ${i}.`)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 409, 409], answers.map((r) => r.text).join(' | '));
      assert.equal((await orgOf(w, a.org.id)).treasury, 1);
      const kept = (await investigation(w)).filter((m) => m.body.startsWith('Private note number'));
      assert.equal(kept.length, 2, 'only the paid ones are kept');
    });

    it('shows a public message at once in GET /api/messages, newest first, and keeps rumors unverified', async () => {
      const first = await send(w, a, null, 'First call of the day.');
      expectStatus(first, 201);
      let listed = await publicMessages(w);
      assert.equal(listed[0].id, first.body.id, 'there at once');
      assert.deepEqual(first.body, listed[0], 'the answer is the message as it is listed');
      assert.equal(listed[0].body, 'First call of the day.');
      assert.equal(listed[0].verified, true);
      assert.equal(listed[0].deliver_day, await day(w));

      const rumor = await send(w, b, null, 'Amber waters its wine.', 'rumor');
      expectStatus(rumor, 201);
      const priv = await send(w, b, a.org.id, 'Not for everyone.');
      expectStatus(priv, 201);
      listed = await publicMessages(w);
      assert.deepEqual(listed.slice(0, 2).map((m) => m.id), [rumor.body.id, first.body.id], 'newest first');
      assert.equal(listed[0].kind, 'rumor');
      assert.equal(listed[0].verified, false, 'a rumor is an unverified claim');
      assert.ok(!listed.some((m) => m.id === priv.body.id || m.body === 'Not for everyone.'), 'private messages are not public');
    });

    it('delivers a private message to another place only on its deliver_day; the spectator sees it before', async () => {
      const travel = await w.call('POST', '/api/travel', { key: b.key, body: { organization_id: b.org.id, destination_id: 'greenhollow' } });
      expectStatus(travel, 200);
      for (let i = 0; i < 10 && (await orgOf(w, b.org.id)).location_id !== 'greenhollow'; i++) await w.tick();
      assert.equal((await orgOf(w, b.org.id)).location_id, 'greenhollow');
      assert.equal((await orgOf(w, b.org.id)).travel, null);

      const today = await day(w);
      const sent = await send(w, a, b.org.id, 'Meet me at the mill.');
      expectStatus(sent, 201);
      const delay = 2 + Math.ceil(15 / 20); // two road days to greenhollow, danger 15
      assert.equal(sent.body.sent_day, today);
      assert.equal(sent.body.deliver_day, today + delay);
      assert.ok(!(await inbox(w, b)).some((m) => m.id === sent.body.id), 'not delivered on the day it is sent');
      assert.ok((await inbox(w, a)).some((m) => m.id === sent.body.id), 'the sender keeps what it sent');
      assert.ok(!(await publicMessages(w)).some((m) => m.id === sent.body.id));
      const seen = (await investigation(w)).find((m) => m.id === sent.body.id);
      assert.ok(seen, 'the spectator sees undelivered private messages');
      assert.deepEqual(sent.body, seen, 'the answer is the message as the spectator sees it');
      assert.equal(seen.body, 'Meet me at the mill.');
      assert.equal(seen.public, false);

      for (let d = today + 1; d < today + delay; d++) {
        assert.equal(await w.tick(), d);
        assert.ok(!(await inbox(w, b)).some((m) => m.id === sent.body.id), `not yet delivered on day ${d}`);
      }
      assert.equal(await w.tick(), today + delay);
      const arrived = (await inbox(w, b)).find((m) => m.id === sent.body.id);
      assert.ok(arrived, 'delivered on deliver_day');
      assert.equal(arrived.body, 'Meet me at the mill.');
      assert.equal(arrived.sender_id, a.org.id);
      assert.ok(!(await inbox(w, c)).some((m) => m.id === sent.body.id), 'nobody else receives it');
    });

    it('shows the spectator private and undelivered messages and rumors, and asks for the spectator key (401)', async () => {
      const pub = await send(w, a, null, 'Open letter to the realm.');
      const priv = await send(w, a, b.org.id, 'Sealed letter.', 'rumor');
      expectStatus(pub, 201);
      expectStatus(priv, 201);
      expectStatus(await w.call('GET', '/api/messages/investigation'), 401);
      expectStatus(await w.call('GET', '/api/messages/investigation', { spectator: 'wrong-key' }), 401);
      expectStatus(await w.call('GET', '/api/messages/investigation', { key: a.key }), 401);
      const all = await investigation(w);
      const p = all.find((m) => m.id === priv.body.id);
      assert.ok(p);
      assert.equal(p.public, false);
      assert.equal(p.kind, 'rumor');
      assert.equal(p.verified, false);
      assert.ok(all.some((m) => m.id === pub.body.id));
    });

    it('refuses a message carrying the sender\'s own key (422), a sender not controlled (403), and no key (401), charging nothing', async () => {
      const before = await sides(w, a.org.id, b.org.id);
      const leak = await send(w, a, null, `my key is ${a.key}, do not tell`);
      expectStatus(leak, 422);
      assert.equal(leak.body.detail[0].loc[0], 'body');
      expectStatus(await send(w, a, b.org.id, a.key), 422);
      expectStatus(await w.call('POST', '/api/messages', { key: a.key, body: { sender_id: b.org.id, recipient_id: null, body: 'Speaking for Birch.' } }), 403);
      expectStatus(await w.call('POST', '/api/messages', { key: a.key, body: { sender_id: 1, recipient_id: null, body: 'The council decrees!' } }), 403);
      expectStatus(await w.call('POST', '/api/messages', { body: { sender_id: a.org.id, recipient_id: null, body: 'Who am I?' } }), 401);
      expectStatus(await w.call('POST', '/api/messages', { key: a.key, body: { sender_id: a.org.id, recipient_id: 9999, body: 'Hello, nobody.' } }), 404);
      expectStatus(await w.call('POST', '/api/messages', { key: a.key, body: { sender_id: a.org.id, recipient_id: null, body: '' } }), 422);
      expectStatus(await w.call('POST', '/api/messages', { key: a.key, body: { sender_id: a.org.id, recipient_id: null, body: 'x', kind: 'shout' } }), 422);
      expectStatus(await w.call('GET', '/api/messages/inbox'), 401);
      assert.deepEqual(await sides(w, a.org.id, b.org.id), before);
      assert.deepEqual(await investigation(w), [], 'nothing was kept');
    });
  });

  describe('a retired agent', () => {
    it('can no longer accept, fulfil, ally or send messages (403), and nothing moves', async () => {
      const k = await propose(w, a, b, { value: 10 });
      const al = await proposeAlliance(w, a, b);
      expectStatus(await w.call('POST', '/api/agents/retire', { key: b.key, body: { reason: 'The workshop closes its doors.' } }), 200);
      const before = await sides(w, a.org.id, b.org.id);
      expectStatus(await contractAct(w, 'accept', k.id, b), 403);
      expectStatus(await allianceAct(w, 'accept', al.id, b), 403);
      expectStatus(await send(w, b, null, 'One last word.'), 403);
      expectStatus(await w.call('POST', '/api/contracts', { key: b.key, body: contractBody(b, a) }), 403);
      assert.equal(await contractStatus(w, k.id), 'proposed');
      assert.equal((await allianceOf(w, al.id)).status, 'proposed');
      assert.deepEqual(await sides(w, a.org.id, b.org.id), before);
    });

    it('is proposed nothing more (409: nobody could answer), and what was proposed to it before can still be withdrawn', async () => {
      const k = await propose(w, a, b, { value: 10 });
      const al = await proposeAlliance(w, a, b);
      expectStatus(await w.call('POST', '/api/agents/retire', { key: b.key, body: { reason: 'Gone fishing.' } }), 200);
      const contracts = (await w.get<unknown[]>('/api/contracts')).body.length;
      const contract = await w.call('POST', '/api/contracts', { key: a.key, body: contractBody(a, b) });
      expectStatus(contract, 409);
      assert.match((contract.body as { detail: string }).detail, /agent has retired/);
      const alliance = await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: b.org.id, terms: 'Even so, together.' } });
      expectStatus(alliance, 409);
      assert.match((alliance.body as { detail: string }).detail, /agent has retired/);
      assert.equal((await w.get<unknown[]>('/api/contracts')).body.length, contracts, 'no contract was recorded');
      expectStatus(await contractAct(w, 'withdraw', k.id, a), 200);
      expectStatus(await allianceAct(w, 'end', al.id, a), 200);
      assert.equal((await allianceOf(w, al.id)).status, 'ended');
    });
  });

  describe('a scenario of two agents', () => {
    it('trade, ally, sign and fulfil a resource contract, and message each other', async () => {
      // Amber buys timber at the Emberfall market.
      const paidForTimber = await buy(w, a, 'timber', 40);
      const a0 = await orgOf(w, a.org.id);
      assert.equal(a0.treasury, 800 - paidForTimber);
      assert.equal(a0.holdings.timber, 40);

      // Birch offers an alliance; Amber accepts.
      const al = await proposeAlliance(w, b, a);
      expectStatus(await allianceAct(w, 'accept', al.id, a), 200);
      assert.equal(await trustBetween(w, a.org.id, b.org.id), 10);

      // Amber offers 25 timber for 200 gold; Birch signs and settles.
      const k = await propose(w, a, b, { title: 'Timber for the workshop', value: 200, resource: 'timber', quantity: 25 });
      expectStatus(await contractAct(w, 'accept', k.id, b), 200);
      expectStatus(await contractAct(w, 'fulfill', k.id, b), 200);
      const [ka, kb] = await sides(w, a.org.id, b.org.id);
      assert.equal(ka.treasury, 800 - paidForTimber + 200);
      assert.equal(kb.treasury, 700 - 200);
      assert.equal(ka.holdings.timber, 15);
      assert.equal(kb.holdings.timber, 25);
      assert.equal(await trustBetween(w, a.org.id, b.org.id), 15);

      // They talk: a private note in the same city arrives at once; a public thank-you.
      const today = await day(w);
      const note = await send(w, a, b.org.id, 'The timber is yours; may your saws sing.');
      expectStatus(note, 201);
      assert.equal(note.body.deliver_day, today, 'same place: delivered at once');
      const got = (await inbox(w, b)).find((m) => m.id === note.body.id);
      assert.ok(got, 'Birch has the note');
      const thanks = await send(w, b, null, 'Birch Crafters thank Amber Traders for honest timber.');
      expectStatus(thanks, 201);
      assert.equal((await publicMessages(w))[0].id, thanks.body.id);

      // Birch sells the timber on.
      const sold = await w.call('POST', '/api/trade', { key: b.key, body: { organization_id: b.org.id, resource: 'timber', side: 'sell', quantity: 25 } });
      expectStatus(sold, 200);
      const fa = await orgOf(w, a.org.id);
      const fb = await orgOf(w, b.org.id);
      assert.equal(fa.treasury, 800 - paidForTimber + 200 - 2);
      assert.equal(fb.treasury, 700 - 200 - 1 + sold.body.trade.total);
      assert.equal(fb.holdings.timber, undefined);
      // A fulfilled contract has ended: it leaves what each side has now and stays in the listing.
      assert.deepEqual([fa.contracts, fa.contract_count, fb.contracts, fb.contract_count], [[], 0, [], 0]);
      for (const org of [a.org.id, b.org.id]) {
        const listed = (await w.get(`/api/contracts?organization_id=${org}`)).body as Array<{ id: number; status: string }>;
        assert.deepEqual(listed.map((x) => [x.id, x.status]), [[k.id, 'fulfilled']]);
      }
      assert.deepEqual(fa.alliances.map((x) => x.status), ['active']);

      // It is all part of the public history.
      const history = (await w.get('/api/events?limit=100')).body as Array<{ category: string; organization_ids: number[] }>;
      for (const category of ['trade', 'alliance', 'contract', 'message']) {
        assert.ok(history.some((e) => e.category === category && (e.organization_ids.includes(a.org.id) || e.organization_ids.includes(b.org.id))), `a ${category} event`);
      }

      // A day later both pay their upkeep and nothing else moves.
      await w.tick();
      assert.equal((await orgOf(w, a.org.id)).treasury, fa.treasury - 5);
      assert.equal((await orgOf(w, b.org.id)).treasury, fb.treasury - 5);
    });
  });
});
