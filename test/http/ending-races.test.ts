// An organization that ends while another action links something to it (core rules 6 and
// 7). The follow-up of the end (actors/organization/ending.ts) finds what to free, withdraw,
// reopen or give back in the read model; an action that asked the organization just before
// the end records its last step just after, where the follow-up could not see it. Each such
// record then asks the organization whether it still stands, and does what the follow-up
// would have done. Here the action's last write is held back (fault injection into this
// process's store: one node) while the organization dissolves, which makes the race happen
// every time; the end state is the one of the action made just before the end.
import assert from 'assert/strict';
import sinon from 'sinon';
import { expectStatus, foundOrg, orgOf } from '../support/http';
import { dissolvedMeanwhile, pendingIntents } from '../support/sagas';
import { startTestWorld, type TestWorld } from '../support/world';

const questBody = (requester: number) => ({
  title: 'Wolves at the gate', description: 'The wolves grow bold.', requester_id: requester, location_id: 'emberfall', reward: 60,
});

describe('an organization that ends while an action links something to it', function () {
  this.timeout(60_000);
  let w: TestWorld;
  beforeEach(async () => { w = await startTestWorld({ nodes: 1 }); });
  afterEach(async () => { sinon.restore(); await w.close(); });

  it('an adventurer hired by it goes free, as the follow-up frees its employees', async () => {
    const band = await foundOrg(w, 'Doomed Band', 'adventurers band');
    const free = (await w.get('/api/adventurers')).body.find((a: { status: string }) => a.status === 'available');
    const hiring = await dissolvedMeanwhile(w, `adventurer:${free.id}`, 'hired', () => w.post('/api/adventurers/hire', { organization_id: band.org.id, adventurer_id: free.id }, band.key), band);
    expectStatus(hiring, 200);
    const after = (await w.get(`/api/adventurers/${free.id}`)).body;
    assert.equal(after.status, 'available');
    assert.equal(after.organization_id, null);
    assert.deepEqual((await orgOf(w, band.org.id)).employees, []);
    assert.deepEqual(await pendingIntents(w), []);
    // Free for others to hire.
    const other = await foundOrg(w, 'Next Band', 'adventurers band');
    expectStatus(await w.post('/api/adventurers/hire', { organization_id: other.org.id, adventurer_id: free.id }, other.key), 200);
  });

  it('a quest it accepted opens again for others, as the follow-up reopens the quests it accepted', async () => {
    const giver = await foundOrg(w, 'Gate Wardens', 'merchant company');
    const taker = await foundOrg(w, 'Doomed Takers', 'mercenary band');
    const q = (await w.post('/api/quests', questBody(giver.org.id), giver.key)).body;
    const accepting = await dissolvedMeanwhile(w, `quest:${q.id}`, 'accepted', () => w.post(`/api/quests/${q.id}/accept`, { organization_id: taker.org.id }, taker.key), taker);
    expectStatus(accepting, 200);
    const after = (await w.get(`/api/quests/${q.id}`)).body;
    assert.equal(after.status, 'open');
    assert.equal(after.accepted_organization_id, null);
    const other = await foundOrg(w, 'Next Takers', 'mercenary band');
    expectStatus(await w.post(`/api/quests/${q.id}/accept`, { organization_id: other.org.id }, other.key), 200);
  });

  it('its pledge to a quest leaves the quest, as the follow-up takes its pledges back (to the world: it has ended)', async () => {
    const giver = await foundOrg(w, 'Gate Wardens', 'merchant company');
    const sponsor = await foundOrg(w, 'Doomed Patrons', 'merchant company');
    const q = (await w.post('/api/quests', questBody(giver.org.id), giver.key)).body;
    const pledging = await dissolvedMeanwhile(w, `quest:${q.id}`, 'sponsored', () => w.post(`/api/quests/${q.id}/sponsors`, { organization_id: sponsor.org.id, amount: 40 }, sponsor.key), sponsor);
    expectStatus(pledging, 201);
    const after = (await w.get(`/api/quests/${q.id}`)).body;
    assert.equal(after.reward, 60, 'the reward is what the requester put up');
    assert.deepEqual(after.sponsors.filter((s: { organization_id: number }) => s.organization_id === sponsor.org.id).map((s: { amount: number }) => s.amount), [], 'no pledge of the ended sponsor stands');
    assert.equal((await orgOf(w, sponsor.org.id)).treasury, 0, 'what came back passed to the world');
    assert.deepEqual(await pendingIntents(w), []);
  });

  it('a quest it posted is withdrawn, as the follow-up withdraws the quests it requested', async () => {
    const giver = await foundOrg(w, 'Doomed Wardens', 'merchant company');
    const posted = await dissolvedMeanwhile(w, (key) => key.startsWith('quest:'), 'posted', () => w.post('/api/quests', questBody(giver.org.id), giver.key), giver);
    expectStatus(posted, 201);
    const after = (await w.get(`/api/quests/${posted.body.id}`)).body;
    assert.equal(after.status, 'withdrawn');
    assert.equal((await orgOf(w, giver.org.id)).treasury, 0, 'the refund passed to the world');
    assert.deepEqual(await pendingIntents(w), []);
  });
});
