// The contracts of an organization that ends (core rules 6, 7 and 21), end to end on a
// real server: its proposed and accepted contracts, as proposer or as counterparty, close
// with it as the follow-up of its end (actors/organization/ending.ts): they stand as
// `rejected` with an `end_reason`, nothing moves (no gold, goods or trust), the history
// says so, the survivor's live lists no longer show them, and any later action on them is
// refused with a 409 that says why. An action that comes before the follow-up reached the
// contract closes it the same way.
import assert from 'assert/strict';
import sinon from 'sinon';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg, type LedgerEvent } from '../support/http';
import { CRASH, allEvents, dissolvedMeanwhile, pendingIntents } from '../support/sagas';
import { startTestWorld, type TestWorld } from '../support/world';

type Actor = Awaited<ReturnType<typeof foundOrg>>;
interface ContractView { id: number; status: string; end_reason: string | null; ended_day: number | null; withdrawn: boolean; fulfilled_by: number | null }
interface OrgView {
  id: number; status: string; treasury: number; ended_day: number | null; holdings: Record<string, number>; trust: Record<string, number>;
  contracts: Array<{ id: number; status: string }>; contract_count: number;
}

const LIVE = 'proposed,accepted';
const CUT_SHORT = 'closes a contract an action reaches before the follow-up of the end did (it was cut short): 409 with why, and the follow-up then finds it closed';

async function propose(w: TestWorld, from: Actor, to: Actor, over: Record<string, unknown> = {}): Promise<number> {
  const r = await w.call('POST', '/api/contracts', {
    key: from.key,
    body: { proposer_id: from.org.id, counterparty_id: to.org.id, title: 'Ore for the forge', terms: 'Five ore delivered at Emberfall.', value: 40, resource: null, quantity: 0, ...over },
  });
  expectStatus(r, 201);
  return r.body.id;
}

const act = (w: TestWorld, verb: 'accept' | 'reject' | 'withdraw' | 'fulfill', id: number, who: Actor) =>
  w.call('POST', `/api/contracts/${id}/${verb}`, { key: who.key, body: { organization_id: who.org.id } });

async function contractOf(w: TestWorld, id: number): Promise<ContractView> {
  const r = await w.get(`/api/contracts/${id}`);
  expectStatus(r, 200);
  return r.body;
}

async function orgOf(w: TestWorld, id: number): Promise<OrgView> {
  const r = await w.get(`/api/organizations/${id}`);
  expectStatus(r, 200);
  return r.body;
}

/** The ids of an organization's contracts GET /api/contracts lists in the live statuses. */
async function liveListed(w: TestWorld, organizationId: number): Promise<number[]> {
  const r = await w.get(`/api/contracts?organization_id=${organizationId}&status=${LIVE}`);
  expectStatus(r, 200);
  return r.body.map((c: { id: number }) => c.id);
}

/** History events after `since`, oldest first. */
const eventsSince = async (w: TestWorld, since: number): Promise<LedgerEvent[]> =>
  (await allEvents(w)).filter((e) => e.id > since) as unknown as LedgerEvent[];

/** Takes `victim`'s gold (as counterparty of a contract it fulfils) down to nothing, so the next day's upkeep bankrupts it. */
async function drain(w: TestWorld, victim: Actor, beneficiary: Actor) {
  const treasury = (await orgOf(w, victim.org.id)).treasury;
  const id = await propose(w, beneficiary, victim, { title: 'Tribute', value: treasury });
  expectStatus(await act(w, 'accept', id, victim), 200);
  expectStatus(await act(w, 'fulfill', id, victim), 200);
  assert.equal((await orgOf(w, victim.org.id)).treasury, 0);
}

/** The refusal of an action on a contract closed because `ender` ended. */
/** The survivor's gold, goods and trust as they were, and no live contract left: what it gets when its partner ends. */
async function assertNothingMoved(w: TestWorld, survivor: Actor, before: OrgView): Promise<OrgView> {
  const after = await orgOf(w, survivor.org.id);
  assert.equal(after.treasury, before.treasury);
  assert.deepEqual(after.holdings, before.holdings);
  assert.deepEqual(after.trust, before.trust);
  assert.deepEqual(after.contracts, []);
  return after;
}

function expectClosed(r: { status: number; text: string; body: any }, id: number, ender: number, how: 'went bankrupt' | 'was dissolved') {
  expectStatus(r as never, 409);
  assert.match(r.body.detail, new RegExp(`contract ${id} was closed unfulfilled on day \\d+ because organization ${ender} \\([^)]+\\) ${how}`), r.text);
}

/** The closed contracts: rejected with the reason and the day of the end, nothing paid; a history line each. */
async function assertClosed(w: TestWorld, ids: number[], ender: Actor, name: string, how: 'went bankrupt' | 'was dissolved', since: number) {
  const endedDay = (await orgOf(w, ender.org.id)).ended_day;
  assert.ok(endedDay !== null);
  const events = await eventsSince(w, since);
  for (const id of ids) {
    const c = await contractOf(w, id);
    assert.equal(c.status, 'rejected', `contract ${id} is closed as rejected`);
    assert.equal(c.end_reason, `organization ${ender.org.id} (${name}) ${how}`);
    assert.equal(c.ended_day, endedDay);
    assert.equal(c.withdrawn, false);
    assert.equal(c.fulfilled_by, null);
    const lines = events.filter((e) => e.category === 'contract' && (e.data as { contract_id?: number }).contract_id === id);
    assert.equal(lines.length, 1, `one history line for contract ${id}: ${JSON.stringify(lines)}`);
    assert.match(lines[0].summary, new RegExp(`was closed unfulfilled \\(organization ${ender.org.id} \\(${name}\\) ${how}\\); nothing moved`));
    assert.equal(lines[0].data.ledger, undefined, 'no gold or goods on the line');
  }
  // No movement of a contract since the mark: no ledger line of the contract flow for anyone.
  assert.deepEqual(events.flatMap((e) => e.data.ledger ?? []).filter((l) => l.flow === 'contract'), []);
}

describe('the contracts of an organization that ends (core rules 6, 7 and 21)', function () {
  this.timeout(60_000);
  let w: TestWorld;
  let aurelia: Actor;
  let borin: Actor;
  let cobalt: Actor;

  // The last test injects faults into this process's entities port: one node (as the saga tests do).
  beforeEach(async function () {
    w = await startTestWorld(this.currentTest?.title === CUT_SHORT ? { nodes: 1 } : {});
    aurelia = await foundOrg(w, 'Aurelia House');
    borin = await foundOrg(w, 'Borin Smithy', 'crafters workshop');
    cobalt = await foundOrg(w, 'Cobalt Band', 'mercenary band');
  });
  afterEach(async () => { sinon.restore(); await w.close(); });

  it('closes the proposed and the accepted contract of a proposer that goes bankrupt: rejected with the reason, nothing moved, history told, gone from the survivor\'s live lists', async () => {
    const proposed = await propose(w, borin, aurelia, { title: 'Tools for the mine' });
    const accepted = await propose(w, borin, aurelia, { resource: 'ore', quantity: 5 });
    expectStatus(await act(w, 'accept', accepted, aurelia), 200);
    const unrelated = await propose(w, aurelia, cobalt, { title: 'Escort to the coast' });
    expectStatus(await act(w, 'accept', unrelated, cobalt), 200);
    await drain(w, borin, cobalt);
    assert.deepEqual(await liveListed(w, aurelia.org.id), [proposed, accepted, unrelated]);
    const before = await orgOf(w, aurelia.org.id);
    const since = await w.services.read.lastHistoryId();

    await w.tick();
    assert.equal((await orgOf(w, borin.org.id)).status, 'bankrupt');
    assert.deepEqual(await pendingIntents(w), [], 'the follow-up of the end is done');
    await assertClosed(w, [proposed, accepted], borin, 'Borin Smithy', 'went bankrupt', since);
    assert.equal((await contractOf(w, unrelated)).status, 'accepted', 'a contract between others goes on');

    // Nothing moved for the survivor: its treasury changed by its upkeep alone, its goods and trust not at all.
    const after = await orgOf(w, aurelia.org.id);
    const ledger = (await eventsSince(w, since)).flatMap((e) => e.data.ledger ?? []).filter((l) => l.organization_id === aurelia.org.id);
    assert.deepEqual([...new Set(ledger.map((l) => l.flow))], ['upkeep']);
    assert.equal(after.treasury, before.treasury + ledger.reduce((n, l) => n + (l.gold ?? 0), 0));
    assert.deepEqual(after.holdings, before.holdings);
    assert.deepEqual(after.trust, before.trust);
    assert.equal((await orgOf(w, borin.org.id)).trust[String(aurelia.org.id)], undefined, 'no trust either way');

    // The survivor's detail and live listing show the unrelated contract alone.
    assert.deepEqual(after.contracts.map((c) => c.id), [unrelated]);
    assert.equal(after.contract_count, 1);
    assert.deepEqual(await liveListed(w, aurelia.org.id), [unrelated]);
    assert.deepEqual(await liveListed(w, borin.org.id), []);
    const rejected = await w.get(`/api/contracts?organization_id=${aurelia.org.id}&status=rejected`);
    assert.deepEqual(rejected.body.map((c: { id: number }) => c.id), [proposed, accepted], 'they stay readable as rejected');

    // Every later action is refused with why; nothing changes.
    expectClosed(await act(w, 'accept', proposed, aurelia), proposed, borin.org.id, 'went bankrupt');
    expectClosed(await act(w, 'reject', proposed, aurelia), proposed, borin.org.id, 'went bankrupt');
    expectClosed(await act(w, 'fulfill', accepted, aurelia), accepted, borin.org.id, 'went bankrupt');
    expectStatus(await act(w, 'withdraw', proposed, aurelia), 403);
    expectStatus(await act(w, 'withdraw', proposed, borin), 409);
    assert.deepEqual(await orgOf(w, aurelia.org.id), after);
  });

  it('closes the proposed and the accepted contract of a counterparty that is dissolved, and nothing at all moves', async () => {
    const proposed = await propose(w, aurelia, borin, { title: 'Bread for the winter' });
    const accepted = await propose(w, aurelia, borin, { resource: 'ore', quantity: 5 });
    expectStatus(await act(w, 'accept', accepted, borin), 200);
    const before = await orgOf(w, aurelia.org.id);
    const since = await w.services.read.lastHistoryId();

    expectStatus(await w.call('POST', `/api/organizations/${borin.org.id}/dissolve`, { key: borin.key }), 200);
    assert.deepEqual(await pendingIntents(w), []);
    await assertClosed(w, [proposed, accepted], borin, 'Borin Smithy', 'was dissolved', since);
    const after = await assertNothingMoved(w, aurelia, before);
    assert.equal(after.contract_count, 0);
    assert.deepEqual(await liveListed(w, aurelia.org.id), []);

    expectClosed(await act(w, 'withdraw', proposed, aurelia), proposed, borin.org.id, 'was dissolved');
    expectClosed(await act(w, 'fulfill', accepted, aurelia), accepted, borin.org.id, 'was dissolved');
    assert.deepEqual(await orgOf(w, aurelia.org.id), after);
  });

  it(CUT_SHORT, async () => {
    const proposed = await propose(w, borin, aurelia, { title: 'Tools for the mine' });
    const accepted = await propose(w, borin, aurelia, { resource: 'ore', quantity: 5 });
    expectStatus(await act(w, 'accept', accepted, aurelia), 200);
    const before = await orgOf(w, aurelia.org.id);
    const since = await w.services.read.lastHistoryId();
    // The follow-up cannot reach the contracts: the end stays pending.
    const ask = w.services.entities.ask.bind(w.services.entities);
    const stub = sinon.stub(w.services.entities, 'ask').callsFake(((kind: string, id: string | number, command: { type: string }, timeout?: number) =>
      (command.type === 'party-ended' ? Promise.resolve(CRASH) : ask(kind as never, id, command as never, timeout))) as never);
    expectStatus(await w.call('POST', `/api/organizations/${borin.org.id}/dissolve`, { key: borin.key }), 200);
    assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id]), [['organization', borin.org.id]]);
    assert.equal((await contractOf(w, proposed)).status, 'proposed', 'not closed yet');

    expectClosed(await act(w, 'accept', proposed, aurelia), proposed, borin.org.id, 'was dissolved');
    expectClosed(await act(w, 'fulfill', accepted, aurelia), accepted, borin.org.id, 'was dissolved');
    await assertClosed(w, [proposed, accepted], borin, 'Borin Smithy', 'was dissolved', since);

    stub.restore();
    assert.equal(await resumeIntents(w.services.entities, w.services.read), 0, 'the follow-up finishes');
    await assertClosed(w, [proposed, accepted], borin, 'Borin Smithy', 'was dissolved', since);
    await assertNothingMoved(w, aurelia, before);
  });
});

// A proposal checks its counterparty in the read model, then records itself; a dissolution
// in between has its follow-up list the organization's contracts and alliances before the
// proposal can be seen. The proposal's write is held back here (fault injection into this
// process's store: one node) while the counterparty dissolves.
describe('a proposal made while its counterparty dissolves', function () {
  this.timeout(60_000);
  let w: TestWorld;
  beforeEach(async () => { w = await startTestWorld({ nodes: 1 }); });
  afterEach(async () => { sinon.restore(); await w.close(); });

  const proposal = (kind: string) => (key: string) => key.startsWith(`${kind}:`);

  it('a contract closes as the follow-up of the end would have closed it: rejected with the reason, listed as live nowhere', async () => {
    const aurelia = await foundOrg(w, 'Aurelia House');
    const borin = await foundOrg(w, 'Borin Smithy', 'crafters workshop');
    const made = await dissolvedMeanwhile(w, proposal('contract'), 'proposed', () => w.call('POST', '/api/contracts', {
      key: aurelia.key,
      body: { proposer_id: aurelia.org.id, counterparty_id: borin.org.id, title: 'Ore for the forge', terms: 'Five ore delivered at Emberfall.', value: 40, resource: null, quantity: 0 },
    }), borin);
    expectStatus(made, 201);
    assert.equal(made.body.status, 'rejected');
    assert.match(made.body.end_reason, /Borin Smithy\) was dissolved/);
    const contract = await contractOf(w, made.body.id);
    assert.equal(contract.status, 'rejected');
    assert.deepEqual(await liveListed(w, aurelia.org.id), []);
    assert.equal((await orgOf(w, aurelia.org.id)).treasury, aurelia.org.treasury, 'nothing moved');
    expectStatus(await act(w, 'withdraw', made.body.id, aurelia), 409);
  });

  it('an alliance ends as the follow-up of the dissolution would have ended it, and the pair may ally again', async () => {
    const aurelia = await foundOrg(w, 'Aurelia House');
    const borin = await foundOrg(w, 'Borin Smithy', 'crafters workshop');
    const cobalt = await foundOrg(w, 'Cobalt Band', 'mercenary band');
    const made = await dissolvedMeanwhile(w, proposal('alliance'), 'proposed',
      () => w.post('/api/alliances', { proposer_id: aurelia.org.id, counterparty_id: borin.org.id, terms: 'Together against the dark.' }, aurelia.key), borin);
    expectStatus(made, 201);
    assert.equal(made.body.status, 'ended');
    assert.equal(made.body.end_reason, 'a member organization ended');
    const live = (await w.get('/api/alliances')).body.filter((a: { status: string }) => a.status !== 'ended');
    assert.deepEqual(live, []);
    assert.deepEqual((await orgOf(w, aurelia.org.id)).trust, {}, 'no trust moved');
    // The proposer is free to ally with another.
    expectStatus(await w.post('/api/alliances', { proposer_id: aurelia.org.id, counterparty_id: cobalt.org.id, terms: 'Together against the dark.' }, aurelia.key), 201);
  });
});
