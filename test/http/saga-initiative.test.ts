// The world's initiative (the seeded quest board, a newcomer) is taken once per day, also
// when a crash cuts it short (actors/clock/daily.ts). A world where adventurers are scarce
// lives to day 3; on day 4 two seeded organizations post quests and a newcomer arrives.
// The process dies at each write of that initiative (each posting's intent, the
// requester's reward set aside, the quest posted, the second posting, the newcomer) and
// before the initiative is recorded. The world is reopened on the same folder, settles
// day 4 again, and its initiative is what a day without a crash brings: each seeded
// organization posted what it would have, once, one newcomer arrived, and no gold was
// set aside for nothing.
import assert from 'assert/strict';
import sinon from 'sinon';
import type { HistoryEvent } from '../../actors/ports/store';
import { resumeIntents } from '../../actors/intents';
import { StoreSettlements } from '../../infra/clock/store-settlements';
import { ShardSettlements } from '../../infra/cluster/shard-settlements';
import { expectStatus, foundOrg } from '../support/http';
import { allEvents, assertBooks, dieAtWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

const DAY = 4;

/** Adventurers made scarce (so that newcomers arrive), then days 2 and 3. */
async function scene(w: TestWorld): Promise<void> {
  const free = (await w.get<Array<{ id: number; status: string }>>('/api/adventurers')).body.filter((x) => x.status === 'available').slice(0, 40);
  // Ten to an employer: its gold pays their hiring fees and keeps their upkeep to day 4.
  for (let i = 0; i < free.length; i += 10) {
    const employer = await foundOrg(w, `Big Employer ${i / 10 + 1}`, 'adventurers band', 'emberfall');
    for (const x of free.slice(i, i + 10)) expectStatus(await w.post('/api/adventurers/hire', { organization_id: employer.org.id, adventurer_id: x.id }, employer.key), 200);
  }
  while (await w.tick() < DAY - 1);
}

/** What the day's initiative brought, by its history: each seeded posting (requester, title, reward) and the newcomers. */
async function initiativeOf(w: TestWorld, day: number): Promise<{ postings: string[]; newcomers: number }> {
  const events = (await allEvents(w)).filter((e: HistoryEvent) => e.day === day);
  const postings: string[] = [];
  for (const e of events.filter((x) => x.category === 'quest' && / posted "/.test(x.summary) && x.agent_id === null)) {
    const q = (await w.get(`/api/quests/${(e.data as { quest_id: number }).quest_id}`)).body;
    postings.push(`${q.requester_id}: ${q.title} (${q.reward})`);
  }
  return { postings: postings.sort(), newcomers: events.filter((e) => / arrived looking for work /.test(e.summary)).length };
}

describe("the world's initiative survives a crash at every step", function () {
  this.timeout(180_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-initiative-', { oneNode: true });
  let expected: { postings: string[]; newcomers: number } | null = null;

  it(`without a crash: day ${DAY} brings two seeded quests and a newcomer`, async () => {
    const w = await fresh();
    await scene(w);
    assert.equal(await w.tick(), DAY);
    expected = await initiativeOf(w, DAY);
    assert.equal(expected.postings.length, 2, JSON.stringify(expected));
    assert.notEqual(expected.postings[0].split(':')[0], expected.postings[1].split(':')[0], 'two organizations');
    assert.equal(expected.newcomers, 1);
  });

  const crashes: Array<[string, ((key: string, type: string | undefined) => boolean) | null, number]> = [
    ['the first posting records its intent', (key, type) => key.startsWith('quest:') && type === 'reservation-begun', 0],
    ['the first requester sets its reward aside', (key, type) => key.startsWith('organization:') && type === 'gold-reserved', 0],
    ['the first quest records it is posted', (key, type) => key.startsWith('quest:') && type === 'posted', 0],
    ['the second posting records its intent', (key, type) => key.startsWith('quest:') && type === 'reservation-begun', 1],
    ['the second quest records it is posted', (key, type) => key.startsWith('quest:') && type === 'posted', 1],
    ['the newcomer arrives', (key, type) => key.startsWith('adventurer:') && type === 'appeared', 0],
    ["the initiative is recorded", null, 0],
  ];
  for (const [step, at, skip] of crashes) {
    it(`crash before ${step}: day ${DAY} is settled again at start-up, its initiative taken once`, async () => {
      assert.ok(expected, 'the day without a crash ran first');
      let w = await fresh();
      await scene(w);
      const before = await mark(w);
      // From the crash on, nothing reaches the disk: neither the actors' writes nor the settler's record of the day.
      let killed = false;
      const diedAtWrite = at ? dieAtWrite(w, at, skip) : () => false;
      const dead = () => killed || diedAtWrite();
      // The settlements live in the store's settings (one settler on one node, a settler per
      // shard on Kafka: infra/cluster/shard-settlements.ts); the initiative's record is the last write.
      for (const node of w.nodes) {
        const store = node.services.store;
        const setSetting = store.setSetting.bind(store);
        sinon.stub(store, 'setSetting').callsFake((name: string, value: string) => {
          if (name === 'initiative_day' && !at) killed = true;
          const settling = name === 'initiative_day' || name.startsWith('settled_day:');
          return settling && dead() ? Promise.reject(new Error('injected crash')) : setSetting(name, value);
        });
      }
      // The clock is answered (the tick returns) rather than left waiting for a day a dead process cannot settle.
      for (const settlements of [StoreSettlements.prototype, ShardSettlements.prototype] as Array<{ waitFor(day: number, ms: number): Promise<void> }>) {
        const waitFor = settlements.waitFor;
        sinon.stub(settlements, 'waitFor').callsFake(function (this: unknown, day: number, ms: number) {
          return new Promise<void>((resolve, reject) => {
            const watch = setInterval(() => { if (dead()) { clearInterval(watch); resolve(); } }, 50);
            waitFor.call(this, day, ms).then(() => { clearInterval(watch); resolve(); }, (e) => { clearInterval(watch); reject(e); });
          });
        });
      }
      assert.equal(await w.tick(), DAY);
      assert.ok(dead(), 'the process died during the initiative');
      w = await restart(w, true);
      assert.equal((await w.get('/api/world')).body.day, DAY);
      assert.deepEqual(await initiativeOf(w, DAY), expected, 'the initiative is what a day without a crash brings');
      assert.deepEqual(await pendingIntents(w), []);
      await assertBooks(w, before);
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      assert.deepEqual(await mark(w), again);
    });
  }
});
