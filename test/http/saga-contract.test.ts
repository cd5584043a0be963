// A contract's fulfilment (contract -> both its parties) and its rejection (contract ->
// the trust of each side, below) stay whole across a crash (actors/intents.ts). The process dies at each write of the fulfilment: the contract's
// intent, the proposer's delivery, the counterparty's payment, the proposer's receipt,
// the contract's record. The world is reopened on the same folder: the contract is
// fulfilled, each movement made once. A counterparty that cannot pay after all gets
// nothing and the goods go back, also when the process dies while they are on the way.
import assert from 'assert/strict';
import sinon from 'sinon';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { assertBooks, failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

interface Scene { a: Awaited<ReturnType<typeof foundOrg>>; b: Awaited<ReturnType<typeof foundOrg>>; contract: number }

async function scene(w: TestWorld): Promise<Scene> {
  const a = await foundOrg(w, 'Goods Sellers', 'merchant company', 'emberfall');
  const b = await foundOrg(w, 'Goods Buyers', 'merchant company', 'emberfall');
  expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 10 }, a.key), 200);
  const c = await w.post('/api/contracts', { proposer_id: a.org.id, counterparty_id: b.org.id, title: 'Food for gold', terms: 'Five food for thirty gold.', value: 30, resource: 'food', quantity: 5 }, a.key);
  expectStatus(c, 201);
  expectStatus(await w.post(`/api/contracts/${c.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
  return { a, b, contract: c.body.id };
}

describe("a contract's fulfilment survives a crash at every step", function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-contract-', { oneNode: true });
  const orgOf = async (w: TestWorld, id: number) => (await w.get(`/api/organizations/${id}`)).body;
  const movements = async (w: TestWorld, orgId: number) =>
    (await w.get<Array<{ category: string }>>(`/api/events?organization_id=${orgId}&category=contract&limit=100`)).body.filter((e: any) => e.data?.ledger?.length).length;

  it('crash before the contract records its intent: nothing moved, and fulfilling again works', async () => {
    let w = await fresh();
    const s = await scene(w);
    const before = { a: await orgOf(w, s.a.org.id), b: await orgOf(w, s.b.org.id), books: await mark(w) };
    failWrite(w, `contract:${s.contract}`, 'fulfilment-begun');
    expectStatus(await w.post(`/api/contracts/${s.contract}/fulfill`, { organization_id: s.a.org.id }, s.a.key), 503);
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/contracts/${s.contract}`)).body.status, 'accepted');
    assert.deepEqual((await orgOf(w, s.a.org.id)).holdings, before.a.holdings);
    assert.equal((await orgOf(w, s.b.org.id)).treasury, before.b.treasury);
    await assertBooks(w, before.books);
    expectStatus(await w.post(`/api/contracts/${s.contract}/fulfill`, { organization_id: s.a.org.id }, s.a.key), 200);
  });

  const crashes: Array<[string, (s: Scene) => [string, string, number]]> = [
    ['the proposer hands over the goods', (s) => [`organization:${s.a.org.id}`, 'transferred', 0]],
    ['the counterparty pays and receives them', (s) => [`organization:${s.b.org.id}`, 'transferred', 0]],
    ['the proposer is paid', (s) => [`organization:${s.a.org.id}`, 'transferred', 1]],
    ['the contract records its end', (s) => [`contract:${s.contract}`, 'fulfilled', 0]],
  ];
  for (const [step, target] of crashes) {
    it(`crash before ${step}: finished at start-up, each movement once`, async () => {
      let w = await fresh();
      const s = await scene(w);
      const before = { a: await orgOf(w, s.a.org.id), b: await orgOf(w, s.b.org.id), books: await mark(w) };
      const [key, type, skip] = target(s);
      failWrite(w, key, type, skip);
      expectStatus(await w.post(`/api/contracts/${s.contract}/fulfill`, { organization_id: s.a.org.id }, s.a.key), 503);
      assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['contract', s.contract, 'fulfilment']]);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      const contract = (await w.get(`/api/contracts/${s.contract}`)).body;
      assert.equal(contract.status, 'fulfilled');
      assert.equal(contract.fulfilment, undefined, 'the view is as it was');
      const a = await orgOf(w, s.a.org.id);
      const b = await orgOf(w, s.b.org.id);
      assert.equal(a.treasury, before.a.treasury + 30);
      assert.equal(a.holdings.food, before.a.holdings.food - 5);
      assert.equal(b.treasury, before.b.treasury - 30);
      assert.equal(b.holdings.food, 5);
      assert.equal(await movements(w, s.a.org.id), 2, 'the proposer: the goods out, the gold in, once each');
      assert.equal(await movements(w, s.b.org.id), 1, 'the counterparty: one payment');
      await assertBooks(w, before.books);
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      expectStatus(await w.post(`/api/contracts/${s.contract}/fulfill`, { organization_id: s.a.org.id }, s.a.key), 409);
      assert.deepEqual(await mark(w), again, 'asked again, nothing moves');
    });
  }

  /** The counterparty refuses to pay after the check (as if its agent spent the gold meanwhile). */
  const refusePayment = (w: TestWorld, s: Scene) => {
    const region = w.region as unknown as { askRaw: (...args: any[]) => Promise<unknown> };
    const real = region.askRaw.bind(region);
    return sinon.stub(region, 'askRaw').callsFake((kind: string, id: string | number, command: any, ...rest: any[]) =>
      (kind === 'organization' && Number(id) === s.b.org.id && command.type === 'transfer' && String(command.op).endsWith(':paid')
        ? Promise.resolve({ ok: false, refusal: { status: 409, detail: 'Goods Buyers has 0 gold, short of the 30 needed' } })
        : real(kind, id, command, ...rest)));
  };

  it('a counterparty that cannot pay after the check: the goods go back, the answer is the refusal', async () => {
    const w = await fresh();
    const s = await scene(w);
    const before = { a: await orgOf(w, s.a.org.id), b: await orgOf(w, s.b.org.id), books: await mark(w) };
    refusePayment(w, s);
    const r = await w.post(`/api/contracts/${s.contract}/fulfill`, { organization_id: s.a.org.id }, s.a.key);
    expectStatus(r, 409);
    assert.match(r.body.detail, /short of the 30 needed/);
    sinon.restore();
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/contracts/${s.contract}`)).body.status, 'accepted');
    assert.deepEqual((await orgOf(w, s.a.org.id)).holdings, before.a.holdings, 'the goods came back');
    assert.equal((await orgOf(w, s.b.org.id)).treasury, before.b.treasury);
    await assertBooks(w, before.books);
    // A later attempt is an attempt of its own: the goods move again, and only once.
    expectStatus(await w.post(`/api/contracts/${s.contract}/fulfill`, { organization_id: s.a.org.id }, s.a.key), 200);
    assert.equal((await orgOf(w, s.a.org.id)).holdings.food, before.a.holdings.food - 5);
    assert.equal((await orgOf(w, s.b.org.id)).holdings.food, 5);
    await assertBooks(w, before.books);
  });

  it('crash while the goods go back: finished at start-up as undone, even once the counterparty could pay', async () => {
    let w = await fresh();
    const s = await scene(w);
    const before = { a: await orgOf(w, s.a.org.id), b: await orgOf(w, s.b.org.id), books: await mark(w) };
    refusePayment(w, s);
    failWrite(w, `organization:${s.a.org.id}`, 'transferred', 1);
    expectStatus(await w.post(`/api/contracts/${s.contract}/fulfill`, { organization_id: s.a.org.id }, s.a.key), 503);
    assert.equal((await orgOf(w, s.a.org.id)).holdings.food, before.a.holdings.food - 5, 'the goods are on the way');
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/contracts/${s.contract}`)).body.status, 'accepted');
    assert.deepEqual((await orgOf(w, s.a.org.id)).holdings, before.a.holdings, 'the goods came back');
    assert.equal((await orgOf(w, s.b.org.id)).treasury, before.b.treasury, 'the counterparty paid nothing');
    await assertBooks(w, before.books);
  });
});

// A contract's rejection (contract -> the trust of each side): the process dies at each
// write (the contract's intent, the proposer's trust, the counterparty's trust, the
// contract's record); reopened, the contract is rejected and each side's trust cooled once.
describe("a contract's rejection survives a crash at every step", function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-rejection-');
  interface Proposed { a: Awaited<ReturnType<typeof foundOrg>>; b: Awaited<ReturnType<typeof foundOrg>>; contract: number }
  async function proposed(w: TestWorld): Promise<Proposed> {
    const a = await foundOrg(w, 'Hopeful Proposers', 'merchant company', 'emberfall');
    const b = await foundOrg(w, 'Wary Counterparty', 'merchant company', 'emberfall');
    const c = await w.post('/api/contracts', { proposer_id: a.org.id, counterparty_id: b.org.id, title: 'Escort', terms: 'Escort our wagons for forty gold.', value: 40 }, a.key);
    expectStatus(c, 201);
    return { a, b, contract: c.body.id };
  }
  const reject = (w: TestWorld, s: Proposed) => w.post(`/api/contracts/${s.contract}/reject`, { organization_id: s.b.org.id }, s.b.key);
  const trust = async (w: TestWorld, of: number, toward: number) => (await w.get(`/api/organizations/${of}`)).body.trust[String(toward)] ?? 0;
  const rejections = async (w: TestWorld, s: Proposed) =>
    (await w.get<Array<{ summary: string; data: { contract_id?: number } }>>('/api/events?category=contract&limit=100')).body
      .filter((e) => e.data?.contract_id === s.contract && e.summary.includes('rejected the contract')).length;

  it('crash before the contract records its intent: nothing cooled, and rejecting again works', async () => {
    let w = await fresh();
    const s = await proposed(w);
    failWrite(w, `contract:${s.contract}`, 'rejection-begun');
    expectStatus(await reject(w, s), 503);
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/contracts/${s.contract}`)).body.status, 'proposed');
    assert.equal(await trust(w, s.a.org.id, s.b.org.id), 0);
    assert.equal(await trust(w, s.b.org.id, s.a.org.id), 0);
    expectStatus(await reject(w, s), 200);
    assert.equal(await trust(w, s.a.org.id, s.b.org.id), -5);
    assert.equal(await trust(w, s.b.org.id, s.a.org.id), -5);
  });

  const crashes: Array<[string, (s: Proposed) => [string, string]]> = [
    ["the proposer's trust cools", (s) => [`organization:${s.a.org.id}`, 'transferred']],
    ["the counterparty's trust cools", (s) => [`organization:${s.b.org.id}`, 'transferred']],
    ['the contract records its rejection', (s) => [`contract:${s.contract}`, 'rejected']],
  ];
  for (const [step, target] of crashes) {
    it(`crash before ${step}: finished at start-up, each side cooled once`, async () => {
      let w = await fresh();
      const s = await proposed(w);
      const before = await mark(w);
      const [key, type] = target(s);
      failWrite(w, key, type);
      expectStatus(await reject(w, s), 503);
      assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['contract', s.contract, 'rejection']]);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      const contract = (await w.get(`/api/contracts/${s.contract}`)).body;
      assert.equal(contract.status, 'rejected');
      assert.equal(contract.rejection, undefined, 'the view is as it was');
      assert.equal(await trust(w, s.a.org.id, s.b.org.id), -5, 'the proposer cooled once');
      assert.equal(await trust(w, s.b.org.id, s.a.org.id), -5, 'the counterparty cooled once');
      assert.equal(await rejections(w, s), 1, 'the history tells it once');
      await assertBooks(w, before);
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      expectStatus(await reject(w, s), 409);
      expectStatus(await w.post(`/api/contracts/${s.contract}/accept`, { organization_id: s.b.org.id }, s.b.key), 409);
      assert.deepEqual(await mark(w), again, 'asked again, nothing changes');
      assert.equal(await trust(w, s.a.org.id, s.b.org.id), -5);
    });
  }

  it('a rejection left pending is finished by the next command to the contract: an accept is then refused, a retried reject answers with it', async () => {
    const w = await fresh();
    const s = await proposed(w);
    const stub = failWrite(w, `contract:${s.contract}`, 'rejected');
    expectStatus(await reject(w, s), 503);
    stub.restore();
    const accepted = await w.post(`/api/contracts/${s.contract}/accept`, { organization_id: s.b.org.id }, s.b.key);
    expectStatus(accepted, 409);
    assert.match(accepted.body.detail, /is rejected/);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal(await trust(w, s.b.org.id, s.a.org.id), -5);

    const t = await proposed(w);
    const stub2 = failWrite(w, `contract:${t.contract}`, 'rejected');
    expectStatus(await reject(w, t), 503);
    stub2.restore();
    const retried = await reject(w, t);
    expectStatus(retried, 200);
    assert.equal(retried.body.status, 'rejected');
    assert.equal(await trust(w, t.a.org.id, t.b.org.id), -5);
    assert.equal(await rejections(w, t), 1);
  });
});
