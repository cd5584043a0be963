// A world event's beginning (world event -> new settlement, roads, markets, its quest)
// stays whole across a crash (actors/intents.ts). The process dies at each write: the
// event's intent, the new settlement, each road back to it, each new resource, the
// world-funded quest, the event's own record. The world is reopened on the same folder:
// the event has begun with everything it brings, each once.
import assert from 'assert/strict';
import { resumeIntents } from '../../actors/intents';
import { expectStatus } from '../support/http';
import { allEvents, failWrite, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

const body = {
  title: 'A New Harbour', description: 'A harbour town rises on the storm coast.', duration_days: 3,
  effects: [{ kind: 'resource_introduction', value: 50, resource: 'amber', location_id: 'emberfall', price: 12 }],
  location: {
    id: 'stormwatch', name: 'Stormwatch', kind: 'town', description: 'A new harbour town raised on the storm coast.',
    danger: 10, population: 900, monster_population: 0,
    routes: [{ destination_id: 'emberfall', distance_days: 2, danger: 12 }, { destination_id: 'greenhollow', distance_days: 1, danger: 8 }],
  },
  quest: { title: 'Clear the coast road', description: 'Wreckers prey on the new road to Stormwatch; end them.', requester_id: 1, location_id: 'stormwatch', reward: 500, deadline_days: null },
};

describe("a world event's beginning survives a crash at every step", function () {
  this.timeout(120_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-event-');
  const begin = (w: TestWorld) => w.call('POST', '/api/world-events', { admin: w.keys.admin, body });

  /** Everything the event brings is there, once. */
  async function assertWhole(w: TestWorld) {
    assert.deepEqual(await pendingIntents(w), []);
    const events = (await w.get('/api/world-events')).body;
    assert.equal(events.length, 1);
    assert.equal(events[0].status, 'active');
    assert.equal(events[0].location_id, 'stormwatch');
    expectStatus(await w.get('/api/locations/stormwatch'), 200);
    for (const from of ['emberfall', 'greenhollow']) {
      const roads = (await w.get(`/api/locations/${from}`)).body.routes.filter((r: { destination_id: string }) => r.destination_id === 'stormwatch');
      assert.equal(roads.length, 1, `one road from ${from}`);
    }
    const amber = (await w.get('/api/market')).body.filter((m: { location_id: string; resource: string }) => m.location_id === 'emberfall' && m.resource === 'amber');
    assert.equal(amber.length, 1);
    const quests = (await w.get('/api/quests')).body.filter((q: { title: string }) => q.title === body.quest.title);
    assert.equal(quests.length, 1, 'its quest, once');
    assert.equal(quests[0].world_funded, true);
    const history = await allEvents(w);
    assert.equal(history.filter((e) => e.category === 'world_event').length, 1, 'begun once in the history');
    assert.equal(history.filter((e) => / now leads from .* to stormwatch/.test(e.summary)).length, 2, 'each road told once');
    assert.equal(history.filter((e) => e.summary.startsWith('amber is now traded')).length, 1);
    assert.equal(history.filter((e) => e.category === 'quest' && e.summary.includes(body.quest.title)).length, 1);
    assert.equal((await w.get('/api/messages')).body.filter((m: { kind: string }) => m.kind === 'chronicle').length, 1, 'announced once');
  }

  it('crash before the event records its intent: nothing happened, and beginning it again works', async () => {
    let w = await fresh();
    failWrite(w, `world-event:${(await w.services.store.nextId('world_event')) + 1}`, 'beginning');
    expectStatus(await begin(w), 503);
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.deepEqual((await w.get('/api/world-events')).body, []);
    expectStatus(await w.get('/api/locations/stormwatch'), 404);
    expectStatus(await begin(w), 201);
    await assertWhole(w);
  });

  const crashes: Array<[string, string, string, number]> = [
    ['the settlement is founded', 'location:stormwatch', 'seeded', 0],
    ['the first road back is built', 'location:emberfall', 'route-added', 0],
    ['the second road back is built', 'location:greenhollow', 'route-added', 0],
    ['the new resource reaches its market', 'location:emberfall', 'resource-introduced', 0],
    ['its quest is posted', 'quest:', 'posted', 0],
    ['the event records that it began', 'world-event:', 'began', 0],
  ];
  for (const [step, keyPrefix, eventType, skip] of crashes) {
    it(`crash before ${step}: finished at start-up, everything once`, async () => {
      let w = await fresh();
      // The ids the event and its quest will take (each sequence hands out the next one).
      const key = keyPrefix === 'quest:' ? `quest:${(await w.services.store.nextId('quest')) + 1}`
        : keyPrefix === 'world-event:' ? `world-event:${(await w.services.store.nextId('world_event')) + 1}` : keyPrefix;
      failWrite(w, key, eventType, skip);
      expectStatus(await begin(w), 503);
      assert.equal((await pendingIntents(w)).length, 1, 'the beginning is pending');
      assert.deepEqual((await w.get('/api/world-events')).body, [], 'no event is listed before it has begun');
      w = await restart(w);
      await assertWhole(w);
      const again = (await allEvents(w)).length;
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      assert.equal((await allEvents(w)).length, again, 'resumed again, nothing changes');
    });
  }
});
