// Exactly one settled day per world day (docs/architecture.md, the daily tick), on the
// embedded bus and on Kafka: a clock that persisted a new day and stopped before it could
// publish it announces it again when the world restarts, and the day is settled then, once;
// a day published twice is settled once.
import assert from 'assert/strict';
import sinon from 'sinon';
import { CLOCK_ID } from '../../actors/clock/actor';
import { BusClosedError, TOPICS, type Bus } from '../../actors/ports/bus';
import type { Store } from '../../actors/ports/store';
import { seedWorld } from '../../actors/world/seed';
import type { Region } from '../../actors/region';
import { NODE, worldRegion } from '../../infra/app';
import { EmbeddedBus } from '../../infra/bus/embedded-bus';
import { KafkaBus } from '../../infra/bus/kafka-bus';
import { StoreSettlements } from '../../infra/clock/store-settlements';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { tempDir } from '../support/world';

const SEED = 'clock-restart';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Running { store: Store; bus: Bus; settlements: StoreSettlements; region: Region }

describe('the clock restarts between persisting a day and publishing it', function () {
  this.timeout(120_000);

  for (const kind of ['embedded', 'kafka'] as const) {
    it(`settles the day once, on the ${kind} bus`, async () => {
      const dataDir = tempDir('worldsim-clock-restart-');
      const topic = `clock-restart-${Date.now()}`;
      const makeBus = (): Bus => (kind === 'embedded' ? new EmbeddedBus() : new KafkaBus({
        brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), clientId: topic, groupPrefix: `${topic}.${NODE}`,
        topics: [{ topic: `${topic}.days`, numPartitions: 1, replicationFactor: 1 }], rename: { [TOPICS.days]: `${topic}.days` },
      }));
      const start = async (): Promise<Running> => {
        const store = new SqliteStore(dataDir);
        const bus = makeBus();
        const settlements = new StoreSettlements(store, NODE);
        const region = await worldRegion(store, bus, settlements, SEED, () => undefined);
        await seedWorld(region, store, SEED);
        const resumed = await region.ask('clock', CLOCK_ID, { type: 'resume' }, 60_000);
        assert.ok(resumed.ok);
        return { store, bus, settlements, region };
      };
      const stop = async (w: Running) => { w.region.stop(); await w.bus.close(); await w.store.close(); };
      const upkeeps = async (store: Store, day: number) => (await store.history({ limit: 100, category: 'maintenance' })).filter((e) => e.day === day).length;

      let w = await start();
      for (let i = 0; i < 3; i++) {
        const id = await w.store.nextId('organization');
        const r = await w.region.ask('organization', id, {
          type: 'found', id, agent_id: 1_000 + i, name: `Restart House ${i}`, kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1,
        });
        assert.ok(r.ok);
      }
      const organizations = (await w.store.list('activeOrganizations')).length;
      assert.ok((await w.region.ask('clock', CLOCK_ID, { type: 'advance' }, 60_000)).ok);
      assert.equal(await w.settlements.lastSettled(), 2);
      assert.equal(await upkeeps(w.store, 2), organizations, 'day 2: every organization paid once');

      // Day 3 is persisted, then the process stops before the day is published.
      const publish = sinon.stub(w.bus, 'publish').rejects(new BusClosedError());
      const advanced = await w.region.ask<{ day: number }, 'clock'>('clock', CLOCK_ID, { type: 'advance' }, 60_000);
      assert.ok(advanced.ok && advanced.value.day === 3, 'the day is persisted');
      assert.equal(publish.callCount, 1);
      assert.equal(await w.settlements.lastSettled(), 2, 'but not settled');
      assert.equal(await upkeeps(w.store, 3), 0);
      publish.restore();
      await stop(w);

      // The restart announces day 3 again: it is settled now, once.
      w = await start();
      assert.equal(await w.settlements.lastSettled(), 3);
      assert.equal(await upkeeps(w.store, 3), organizations, 'day 3: every organization paid once');

      assert.equal(await w.settlements.lastInitiative(), 3, "the world's initiative was taken for day 3");
      const history = async () => (await w.store.history({ limit: 1000 })).filter((e) => e.day === 3).length;
      const day3 = await history();

      // The same day published twice more, and a day this world's clock has not begun: nothing changes.
      await w.bus.publish(TOPICS.days, { day: 3 }, 'day');
      await w.bus.publish(TOPICS.days, { day: 3 }, 'day');
      await w.bus.publish(TOPICS.days, { day: 99 }, 'day');
      await sleep(1_500);
      assert.equal(await upkeeps(w.store, 3), organizations, 'still once');
      assert.equal(await history(), day3, 'not one more event of day 3: no second initiative (seeded quests, newcomers)');
      assert.equal(await w.settlements.lastSettled(), 3);
      assert.equal(await w.settlements.lastInitiative(), 3);
      // And the next day is settled once too.
      assert.ok((await w.region.ask('clock', CLOCK_ID, { type: 'advance' }, 60_000)).ok);
      assert.equal(await upkeeps(w.store, 4), organizations);
      assert.equal((await w.store.list('activeOrganizations')).length, organizations);
      await stop(w);
    });
  }
});
