// Retirement (agent -> organization) stays whole across a crash, and nothing the key asked
// for lands after it (actors/agent/actor.ts). The agent records its intent, its
// organization marks it (and takes none of its commands after that), then the agent
// records its retirement. The process dies at each of those writes; the world is reopened
// on the same folder (or the next tick comes, or the agent asks again): the agent is
// retired once, its organization remains and refuses its key.
import assert from 'assert/strict';
import sinon from 'sinon';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { allEvents, assertBooks, failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

const reason = 'My story in this world is told; thank you all.';
const RETIRED = /this agent has retired/;
const ADMIN = 'test-admin-key'; // test/support/world.ts

describe('retirement survives a crash at every step, and takes effect in its organization first', function () {
  this.timeout(120_000);

  describe('a crash at each step', () => {
    const { fresh, restart } = useSagaWorlds('worldsim-saga-retire-');
    const departures = async (w: TestWorld, agentId: number) =>
      (await w.call<Array<{ agent_id: number }>>('GET', '/api/agent-departures', { admin: ADMIN })).body.filter((d) => d.agent_id === agentId);
    const retirements = async (w: TestWorld, agentId: number) =>
      (await allEvents(w)).filter((e) => e.category === 'agent' && e.agent_id === agentId && / retired from the world$/.test(e.summary));

    it('crash before the agent records its intent: nothing happened, the key still acts, and retiring again works', async () => {
      let w = await fresh();
      const a = await foundOrg(w, 'Lingering Company');
      failWrite(w, `agent:${a.agentId}`, 'retirement-begun');
      expectStatus(await w.post('/api/agents/retire', { reason }, a.key), 503);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      assert.equal((await w.get('/api/agents/me', a.key)).body.status, 'active');
      expectStatus(await w.post('/api/workers/hire', { organization_id: a.org.id, quantity: 1 }, a.key), 200);
      expectStatus(await w.post('/api/agents/retire', { reason }, a.key), 200);
      assert.equal((await retirements(w, a.agentId)).length, 1);
    });

    for (const [where, key, eventType] of [
      ['before the organization marks the agent', 'organization', 'controller-retired'],
      ['after the organization marked the agent, before the agent records it', 'agent', 'retired'],
    ] as const) {
      it(`crash ${where}: finished at start-up, retired once, the organization remains and refuses the key`, async () => {
        let w = await fresh();
        const a = await foundOrg(w, 'Closing Company');
        const before = await mark(w);
        failWrite(w, key === 'agent' ? `agent:${a.agentId}` : `organization:${a.org.id}`, eventType);
        expectStatus(await w.post('/api/agents/retire', { reason }, a.key), 503);
        assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['agent', a.agentId, 'retirement']], 'the retirement is pending');
        if (key === 'agent') {
          // Not yet retired on record, but its organization already takes nothing of it.
          const r = await w.post('/api/workers/hire', { organization_id: a.org.id, quantity: 1 }, a.key);
          expectStatus(r, 403);
          assert.match(r.body.detail, RETIRED);
        }
        w = await restart(w);
        assert.deepEqual(await pendingIntents(w), []);
        const me = (await w.get('/api/agents/me', a.key)).body;
        assert.equal(me.status, 'retired');
        assert.equal(me.current_organization_id, a.org.id);
        assert.equal((await w.get(`/api/organizations/${a.org.id}`)).body.status, 'active', 'organizations remain (core rule 25)');
        expectStatus(await w.post('/api/workers/hire', { organization_id: a.org.id, quantity: 1 }, a.key), 403);
        assert.equal((await retirements(w, a.agentId)).length, 1, 'the history tells it once');
        assert.equal((await departures(w, a.agentId)).length, 1, 'the operator reads the reason once');
        await assertBooks(w, before);
        const again = await mark(w);
        assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
        assert.deepEqual(await mark(w), again);
      });
    }

    it('a retirement left pending is finished by the next tick, or by the agent\'s next request (retire answers it, founding is refused)', async () => {
      const w = await fresh();
      const one = await foundOrg(w, 'Tick Finishes');
      const two = await foundOrg(w, 'Retire Finishes');
      const three = await foundOrg(w, 'Founding Finishes');
      for (const a of [one, two, three]) {
        const stub = failWrite(w, `organization:${a.org.id}`, 'controller-retired');
        expectStatus(await w.post('/api/agents/retire', { reason }, a.key), 503);
        stub.restore();
      }
      assert.equal((await pendingIntents(w)).length, 3);
      const r = await w.post('/api/agents/retire', { reason: 'A second reason, not the one kept.' }, two.key);
      expectStatus(r, 200);
      assert.equal(r.body.status, 'retired');
      const founded = await w.post('/api/organizations', { name: 'Never Founded', kind: 'merchant company' }, three.key);
      expectStatus(founded, 403);
      assert.match(founded.body.detail, RETIRED);
      assert.equal((await w.get('/api/agents/me', three.key)).body.status, 'retired');
      await w.tick();
      assert.deepEqual(await pendingIntents(w), []);
      assert.equal((await w.get('/api/agents/me', one.key)).body.status, 'retired');
      const kept = (await w.call<Array<{ agent_id: number; reason: string }>>('GET', '/api/agent-departures', { admin: ADMIN })).body.find((d) => d.agent_id === two.agentId);
      assert.equal(kept?.reason, reason, 'the reason of the retirement begun first');
      for (const a of [one, two, three]) assert.equal((await retirements(w, a.agentId)).length, 1);
    });

    for (const change of ['hire', 'release'] as const) {
      it(`a ${change} its organization applied before the mark, its adventurer's record cut short: finished after the retirement, both sides agreeing`, async () => {
        let w = await fresh();
        const a = await foundOrg(w, 'Half Hired House');
        const adv = (await w.get<Array<{ id: number; status: string }>>('/api/adventurers')).body.find((x) => x.status === 'available')!.id;
        if (change === 'release') expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: adv }, a.key), 200);
        const before = await mark(w);
        const stub = failWrite(w, `adventurer:${adv}`, change === 'hire' ? 'hired' : 'released');
        expectStatus(await w.post(`/api/adventurers/${change}`, { organization_id: a.org.id, adventurer_id: adv }, a.key), 503);
        stub.restore();
        expectStatus(await w.post('/api/agents/retire', { reason }, a.key), 200);
        w = await restart(w);
        assert.deepEqual(await pendingIntents(w), []);
        const row = (await w.get(`/api/adventurers/${adv}`)).body;
        const org = (await w.get(`/api/organizations/${a.org.id}`)).body;
        if (change === 'hire') {
          assert.equal(row.status, 'employed', 'the step the organization took stands');
          assert.equal(row.organization_id, a.org.id);
          assert.deepEqual(org.employees, [adv]);
        } else {
          assert.equal(row.status, 'available');
          assert.deepEqual(org.employees, []);
        }
        await assertBooks(w, before);
      });
    }

    it('an agent without an organization retires at once, with no intent', async () => {
      const w = await fresh();
      const agent = await w.register('Wanderer Alone');
      const r = await w.post('/api/agents/retire', { reason }, agent.key);
      expectStatus(r, 200);
      assert.equal(r.body.status, 'retired');
      assert.deepEqual(await pendingIntents(w), []);
    });
  });

  describe('requests already past the key check when the agent retires', () => {
    // One node: the delay is injected into this process's entities port.
    const { fresh } = useSagaWorlds('worldsim-retire-race-', { oneNode: true });

    it('a command that reaches the organization after the retirement is refused 403 and changes nothing; none lands after it in the history', async () => {
      const w = await fresh();
      const a = await foundOrg(w, 'Racing Company');
      const entities = w.services.entities;
      const original = entities.ask.bind(entities);
      let held!: () => void;
      const gate = new Promise<void>((resolve) => { held = resolve; });
      let reached!: () => void;
      const atGate = new Promise<void>((resolve) => { reached = resolve; });
      // The hire has passed the HTTP layer's key check; it waits on its way to the organization.
      sinon.stub(entities, 'ask').callsFake(async (kind: string, id: any, c: any) => {
        if (kind === 'organization' && c.type === 'hire-workers') { reached(); await gate; }
        return original(kind as any, id, c);
      });
      const hire = w.post('/api/workers/hire', { organization_id: a.org.id, quantity: 2 }, a.key);
      await atGate;
      const retired = await w.post('/api/agents/retire', { reason }, a.key);
      expectStatus(retired, 200);
      held();
      const r = await hire;
      expectStatus(r, 403);
      assert.match(r.body.detail, RETIRED);
      const org = (await w.get(`/api/organizations/${a.org.id}`)).body;
      assert.equal(org.workers, 0, 'no workers hired');
      assert.equal(org.treasury, a.org.treasury, 'no gold spent');
      const events = await allEvents(w);
      const retirement = events.find((e) => e.category === 'agent' && e.agent_id === a.agentId && / retired from the world$/.test(e.summary))!;
      assert.ok(retirement, 'the retirement is in the history');
      const after = events.filter((e) => e.id > retirement.id && e.organization_ids.includes(a.org.id));
      assert.deepEqual(after, [], 'nothing of its organization after it');
    });

    it('many requests with a retirement among them: each either lands before it or is refused', async () => {
      const w = await fresh();
      const a = await foundOrg(w, 'Busy Company');
      const sends = Array.from({ length: 24 }, (_, i) => (i === 8
        ? w.post('/api/agents/retire', { reason }, a.key)
        : w.post('/api/workers/hire', { organization_id: a.org.id, quantity: 1 }, a.key)));
      const answers = await Promise.all(sends);
      expectStatus(answers[8], 200);
      const hires = answers.filter((_, i) => i !== 8);
      for (const r of hires) assert.ok(r.status === 200 || r.status === 403, `${r.status} ${r.text}`);
      const events = await allEvents(w);
      const retirement = events.find((e) => e.category === 'agent' && e.agent_id === a.agentId && / retired from the world$/.test(e.summary))!;
      const hired = events.filter((e) => e.category === 'workers' && e.organization_ids.includes(a.org.id));
      assert.equal(hired.length, hires.filter((r) => r.status === 200).length, 'each 200 is one hiring on record');
      for (const e of hired) assert.ok(e.id < retirement.id, `hiring ${e.id} lands before the retirement ${retirement.id}`);
      assert.equal((await w.get(`/api/organizations/${a.org.id}`)).body.workers, hired.length);
    });
  });
});
