// Joining a party (adventurer -> organization) stays whole across a crash
// (actors/intents.ts). The process dies at each write of the joining: the adventurer's
// intent, the organization's member added, the adventurer's record. The world is
// reopened on the same folder: the adventurer is in the party on both sides, once, or in
// it on neither when the intent was never recorded. An organization that refuses after
// the intent (its party has set out) leaves nothing behind.
import assert from 'assert/strict';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

interface Scene { a: Awaited<ReturnType<typeof foundOrg>>; adventurers: number[]; party: number }

async function scene(w: TestWorld, hires = 1): Promise<Scene> {
  const a = await foundOrg(w, 'Party Makers', 'adventurers band', 'greenhollow');
  const free = (await w.get<Array<{ id: number; status: string }>>('/api/adventurers')).body.filter((x) => x.status === 'available').slice(0, hires).map((x) => x.id);
  for (const id of free) expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: id }, a.key), 200);
  const party = await w.post('/api/parties', { organization_id: a.org.id, name: 'The Unbroken' }, a.key);
  expectStatus(party, 201);
  return { a, adventurers: free, party: party.body.id };
}

const join = (w: TestWorld, s: Scene, adventurer: number) => w.post(`/api/parties/${s.party}/members`, { adventurer_id: adventurer }, s.a.key);
const membersOf = async (w: TestWorld, s: Scene) => (await w.get<Array<{ id: number; members: number[] }>>('/api/parties')).body.find((p) => p.id === s.party)!.members;
const joinings = async (w: TestWorld, adventurer: number) =>
  (await w.get<Array<{ summary: string; data: { adventurer_id?: number } }>>('/api/events?category=party&limit=100')).body
    .filter((e) => e.data?.adventurer_id === adventurer && e.summary.includes('joined the party')).length;

describe('joining a party survives a crash at every step', function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-party-');

  it('crash before the adventurer records its intent: nothing happened, and joining again works', async () => {
    let w = await fresh();
    const s = await scene(w);
    const [adv] = s.adventurers;
    failWrite(w, `adventurer:${adv}`, 'joining-begun');
    expectStatus(await join(w, s, adv), 503);
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.deepEqual(await membersOf(w, s), []);
    assert.equal((await w.get(`/api/adventurers/${adv}`)).body.party_id, null);
    expectStatus(await join(w, s, adv), 200);
    assert.deepEqual(await membersOf(w, s), [adv]);
  });

  for (const [where, key, eventType] of [
    ['before the organization adds the member', 'organization', 'party-member-added'],
    ['after the organization added the member, before the adventurer records it', 'adventurer', 'joined-party'],
  ] as const) {
    it(`crash ${where}: finished at start-up, a member once on both sides`, async () => {
      let w = await fresh();
      const s = await scene(w);
      const [adv] = s.adventurers;
      failWrite(w, key === 'adventurer' ? `adventurer:${adv}` : `organization:${s.a.org.id}`, eventType);
      expectStatus(await join(w, s, adv), 503);
      assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['adventurer', adv, 'joining']], 'the joining is pending');
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      assert.deepEqual(await membersOf(w, s), [adv], 'the organization lists it once');
      const row = (await w.get(`/api/adventurers/${adv}`)).body;
      assert.equal(row.party_id, s.party, 'the adventurer knows its party');
      assert.equal(row.party_history.length, 1);
      assert.equal(await joinings(w, adv), 1, 'the history tells it once');
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      assert.deepEqual(await mark(w), again);
      const twice = await join(w, s, adv);
      expectStatus(twice, 409);
      assert.match(twice.body.detail, /already in this party/);
      assert.deepEqual(await membersOf(w, s), [adv]);
    });
  }

  it("a joining left pending is finished by the adventurer's next command (a release, which then takes it out of the party), or by the next tick", async () => {
    const w = await fresh();
    const s = await scene(w, 2);
    const [one, two] = s.adventurers;
    const stub = failWrite(w, `adventurer:${one}`, 'joined-party');
    expectStatus(await join(w, s, one), 503);
    stub.restore();
    const stub2 = failWrite(w, `adventurer:${two}`, 'joined-party');
    expectStatus(await join(w, s, two), 503);
    stub2.restore();
    assert.equal((await pendingIntents(w)).length, 2);
    const release = await w.post('/api/adventurers/release', { organization_id: s.a.org.id, adventurer_id: one }, s.a.key);
    expectStatus(release, 200);
    const released = (await w.get(`/api/adventurers/${one}`)).body;
    assert.equal(released.party_id, null, 'the joining was finished first, then the release took it out of the party');
    assert.equal(released.status, 'available');
    assert.equal(released.party_history.length, 1, 'the party it joined is in its history');
    assert.deepEqual((await pendingIntents(w)).map((p) => p.id), [two]);
    await w.tick();
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/adventurers/${two}`)).body.party_id, s.party);
    assert.deepEqual(await membersOf(w, s), [two]);
    assert.equal(await joinings(w, one), 1);
    assert.equal(await joinings(w, two), 1);
  });

  it('an organization that refuses after the intent (its party has set out) undoes it and answers as before', async () => {
    const w = await fresh();
    const s = await scene(w, 2);
    const [one, two] = s.adventurers;
    expectStatus(await join(w, s, one), 200);
    const giver = await foundOrg(w, 'Quest Givers', 'merchant company', 'greenhollow');
    const q = await w.post('/api/quests', { title: 'Clear the fields', description: 'Something must be done about it.', requester_id: giver.org.id, location_id: 'greenhollow', reward: 40 }, giver.key);
    expectStatus(q, 201);
    expectStatus(await w.post(`/api/parties/${s.party}/dispatch`, { quest_id: q.body.id }, s.a.key), 200);
    const before = await mark(w);
    const r = await join(w, s, two);
    expectStatus(r, 409);
    assert.match(r.body.detail, /members join only while it is formed/);
    assert.deepEqual(await pendingIntents(w), []);
    assert.deepEqual(await membersOf(w, s), [one]);
    const row = (await w.get(`/api/adventurers/${two}`)).body;
    assert.equal(row.party_id, null);
    assert.deepEqual(row.party_history, []);
    assert.deepEqual(await mark(w), before, 'no history, no gold moved');
  });
});

describe('releasing a party member', function () {
  this.timeout(60_000);
  const { fresh } = useSagaWorlds('worldsim-party-release-');

  it('releases a member of a party at home (it leaves the party with the organization), and refuses one whose party is away on a quest (409, nothing changes)', async () => {
    const w = await fresh();
    const s = await scene(w, 2);
    const [one, two] = s.adventurers;
    expectStatus(await join(w, s, one), 200);
    expectStatus(await join(w, s, two), 200);
    expectStatus(await w.post('/api/adventurers/release', { organization_id: s.a.org.id, adventurer_id: two }, s.a.key), 200);
    assert.deepEqual(await membersOf(w, s), [one], 'it left the party');
    const party = await w.get<{ id: number; members: number[]; status: string; organization_id: number }>(`/api/parties/${s.party}`);
    expectStatus(party, 200);
    assert.deepEqual([party.body.members, party.body.status, party.body.organization_id], [[one], 'formed', s.a.org.id], 'GET /api/parties/{id} answers the party as it is');
    expectStatus(await w.get('/api/parties/99999'), 404);
    const left = (await w.get(`/api/adventurers/${two}`)).body;
    assert.equal(left.status, 'available');
    assert.equal(left.party_id, null);
    assert.deepEqual((await w.get(`/api/organizations/${s.a.org.id}`)).body.employees, [one]);
    expectStatus(await w.post('/api/adventurers/hire', { organization_id: s.a.org.id, adventurer_id: two }, s.a.key), 200); // and may be hired again

    const giver = await foundOrg(w, 'Quest Givers', 'merchant company', 'greenhollow');
    const q = await w.post('/api/quests', { title: 'Clear the fields', description: 'Something must be done about it.', requester_id: giver.org.id, location_id: 'greenhollow', reward: 40 }, giver.key);
    expectStatus(q, 201);
    expectStatus(await w.post(`/api/parties/${s.party}/dispatch`, { quest_id: q.body.id }, s.a.key), 200);
    const before = await mark(w);
    const away = await w.post('/api/adventurers/release', { organization_id: s.a.org.id, adventurer_id: one }, s.a.key);
    expectStatus(away, 409);
    assert.match(away.body.detail, new RegExp(`is away with the party "The Unbroken" on quest ${q.body.id}; it can be released once the party is back`));
    assert.deepEqual(await mark(w), before, 'nothing changed');
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/adventurers/${one}`)).body.party_id, s.party);
    assert.deepEqual(await membersOf(w, s), [one]);
  });
});

// Dispatching a party (quest -> the party's organization): the process dies at each write
// (the quest's intent, the organization's party sent, the quest's record: accepted on the
// way, then dispatched); reopened, the party is on the quest on both sides, once.
describe('dispatching a party survives a crash at every step', function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-dispatch-');
  interface Ready extends Scene { quest: number; giver: Awaited<ReturnType<typeof foundOrg>> }
  async function ready(w: TestWorld): Promise<Ready> {
    const s = await scene(w);
    expectStatus(await join(w, s, s.adventurers[0]), 200);
    const giver = await foundOrg(w, 'Quest Givers', 'merchant company', 'greenhollow');
    const q = await w.post('/api/quests', { title: 'Clear the fields', description: 'Something must be done about it.', requester_id: giver.org.id, location_id: 'greenhollow', reward: 40 }, giver.key);
    expectStatus(q, 201);
    return { ...s, quest: q.body.id, giver };
  }
  const dispatch = (w: TestWorld, s: Ready) => w.post(`/api/parties/${s.party}/dispatch`, { quest_id: s.quest }, s.a.key);
  const partyOf = async (w: TestWorld, s: Ready) => (await w.get<Array<{ id: number; status: string; quest_id: number | null }>>('/api/parties')).body.find((p) => p.id === s.party)!;

  it('crash before the quest records its intent: nothing happened, and dispatching again works', async () => {
    let w = await fresh();
    const s = await ready(w);
    failWrite(w, `quest:${s.quest}`, 'dispatch-begun');
    expectStatus(await dispatch(w, s), 503);
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await partyOf(w, s)).status, 'formed');
    assert.equal((await w.get(`/api/quests/${s.quest}`)).body.status, 'open');
    expectStatus(await dispatch(w, s), 200);
    assert.equal((await partyOf(w, s)).status, 'dispatched');
  });

  for (const [where, key, eventType] of [
    ['before the organization sends the party', 'organization', 'party-dispatched'],
    ['after the organization sent the party, before the quest records it (accepted on the way)', 'quest', 'accepted'],
  ] as const) {
    it(`crash ${where}: finished at start-up, the party on the quest once`, async () => {
      let w = await fresh();
      const s = await ready(w);
      failWrite(w, key === 'quest' ? `quest:${s.quest}` : `organization:${s.a.org.id}`, eventType);
      expectStatus(await dispatch(w, s), 503);
      assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['quest', s.quest, 'dispatch']]);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      const party = await partyOf(w, s);
      assert.equal(party.status, 'dispatched');
      assert.equal(party.quest_id, s.quest);
      const q = (await w.get(`/api/quests/${s.quest}`)).body;
      assert.equal(q.status, 'accepted');
      assert.equal(q.accepted_organization_id, s.a.org.id);
      assert.equal(q.party_id, s.party);
      assert.deepEqual(q.party_members, [s.adventurers[0]]);
      const told = (await w.get<Array<{ summary: string; data: { quest_id?: number } }>>('/api/events?category=quest&limit=100')).body.filter((e) => e.data?.quest_id === s.quest);
      assert.equal(told.filter((e) => / accepted "/.test(e.summary)).length, 1, 'accepted once');
      assert.equal(told.filter((e) => / set out on "/.test(e.summary)).length, 1, 'set out once');
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      assert.deepEqual(await mark(w), again);
      // The quest can be completed: the party comes home.
      expectStatus(await w.post(`/api/quests/${s.quest}/complete`, undefined, s.a.key), 200);
      assert.equal((await partyOf(w, s)).status, 'formed');
    });
  }

  it('a member released while the dispatch is under way: the organization refuses the changed party, and no one goes on the quest who is not in the party', async () => {
    const w = await fresh();
    const s = await scene(w, 2);
    for (const id of s.adventurers) expectStatus(await join(w, s, id), 200);
    const giver = await foundOrg(w, 'Quest Givers', 'merchant company', 'greenhollow');
    const q = await w.post('/api/quests', { title: 'Clear the fields', description: 'Something must be done about it.', requester_id: giver.org.id, location_id: 'greenhollow', reward: 40 }, giver.key);
    const r: Ready = { ...s, quest: q.body.id, giver };
    // The quest records the two members it checked; the organization's side does not happen yet.
    const stub = failWrite(w, `organization:${s.a.org.id}`, 'party-dispatched');
    expectStatus(await dispatch(w, r), 503);
    stub.restore();
    const [gone, stays] = s.adventurers;
    expectStatus(await w.post('/api/adventurers/release', { organization_id: s.a.org.id, adventurer_id: gone }, s.a.key), 200);
    // Tried again, the dispatch under way meets the changed party: refused, and undone.
    const stale = await dispatch(w, r);
    expectStatus(stale, 409);
    assert.match(stale.body.detail, /changed while it was being sent \(its members are now \d+\); dispatch it again/);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await partyOf(w, r)).status, 'formed');
    assert.equal((await w.get(`/api/quests/${r.quest}`)).body.status, 'open');
    // Sent again, it goes with the members it has.
    expectStatus(await dispatch(w, r), 200);
    const sent = (await w.get(`/api/quests/${r.quest}`)).body;
    assert.deepEqual(sent.party_members, [stays]);
    assert.deepEqual((await membersOf(w, s)), [stays]);
  });

  it('a dispatch left pending is answered with its end when the caller tries again', async () => {
    const w = await fresh();
    const s = await ready(w);
    const stub = failWrite(w, `quest:${s.quest}`, 'accepted');
    expectStatus(await dispatch(w, s), 503);
    stub.restore();
    expectStatus(await dispatch(w, s), 200);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/quests/${s.quest}`)).body.party_id, s.party);
  });
});
