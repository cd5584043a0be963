// Posting a quest (quest -> its requester) and sponsoring one (quest -> the sponsor) stay
// whole across a crash (actors/intents.ts). The process dies at each write: the quest's
// intent, the organization's gold set aside, the quest's record. The world is reopened on
// the same folder: the quest is posted (or sponsored) and backed by gold set aside once,
// or nothing happened at all when the intent was never recorded. An organization that
// refuses after the intent leaves nothing behind.
import assert from 'assert/strict';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { assertBooks, failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

const questBody = (requester: number, reward: number) => ({
  title: 'Trouble in town', description: 'Something must be done about it.', requester_id: requester, location_id: 'emberfall', reward,
});

describe('posting and sponsoring a quest survive a crash at every step', function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-posting-');
  const treasuryOf = async (w: TestWorld, id: number) => (await w.get(`/api/organizations/${id}`)).body.treasury;
  const reservations = async (w: TestWorld, orgId: number, quest: number) =>
    (await w.get<Array<{ data: { quest_id?: number }; summary: string }>>(`/api/events?organization_id=${orgId}&category=quest&limit=100`)).body
      .filter((e) => e.data?.quest_id === quest && e.summary.includes('set aside')).length;

  describe('posting', () => {
    it('crash before the quest records its intent: nothing happened, and posting again works', async () => {
      let w = await fresh();
      const a = await foundOrg(w, 'Quest Posters', 'merchant company', 'emberfall');
      const before = { treasury: await treasuryOf(w, a.org.id), books: await mark(w) };
      const id = (await w.services.store.nextId('quest')) + 1;
      failWrite(w, `quest:${id}`, 'reservation-begun');
      expectStatus(await w.post('/api/quests', questBody(a.org.id, 30), a.key), 503);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      expectStatus(await w.get(`/api/quests/${id}`), 404);
      assert.equal(await treasuryOf(w, a.org.id), before.treasury);
      await assertBooks(w, before.books);
      expectStatus(await w.post('/api/quests', questBody(a.org.id, 30), a.key), 201);
    });

    for (const [where, key, eventType] of [
      ['before the requester sets the reward aside', 'organization', 'gold-reserved'],
      ['after the requester set the reward aside, before the quest records it is posted', 'quest', 'posted'],
    ] as const) {
      it(`crash ${where}: finished at start-up, the reward set aside once`, async () => {
        let w = await fresh();
        const a = await foundOrg(w, 'Quest Posters', 'merchant company', 'emberfall');
        const before = { treasury: await treasuryOf(w, a.org.id), books: await mark(w) };
        const id = (await w.services.store.nextId('quest')) + 1;
        failWrite(w, key === 'quest' ? `quest:${id}` : `organization:${a.org.id}`, eventType);
        expectStatus(await w.post('/api/quests', questBody(a.org.id, 30), a.key), 503);
        assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['quest', id, 'posting']]);
        expectStatus(await w.get(`/api/quests/${id}`), 404); // not listed while it is being posted
        w = await restart(w);
        assert.deepEqual(await pendingIntents(w), []);
        const q = (await w.get(`/api/quests/${id}`)).body;
        assert.equal(q.status, 'open');
        assert.equal(q.reward, 30);
        assert.equal(await treasuryOf(w, a.org.id), before.treasury - 30);
        assert.equal(await reservations(w, a.org.id, id), 1, 'set aside once');
        await assertBooks(w, before.books);
        const again = await mark(w);
        assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
        assert.deepEqual(await mark(w), again);
      });
    }

    it('a requester that refuses after the intent (too little gold) undoes it and answers as before', async () => {
      const w = await fresh();
      const a = await foundOrg(w, 'Quest Posters', 'merchant company', 'emberfall');
      const before = await mark(w);
      const id = (await w.services.store.nextId('quest')) + 1;
      const r = await w.post('/api/quests', questBody(a.org.id, 1_000_000), a.key);
      expectStatus(r, 409);
      assert.match(r.body.detail, /must be backed by the treasury/);
      assert.deepEqual(await pendingIntents(w), []);
      expectStatus(await w.get(`/api/quests/${id}`), 404);
      assert.deepEqual(await mark(w), before, 'no history, no gold moved');
    });
  });

  describe('sponsoring', () => {
    async function scene(w: TestWorld) {
      const a = await foundOrg(w, 'Quest Posters', 'merchant company', 'emberfall');
      const b = await foundOrg(w, 'Kind Sponsors', 'merchant company', 'emberfall');
      const q = await w.post('/api/quests', questBody(a.org.id, 30), a.key);
      expectStatus(q, 201);
      return { a, b, quest: q.body.id as number };
    }
    const sponsor = (w: TestWorld, s: Awaited<ReturnType<typeof scene>>, amount = 10) => w.post(`/api/quests/${s.quest}/sponsors`, { organization_id: s.b.org.id, amount }, s.b.key);

    for (const [where, target, eventType] of [
      ['before the quest records its intent', 'quest', 'reservation-begun'],
      ['before the sponsor sets its pledge aside', 'organization', 'gold-reserved'],
      ['after the sponsor set its pledge aside, before the quest records it', 'quest', 'sponsored'],
    ] as const) {
      it(`crash ${where}: ${eventType === 'reservation-begun' ? 'nothing happened' : 'finished at start-up, the pledge set aside once'}`, async () => {
        let w = await fresh();
        const s = await scene(w);
        const before = { treasury: await treasuryOf(w, s.b.org.id), books: await mark(w) };
        failWrite(w, target === 'quest' ? `quest:${s.quest}` : `organization:${s.b.org.id}`, eventType);
        expectStatus(await sponsor(w, s), 503);
        w = await restart(w);
        assert.deepEqual(await pendingIntents(w), []);
        const q = (await w.get(`/api/quests/${s.quest}`)).body;
        if (eventType === 'reservation-begun') {
          assert.deepEqual(q.sponsors, []);
          assert.equal(await treasuryOf(w, s.b.org.id), before.treasury);
        } else {
          assert.deepEqual(q.sponsors, [{ organization_id: s.b.org.id, amount: 10 }]);
          assert.equal(q.reward, 40);
          assert.equal(await treasuryOf(w, s.b.org.id), before.treasury - 10);
          assert.equal(await reservations(w, s.b.org.id, s.quest), 1, 'set aside once');
        }
        await assertBooks(w, before.books);
        const again = await mark(w);
        assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
        assert.deepEqual(await mark(w), again);
      });
    }

    it('a sponsorship left pending is finished by the next command to the quest (a cancel then pays it back)', async () => {
      const w = await fresh();
      const s = await scene(w);
      const before = { treasury: await treasuryOf(w, s.b.org.id), books: await mark(w) };
      const stub = failWrite(w, `quest:${s.quest}`, 'sponsored');
      expectStatus(await sponsor(w, s), 503);
      stub.restore();
      assert.equal(await treasuryOf(w, s.b.org.id), before.treasury - 10, 'the pledge is set aside');
      expectStatus(await w.post(`/api/quests/${s.quest}/cancel`, undefined, s.a.key), 200);
      assert.deepEqual(await pendingIntents(w), []);
      assert.equal(await treasuryOf(w, s.b.org.id), before.treasury, 'and paid back by the withdrawal');
      await assertBooks(w, before.books);
    });

    it('a sponsor that refuses after the intent (too little gold) undoes it and answers as before', async () => {
      const w = await fresh();
      const s = await scene(w);
      const before = await mark(w);
      const r = await sponsor(w, s, 1_000_000);
      expectStatus(r, 409);
      assert.deepEqual(await pendingIntents(w), []);
      assert.deepEqual((await w.get(`/api/quests/${s.quest}`)).body.sponsors, []);
      assert.deepEqual(await mark(w), before);
      expectStatus(await sponsor(w, s), 201);
    });
  });
});
