// A trade (location -> organization) stays whole across a crash (actors/intents.ts). The
// process dies at each write of the trade: the market's intent, the organization's
// payment or delivery, the market's record. The world is reopened on the same folder:
// the trade is whole (the organization paid once, the market's supply moved once), or
// wholly undone when it never began.
import assert from 'assert/strict';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { assertBooks, failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

describe('a trade survives a crash at every step', function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-trade-');
  const supply = async (w: TestWorld, resource: string) =>
    (await w.get<Array<{ resource: string; supply: number; location_id: string }>>('/api/market')).body.find((m) => m.location_id === 'emberfall' && m.resource === resource)!.supply;
  const orgOf = async (w: TestWorld, id: number) => (await w.get(`/api/organizations/${id}`)).body;
  const trades = async (w: TestWorld, id: number) => (await w.get<unknown[]>(`/api/events?organization_id=${id}&category=trade&limit=100`)).body.length;

  it('crash before the market records its intent: nothing happened', async () => {
    let w = await fresh();
    const a = await foundOrg(w, 'Careful Traders', 'merchant company', 'emberfall');
    const before = { supply: await supply(w, 'food'), org: await orgOf(w, a.org.id), books: await mark(w) };
    failWrite(w, 'location:emberfall', 'trade-begun');
    expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 5 }, a.key), 503);
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal(await supply(w, 'food'), before.supply);
    const o = await orgOf(w, a.org.id);
    assert.equal(o.treasury, before.org.treasury);
    assert.deepEqual(o.holdings, before.org.holdings);
    assert.equal(await trades(w, a.org.id), 0);
    await assertBooks(w, before.books);
  });

  for (const side of ['buy', 'sell'] as const) {
    for (const [where, key, eventType] of [
      ['before the organization pays or delivers', 'org', 'trade-settled'],
      ['after the organization paid or delivered, before the market records it', 'location', 'traded'],
    ] as const) {
      it(`${side}, crash ${where}: finished at start-up, once on both sides`, async () => {
        let w = await fresh();
        const a = await foundOrg(w, 'Careful Traders', 'merchant company', 'emberfall');
        if (side === 'sell') expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 8 }, a.key), 200);
        const before = { supply: await supply(w, 'food'), org: await orgOf(w, a.org.id), books: await mark(w), trades: await trades(w, a.org.id) };
        failWrite(w, key === 'org' ? `organization:${a.org.id}` : 'location:emberfall', eventType);
        expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side, quantity: 5 }, a.key), 503);
        assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['location', 'emberfall', 'trade']], 'the trade is pending');
        w = await restart(w);
        assert.deepEqual(await pendingIntents(w), []);
        const moved = side === 'buy' ? -5 : 5;
        assert.ok(Math.abs(await supply(w, 'food') - (before.supply + moved)) < 1e-9, 'the market\'s supply moved once');
        const o = await orgOf(w, a.org.id);
        assert.equal(o.holdings.food ?? 0, (before.org.holdings.food ?? 0) - moved, 'the organization took or gave the goods once');
        assert.equal(await trades(w, a.org.id), before.trades + 1, 'one trade in the history');
        if (side === 'buy') assert.ok(o.treasury < before.org.treasury); else assert.ok(o.treasury > before.org.treasury);
        await assertBooks(w, before.books);
        const again = await mark(w);
        assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
        assert.deepEqual(await mark(w), again, 'resumed again, nothing changes');
        // The market trades on as before.
        expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 1 }, a.key), 200);
        assert.ok(Math.abs(await supply(w, 'food') - (before.supply + moved - 1)) < 1e-9);
      });
    }
  }

  it('a trade left pending is finished by the next tick', async () => {
    const w = await fresh();
    const a = await foundOrg(w, 'Careful Traders', 'merchant company', 'emberfall');
    const before = await supply(w, 'food');
    const stub = failWrite(w, 'location:emberfall', 'traded');
    expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 5 }, a.key), 503);
    stub.restore();
    assert.equal((await pendingIntents(w)).length, 1);
    const orgBefore = await orgOf(w, a.org.id);
    await w.tick();
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await orgOf(w, a.org.id)).holdings.food, 5, 'paid once');
    assert.equal(orgBefore.holdings.food, 5);
    assert.notEqual(await supply(w, 'food'), before, 'the market recorded it (and lived through a day)');
  });

  it('a refusal by the organization undoes the intent and answers as before', async () => {
    const w = await fresh();
    const a = await foundOrg(w, 'Careful Traders', 'merchant company', 'emberfall');
    const before = await supply(w, 'food');
    const r = await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'sell', quantity: 5 }, a.key);
    expectStatus(r, 409);
    assert.match(r.body.detail, /holds 0 food, fewer than the 5 offered/);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal(await supply(w, 'food'), before);
  });
});
