// A quest's resolution (quest -> its members, its place, its organizations) stays whole
// across a crash (actors/intents.ts). The process dies at each write of the resolution:
// the quest's intent (the outcome decided, the fates drawn), each member's outcome, the
// place's monsters, each organization's settlement, the quest's own record of the end.
// The world is reopened on the same folder: the quest is resolved with the outcome first
// drawn, each member took it once, the monsters changed once, the reward was paid once.
import assert from 'assert/strict';
import sinon from 'sinon';
import { resumeIntents } from '../../actors/intents';
import type { HistoryEvent } from '../../actors/ports/store';
import { expectStatus, foundOrg } from '../support/http';
import { allEvents, assertBooks, failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

const PLACE = 'greenhollow';

interface Scene { giver: Awaited<ReturnType<typeof foundOrg>>; taker: Awaited<ReturnType<typeof foundOrg>>; members: number[]; quest: number }

async function scene(w: TestWorld): Promise<Scene> {
  const giver = await foundOrg(w, 'Quest Givers', 'merchant company', PLACE);
  const taker = await foundOrg(w, 'Quest Takers', 'adventurers band', PLACE);
  const free = (await w.get<Array<{ id: number; status: string }>>('/api/adventurers')).body.filter((a) => a.status === 'available').slice(0, 2).map((a) => a.id);
  for (const id of free) expectStatus(await w.post('/api/adventurers/hire', { organization_id: taker.org.id, adventurer_id: id }, taker.key), 200);
  const party = await w.post('/api/parties', { organization_id: taker.org.id, name: 'The Crash Survivors' }, taker.key);
  expectStatus(party, 201);
  for (const id of free) expectStatus(await w.post(`/api/parties/${party.body.id}/members`, { adventurer_id: id }, taker.key), 200);
  const q = await w.post('/api/quests', { title: 'Clear the fields', description: 'Something must be done about it.', requester_id: giver.org.id, location_id: PLACE, reward: 40 }, giver.key);
  expectStatus(q, 201);
  expectStatus(await w.post(`/api/parties/${party.body.id}/dispatch`, { quest_id: q.body.id }, taker.key), 200);
  return { giver, taker, members: free, quest: q.body.id };
}

const about = (events: HistoryEvent[], quest: number) => ({
  endured: (adventurer: number) => events.filter((e) => (e.data as any)?.quest_id === quest && (e.data as any)?.adventurer_id === adventurer).length,
  monsters: events.filter((e) => e.category === 'monsters' && (e.data as any)?.quest_id === quest).length,
  paid: (organization: number) => events.filter((e) => e.category === 'quest' && (e.data as any)?.quest_id === quest && e.summary.includes(' received '))
    .flatMap((e) => (e.data as any).ledger).filter((l: any) => l.organization_id === organization).reduce((n: number, l: any) => n + (l.gold ?? 0), 0),
  resolved: events.filter((e) => e.category === 'quest' && (e.data as any)?.quest_id === quest && / ended in /.test(e.summary)).length,
});

describe("a quest's resolution survives a crash at every step", function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-quest-');

  // The resolution of the same scene without any crash: what every crashed run must end with.
  let expected: { resolution: any; members: any[]; monsters: number; taker: number; giver: number };
  before(async () => {
    const w = await fresh();
    const s = await scene(w);
    const r = await w.post(`/api/quests/${s.quest}/complete`, undefined, s.taker.key);
    expectStatus(r, 200);
    expected = {
      resolution: r.body.resolution,
      members: await Promise.all(s.members.map(async (m) => (await w.get(`/api/adventurers/${m}`)).body)),
      monsters: (await w.get(`/api/locations/${PLACE}`)).body.monster_population,
      taker: (await w.get(`/api/organizations/${s.taker.org.id}`)).body.treasury,
      giver: (await w.get(`/api/organizations/${s.giver.org.id}`)).body.treasury,
    };
    assert.notEqual(expected.resolution.monsters_change, 0, 'the fight changes the monsters (so that step is crashed too)');
    sinon.restore();
  });

  const crashes: Array<[string, (s: Scene) => [string, string]]> = [
    ['member one takes its outcome', (s) => [`adventurer:${s.members[0]}`, 'quest-endured']],
    ['member two takes its outcome', (s) => [`adventurer:${s.members[1]}`, 'quest-endured']],
    ['the place records the monsters slain', () => [`location:${PLACE}`, 'monsters-changed']],
    ['the requester is settled', (s) => [`organization:${s.giver.org.id}`, 'quest-settled']],
    ['the acceptor is paid', (s) => [`organization:${s.taker.org.id}`, 'quest-settled']],
    ['the quest records its end', (s) => [`quest:${s.quest}`, 'resolved']],
  ];

  it('crash before the quest records its intent: nothing happened, and completing again resolves it as if nothing had', async () => {
    let w = await fresh();
    const s = await scene(w);
    const before = await mark(w);
    failWrite(w, `quest:${s.quest}`, 'closing-begun');
    expectStatus(await w.post(`/api/quests/${s.quest}/complete`, undefined, s.taker.key), 503);
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/quests/${s.quest}`)).body.status, 'accepted');
    const told = about(await allEvents(w), s.quest);
    assert.equal(told.endured(s.members[0]) + told.monsters + told.resolved, 0, 'nothing of the resolution happened');
    await assertBooks(w, before);
    const r = await w.post(`/api/quests/${s.quest}/complete`, undefined, s.taker.key);
    expectStatus(r, 200);
    assert.deepEqual(r.body.resolution, expected.resolution);
  });

  for (const [step, target] of crashes) {
    it(`crash before ${step}: finished at start-up, every step once, as first drawn`, async () => {
      let w = await fresh();
      const s = await scene(w);
      const before = await mark(w);
      const [key, eventType] = target(s);
      failWrite(w, key, eventType);
      expectStatus(await w.post(`/api/quests/${s.quest}/complete`, undefined, s.taker.key), 503);
      assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['quest', s.quest, 'resolution']], 'the resolution is pending');
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      const quest = (await w.get(`/api/quests/${s.quest}`)).body;
      assert.equal(quest.status, 'resolved');
      assert.deepEqual(quest.resolution, expected.resolution, 'the outcome first drawn');
      for (const [i, m] of s.members.entries()) {
        const a = (await w.get(`/api/adventurers/${m}`)).body;
        for (const k of ['status', 'experience', 'level', 'strength', 'quests_completed', 'injured_until', 'bonds']) assert.deepEqual(a[k], expected.members[i][k], `member ${m}: ${k}`);
      }
      assert.equal((await w.get(`/api/locations/${PLACE}`)).body.monster_population, expected.monsters, 'the monsters changed once');
      assert.equal((await w.get(`/api/organizations/${s.taker.org.id}`)).body.treasury, expected.taker, 'the acceptor was paid once');
      assert.equal((await w.get(`/api/organizations/${s.giver.org.id}`)).body.treasury, expected.giver);
      const told = about(await allEvents(w), s.quest);
      for (const m of s.members) assert.equal(told.endured(m), 1, `member ${m} took the outcome once`);
      assert.equal(told.monsters, 1);
      assert.equal(told.resolved, 1);
      assert.equal(told.paid(s.taker.org.id), expected.resolution.reward_paid);
      await assertBooks(w, before);
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      expectStatus(await w.post(`/api/quests/${s.quest}/complete`, undefined, s.taker.key), 409);
      assert.deepEqual(await mark(w), again, 'asked again, nothing changes');
    });
  }

  it('a caller retrying after the 503 gets the resolution, once', async () => {
    const w = await fresh();
    const s = await scene(w);
    const stub = failWrite(w, `quest:${s.quest}`, 'resolved');
    expectStatus(await w.post(`/api/quests/${s.quest}/complete`, undefined, s.taker.key), 503);
    stub.restore();
    const r = await w.post(`/api/quests/${s.quest}/complete`, undefined, s.taker.key);
    expectStatus(r, 200);
    assert.deepEqual(r.body.resolution, expected.resolution);
    assert.equal((await w.get(`/api/organizations/${s.taker.org.id}`)).body.treasury, expected.taker, 'paid once');
    for (const [i, m] of s.members.entries()) assert.equal((await w.get(`/api/adventurers/${m}`)).body.experience, expected.members[i].experience, `member ${m} took the outcome once`);
    assert.equal((await w.get(`/api/locations/${PLACE}`)).body.monster_population, expected.monsters, 'the monsters changed once');
  });

  it('a withdrawal cut short is finished at start-up; its funders are paid back once', async () => {
    let w = await fresh();
    const giver = await foundOrg(w, 'Quest Givers', 'merchant company', PLACE);
    const sponsor = await foundOrg(w, 'Quest Sponsors', 'merchant company', PLACE);
    const q = await w.post('/api/quests', { title: 'Clear the fields', description: 'Something must be done about it.', requester_id: giver.org.id, location_id: PLACE, reward: 40 }, giver.key);
    expectStatus(await w.post(`/api/quests/${q.body.id}/sponsors`, { organization_id: sponsor.org.id, amount: 10 }, sponsor.key), 201);
    const before = await mark(w);
    const treasuries = { giver: (await w.get(`/api/organizations/${giver.org.id}`)).body.treasury, sponsor: (await w.get(`/api/organizations/${sponsor.org.id}`)).body.treasury };
    failWrite(w, `organization:${sponsor.org.id}`, 'quest-settled');
    expectStatus(await w.post(`/api/quests/${q.body.id}/cancel`, undefined, giver.key), 503);
    assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['quest', q.body.id, 'withdrawal']]);
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await w.get(`/api/quests/${q.body.id}`)).body.status, 'withdrawn');
    assert.equal((await w.get(`/api/organizations/${giver.org.id}`)).body.treasury, treasuries.giver + 40);
    assert.equal((await w.get(`/api/organizations/${sponsor.org.id}`)).body.treasury, treasuries.sponsor + 10);
    await assertBooks(w, before);
  });
});
