// The economy over HTTP, end to end on a real server: regional market boards, trade,
// travel, and the gaps of a place (core rules 18 and 19; api-conventions errors).
// Workers, projects, production plans and endings are in economy-projects.test.ts.
import assert from 'assert/strict';
import { expect422, expectStatus, foundOrg, historyCount, orgOf } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

interface Entry { resource: string; price: number; supply: number; location_id: string }

async function boardAt(w: TestWorld, locationId: string): Promise<Entry[]> {
  const r = await w.get(`/api/market?location_id=${locationId}`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

async function entryAt(w: TestWorld, locationId: string, resource: string): Promise<Entry> {
  const e = (await boardAt(w, locationId)).find((m) => m.resource === resource);
  assert.ok(e, `${resource} should be on the board at ${locationId}`);
  return e;
}

async function eventsOf(w: TestWorld, category: string): Promise<Array<{ id: number; category: string; organization_ids: number[]; agent_id: number | null; summary: string; data?: any }>> {
  const r = await w.get(`/api/events?category=${category}&limit=100`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

/** The state a refused action must leave untouched. */
async function snapshot(w: TestWorld, orgId: number, locationId = 'emberfall') {
  const org = await orgOf(w, orgId);
  return {
    treasury: org.treasury, holdings: org.holdings, workers: org.workers, location_id: org.location_id, travel: org.travel,
    projects: org.projects.map((p: any) => ({ id: p.id, status: p.status })),
    market: await boardAt(w, locationId),
    history: await historyCount(w),
  };
}

const routeBetween = async (w: TestWorld, from: string, to: string) => {
  const l = (await w.get(`/api/locations/${from}`)).body;
  return (l.routes as Array<{ destination_id: string; distance_days: number }>).find((r) => r.destination_id === to);
};

describe('economy over HTTP: market boards (core rule 19)', () => {
  let w: TestWorld;
  let emberfallKey: string;
  let greenhollowKey: string;

  before(async () => {
    w = await startTestWorld();
    emberfallKey = (await foundOrg(w, 'Hearth and Ledger', 'merchant company')).key;
    greenhollowKey = (await foundOrg(w, 'Valley Sawyers', 'lumber crafters', 'greenhollow')).key;
  });
  after(async () => { await w.close(); });

  it('answers the emberfall reference board without a key or a location', async () => {
    const r = await w.get('/api/market');
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body) && r.body.length >= 3, r.text);
    for (const e of r.body as Entry[]) {
      assert.equal(typeof e.resource, 'string');
      assert.equal(typeof e.price, 'number');
      assert.ok(e.price > 0, `a price above zero: ${JSON.stringify(e)}`);
      assert.equal(typeof e.supply, 'number');
      assert.equal(e.location_id, 'emberfall');
    }
    assert.deepEqual(r.body.map((e: Entry) => e.resource).sort(), ['food', 'ore', 'timber']);
    assert.deepEqual(r.body, await boardAt(w, 'emberfall'));
  });

  it('answers a different board at ironcrag: ore cheaper, food and timber dearer', async () => {
    const ember = await boardAt(w, 'emberfall');
    const iron = await boardAt(w, 'ironcrag');
    assert.ok(iron.every((e) => e.location_id === 'ironcrag'), JSON.stringify(iron));
    const at = (b: Entry[], res: string) => b.find((e) => e.resource === res)!;
    assert.ok(at(iron, 'ore').price < at(ember, 'ore').price, 'ore is cheaper at ironcrag');
    assert.ok(at(iron, 'food').price > at(ember, 'food').price, 'food is dearer at ironcrag');
    assert.ok(at(iron, 'timber').price > at(ember, 'timber').price, 'timber is dearer at ironcrag');
  });

  it('answers a board at greenhollow where timber is cheap', async () => {
    const green = await entryAt(w, 'greenhollow', 'timber');
    const ember = await entryAt(w, 'emberfall', 'timber');
    assert.equal(green.location_id, 'greenhollow');
    assert.ok(green.price < ember.price, 'timber is cheaper at greenhollow');
  });

  it("with X-Agent-Key and no location shows the board where the agent's organization stands", async () => {
    const mine = await w.get('/api/market', greenhollowKey);
    assert.equal(mine.status, 200, mine.text);
    assert.ok(mine.body.length > 0 && mine.body.every((e: Entry) => e.location_id === 'greenhollow'), mine.text);
    const other = await w.get('/api/market', emberfallKey);
    assert.ok(other.body.every((e: Entry) => e.location_id === 'emberfall'), other.text);
    // location_id still wins over the key.
    const asked = await w.call('GET', '/api/market?location_id=ironcrag', { key: greenhollowKey });
    assert.ok(asked.body.every((e: Entry) => e.location_id === 'ironcrag'), asked.text);
  });

  it('answers 404 for an unknown location and for a place without a market', async () => {
    expectStatus(await w.get('/api/market?location_id=atlantis'), 404);
    expectStatus(await w.get('/api/market?location_id=whisperwood'), 404);
    expectStatus(await w.get('/api/market?location_id=sunken-crypt'), 404);
    expectStatus(await w.get('/api/market/food?location_id=whisperwood'), 404);
  });

  it('answers 422 for a malformed location_id', async () => {
    const r = await w.get('/api/market?location_id=x');
    assert.equal(r.status, 422, r.text);
    assert.equal(r.body.detail[0].loc[0], 'query');
  });

  it('answers one resource at GET /api/market/{resource}', async () => {
    const food = await w.get('/api/market/food');
    assert.equal(food.status, 200, food.text);
    assert.deepEqual(food.body, await entryAt(w, 'emberfall', 'food'));
    const ironFood = await w.get('/api/market/food?location_id=ironcrag');
    assert.deepEqual(ironFood.body, await entryAt(w, 'ironcrag', 'food'));
    const mine = await w.get('/api/market/timber', greenhollowKey);
    assert.equal(mine.body.location_id, 'greenhollow');
    expectStatus(await w.get('/api/market/unobtainium'), 404);
    expectStatus(await w.get('/api/market/food?location_id=atlantis'), 404);
  });
});

describe('economy over HTTP: trade', () => {
  let w: TestWorld;
  let key: string;
  let orgId: number;
  let otherKey: string;

  before(async () => {
    w = await startTestWorld();
    const a = await foundOrg(w, 'Hearth and Ledger', 'merchant company');
    key = a.key;
    orgId = a.org.id;
    otherKey = (await foundOrg(w, 'Rival Traders', 'trading company')).key;
  });
  after(async () => { await w.close(); });

  const trade = (body: Record<string, unknown>, k = key) => w.call('POST', '/api/trade', { key: k, body });

  it('a buy changes holdings, treasury, supply and price at once', async () => {
    const before = await orgOf(w, orgId);
    const market = await entryAt(w, 'emberfall', 'food');
    const history = await historyCount(w);
    const r = await trade({ organization_id: orgId, resource: 'food', side: 'buy', quantity: 100 });
    assert.equal(r.status, 200, r.text);
    const after = await orgOf(w, orgId);
    const marketAfter = await entryAt(w, 'emberfall', 'food');
    assert.equal(after.holdings.food, 100);
    assert.equal(marketAfter.supply, market.supply - 100);
    assert.ok(marketAfter.price > market.price, `price rises after a buy: ${market.price} -> ${marketAfter.price}`);
    const paid = before.treasury - after.treasury;
    assert.ok(paid >= 100 * market.price && paid <= Math.ceil(100 * marketAfter.price), `paid ${paid} for 100 food at ${market.price}..${marketAfter.price}`);
    assert.equal(r.body.trade.total, paid);
    assert.equal(r.body.market.price, marketAfter.price, 'the answer carries the new price');
    assert.equal(r.body.market.supply, marketAfter.supply, 'the answer carries the new supply');
    assert.equal(await historyCount(w), history + 1, 'the trade is one history event');
    const recorded = (await eventsOf(w, 'trade'))[0];
    assert.ok(recorded.organization_ids.includes(orgId), JSON.stringify(recorded));
    assert.equal(recorded.data.side, 'buy');
    assert.equal(recorded.data.quantity, 100);
  });

  it('a sell changes them back: holdings down, treasury up, supply up, price down', async () => {
    const before = await orgOf(w, orgId);
    const market = await entryAt(w, 'emberfall', 'food');
    const r = await trade({ organization_id: orgId, resource: 'food', side: 'sell', quantity: 40 });
    assert.equal(r.status, 200, r.text);
    const after = await orgOf(w, orgId);
    const marketAfter = await entryAt(w, 'emberfall', 'food');
    assert.equal(after.holdings.food, 60);
    assert.equal(marketAfter.supply, market.supply + 40);
    assert.ok(marketAfter.price < market.price, `price falls after a sell: ${market.price} -> ${marketAfter.price}`);
    const got = after.treasury - before.treasury;
    assert.ok(got > 0 && got <= 40 * market.price && got >= Math.floor(40 * marketAfter.price), `got ${got} for 40 food`);
    const recorded = (await eventsOf(w, 'trade'))[0];
    assert.equal(recorded.data.side, 'sell');
    assert.ok(recorded.organization_ids.includes(orgId));
  });

  it('refuses a buy the treasury cannot afford with 409, changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    const food = snap.market.find((e: Entry) => e.resource === 'food')!;
    const quantity = Math.min(food.supply, Math.ceil(snap.treasury / food.price) + 1000);
    assert.ok(quantity * food.price > snap.treasury, 'the test buy must be beyond the treasury');
    expectStatus(await trade({ organization_id: orgId, resource: 'food', side: 'buy', quantity }), 409);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('refuses to sell more than is held with 409, changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await trade({ organization_id: orgId, resource: 'food', side: 'sell', quantity: 61 }), 409);
    expectStatus(await trade({ organization_id: orgId, resource: 'ore', side: 'sell', quantity: 1 }), 409);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('refuses to buy more than the supply with 409, changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    const ore = snap.market.find((e: Entry) => e.resource === 'ore')!;
    const r = await trade({ organization_id: orgId, resource: 'ore', side: 'buy', quantity: ore.supply + 1 });
    expectStatus(r, 409);
    assert.ok(r.body.detail.includes(String(ore.supply)), `the detail names the supply on offer: ${r.body.detail}`);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it("refuses another agent trading with your organization (403), and a seeded one's (403)", async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await trade({ organization_id: orgId, resource: 'food', side: 'buy', quantity: 1 }, otherKey), 403);
    expectStatus(await trade({ organization_id: orgId, resource: 'food', side: 'sell', quantity: 1 }, otherKey), 403);
    expectStatus(await trade({ organization_id: 1, resource: 'food', side: 'buy', quantity: 1 }), 403);
    // Control is checked before the market: a stranger gets 403 whatever the trade.
    const ore = snap.market.find((e: Entry) => e.resource === 'ore')!;
    expectStatus(await trade({ organization_id: orgId, resource: 'ore', side: 'buy', quantity: ore.supply + 1 }, otherKey), 403);
    expectStatus(await trade({ organization_id: orgId, resource: 'silk', side: 'buy', quantity: 1 }, otherKey), 403);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('refuses an unknown organization (404), an unknown resource (404) and a missing key (401)', async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await trade({ organization_id: 999999, resource: 'food', side: 'buy', quantity: 1 }), 404);
    expectStatus(await trade({ organization_id: orgId, resource: 'silk', side: 'buy', quantity: 1 }), 404);
    const anonymous = await w.call('POST', '/api/trade', { body: { organization_id: orgId, resource: 'food', side: 'buy', quantity: 1 } });
    expectStatus(anonymous, 401);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('answers 422 for a bad side or quantity, changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    expect422(await trade({ organization_id: orgId, resource: 'food', side: 'steal', quantity: 1 }), 'side');
    expect422(await trade({ organization_id: orgId, resource: 'food', side: 'buy', quantity: 0 }), 'quantity');
    expect422(await trade({ organization_id: orgId, resource: 'food', side: 'buy', quantity: -5 }), 'quantity');
    expect422(await trade({ organization_id: orgId, resource: 'food', side: 'buy', quantity: 100001 }), 'quantity');
    expect422(await trade({ organization_id: orgId, resource: 'food', side: 'buy', quantity: 1.5 }), 'quantity');
    expect422(await trade({ organization_id: orgId, resource: 'food', side: 'buy' }), 'quantity');
    expect422(await trade({ resource: 'food', side: 'buy', quantity: 1 }), 'organization_id');
    assert.deepEqual(await snapshot(w, orgId), snap);
  });
});

describe('economy over HTTP: travel (core rule 18) and the board that follows the organization', () => {
  let w: TestWorld;
  let key: string;
  let orgId: number;
  let otherKey: string;
  let arrivesDay: number;
  let departedDay: number;

  before(async () => {
    w = await startTestWorld();
    const a = await foundOrg(w, 'Wandering Ledger', 'merchant company');
    key = a.key;
    orgId = a.org.id;
    otherKey = (await foundOrg(w, 'Stay-at-home Guild', 'merchant guild')).key;
  });
  after(async () => { await w.close(); });

  const travel = (body: Record<string, unknown>, k = key) => w.call('POST', '/api/travel', { key: k, body });

  it('refuses an unknown destination (404), the place it stands (409) and a stranger (403), changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await travel({ organization_id: orgId, destination_id: 'atlantis' }), 404);
    expectStatus(await travel({ organization_id: orgId, destination_id: 'emberfall' }), 409);
    expectStatus(await travel({ organization_id: orgId, destination_id: 'greenhollow' }, otherKey), 403);
    expectStatus(await travel({ organization_id: 999999, destination_id: 'greenhollow' }), 404);
    expect422(await travel({ organization_id: orgId }), 'destination_id');
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('sets out for greenhollow: road days plus ceil(danger / 20)', async () => {
    const road = await routeBetween(w, 'emberfall', 'greenhollow');
    assert.ok(road, 'emberfall has a road to greenhollow');
    const green = (await w.get('/api/locations/greenhollow')).body;
    assert.ok(green.danger > 0, 'greenhollow has some danger, so the journey takes longer than the road');
    departedDay = (await w.get('/api/world')).body.day;
    const r = await travel({ organization_id: orgId, destination_id: 'greenhollow' });
    assert.equal(r.status, 200, r.text);
    arrivesDay = departedDay + road!.distance_days + Math.ceil(green.danger / 20);
    assert.equal(r.body.travel.destination_id, 'greenhollow');
    assert.equal(r.body.travel.arrives_day, arrivesDay);
    assert.equal(r.body.location_id, 'emberfall', 'it stays where it is until it arrives');
    const org = await orgOf(w, orgId);
    assert.equal(org.travel.arrives_day, arrivesDay);
    assert.equal(org.location_id, 'emberfall');
    const setOut = (await eventsOf(w, 'travel')).find((e) => e.organization_ids.includes(orgId));
    assert.ok(setOut, 'setting out is in the history');
    assert.equal(setOut.data.arrives_day, arrivesDay);
  });

  it('refuses a second journey, a trade and a project while on the road (409), changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await travel({ organization_id: orgId, destination_id: 'ironcrag' }), 409);
    expectStatus(await travel({ organization_id: orgId, destination_id: 'greenhollow' }), 409);
    expectStatus(await w.call('POST', '/api/trade', { key, body: { organization_id: orgId, resource: 'food', side: 'buy', quantity: 1 } }), 409);
    expectStatus(await w.call('POST', '/api/projects', {
      key, body: { owner_id: orgId, title: 'Roadside camp', kind: 'construction', description: 'a camp by the road', location_id: 'emberfall', budget: 10, duration_days: 2 },
    }), 409);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('moves only on arrival; the keyed board follows it there', async () => {
    let day = (await w.get('/api/world')).body.day;
    while (day < arrivesDay - 1) {
      day = await w.tick();
      const org = await orgOf(w, orgId);
      assert.equal(org.location_id, 'emberfall', `still at emberfall on day ${day}`);
      assert.equal(org.travel?.destination_id, 'greenhollow');
      const board = await w.get('/api/market', key);
      assert.ok(board.body.every((e: Entry) => e.location_id === 'emberfall'), `on the road the board is still emberfall's: ${board.text}`);
    }
    assert.ok(day > departedDay, 'at least one day on the road');
    day = await w.tick();
    assert.equal(day, arrivesDay);
    const org = await orgOf(w, orgId);
    assert.equal(org.location_id, 'greenhollow');
    assert.equal(org.travel, null);
    const board = await w.get('/api/market', key);
    assert.equal(board.status, 200, board.text);
    assert.ok(board.body.length > 0 && board.body.every((e: Entry) => e.location_id === 'greenhollow'), board.text);
    const arrived = (await eventsOf(w, 'travel')).filter((e) => e.organization_ids.includes(orgId));
    assert.equal(arrived.length, 2, 'setting out and arriving');
    assert.equal(arrived[0].data.location_id, 'greenhollow');
  });

  it('trades against the greenhollow market after arrival, not emberfall', async () => {
    const ember = await boardAt(w, 'emberfall');
    const ore = await entryAt(w, 'greenhollow', 'ore');
    const r = await w.call('POST', '/api/trade', { key, body: { organization_id: orgId, resource: 'ore', side: 'buy', quantity: 50 } });
    assert.equal(r.status, 200, r.text);
    assert.equal((await entryAt(w, 'greenhollow', 'ore')).supply, ore.supply - 50);
    assert.deepEqual(await boardAt(w, 'emberfall'), ember, 'the emberfall board is untouched');
    assert.equal((await orgOf(w, orgId)).holdings.ore, 50);
    const traded = (await eventsOf(w, 'trade')).find((e) => e.organization_ids.includes(orgId));
    assert.ok(traded, 'the trade is in the history');
    assert.equal(traded.data.location_id, 'greenhollow');
    // Half of greenhollow's usual ore is gone: the gaps observe it.
    const gaps = (await w.get('/api/locations/greenhollow/gaps')).body;
    assert.ok(gaps.observations.some((o: any) => o.kind === 'scarce_resource' && o.resource === 'ore'), JSON.stringify(gaps));
  });

  it('follows the quickest chain of roads to a place with no direct road', async () => {
    const b = await foundOrg(w, 'Crypt Seekers', 'trading caravan');
    const crypt = (await w.get('/api/locations/sunken-crypt')).body;
    assert.equal(await routeBetween(w, 'emberfall', 'sunken-crypt'), undefined, 'no direct road');
    const day = (await w.get('/api/world')).body.day;
    const r = await travel({ organization_id: b.org.id, destination_id: 'sunken-crypt' }, b.key);
    assert.equal(r.status, 200, r.text);
    // emberfall -2-> greenhollow -1-> whisperwood -2-> sunken-crypt: 5 road days.
    assert.equal(r.body.travel.arrives_day, day + 5 + Math.ceil(crypt.danger / 20));
  });
});

describe('economy over HTTP: gaps of a place (core rule 17)', () => {
  let w: TestWorld;
  before(async () => { w = await startTestWorld(); });
  after(async () => { await w.close(); });

  it('emberfall: observations such as missing services', async () => {
    const r = await w.get('/api/locations/emberfall/gaps');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.location_id, 'emberfall');
    assert.ok(Array.isArray(r.body.observations), r.text);
    assert.ok(r.body.observations.some((o: any) => o.kind === 'missing_service' && o.service === 'inn'), r.text);
    const services = Object.fromEntries(r.body.observations.filter((o: any) => o.kind === 'missing_service').map((o: any) => [o.service, o.effect]));
    assert.match(services.inn, /pays its owner \d+ gold every day/, 'a missing service says what such an establishment would do');
    assert.match(services.watchtower, /lowers the danger of its location/);
    assert.equal(services.healer, null, 'a service of no family of establishments does nothing: said, not hidden');
    assert.ok(!r.body.observations.some((o: any) => o.kind === 'no_market'), 'emberfall has a market');
    assert.ok(!r.body.observations.some((o: any) => o.kind === 'high_danger'), 'emberfall is safe');
  });

  it('a dungeon: high danger and no market', async () => {
    for (const id of ['sunken-crypt', 'frostmaw-deep']) {
      const r = await w.get(`/api/locations/${id}/gaps`);
      assert.equal(r.status, 200, r.text);
      const kinds = r.body.observations.map((o: any) => o.kind);
      assert.ok(kinds.includes('high_danger'), r.text);
      assert.ok(kinds.includes('no_market'), r.text);
      assert.ok(!kinds.includes('missing_service'), `nobody to serve at ${id}: ${r.text}`);
    }
  });

  it('404 for an unknown place', async () => {
    expectStatus(await w.get('/api/locations/atlantis/gaps'), 404);
  });
});
