// Founding (agent -> organization) and hiring or release (adventurer -> organization)
// stay whole across a crash (actors/intents.ts). The process dies at each write of the
// action: the initiating actor's intent, the organization's side, the initiating actor's
// record of the end. The world is reopened on the same folder (or the next tick comes):
// the action is whole, or wholly undone when it never began; the founding grant is
// granted once and nobody is hired twice.
import assert from 'assert/strict';
import sinon from 'sinon';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { assertBooks, failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

const INTERNAL = /read the current state before trying again/;

describe('founding and hiring survive a crash at every step', function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-');
  const foundingsOf = async (w: TestWorld, orgId: number) =>
    (await w.get<Array<{ summary: string }>>(`/api/events?organization_id=${orgId}&category=organization&limit=100`)).body.filter((e) => / was founded at /.test(e.summary));

  describe('founding an organization', () => {
    const body = { name: 'Crash-Proof Company', kind: 'merchant company', location_id: 'emberfall' };

    it('crash before the agent records its intent: nothing happened, and founding again works', async () => {
      let w = await fresh();
      const agent = await w.register('Founder Zero');
      const before = await mark(w);
      failWrite(w, `agent:${agent.id}`, 'founding-begun');
      const r = await w.post('/api/organizations', body, agent.key);
      expectStatus(r, 503);
      assert.match(r.body.detail, INTERNAL);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      assert.deepEqual(await w.services.read.list('organizationsOfAgent', agent.id), [], 'no organization exists');
      assert.equal((await w.get('/api/agents/me', agent.key)).body.current_organization_id, null);
      await assertBooks(w, before);
      expectStatus(await w.post('/api/organizations', body, agent.key), 201);
    });

    for (const [where, key, eventType] of [
      ['before the organization records itself', 'organization', 'founded'],
      ['after the organization recorded itself, before the agent records it', 'agent', 'organization-founded'],
    ] as const) {
      it(`crash ${where}: finished at start-up, granted once`, async () => {
        let w = await fresh();
        const agent = await w.register('Founder One');
        const before = await mark(w);
        const id = (await w.services.store.nextId('organization')) + 1; // the id the founding will take
        failWrite(w, key === 'agent' ? `agent:${agent.id}` : `organization:${id}`, eventType);
        const r = await w.post('/api/organizations', body, agent.key);
        expectStatus(r, 503);
        assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['agent', agent.id, 'founding']], 'the founding is pending');
        w = await restart(w);
        assert.deepEqual(await pendingIntents(w), []);
        const me = (await w.get('/api/agents/me', agent.key)).body;
        assert.equal(me.current_organization_id, id, 'the agent lists the organization');
        assert.deepEqual(me.organization_ids, [id]);
        const org = (await w.get(`/api/organizations/${id}`)).body;
        assert.equal(org.status, 'active');
        assert.equal(org.agent_id, agent.id);
        assert.equal((await foundingsOf(w, id)).length, 1, 'founded once');
        await assertBooks(w, before);
        // Again: nothing changes.
        const again = await mark(w);
        assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
        assert.deepEqual(await mark(w), again);
        // The agent controls it: founding another is refused as it always was.
        expectStatus(await w.post('/api/organizations', { ...body, name: 'A Second Company' }, agent.key), 409);
      });
    }

    it('a founding left pending is finished by the next tick, or by the agent\'s next founding (then refused: it controls one)', async () => {
      const w = await fresh();
      const one = await w.register('Founder Tick');
      const two = await w.register('Founder Again');
      const firstId = (await w.services.store.nextId('organization')) + 1;
      const stub = failWrite(w, `agent:${one.id}`, 'organization-founded');
      expectStatus(await w.post('/api/organizations', body, one.key), 503);
      stub.restore();
      const stub2 = failWrite(w, `agent:${two.id}`, 'organization-founded');
      expectStatus(await w.post('/api/organizations', { ...body, name: 'Second Try Company' }, two.key), 503);
      stub2.restore();
      assert.equal((await pendingIntents(w)).length, 2);
      // The second agent founds again before any tick: its pending founding is finished first.
      const r = await w.post('/api/organizations', { ...body, name: 'Third Try Company' }, two.key);
      expectStatus(r, 409);
      assert.match(r.body.detail, /already controls active organization/);
      assert.equal((await w.get('/api/agents/me', two.key)).body.current_organization_id, firstId + 1);
      await w.tick();
      assert.deepEqual(await pendingIntents(w), []);
      assert.equal((await w.get('/api/agents/me', one.key)).body.current_organization_id, firstId);
      assert.equal((await foundingsOf(w, firstId)).length, 1);
      assert.equal((await foundingsOf(w, firstId + 1)).length, 1);
    });
  });

  describe('hiring and releasing an adventurer', () => {
    const available = async (w: TestWorld) => (await w.get<Array<{ id: number; status: string }>>('/api/adventurers')).body.find((a) => a.status === 'available')!.id;

    it('crash before the adventurer records its intent: nothing happened, and hiring again works', async () => {
      let w = await fresh();
      const a = await foundOrg(w, 'Hiring House', 'merchant company', 'emberfall');
      const adv = await available(w);
      failWrite(w, `adventurer:${adv}`, 'employment-begun');
      expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: adv }, a.key), 503);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      assert.equal((await w.get(`/api/adventurers/${adv}`)).body.status, 'available');
      assert.deepEqual((await w.get(`/api/organizations/${a.org.id}`)).body.employees, []);
      expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: adv }, a.key), 200);
    });

    for (const change of ['hire', 'release'] as const) {
      for (const [where, key, eventType] of [
        ['before the organization records it', 'organization', change === 'hire' ? 'adventurer-employed' : 'adventurer-left'],
        ['after the organization recorded it, before the adventurer does', 'adventurer', change === 'hire' ? 'hired' : 'released'],
      ] as const) {
        it(`${change}, crash ${where}: finished at start-up, once on both sides`, async () => {
          let w = await fresh();
          const a = await foundOrg(w, 'Hiring House', 'merchant company', 'emberfall');
          const adv = await available(w);
          if (change === 'release') expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: adv }, a.key), 200);
          const before = await mark(w);
          failWrite(w, key === 'adventurer' ? `adventurer:${adv}` : `organization:${a.org.id}`, eventType);
          expectStatus(await w.post(`/api/adventurers/${change}`, { organization_id: a.org.id, adventurer_id: adv }, a.key), 503);
          assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['adventurer', adv, change]]);
          w = await restart(w);
          assert.deepEqual(await pendingIntents(w), []);
          const row = (await w.get(`/api/adventurers/${adv}`)).body;
          const org = (await w.get(`/api/organizations/${a.org.id}`)).body;
          if (change === 'hire') {
            assert.equal(row.status, 'employed');
            assert.equal(row.organization_id, a.org.id);
            assert.deepEqual(org.employees, [adv], 'employed once');
          } else {
            assert.equal(row.status, 'available');
            assert.deepEqual(org.employees, []);
          }
          const told = (await w.get<Array<{ summary: string }>>(`/api/events?category=adventurer&organization_id=${a.org.id}&limit=100`)).body
            .filter((e) => e.summary.includes(change === 'hire' ? 'was hired by' : ' left '));
          assert.equal(told.length, 1, 'the history tells it once');
          await assertBooks(w, before);
          const again = await mark(w);
          assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
          assert.deepEqual(await mark(w), again);
          assert.deepEqual((await w.get(`/api/organizations/${a.org.id}`)).body.employees, change === 'hire' ? [adv] : []);
        });
      }
    }

    it('a refusal by the organization undoes the intent and answers as before', async () => {
      const w = await fresh();
      const a = await foundOrg(w, 'Hiring House', 'merchant company', 'emberfall');
      const adv = await available(w);
      expectStatus(await w.post(`/api/organizations/${a.org.id}/dissolve`, undefined, a.key), 200);
      const r = await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: adv }, a.key);
      expectStatus(r, 409);
      assert.deepEqual(await pendingIntents(w), []);
      assert.equal((await w.get(`/api/adventurers/${adv}`)).body.status, 'available');
    });
  });
});
