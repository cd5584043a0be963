// The bus port's contract (actors/ports/bus.ts), run against every adapter: the embedded
// bus and Kafka (a real broker). What the domain relies on: every subscriber receives each
// message, in the order published; a subscriber that fails receives the message again;
// publish after close is refused with BusClosedError; ready resolves while the bus works.
import assert from 'assert/strict';
import crypto from 'crypto';
import { BusClosedError, type Bus } from '../../actors/ports/bus';
import { EmbeddedBus } from '../../infra/bus/embedded-bus';
import { KafkaBus } from '../../infra/bus/kafka-bus';
import { waitFor } from '../support/wait';

function describeBusContract(name: string, open: (topic: string) => Promise<Bus>) {
  describe(`the bus port: ${name}`, function () {
    this.timeout(90_000);
    let bus: Bus;
    let topic: string;
    beforeEach(async () => { topic = `contract-${crypto.randomBytes(4).toString('hex')}`; bus = await open(topic); });
    afterEach(async () => { await bus.close(); });

    it('is ready, and delivers every message to every subscriber in the order published', async () => {
      await bus.ready();
      const a: number[] = [];
      const b: number[] = [];
      await bus.subscribe<{ n: number }>(topic, async (m) => { a.push(m.n); });
      await bus.subscribe<{ n: number }>(topic, async (m) => { b.push(m.n); });
      for (let n = 1; n <= 20; n++) await bus.publish(topic, { n }, 'k');
      await waitFor(() => a.length >= 20 && b.length >= 20, 'both subscribers to have all 20', 30_000, 20);
      const expected = Array.from({ length: 20 }, (_, i) => i + 1);
      // At least once: a duplicate may come, but never out of order after the first delivery of each.
      assert.deepEqual([...new Set(a)], expected);
      assert.deepEqual([...new Set(b)], expected);
    });

    it('delivers again to a subscriber that failed', async () => {
      const seen: number[] = [];
      let failures = 0;
      await bus.subscribe<{ n: number }>(topic, async (m) => {
        if (m.n === 2 && failures < 2) { failures += 1; throw new Error('not now'); }
        seen.push(m.n);
      });
      for (let n = 1; n <= 3; n++) await bus.publish(topic, { n }, 'k');
      await waitFor(() => seen.includes(3), 'all three to be handled', 60_000, 20);
      assert.equal(failures, 2);
      assert.deepEqual([...new Set(seen)], [1, 2, 3]);
    });

    it('refuses to publish once closed', async () => {
      await bus.close();
      await assert.rejects(bus.publish(topic, { n: 1 }), BusClosedError);
    });
  });
}

describeBusContract('EmbeddedBus', async () => new EmbeddedBus());

describeBusContract('KafkaBus (a real broker)', async (topic) => {
  const bus = new KafkaBus({
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), clientId: topic, groupPrefix: topic,
    topics: [{ topic, numPartitions: 1, replicationFactor: 1 }],
  });
  await bus.whenConnected();
  return bus;
});
