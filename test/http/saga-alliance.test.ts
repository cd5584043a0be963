// An alliance's proposal (the pair's relationship -> the alliance), acceptance and end by
// a member (the alliance -> the trust of each side) stay whole across a crash
// (actors/intents.ts). The process dies at each write; the world is reopened on the same
// folder: the pair has its one alliance, and each side's trust moved once.
import assert from 'assert/strict';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

interface Pair { a: Awaited<ReturnType<typeof foundOrg>>; b: Awaited<ReturnType<typeof foundOrg>>; key: string }

async function pair(w: TestWorld): Promise<Pair> {
  const a = await foundOrg(w, 'Eastern Guard', 'merchant company', 'emberfall');
  const b = await foundOrg(w, 'Western Watch', 'merchant company', 'emberfall');
  return { a, b, key: `${Math.min(a.org.id, b.org.id)}-${Math.max(a.org.id, b.org.id)}` };
}

const propose = (w: TestWorld, p: Pair) => w.call('POST', '/api/alliances', { key: p.a.key, body: { proposer_id: p.a.org.id, counterparty_id: p.b.org.id, terms: 'We stand together on the roads.' } });
const alliancesOf = async (w: TestWorld, p: Pair) => (await w.get<Array<{ id: number; proposer_id: number; counterparty_id: number; status: string }>>('/api/alliances')).body
  .filter((x) => x.proposer_id === p.a.org.id && x.counterparty_id === p.b.org.id);
const trust = async (w: TestWorld, of: number, toward: number) => (await w.get(`/api/organizations/${of}`)).body.trust[String(toward)] ?? 0;

describe("an alliance's proposal, acceptance and end survive a crash at every step", function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-alliance-');

  describe('proposal', () => {
    it('crash before the relationship records its intent: nothing happened, and proposing again works', async () => {
      let w = await fresh();
      const p = await pair(w);
      failWrite(w, `relationship:${p.key}`, 'alliance-opening');
      expectStatus(await propose(w, p), 503);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      assert.deepEqual(await alliancesOf(w, p), []);
      expectStatus(await propose(w, p), 201);
    });

    for (const [where, kind, eventType] of [
      ['before the alliance records itself', 'alliance', 'proposed'],
      ['after the alliance recorded itself, before the relationship records it', 'relationship', 'alliance-opened'],
    ] as const) {
      it(`crash ${where}: finished at start-up, one alliance for the pair`, async () => {
        let w = await fresh();
        const p = await pair(w);
        const id = (await w.services.store.nextId('alliance')) + 1;
        failWrite(w, kind === 'alliance' ? `alliance:${id}` : `relationship:${p.key}`, eventType);
        expectStatus(await propose(w, p), 503);
        assert.deepEqual((await pendingIntents(w)).map((x) => [x.kind, x.id, x.intent]), [['relationship', p.key, 'proposal']]);
        w = await restart(w);
        assert.deepEqual(await pendingIntents(w), []);
        assert.deepEqual((await alliancesOf(w, p)).map((x) => [x.id, x.status]), [[id, 'proposed']]);
        const again = await mark(w);
        assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
        assert.deepEqual(await mark(w), again);
        const second = await propose(w, p);
        expectStatus(second, 409);
        assert.match(second.body.detail, /already have a proposed alliance/);
      });
    }
  });

  for (const change of ['accept', 'end'] as const) {
    describe(change === 'accept' ? 'acceptance' : 'end by a member', () => {
      /** A proposed alliance (accepted too, when it is to be ended). */
      async function ready(w: TestWorld) {
        const p = await pair(w);
        const r = await propose(w, p);
        expectStatus(r, 201);
        if (change === 'end') expectStatus(await w.post(`/api/alliances/${r.body.id}/accept`, { organization_id: p.b.org.id }, p.b.key), 200);
        return { ...p, alliance: r.body.id as number };
      }
      const act = (w: TestWorld, s: Awaited<ReturnType<typeof ready>>) => w.post(`/api/alliances/${s.alliance}/${change}`, { organization_id: s.b.org.id }, s.b.key);
      const expectedTrust = change === 'accept' ? 10 : 0; // +10 on acceptance, -10 on an end the same day
      const status = change === 'accept' ? 'active' : 'ended';

      const crashes: Array<[string, (s: Awaited<ReturnType<typeof ready>>) => [string, string, number]]> = [
        ['the alliance records its intent', (s) => [`alliance:${s.alliance}`, 'change-begun', 0]],
        ["the proposer's trust moves", (s) => [`organization:${s.a.org.id}`, 'transferred', 0]],
        ["the counterparty's trust moves", (s) => [`organization:${s.b.org.id}`, 'transferred', 0]],
        [`the alliance records it ${change === 'accept' ? 'is accepted' : 'ended'}`, (s) => [`alliance:${s.alliance}`, change === 'accept' ? 'accepted' : 'ended', 0]],
      ];
      for (const [step, target] of crashes) {
        const before = step.includes('intent');
        it(`crash before ${step}: ${before ? 'nothing happened, and doing it again works' : 'finished at start-up, trust moved once on each side'}`, async () => {
          let w = await fresh();
          const s = await ready(w);
          const [key, type, skip] = target(s);
          failWrite(w, key, type, skip);
          expectStatus(await act(w, s), 503);
          w = await restart(w);
          assert.deepEqual(await pendingIntents(w), []);
          if (before) {
            assert.equal((await alliancesOf(w, s))[0].status, change === 'accept' ? 'proposed' : 'active');
            expectStatus(await act(w, s), 200);
          }
          assert.equal((await alliancesOf(w, s))[0].status, status);
          assert.equal(await trust(w, s.a.org.id, s.b.org.id), expectedTrust, 'the proposer\'s trust moved once');
          assert.equal(await trust(w, s.b.org.id, s.a.org.id), expectedTrust, 'the counterparty\'s trust moved once');
          const again = await mark(w);
          assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
          expectStatus(await act(w, s), 409);
          assert.deepEqual(await mark(w), again, 'asked again, nothing changes');
        });
      }
    });
  }
});
