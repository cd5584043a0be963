// A quest's return of an ended sponsor's pledge (quest -> the sponsor) stays whole across
// a crash (actors/intents.ts). An organization that pledged gold to another's quest is
// dissolved; the process dies at each write of the return: the quest's intent, the
// sponsor's settlement, the quest's record. The world is reopened on the same folder: the
// pledge went back once and the quest no longer holds it. Cut short without a restart,
// the quest finishes the return before anything else, so its withdrawal pays nobody twice.
import assert from 'assert/strict';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { allEvents, assertBooks, failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

interface Scene { a: Awaited<ReturnType<typeof foundOrg>>; b: Awaited<ReturnType<typeof foundOrg>>; quest: number }

const REWARD = 20;
const PLEDGE = 5;

async function scene(w: TestWorld): Promise<Scene> {
  const a = await foundOrg(w, 'Generous Sponsors', 'merchant company', 'emberfall');
  const b = await foundOrg(w, 'Quest Posters', 'merchant company', 'emberfall');
  const q = await w.post('/api/quests', { title: 'Trouble in town', description: 'Something must be done about it.', requester_id: b.org.id, location_id: 'emberfall', reward: REWARD }, b.key);
  expectStatus(q, 201);
  expectStatus(await w.post(`/api/quests/${q.body.id}/sponsors`, { organization_id: a.org.id, amount: PLEDGE }, a.key), 201);
  return { a, b, quest: q.body.id };
}

/** The gold quest `quest` paid to organization `to`, by its history's ledger. */
async function paidTo(w: TestWorld, quest: number, to: number): Promise<number> {
  return (await allEvents(w))
    .filter((e) => e.category === 'quest' && (e.data as { quest_id?: number })?.quest_id === quest && e.summary.includes(' received '))
    .flatMap((e) => (e.data as { ledger: Array<{ organization_id: number; gold?: number }> }).ledger)
    .filter((l) => l.organization_id === to).reduce((n, l) => n + (l.gold ?? 0), 0);
}

describe("a quest's return of an ended sponsor's pledge survives a crash at every step", function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-pledge-');
  const dissolve = (w: TestWorld, s: Scene) => w.post(`/api/organizations/${s.a.org.id}/dissolve`, undefined, s.a.key);

  async function assertReturned(w: TestWorld, s: Scene) {
    assert.deepEqual(await pendingIntents(w), []);
    const q = (await w.get(`/api/quests/${s.quest}`)).body;
    assert.equal(q.status, 'open');
    assert.deepEqual(q.sponsors, [], 'the quest no longer holds the pledge');
    assert.equal(q.reward, REWARD);
    assert.equal(await paidTo(w, s.quest, s.a.org.id), PLEDGE, 'the pledge went back once');
    // The history names the sponsor and the quest, whichever step the crash cut short.
    const told = (await allEvents(w)).filter((e) => (e.data as { quest_id?: number })?.quest_id === s.quest).map((e) => e.summary);
    assert.ok(told.includes(`Generous Sponsors pledged ${PLEDGE} gold to "Trouble in town"; the reward is now ${REWARD + PLEDGE}`), told.join('\n'));
    assert.ok(told.includes(`Generous Sponsors set aside ${PLEDGE} gold for its pledge to "Trouble in town"`), told.join('\n'));
    assert.ok(told.includes(`Generous Sponsors received ${PLEDGE} gold from "Trouble in town" (pledge returned)`), told.join('\n'));
    assert.ok(told.includes(`The ${PLEDGE} gold Generous Sponsors pledged to "Trouble in town" went back to it as it ended; the reward is now ${REWARD}`), told.join('\n'));
    const a = (await w.get(`/api/organizations/${s.a.org.id}`)).body;
    assert.equal(a.status, 'dissolved');
    assert.equal(a.treasury, 0, 'and passed to the world with the rest of the estate');
  }

  const crashes: Array<[string, (s: Scene) => [string, string]]> = [
    ['the quest records its intent', (s) => [`quest:${s.quest}`, 'pledge-return-begun']],
    ['the sponsor takes its pledge back', (s) => [`organization:${s.a.org.id}`, 'quest-settled']],
    ['the quest records the return', (s) => [`quest:${s.quest}`, 'sponsorship-refunded']],
  ];
  for (const [step, target] of crashes) {
    it(`crash before ${step}: finished at start-up, the pledge returned once`, async () => {
      let w = await fresh();
      const s = await scene(w);
      const before = await mark(w);
      const [key, type] = target(s);
      failWrite(w, key, type);
      expectStatus(await dissolve(w, s), 200);
      const pending = (await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]);
      assert.deepEqual(pending, type === 'pledge-return-begun'
        ? [['organization', s.a.org.id, 'ending']]
        : [['organization', s.a.org.id, 'ending'], ['quest', s.quest, 'pledge-return']]);
      w = await restart(w);
      await assertReturned(w, s);
      await assertBooks(w, before);
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      assert.deepEqual(await mark(w), again, 'run again, nothing changes');
    });
  }

  it('cut short without a restart: the quest finishes the return before its withdrawal, which then pays its requester alone', async () => {
    const w = await fresh();
    const s = await scene(w);
    const before = await mark(w);
    const stub = failWrite(w, `quest:${s.quest}`, 'sponsorship-refunded');
    expectStatus(await dissolve(w, s), 200);
    stub.restore();
    assert.equal(await paidTo(w, s.quest, s.a.org.id), PLEDGE, 'the sponsor has its pledge back');
    assert.equal((await w.get(`/api/quests/${s.quest}`)).body.reward, REWARD + PLEDGE, 'the quest has not recorded it yet');
    const bTreasury = (await w.get(`/api/organizations/${s.b.org.id}`)).body.treasury;
    expectStatus(await w.post(`/api/quests/${s.quest}/cancel`, undefined, s.b.key), 200);
    assert.equal((await w.get(`/api/quests/${s.quest}`)).body.status, 'withdrawn');
    assert.equal(await paidTo(w, s.quest, s.a.org.id), PLEDGE, 'the pledge went back once, not again with the withdrawal');
    assert.equal((await w.get(`/api/organizations/${s.b.org.id}`)).body.treasury, bTreasury + REWARD);
    await w.tick(); // the organization's end is followed up
    assert.deepEqual(await pendingIntents(w), []);
    await assertBooks(w, before);
  });
});
