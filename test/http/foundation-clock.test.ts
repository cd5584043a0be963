// The clock and upkeep over HTTP on a real server: POST /api/tick for the operator only,
// one day per tick, 5 gold a day per organization, and bankruptcy when the treasury runs
// out (core rules 1, 5 and 6; api-conventions: tick answers {day}).
import assert from 'assert/strict';
import fs from 'fs';
import { expectStatus } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

const dayOf = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.day;

async function orgOf(w: TestWorld, id: number) {
  const r = await w.get(`/api/organizations/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

describe('clock over HTTP: POST /api/tick (core rule 1)', () => {
  let w: TestWorld;
  let agent: { id: number; key: string };
  let orgId: number;
  let startingTreasury: number;
  let foundedDay: number;

  before(async () => {
    w = await startTestWorld();
    agent = await w.register('Tilda Ticker');
    foundedDay = await dayOf(w);
    const r = await w.post('/api/organizations', { name: 'Tilda Trading', kind: 'merchant company' }, agent.key);
    assert.equal(r.status, 201, r.text);
    orgId = r.body.id;
    startingTreasury = r.body.treasury;
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('answers 401 without the admin key, with a wrong one, or with another kind of key, and the day stays', async () => {
    const day = await dayOf(w);
    expectStatus(await w.call('POST', '/api/tick'), 401);
    expectStatus(await w.call('POST', '/api/tick', { admin: 'not-the-admin-key' }), 401);
    expectStatus(await w.call('POST', '/api/tick', { admin: 'test-spectator-key' }), 401);
    expectStatus(await w.call('POST', '/api/tick', { key: agent.key }), 401);
    expectStatus(await w.call('POST', '/api/tick', { headers: { 'x-agent-key': 'test-admin-key' } }), 401);
    assert.equal(await dayOf(w), day);
  });

  it('answers 200 with {day} one more than before, each time', async () => {
    const day = await dayOf(w);
    const r = await w.call('POST', '/api/tick', { admin: 'test-admin-key' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.day, day + 1);
    assert.equal(await dayOf(w), day + 1);
    const again = await w.call('POST', '/api/tick', { admin: 'test-admin-key' });
    assert.equal(again.body.day, day + 2);
  });

  it('charges each active organization 5 gold for the day and records it in the history', async () => {
    const before = await orgOf(w, orgId);
    const active = (await w.get('/api/organizations')).body as any[];
    const day = await w.tick();
    const after = await orgOf(w, orgId);
    assert.equal(after.treasury, before.treasury - 5);
    const events = (await w.get('/api/events?limit=100')).body as any[];
    const today = events.filter((e) => e.day === day);
    const mine = today.filter((e) => e.organization_ids.includes(orgId));
    assert.ok(mine.length >= 1, `an upkeep event for the organization on day ${day}: ${JSON.stringify(today)}`);
    assert.ok(mine.some((e) => e.data?.paid === 5 || /\b5 gold\b/.test(e.summary)), JSON.stringify(mine));
    for (const o of active) {
      assert.ok(today.some((e) => e.organization_ids.includes(o.id) && e.category === mine[0].category),
        `organization ${o.id} has an upkeep event on day ${day}`);
    }
  });

  it('has charged the organization 5 gold for every day since its founding, and nothing more', async () => {
    const org = await orgOf(w, orgId);
    const day = await dayOf(w);
    assert.equal(org.treasury, startingTreasury - 5 * (day - foundedDay), `${day - foundedDay} days of upkeep`);
  });
});

describe('clock over HTTP: bankruptcy (core rules 5 and 6)', () => {
  let w: TestWorld;
  let agent: { id: number; key: string };
  let org: any;
  let trail: Array<{ day: number; treasury: number; status: string; reputation: number }> = [];
  let foundedDay: number;

  before(async function () {
    this.timeout(120_000);
    w = await startTestWorld();
    agent = await w.register('Bea Bankrupt');
    foundedDay = await dayOf(w);
    const r = await w.post('/api/organizations', { name: 'Temple of Thin Coffers', kind: 'temple' }, agent.key);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.treasury, 450);
    // It pays all but 22 gold to another organization first (a contract the other proposes:
    // the counterparty pays), so that it runs out within a few days rather than ninety.
    const other = await w.register('Cal Creditor');
    const creditor = await w.post('/api/organizations', { name: 'Creditors of the Temple', kind: 'merchant company' }, other.key);
    assert.equal(creditor.status, 201, creditor.text);
    const c = await w.post('/api/contracts', { proposer_id: creditor.body.id, counterparty_id: r.body.id, title: 'Debts', terms: 'Old debts paid at once.', value: r.body.treasury - 22 }, other.key);
    expectStatus(c, 201);
    expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: r.body.id }, agent.key), 200);
    expectStatus(await w.post(`/api/contracts/${c.body.id}/fulfill`, { organization_id: r.body.id }, agent.key), 200);
    org = await orgOf(w, r.body.id);
    assert.equal(org.treasury, 22);
    trail = [{ day: await dayOf(w), treasury: org.treasury, status: org.status, reputation: org.reputation }];
    // 5 gold a day: the treasury lasts treasury / 5 days; the next day it cannot pay.
    for (let i = 0; i < 30 && trail[trail.length - 1].status === 'active'; i++) {
      const day = await w.tick();
      const now = await orgOf(w, org.id);
      trail.push({ day, treasury: now.treasury, status: now.status, reputation: now.reputation });
    }
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('pays 5 gold a day while it can, and goes bankrupt on the first day it cannot pay', () => {
    const last = trail[trail.length - 1];
    assert.equal(last.status, 'bankrupt', `bankrupt within 30 days: ${JSON.stringify(last)}`);
    for (let i = 1; i < trail.length - 1; i++) {
      assert.equal(trail[i].status, 'active');
      assert.equal(trail[i].treasury, trail[i - 1].treasury - 5, `day ${trail[i].day}`);
    }
    const lastActive = trail[trail.length - 2];
    assert.ok(lastActive.treasury < 5, `bankrupt only once the treasury cannot cover 5 gold (had ${lastActive.treasury})`);
    assert.equal(trail.length - 1, Math.floor(org.treasury / 5) + 1, 'days until bankruptcy');
  });

  it('never lets the treasury fall below zero', async () => {
    assert.ok(trail.every((t) => t.treasury >= 0), JSON.stringify(trail.filter((t) => t.treasury < 0)));
    await w.tick();
    await w.tick();
    const now = await orgOf(w, org.id);
    assert.ok(now.treasury >= 0, `treasury ${now.treasury}`);
    assert.equal(now.status, 'bankrupt');
  });

  it('leaves its agent with no current organization, the bankrupt one still among those it founded', async () => {
    const me = (await w.get('/api/agents/me', agent.key)).body;
    assert.equal(me.current_organization_id, null);
    assert.deepEqual(me.organization_ids, [org.id]);
    assert.equal((await w.get(`/api/agents/${agent.id}`)).body.current_organization_id, null, 'the public profile says the same');
  });

  it('reduces reputation for the unpaid upkeep', () => {
    const last = trail[trail.length - 1];
    assert.ok(last.reputation < org.reputation, `reputation ${org.reputation} -> ${last.reputation}`);
  });

  it('leaves GET /api/organizations, while its detail stays readable', async () => {
    const listed = (await w.get('/api/organizations')).body as any[];
    assert.ok(!listed.some((o) => o.id === org.id));
    const detail = await w.get(`/api/organizations/${org.id}`);
    assert.equal(detail.status, 200, detail.text);
    assert.equal(detail.body.status, 'bankrupt');
    const world = (await w.get('/api/world')).body;
    assert.ok(world.counts.organizations_bankrupt >= 1, 'counted among the bankrupt');
  });

  it('records the bankruptcy in the history', async () => {
    const day = trail[trail.length - 1].day;
    const events = (await w.get(`/api/events?agent_id=${agent.id}&limit=100`)).body as any[];
    const thatDay = events.filter((e) => e.day === day && e.organization_ids.includes(org.id));
    assert.ok(thatDay.some((e) => /bankrupt/i.test(e.category) || /bankrupt/i.test(e.summary)), JSON.stringify(thatDay));
  });

  it('can no longer act: PATCH and dissolve answer 409 and change nothing', async () => {
    const before = await orgOf(w, org.id);
    expectStatus(await w.call('PATCH', `/api/organizations/${org.id}`, { key: agent.key, body: { motto: 'We rise again.' } }), 409);
    expectStatus(await w.post(`/api/organizations/${org.id}/dissolve`, undefined, agent.key), 409);
    const after = await orgOf(w, org.id);
    assert.equal(after.motto, before.motto);
    assert.equal(after.status, 'bankrupt');
  });

  it('lets its agent found a new organization, granted what the founding allowance has refilled since the first', async () => {
    const r = await w.post('/api/organizations', { name: 'Temple Reborn', kind: 'temple' }, agent.key);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, 'active');
    // A temple's treasury is 450; the allowance refills evenly over 90 days.
    assert.equal(r.body.treasury, Math.floor((450 * (await dayOf(w) - foundedDay)) / 90));
  });
});
