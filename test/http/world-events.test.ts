// The operator's desk over HTTP, end to end on a real server: world events and each of
// their seven effects while active and after they expire (core rule 23, part 6), new
// settlements with world-funded quests, and suggestions (core rule 24).
//
// Timing (as implemented and documented): an event begun on day D with duration N shapes
// days D+1..D+N and is marked expired at the tick of day D+N, after shaping it; day D+N+1
// is the first day without it. A resource introduction happens at once, and stays.
import assert from 'assert/strict';
import { derivedDanger, monsterGrowth } from '../../actors/location/rules';
import { populationDay, priceFor, type Market } from '../../actors/location/market';
import { generateWorld } from '../../actors/world/generate';
import { startTestWorld, type Answer, type TestWorld } from '../support/world';

const ADMIN = 'test-admin-key';
const SPECTATOR = 'test-spectator-key';
const SEED = 'test-seed';

interface Entry { resource: string; price: number; supply: number; location_id: string; base_price: number; usual_supply: number }
interface Place { id: string; danger: number; population: number; monster_population: number; routes: Array<{ destination_id: string; distance_days: number; danger: number }> }
interface Actor { key: string; agentId: number; org: { id: number; treasury: number } }

const generated = generateWorld(SEED).locations;
const initial = (id: string) => {
  const p = generated.find((l) => l.id === id);
  assert.ok(p, id);
  return p;
};

function expectStatus(r: Answer, status: number) {
  assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.text}`);
  if (status >= 400 && status !== 422) assert.ok(typeof r.body.detail === 'string' && r.body.detail.length > 0, `a plain-words detail: ${r.text}`);
  if (status === 422) assert.ok(Array.isArray(r.body.detail) && r.body.detail.length > 0, `422 carries detail items: ${r.text}`);
}

function expect422At(r: Answer, loc: Array<string | number>) {
  expectStatus(r, 422);
  assert.ok(r.body.detail.some((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc)), `a detail item at ${JSON.stringify(loc)}: ${r.text}`);
}

const effect = (kind: string, value: number, over: Record<string, unknown> = {}) => ({ kind, value, resource: null, location_id: null, price: null, ...over });

const eventBody = (effects: unknown[], over: Record<string, unknown> = {}) => ({
  title: 'Harvest Moon', description: 'A strange moon hangs over the realm for a while.', duration_days: 2, effects, quest: null, location: null, ...over,
});

async function begin(w: TestWorld, body: unknown) {
  const r = await w.call('POST', '/api/world-events', { admin: ADMIN, body });
  expectStatus(r, 201);
  return r.body as { id: number; status: string; started_day: number; ends_day: number; quest_id: number | null; location_id: string | null; introduced: Array<{ location_id: string; resource: string }> };
}

async function eventById(w: TestWorld, id: number) {
  const r = await w.get('/api/world-events');
  expectStatus(r, 200);
  const e = r.body.find((x: { id: number }) => x.id === id);
  assert.ok(e, `world event ${id} is listed`);
  return e;
}

async function board(w: TestWorld, locationId: string): Promise<Entry[]> {
  const r = await w.get(`/api/market?location_id=${locationId}`);
  expectStatus(r, 200);
  return r.body;
}

async function entry(w: TestWorld, locationId: string, resource: string): Promise<Entry> {
  const e = (await board(w, locationId)).find((m) => m.resource === resource);
  assert.ok(e, `${resource} is on the board at ${locationId}`);
  return e;
}

/** The price the market formula gives this entry's supply, under a price factor. */
const expectedPrice = (e: Entry, factor: number) => priceFor({ base_price: e.base_price, target_supply: e.usual_supply, price_factor: factor }, e.supply);

async function place(w: TestWorld, id: string): Promise<Place> {
  const r = await w.get(`/api/locations/${id}`);
  expectStatus(r, 200);
  return r.body;
}

async function orgOf(w: TestWorld, id: number) {
  const r = await w.get(`/api/organizations/${id}`);
  expectStatus(r, 200);
  return r.body;
}

async function foundOrg(w: TestWorld, name: string, kind = 'merchant company'): Promise<Actor> {
  const agent = await w.register();
  const r = await w.call('POST', '/api/organizations', { key: agent.key, body: { name, kind } });
  expectStatus(r, 201);
  return { key: agent.key, agentId: agent.id, org: r.body };
}

const historyCount = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.counts.history_events;

async function treasuries(w: TestWorld): Promise<Record<number, number>> {
  const r = await w.get('/api/organizations');
  expectStatus(r, 200);
  return Object.fromEntries(r.body.map((o: { id: number; treasury: number }) => [o.id, o.treasury]));
}

/** The upkeep an organization was charged on a day, from the public history. */
async function upkeepOn(w: TestWorld, orgId: number, day: number): Promise<number> {
  const r = await w.get('/api/events?category=maintenance&limit=100');
  expectStatus(r, 200);
  const e = r.body.find((x: { day: number; organization_ids: number[] }) => x.day === day && x.organization_ids.length === 1 && x.organization_ids[0] === orgId);
  assert.ok(e, `a maintenance event of organization ${orgId} on day ${day}`);
  return e.data.cost;
}

describe('world events and suggestions over HTTP', function () {
  this.timeout(60_000);
  let w: TestWorld;
  let control: TestWorld | null;

  beforeEach(async () => { w = await startTestWorld({ seed: SEED }); control = null; });
  afterEach(async () => {
    await w.close();
    if (control) await control.close();
  });

  /** Ticks the world (and the control world, when there is one) in step. */
  async function tickBoth(): Promise<number> {
    const d = await w.tick();
    if (control) assert.equal(await control.tick(), d, 'the control world keeps step');
    return d;
  }

  describe('creating world events (part 6)', () => {
    it('asks for the admin key: 401 without it, with a wrong one, or with an agent key, creating nothing', async () => {
      const agent = await w.register();
      const body = eventBody([effect('maintenance_modifier', 5)]);
      expectStatus(await w.call('POST', '/api/world-events', { body }), 401);
      expectStatus(await w.call('POST', '/api/world-events', { admin: 'wrong-key', body }), 401);
      expectStatus(await w.call('POST', '/api/world-events', { key: agent.key, body }), 401);
      expectStatus(await w.call('POST', '/api/world-events', { spectator: SPECTATOR, body }), 401);
      const list = await w.get('/api/world-events');
      expectStatus(list, 200);
      assert.deepEqual(list.body, []);
    });

    it('refuses bad events with 422 (0 or 11 effects, an unknown kind, a resource introduction without resource) and creates nothing', async () => {
      const history = await historyCount(w);
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([]) }), ['body', 'effects']);
      const eleven = Array.from({ length: 11 }, () => effect('maintenance_modifier', 1));
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody(eleven) }), ['body', 'effects']);
      expectStatus(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody(eleven.slice(0, 10)) }), 201);
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('plague_modifier', 10)]) }), ['body', 'effects', 0, 'kind']);
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1), effect('resource_introduction', 10)]) }), ['body', 'effects', 1, 'resource']);
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { duration_days: 0 }) }), ['body', 'duration_days']);
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('resource_introduction', 10, { resource: 'spice', price: 0 })]) }), ['body', 'effects', 0, 'price']);
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { location: { id: 'Bad Id', name: 'Bad Place', kind: 'town', description: 'A place with a bad id.', danger: 1, population: 1, monster_population: 0, routes: [] } }) }), ['body', 'location', 'id']);
      // Unknown places are 404; a market where nobody lives is 409.
      expectStatus(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('market_price_modifier', 10, { location_id: 'atlantis' })]) }), 404);
      expectStatus(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('resource_introduction', 10, { resource: 'amber', location_id: 'whisperwood' })]) }), 409);
      const listed = (await w.get('/api/world-events')).body;
      assert.equal(listed.length, 1, 'only the valid ten-effect event exists');
      assert.equal(listed[0].effects.length, 10);
      assert.equal(await historyCount(w), history + 1, 'one history event, for the valid one');
      assert.ok(!(await board(w, 'emberfall')).some((m) => m.resource === 'amber' || m.resource === 'spice'));
    });

    it('records the event as active with its effects, and announces it among the public messages', async () => {
      const r = await begin(w, eventBody([effect('maintenance_modifier', 3, { location_id: 'emberfall' })], { duration_days: 4 }));
      assert.equal(typeof r.id, 'number');
      assert.equal(r.status, 'active');
      assert.equal(r.started_day, 1);
      assert.equal(r.ends_day, 5);
      const listed = await eventById(w, r.id);
      assert.equal(listed.title, 'Harvest Moon');
      assert.equal(listed.duration_days, 4);
      assert.deepEqual(listed.effects, [effect('maintenance_modifier', 3, { location_id: 'emberfall' })]);
      const news = (await w.get('/api/messages')).body;
      assert.ok(news.some((m: { body: string; cost: number }) => m.body.includes('Harvest Moon') && m.cost === 0), 'a free chronicle report');
    });
  });

  describe('effects while active and after expiry (core rule 23)', () => {
    it('market_price_modifier raises the price of food at emberfall while active, and only there, then lets it go', async () => {
      const before = await entry(w, 'emberfall', 'food');
      const ev = await begin(w, eventBody([effect('market_price_modifier', 50, { resource: 'food', location_id: 'emberfall' })], { duration_days: 2 }));
      assert.deepEqual(await entry(w, 'emberfall', 'food'), before, 'the day already begun is not reshaped');

      for (const d of [2, 3]) {
        assert.equal(await w.tick(), d);
        const food = await entry(w, 'emberfall', 'food');
        assert.equal(food.price, expectedPrice(food, 1.5), `food at emberfall is dearer on day ${d}`);
        assert.ok(food.price > expectedPrice(food, 1), 'dearer than without the event');
        const ore = await entry(w, 'emberfall', 'ore');
        assert.equal(ore.price, expectedPrice(ore, 1), 'another resource is untouched');
        const elsewhere = await entry(w, 'ironcrag', 'food');
        assert.equal(elsewhere.price, expectedPrice(elsewhere, 1), 'another market is untouched');
      }
      const expired = await eventById(w, ev.id);
      assert.equal(expired.status, 'expired', 'expired at the tick of its last day');
      assert.equal(expired.ended_day, 3);
      assert.equal(expired.ended_early, false);

      assert.equal(await w.tick(), 4);
      const after = await entry(w, 'emberfall', 'food');
      assert.equal(after.price, expectedPrice(after, 1), 'back to the market price once expired');
    });

    it('market_price_modifier also shapes what a trade costs while active', async () => {
      const a = await foundOrg(w, 'Amber Traders');
      await begin(w, eventBody([effect('market_price_modifier', 100, { resource: 'food', location_id: 'emberfall' })], { duration_days: 1 }));
      await w.tick();
      const food = await entry(w, 'emberfall', 'food');
      assert.equal(food.price, expectedPrice(food, 2));
      const r = await w.call('POST', '/api/trade', { key: a.key, body: { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 1 } });
      expectStatus(r, 200);
      assert.ok(r.body.trade.total >= Math.floor(expectedPrice(food, 2)), `paid at the raised price: ${r.text}`);
    });

    it('market_price_modifier moves a price at most five times down or up, so no event gives goods away or makes them a fortune', async () => {
      const a = await foundOrg(w, 'Crash Buyers');
      const crash = await begin(w, eventBody([effect('market_price_modifier', -1000, { location_id: 'emberfall' })], { duration_days: 1 }));
      await w.tick();
      const food = await entry(w, 'emberfall', 'food');
      assert.equal(food.price, expectedPrice(food, 0.2), `a fifth of the market price, not nothing: ${JSON.stringify(food)}`);
      assert.ok(food.price > 0.0001);
      // 100 food cost what a fifth of their price comes to, not a single gold piece.
      const r = await w.call('POST', '/api/trade', { key: a.key, body: { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 100 } });
      expectStatus(r, 200);
      assert.ok(r.body.trade.total >= Math.floor(100 * expectedPrice(food, 0.2)), `paid a fifth of the price: ${r.text}`);
      assert.equal((await eventById(w, crash.id)).status, 'expired');
      await begin(w, eventBody([effect('market_price_modifier', 100_000, { resource: 'ore', location_id: 'emberfall' })], { duration_days: 1 }));
      await w.tick();
      const ore = await entry(w, 'emberfall', 'ore');
      assert.equal(ore.price, expectedPrice(ore, 5), `five times the market price, not a thousand: ${JSON.stringify(ore)}`);
    });

    it('market_price_modifier without a resource changes every price at the place it names', async () => {
      await begin(w, eventBody([effect('market_price_modifier', -50, { location_id: 'greenhollow' })], { duration_days: 1 }));
      await w.tick();
      for (const e of await board(w, 'greenhollow')) {
        assert.equal(e.price, expectedPrice(e, 0.5), `${e.resource} at greenhollow is half price`);
      }
      for (const e of await board(w, 'emberfall')) {
        assert.equal(e.price, expectedPrice(e, 1), `${e.resource} at emberfall is untouched`);
      }
      await w.tick();
      for (const e of await board(w, 'greenhollow')) assert.equal(e.price, expectedPrice(e, 1), `${e.resource} back after expiry`);
    });

    it('resource_introduction puts a new resource on the board at once, and it stays after expiry', async () => {
      const ev = await begin(w, eventBody([effect('resource_introduction', 40, { resource: 'spice', location_id: 'emberfall', price: 12 })], { duration_days: 1 }));
      assert.deepEqual(ev.introduced, [{ location_id: 'emberfall', resource: 'spice' }]);
      const spice = await entry(w, 'emberfall', 'spice');
      assert.equal(spice.price, 12);
      assert.equal(spice.supply, 40);
      const one = await w.get('/api/market/spice?location_id=emberfall');
      expectStatus(one, 200);
      assert.equal(one.body.resource, 'spice');
      expectStatus(await w.get('/api/market/spice?location_id=greenhollow'), 404);

      await w.tick();
      assert.equal((await eventById(w, ev.id)).status, 'expired');
      await w.tick();
      const later = await entry(w, 'emberfall', 'spice');
      assert.equal(later.price, 12, 'a permanent market entry');
      assert.equal(later.supply, 40);

      const a = await foundOrg(w, 'Spice Merchants');
      const bought = await w.call('POST', '/api/trade', { key: a.key, body: { organization_id: a.org.id, resource: 'spice', side: 'buy', quantity: 5 } });
      expectStatus(bought, 200);
      assert.equal((await orgOf(w, a.org.id)).holdings.spice, 5);
    });

    it('resource_introduction without a location reaches every market and no wilderness', async () => {
      const ev = await begin(w, eventBody([effect('resource_introduction', 0, { resource: 'silk' })], { duration_days: 1 }));
      assert.deepEqual(ev.introduced.map((x) => x.location_id).sort(), ['emberfall', 'greenhollow', 'ironcrag']);
      for (const id of ['emberfall', 'greenhollow', 'ironcrag']) {
        const silk = await entry(w, id, 'silk');
        assert.equal(silk.price, 10, 'the default price');
        assert.equal(silk.supply, 100, 'the default supply');
      }
      expectStatus(await w.get('/api/market?location_id=whisperwood'), 404);
    });

    it('resource_introduction leaves a market that trades the resource already alone, and does not name it as introduced', async () => {
      const food = await entry(w, 'emberfall', 'food');
      const ev = await begin(w, eventBody([effect('resource_introduction', 5, { resource: 'food', location_id: 'emberfall', price: 3 })], { duration_days: 1 }));
      assert.deepEqual(ev.introduced, [], 'nothing was introduced');
      const after = await entry(w, 'emberfall', 'food');
      assert.equal(after.price, food.price);
      assert.equal(after.supply, food.supply);
      const everywhere = await begin(w, eventBody([effect('resource_introduction', 0, { resource: 'food' }), effect('resource_introduction', 0, { resource: 'amber' })], { duration_days: 1 }));
      assert.deepEqual(everywhere.introduced.map((x) => `${x.location_id}:${x.resource}`).sort(), ['emberfall:amber', 'greenhollow:amber', 'ironcrag:amber']);
    });

    it('maintenance_modifier makes an organization pay more upkeep while active, only where it aims', async () => {
      const a = await foundOrg(w, 'Amber Traders');
      assert.equal(a.org.treasury, 800);
      assert.equal((await orgOf(w, a.org.id)).maintenance_due, 5);
      const ev = await begin(w, eventBody([effect('maintenance_modifier', 20, { location_id: 'emberfall' })], { duration_days: 2 }));
      // The record says what the next day will charge, the event's toll included; daily_maintenance stays the organization's own cost.
      assert.equal((await orgOf(w, a.org.id)).maintenance_due, 25);
      assert.equal((await orgOf(w, a.org.id)).daily_maintenance, 5);
      assert.equal(await w.tick(), 2);
      assert.equal((await orgOf(w, a.org.id)).treasury, 800 - 25);
      assert.equal(await upkeepOn(w, a.org.id, 2), 25);
      assert.equal(await upkeepOn(w, 1, 2), 25, 'the Emberfall Council too');
      assert.equal(await upkeepOn(w, 2, 2), 5, 'Greenhollow is not aimed at');
      assert.equal(await w.tick(), 3);
      assert.equal((await orgOf(w, a.org.id)).treasury, 800 - 50);
      // The Council hires by its policy (docs/decisions.md, "The world's organizations"): 2 a day for each.
      const councilMembers = (await orgOf(w, 1)).employee_count as number;
      assert.equal((await eventById(w, ev.id)).status, 'expired');
      assert.equal(await w.tick(), 4);
      assert.equal((await orgOf(w, a.org.id)).treasury, 800 - 55, 'back to 5 a day');
      assert.equal((await orgOf(w, a.org.id)).maintenance_due, 5);
      assert.equal(await upkeepOn(w, 1, 4), 5 + 2 * councilMembers);
    });

    it('production_modifier makes a staffed production plan produce more, then less, only while active', async () => {
      const a = await foundOrg(w, 'Amber Farms', 'farm');
      expectStatus(await w.call('POST', '/api/workers/hire', { key: a.key, body: { organization_id: a.org.id, quantity: 2 } }), 200);
      const plan = await w.call('POST', '/api/projects', {
        key: a.key,
        body: {
          owner_id: a.org.id, title: 'Wheat fields', kind: 'production', description: 'Ten sacks of grain a day.', location_id: 'emberfall',
          budget: 100, duration_days: 10, output_resource: 'food', output_quantity: 10, establishment_kind: null,
        },
      });
      expectStatus(plan, 201);
      const food = async () => (await orgOf(w, a.org.id)).holdings.food ?? 0;

      await w.tick(); // day 2, no event
      assert.equal(await food(), 10, 'baseline: 10 a day');
      await begin(w, eventBody([effect('production_modifier', 50, { location_id: 'emberfall' })], { duration_days: 1 }));
      await w.tick(); // day 3, shaped
      assert.equal(await food(), 25, 'half as much again while active');
      await w.tick(); // day 4, expired
      assert.equal(await food(), 35, 'back to 10');
      await begin(w, eventBody([effect('production_modifier', -50)], { duration_days: 1 }));
      await w.tick(); // day 5, shaped
      assert.equal(await food(), 40, 'half while a slowing event is active');
      await w.tick(); // day 6
      assert.equal(await food(), 50);
      const production = (await w.get('/api/production')).body.find((p: { id: number }) => p.id === plan.body.id);
      assert.equal(production.produced_total, 50);
    });

    it('production_modifier works a plan by where the plan is, not where its owner has travelled', async () => {
      const a = await foundOrg(w, 'Absent Farmers', 'farm');
      expectStatus(await w.call('POST', '/api/workers/hire', { key: a.key, body: { organization_id: a.org.id, quantity: 2 } }), 200);
      expectStatus(await w.call('POST', '/api/projects', {
        key: a.key,
        body: {
          owner_id: a.org.id, title: 'Far fields', kind: 'production', description: 'Ten sacks of grain a day.', location_id: 'emberfall',
          budget: 200, duration_days: 20, output_resource: 'food', output_quantity: 10, establishment_kind: null,
        },
      }), 201);
      const journey = await w.call('POST', '/api/travel', { key: a.key, body: { organization_id: a.org.id, destination_id: 'greenhollow' } });
      expectStatus(journey, 200);
      while ((await w.get('/api/world')).body.day < journey.body.travel.arrives_day) await w.tick();
      assert.equal((await orgOf(w, a.org.id)).location_id, 'greenhollow');
      const food = async () => (await orgOf(w, a.org.id)).holdings.food ?? 0;
      await begin(w, eventBody([effect('production_modifier', 300, { location_id: 'greenhollow' })], { duration_days: 1 }));
      let before = await food();
      await w.tick();
      assert.equal(await food() - before, 10, 'a boom where the owner stands leaves the fields at emberfall as they were');
      await begin(w, eventBody([effect('production_modifier', 50, { location_id: 'emberfall' })], { duration_days: 1 }));
      before = await food();
      await w.tick();
      assert.equal(await food() - before, 15, 'a boom where the fields are moves them, the owner away');
    });

    it('production_modifier also changes what local producers bring to market, compared with a world without it', async () => {
      const ctl = await startTestWorld({ seed: SEED });
      control = ctl;
      await begin(w, eventBody([
        effect('production_modifier', 200, { location_id: 'ironcrag' }),
        effect('production_modifier', -100, { location_id: 'greenhollow' }),
      ], { duration_days: 2 }));
      await tickBoth();
      await tickBoth();
      for (const resource of ['food', 'timber', 'ore']) {
        assert.ok((await entry(w, 'ironcrag', resource)).supply > (await entry(ctl, 'ironcrag', resource)).supply, `more ${resource} at ironcrag`);
        assert.ok((await entry(w, 'greenhollow', resource)).supply < (await entry(ctl, 'greenhollow', resource)).supply, `less ${resource} at greenhollow`);
        assert.deepEqual(await entry(w, 'emberfall', resource), await entry(ctl, 'emberfall', resource), `${resource} at emberfall is untouched`);
      }
    });

    it('population_growth_modifier makes emberfall grow faster and greenhollow slower than in a world without it', async () => {
      const ctl = await startTestWorld({ seed: SEED });
      control = ctl;
      const capacity = (id: string) => Math.round(initial(id).population * 1.5);
      const pop = async (x: TestWorld, id: string) => (await place(x, id)).population;
      for (const id of ['emberfall', 'greenhollow', 'ironcrag']) assert.equal(await pop(w, id), await pop(ctl, id), 'the two worlds start alike');

      const ev = await begin(w, eventBody([
        effect('population_growth_modifier', 100, { location_id: 'emberfall' }),
        effect('population_growth_modifier', -100, { location_id: 'greenhollow' }),
      ], { duration_days: 2 }));

      for (const d of [2, 3]) {
        const before = { e: await pop(w, 'emberfall'), g: await pop(w, 'greenhollow'), ce: await pop(ctl, 'emberfall'), cg: await pop(ctl, 'greenhollow') };
        assert.equal(await tickBoth(), d);
        const e = await pop(w, 'emberfall');
        const ce = await pop(ctl, 'emberfall');
        const food = await entry(w, 'emberfall', 'food');
        const market = { food: { supply: food.supply, target_supply: food.usual_supply } } as unknown as Market;
        assert.equal(e, populationDay(before.e, capacity('emberfall'), market, 2), `emberfall grows at twice the rate on day ${d}`);
        assert.ok(e - before.e > ce - before.ce, `faster than the control world on day ${d}: ${e - before.e} vs ${ce - before.ce}`);
        const g = await pop(w, 'greenhollow');
        const cg = await pop(ctl, 'greenhollow');
        assert.equal(g, before.g, `greenhollow does not grow on day ${d}`);
        assert.ok(cg > before.cg, 'while it does in the control world');
        assert.equal(await pop(w, 'ironcrag'), await pop(ctl, 'ironcrag'), 'ironcrag is untouched');
      }
      assert.equal((await eventById(w, ev.id)).status, 'expired');

      const prev = await pop(w, 'emberfall');
      const prevG = await pop(w, 'greenhollow');
      await tickBoth();
      const food = await entry(w, 'emberfall', 'food');
      const market = { food: { supply: food.supply, target_supply: food.usual_supply } } as unknown as Market;
      assert.equal(await pop(w, 'emberfall'), populationDay(prev, capacity('emberfall'), market, 1), 'ordinary growth after expiry');
      assert.ok(await pop(w, 'greenhollow') > prevG, 'greenhollow grows again after expiry');
    });

    it('monster_growth_modifier makes the whisperwood monsters breed faster than in a world without it, then as usual', async () => {
      const ctl = await startTestWorld({ seed: SEED });
      control = ctl;
      const base = initial('whisperwood').monster_population;
      const monsters = async (x: TestWorld, id: string) => (await place(x, id)).monster_population;
      assert.equal(await monsters(w, 'whisperwood'), base);
      const ev = await begin(w, eventBody([effect('monster_growth_modifier', 400, { location_id: 'whisperwood' })], { duration_days: 2 }));

      for (const d of [2, 3]) {
        const before = await monsters(w, 'whisperwood');
        const controlBefore = await monsters(ctl, 'whisperwood');
        assert.equal(await tickBoth(), d);
        const now = await monsters(w, 'whisperwood');
        assert.equal(now, before + monsterGrowth('wilderness', before, base, 5), `five times the growth on day ${d}`);
        assert.ok(now - before > (await monsters(ctl, 'whisperwood')) - controlBefore, 'faster than the control world');
        assert.equal(await monsters(w, 'ashen-moors'), await monsters(ctl, 'ashen-moors'), 'another wilderness is untouched');
        assert.equal(await monsters(w, 'sunken-crypt'), await monsters(ctl, 'sunken-crypt'));
      }
      assert.equal((await eventById(w, ev.id)).status, 'expired');
      const before = await monsters(w, 'whisperwood');
      await tickBoth();
      assert.equal(await monsters(w, 'whisperwood'), before + monsterGrowth('wilderness', before, base, 1), 'usual growth after expiry');
    });

    it('forest_danger_modifier raises the danger of whisperwood (a forest) but not of ashen-moors, and lets it go after expiry', async () => {
      const ctl = await startTestWorld({ seed: SEED });
      control = ctl;
      const danger = async (x: TestWorld, id: string) => (await place(x, id)).danger;
      const derived = async (x: TestWorld, id: string) => {
        const p = await place(x, id);
        return derivedDanger(initial(id).danger, initial(id).monster_population, p.monster_population);
      };
      const ev = await begin(w, eventBody([effect('forest_danger_modifier', 20)], { duration_days: 2 }));
      for (const d of [2, 3]) {
        assert.equal(await tickBoth(), d);
        assert.equal(await danger(w, 'whisperwood'), Math.min(100, (await derived(w, 'whisperwood')) + 20), `whisperwood is 20 more dangerous on day ${d}`);
        assert.equal(await danger(w, 'whisperwood'), (await danger(ctl, 'whisperwood')) + 20);
        assert.equal(await danger(w, 'ashen-moors'), await derived(w, 'ashen-moors'), 'no forest, no change');
        assert.equal(await danger(w, 'ashen-moors'), await danger(ctl, 'ashen-moors'));
        assert.equal(await danger(w, 'sunken-crypt'), await danger(ctl, 'sunken-crypt'), 'a dungeon is no forest');
        assert.equal(await danger(w, 'emberfall'), await danger(ctl, 'emberfall'));
      }
      assert.equal((await eventById(w, ev.id)).status, 'expired');
      await tickBoth();
      assert.equal(await danger(w, 'whisperwood'), await derived(w, 'whisperwood'), 'back after expiry');
      assert.equal(await danger(w, 'whisperwood'), await danger(ctl, 'whisperwood'));
    });

    it('forest_danger_modifier lengthens journeys to the forest while active', async () => {
      const a = await foundOrg(w, 'Amber Rangers', 'ranger lodge');
      await begin(w, eventBody([effect('forest_danger_modifier', 40)], { duration_days: 3 }));
      await w.tick();
      const p = await place(w, 'whisperwood');
      const r = await w.call('POST', '/api/travel', { key: a.key, body: { organization_id: a.org.id, destination_id: 'whisperwood' } });
      expectStatus(r, 200);
      // emberfall -> greenhollow -> whisperwood: 3 road days, plus one day per 20 danger.
      assert.equal(r.body.travel.arrives_day, 2 + 3 + Math.ceil(p.danger / 20));
      assert.ok(p.danger >= 40 + 35 - 5, `the raised danger counts: ${p.danger}`);
    });
  });

  describe('ending and listing world events', () => {
    it('ends an event early: expired, its effects stop from the next day, and it cannot be ended twice', async () => {
      const ctl = await startTestWorld({ seed: SEED });
      control = ctl;
      const ev = await begin(w, eventBody([
        effect('market_price_modifier', 50, { resource: 'food', location_id: 'emberfall' }),
        effect('forest_danger_modifier', 20),
      ], { duration_days: 10 }));
      await tickBoth();
      const food = await entry(w, 'emberfall', 'food');
      assert.equal(food.price, expectedPrice(food, 1.5), 'active on day 2');

      expectStatus(await w.call('POST', `/api/world-events/${ev.id}/end`), 401);
      expectStatus(await w.call('POST', `/api/world-events/${ev.id}/end`, { admin: 'wrong-key' }), 401);
      expectStatus(await w.call('POST', '/api/world-events/9999/end', { admin: ADMIN }), 404);
      assert.equal((await eventById(w, ev.id)).status, 'active');

      const ended = await w.call('POST', `/api/world-events/${ev.id}/end`, { admin: ADMIN });
      expectStatus(ended, 200);
      assert.equal(ended.body.status, 'expired');
      assert.equal(ended.body.ended_early, true);
      assert.equal(ended.body.ended_day, 2);
      expectStatus(await w.call('POST', `/api/world-events/${ev.id}/end`, { admin: ADMIN }), 409);

      const active = (await w.get('/api/world-events?status=active')).body;
      assert.ok(!active.some((e: { id: number }) => e.id === ev.id));
      const expired = (await w.get('/api/world-events?status=expired')).body;
      assert.ok(expired.some((e: { id: number }) => e.id === ev.id));

      await tickBoth();
      const after = await entry(w, 'emberfall', 'food');
      assert.equal(after.price, expectedPrice(after, 1), 'prices are no longer shaped');
      assert.equal((await place(w, 'whisperwood')).danger, (await place(ctl, 'whisperwood')).danger, 'the forest is no more dangerous than without the event');
      assert.equal((await eventById(w, ev.id)).ended_day, 2, 'the daily tick does not end it again');
    });

    it('shapes no day at all when ended on the day it began', async () => {
      const a = await foundOrg(w, 'Amber Traders');
      const ev = await begin(w, eventBody([effect('maintenance_modifier', 50)], { duration_days: 5 }));
      expectStatus(await w.call('POST', `/api/world-events/${ev.id}/end`, { admin: ADMIN }), 200);
      await w.tick();
      assert.equal((await orgOf(w, a.org.id)).treasury, 800 - 5, 'ordinary upkeep');
      assert.equal((await eventById(w, ev.id)).ended_day, 1);
    });

    it('filters by status=active or status=expired and refuses any other word with 422', async () => {
      const short = await begin(w, eventBody([effect('maintenance_modifier', 1)], { title: 'Short squall', duration_days: 1 }));
      const long = await begin(w, eventBody([effect('maintenance_modifier', 1)], { title: 'Long winter', duration_days: 30 }));
      const ended = await begin(w, eventBody([effect('maintenance_modifier', 1)], { title: 'Broken truce', duration_days: 30 }));
      expectStatus(await w.call('POST', `/api/world-events/${ended.id}/end`, { admin: ADMIN }), 200);
      await w.tick();

      const ids = async (q: string) => {
        const r = await w.get(`/api/world-events${q}`);
        expectStatus(r, 200);
        return r.body.map((e: { id: number }) => e.id).sort((x: number, y: number) => x - y);
      };
      assert.deepEqual(await ids(''), [short.id, long.id, ended.id]);
      assert.deepEqual(await ids('?status=active'), [long.id]);
      assert.deepEqual(await ids('?status=expired'), [short.id, ended.id]);
      for (const word of ['bogus', 'ACTIVE', 'ended', '']) {
        expect422At(await w.get(`/api/world-events?status=${word}`), ['query', 'status']);
      }
    });
  });

  describe('new settlements and world-funded quests (core rule 23)', () => {
    const settlement = {
      id: 'stormwatch', name: 'Stormwatch', kind: 'town', description: 'A new harbour town raised on the storm coast.',
      danger: 10, population: 900, monster_population: 0,
      routes: [{ destination_id: 'emberfall', distance_days: 2, danger: 12 }, { destination_id: 'greenhollow', distance_days: 1, danger: 8 }],
    };
    const quest = {
      title: 'Clear the coast road', description: 'Wreckers prey on the new road to Stormwatch; end them.', requester_id: 1,
      location_id: 'stormwatch', reward: 5000, deadline_days: null,
    };

    it('connects a new location both ways to the route graph and posts a world-funded quest there', async () => {
      const before = await treasuries(w);
      const ev = await begin(w, eventBody([effect('population_growth_modifier', 10, { location_id: 'stormwatch' })], { location: settlement, quest, duration_days: 5 }));
      assert.equal(ev.location_id, 'stormwatch');
      assert.equal(typeof ev.quest_id, 'number');

      const here = await place(w, 'stormwatch');
      assert.equal(here.danger, 10);
      assert.equal(here.population, 900);
      assert.deepEqual(here.routes.map((r) => [r.destination_id, r.distance_days, r.danger]).sort(), [['emberfall', 2, 12], ['greenhollow', 1, 8]]);
      for (const [from, days, danger] of [['emberfall', 2, 12], ['greenhollow', 1, 8]] as const) {
        const back = (await place(w, from)).routes.find((r) => r.destination_id === 'stormwatch');
        assert.ok(back, `${from} has a road to stormwatch`);
        assert.equal(back.distance_days, days);
        assert.equal(back.danger, danger);
      }
      assert.ok((await w.get('/api/locations')).body.some((l: { id: string }) => l.id === 'stormwatch'));
      assert.ok((await board(w, 'stormwatch')).some((m) => m.resource === 'food'), 'people live there, so there is a market');

      const q = (await w.get('/api/quests')).body.find((x: { id: number }) => x.id === ev.quest_id);
      assert.ok(q, 'the quest is listed');
      assert.equal(q.world_funded, true);
      assert.equal(q.reward, 5000);
      assert.equal(q.location_id, 'stormwatch');
      assert.equal(q.status, 'open');
      assert.ok((await place(w, 'stormwatch') as unknown as { quests: Array<{ id: number }> }).quests.some((x) => x.id === ev.quest_id));
      assert.deepEqual(await treasuries(w), before, 'the world pays the reward; no treasury is touched');

      // An organization can travel there over the new road.
      const a = await foundOrg(w, 'Amber Pioneers', 'pioneer company');
      const t = await w.call('POST', '/api/travel', { key: a.key, body: { organization_id: a.org.id, destination_id: 'stormwatch' } });
      expectStatus(t, 200);
      assert.equal(t.body.travel.arrives_day, 1 + 2 + Math.ceil(10 / 20));
    });

    it('the organization a world-funded quest names may withdraw it: its sponsors are paid back, the world keeps its reward, no treasury gains', async () => {
      const named = await foundOrg(w, 'Named Patrons');
      const patron = await foundOrg(w, 'Coastal Sponsors');
      const ev = await begin(w, eventBody([effect('maintenance_modifier', 1)], { quest: { ...quest, requester_id: named.org.id, location_id: 'emberfall' } }));
      const [namedBefore, patronBefore] = [await orgOf(w, named.org.id), await orgOf(w, patron.org.id)];
      expectStatus(await w.call('POST', `/api/quests/${ev.quest_id}/sponsors`, { key: patron.key, body: { organization_id: patron.org.id, amount: 30 } }), 201);
      expectStatus(await w.call('POST', `/api/quests/${ev.quest_id}/cancel`, { key: named.key }), 200);
      assert.equal((await w.get(`/api/quests/${ev.quest_id}`)).body.status, 'withdrawn');
      assert.equal((await orgOf(w, named.org.id)).treasury, namedBefore.treasury, 'the requester, which paid nothing, gets nothing');
      assert.equal((await orgOf(w, patron.org.id)).treasury, patronBefore.treasury, 'the sponsor has its pledge back');
    });

    it('two events founding the same place at once: one founds it, the other is refused (409) and leaves no road to it', async () => {
      const town = { ...settlement, id: 'twinville', routes: [{ destination_id: 'emberfall', distance_days: 1, danger: 5 }] };
      const dungeon = { ...settlement, id: 'twinville', kind: 'dungeon', population: 0, routes: [{ destination_id: 'ashen-moors', distance_days: 7, danger: 50 }] };
      const [one, two] = await Promise.all([
        w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { location: town }) }),
        w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { location: dungeon }) }),
      ]);
      assert.deepEqual([one.status, two.status].sort(), [201, 409], `${one.text}\n${two.text}`);
      const founded = one.status === 201 ? town : dungeon;
      const other = one.status === 201 ? dungeon : town;
      assert.equal((await w.get('/api/locations/twinville')).body.kind, founded.kind);
      const roadsIn = async (from: string) => (await place(w, from)).routes.filter((r: { destination_id: string }) => r.destination_id === 'twinville');
      assert.equal((await roadsIn(other.routes[0].destination_id)).length, 0, 'no one-sided road from the refused event');
      assert.equal((await roadsIn(founded.routes[0].destination_id)).length, 1);
      const live = (await w.get('/api/world-events')).body.filter((e: { location_id: string | null }) => e.location_id === 'twinville');
      assert.equal(live.length, 1, 'one event says it founded the place');
    });

    it('refuses a settlement that exists (409) or leads to an unknown place (404), and changes nothing', async () => {
      const history = await historyCount(w);
      expectStatus(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { location: { ...settlement, id: 'emberfall' } }) }), 409);
      expectStatus(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { location: { ...settlement, routes: [{ destination_id: 'atlantis', distance_days: 2, danger: 1 }] } }) }), 404);
      expectStatus(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { quest: { ...quest, location_id: 'atlantis' } }) }), 404);
      expectStatus(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { quest: { ...quest, requester_id: 9999 } }) }), 404);
      // Two roads to the same place: one would be one-sided.
      const twice = [{ destination_id: 'emberfall', distance_days: 1, danger: 1 }, { destination_id: 'greenhollow', distance_days: 2, danger: 1 }, { destination_id: 'emberfall', distance_days: 9, danger: 1 }];
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { location: { ...settlement, id: 'duproute', routes: twice } }) }), ['body', 'location', 'routes', 2, 'destination_id']);
      expectStatus(await w.get('/api/locations/duproute'), 404);
      assert.equal(await historyCount(w), history, 'no refusal wrote history');
      // An ended organization posts no quest, even the world's (core rule 6).
      const gone = await foundOrg(w, 'Short Lived Guild');
      expectStatus(await w.call('POST', `/api/organizations/${gone.org.id}/dissolve`, { key: gone.key }), 200);
      const history2 = await historyCount(w);
      const ended = await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { quest: { ...quest, requester_id: gone.org.id } }) });
      expectStatus(ended, 409);
      assert.match(ended.body.detail, /dissolved and can post no quest/);
      assert.equal(await historyCount(w), history2);
      const nine = Array.from({ length: 9 }, (_, i) => ({ destination_id: 'emberfall', distance_days: i + 1, danger: 1 }));
      expect422At(await w.call('POST', '/api/world-events', { admin: ADMIN, body: eventBody([effect('maintenance_modifier', 1)], { location: { ...settlement, routes: nine } }) }), ['body', 'location', 'routes']);
      expectStatus(await w.get('/api/locations/stormwatch'), 404);
      assert.ok(!(await place(w, 'emberfall')).routes.some((r) => r.destination_id === 'stormwatch'));
      assert.deepEqual((await w.get('/api/world-events')).body, []);
    });
  });

  describe('suggestions (core rule 24)', () => {
    const suggestion = { title: 'More dungeons', body: 'Please add a dungeon in the far north with ice trolls.', category: 'content' };

    it('lets an agent send one (201, status new), keeps it from the public, and lets the operator list and review it', async () => {
      const a = await foundOrg(w, 'Amber Traders');
      const before = await treasuries(w);
      const r = await w.call('POST', '/api/suggestions', { key: a.key, body: suggestion });
      expectStatus(r, 201);
      assert.equal(typeof r.body.id, 'number');
      assert.equal(r.body.status, 'new');
      assert.equal(r.body.title, 'More dungeons');
      assert.equal(r.body.category, 'content');
      const defaulted = await w.call('POST', '/api/suggestions', { key: a.key, body: { title: 'Faster days', body: 'Could a day pass a little faster?' } });
      expectStatus(defaulted, 201);
      assert.equal(defaulted.body.category, 'feature');

      // Not visible publicly.
      for (const url of ['/api/events?limit=100', '/api/messages', '/api/world', `/api/agents/${a.agentId}`, '/api/agents', '/api/rules']) {
        const pub = await w.get(url);
        expectStatus(pub, 200);
        assert.ok(!pub.text.includes('ice trolls'), `${url} does not reveal the suggestion`);
      }
      expectStatus(await w.get('/api/suggestions'), 401);
      expectStatus(await w.call('GET', '/api/suggestions', { key: a.key }), 401);
      expectStatus(await w.call('GET', '/api/suggestions', { spectator: SPECTATOR }), 401);

      const list = await w.call('GET', '/api/suggestions', { admin: ADMIN });
      expectStatus(list, 200);
      const mine = list.body.find((s: { id: number }) => s.id === r.body.id);
      assert.ok(mine);
      assert.equal(mine.body, suggestion.body);
      assert.equal(mine.status, 'new');
      assert.equal(mine.agent_id, a.agentId);

      const reviewed = await w.call('PATCH', `/api/suggestions/${r.body.id}`, { admin: ADMIN, body: { status: 'accepted', admin_note: 'Planned for the next season.' } });
      expectStatus(reviewed, 200);
      assert.equal(reviewed.body.status, 'accepted');
      assert.equal(reviewed.body.admin_note, 'Planned for the next season.');
      const again = (await w.call('GET', '/api/suggestions', { admin: ADMIN })).body.find((s: { id: number }) => s.id === r.body.id);
      assert.equal(again.status, 'accepted');
      assert.equal(again.admin_note, 'Planned for the next season.');
      // A second review without a note keeps the note; an explicit null clears it.
      const restated = await w.call('PATCH', `/api/suggestions/${r.body.id}`, { admin: ADMIN, body: { status: 'reviewed' } });
      expectStatus(restated, 200);
      assert.equal(restated.body.status, 'reviewed');
      assert.equal(restated.body.admin_note, 'Planned for the next season.');
      const cleared = await w.call('PATCH', `/api/suggestions/${r.body.id}`, { admin: ADMIN, body: { status: 'accepted', admin_note: null } });
      assert.equal(cleared.body.admin_note, null);
      const declined = await w.call('PATCH', `/api/suggestions/${defaulted.body.id}`, { admin: ADMIN, body: { status: 'declined', admin_note: null } });
      expectStatus(declined, 200);
      assert.equal(declined.body.status, 'declined');
      assert.equal(declined.body.admin_note, null);

      // The sender reads its own suggestions and their answers; nobody else does.
      const own = await w.call('GET', '/api/agents/me/suggestions', { key: a.key });
      expectStatus(own, 200);
      assert.deepEqual(own.body.map((x: { id: number; status: string }) => [x.id, x.status]), [[r.body.id, 'accepted'], [defaulted.body.id, 'declined']]);
      const other = await w.register('Quiet Reader');
      assert.deepEqual((await w.call('GET', '/api/agents/me/suggestions', { key: other.key })).body, [], 'another agent sees none of them');
      expectStatus(await w.get('/api/agents/me/suggestions'), 401);

      assert.deepEqual(await treasuries(w), before, 'suggestions change nothing in the world');
      assert.equal((await orgOf(w, a.org.id)).treasury, 800);
    });

    it('refuses a suggestion from a retired agent (403)', async () => {
      const agent = await w.register();
      expectStatus(await w.call('POST', '/api/agents/retire', { key: agent.key, body: { reason: 'Moving on to other worlds.' } }), 200);
      expectStatus(await w.call('POST', '/api/suggestions', { key: agent.key, body: suggestion }), 403);
      assert.deepEqual((await w.call('GET', '/api/suggestions', { admin: ADMIN })).body, []);
    });

    it('refuses without a key (401), with bad input (422), and reviews only with the admin key and a review status', async () => {
      const agent = await w.register();
      expectStatus(await w.call('POST', '/api/suggestions', { body: suggestion }), 401);
      expectStatus(await w.call('POST', '/api/suggestions', { admin: ADMIN, body: suggestion }), 401);
      expect422At(await w.call('POST', '/api/suggestions', { key: agent.key, body: { ...suggestion, title: 'ab' } }), ['body', 'title']);
      expect422At(await w.call('POST', '/api/suggestions', { key: agent.key, body: { ...suggestion, body: 'too short' } }), ['body', 'body']);
      expectStatus(await w.call('POST', '/api/suggestions', { key: agent.key, body: { ...suggestion, body: `my key ${agent.key} leaked` } }), 422);
      assert.deepEqual((await w.call('GET', '/api/suggestions', { admin: ADMIN })).body, [], 'nothing kept');

      const r = await w.call('POST', '/api/suggestions', { key: agent.key, body: suggestion });
      expectStatus(r, 201);
      const patch = (body: unknown, admin?: string, id = r.body.id) => w.call('PATCH', `/api/suggestions/${id}`, { admin, body });
      expectStatus(await patch({ status: 'accepted', admin_note: null }), 401);
      expectStatus(await patch({ status: 'accepted', admin_note: null }, 'wrong-key'), 401);
      expect422At(await patch({ status: 'new', admin_note: null }, ADMIN), ['body', 'status']);
      expect422At(await patch({ status: 'maybe', admin_note: null }, ADMIN), ['body', 'status']);
      expect422At(await patch({ status: 'reviewed', admin_note: 'x'.repeat(2001) }, ADMIN), ['body', 'admin_note']);
      expectStatus(await patch({ status: 'reviewed', admin_note: null }, ADMIN, 9999), 404);
      const still = (await w.call('GET', '/api/suggestions', { admin: ADMIN })).body.find((s: { id: number }) => s.id === r.body.id);
      assert.equal(still.status, 'new', 'refused reviews change nothing');
      const ok = await patch({ status: 'reviewed', admin_note: 'Read, thank you.' }, ADMIN);
      expectStatus(ok, 200);
      assert.equal(ok.body.status, 'reviewed');
    });
  });
});
