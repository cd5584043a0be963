// A node reads the answers to its cross-node asks without committing after each batch (a
// commit there would hold back the next fetch, and an answer arriving meanwhile); it commits
// their offsets once a second and when it stops, so that a node started again reads its
// reply topic from about where it stopped (docs/operations.md, "How it works"). Real
// Cassandra and Kafka, two nodes in this process.
import assert from 'assert';
import fs from 'fs';
import { Kafka, logLevel } from 'kafkajs';
import { startTestWorld, kafkaNameFor, tempDir, type TestWorld } from '../support/world';
import { waitFor } from '../support/wait';

describe('Many nodes: the answers a node read (real Cassandra and Kafka)', function () {
  this.timeout(180_000);
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  const dataDir = tempDir('worldsim-reply-offsets-');
  let w: TestWorld | undefined;
  after(async () => { await w?.close(); fs.rmSync(dataDir, { recursive: true, force: true }); });

  it('have their offsets committed within seconds while the node runs, and all of them when it stops', async () => {
    w = await startTestWorld({ dataDir, store: 'cassandra', bus: 'kafka', nodes: 2, shards: 4 });
    const nodes = w.nodes.map((n) => n.node!);
    const asksSent = () => nodes.map((n) => (n.status().cross_node_asks as { sent: number }).sent);
    // Agents register and found organizations through both nodes in turn: their actors are spread over the shards.
    const act = async (tag: string) => {
      for (let i = 0; i < 6; i++) {
        const agent = await w!.register(`${tag} ${i}`);
        const org = await w!.post('/api/organizations', { name: `${tag} Co ${i}`, kind: 'merchant company', location_id: 'emberfall' }, agent.key);
        assert.equal(org.status, 201, JSON.stringify(org.body));
      }
    };
    await act('Crossing');
    const sent = asksSent();
    assert.ok(sent.every((n) => n > 0), `each node asked across (${sent.join(', ')})`);

    const kafka = new Kafka({ clientId: `${kafkaNameFor(dataDir)}.test`, brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const clientId = kafkaNameFor(dataDir);
      const groups = w.nodes.map((n, i) => ({ groupId: `${clientId}.node-${i + 1}.replies`, topic: n.node!.replyTopic }));
      const ends = async () => Promise.all(groups.map(async (g) => Number((await admin.fetchTopicOffsets(g.topic))[0].high)));
      const committed = async () => Promise.all(groups.map(async (g) => Number((await admin.fetchOffsets({ groupId: g.groupId, topics: [g.topic] }))[0].partitions[0].offset)));
      const written = await ends();
      assert.ok(written.every((n) => n > 0), `each node's reply topic holds its answers (${written.join(', ')})`);
      // While the nodes run: once a second, what was read is committed (5 s leaves room for a loaded machine).
      await waitFor(async () => (await committed()).every((c, i) => c === written[i]), 'the offsets of the answers read committed', 5_000);

      // More answers, then the nodes stop at once: each commits what it read before it goes.
      await act('Late');
      const later = await ends();
      assert.ok(later.some((n, i) => n > written[i]), 'more answers came');
      await w.close();
      w = undefined;
      const after = await ends();
      assert.deepEqual(await committed(), after, 'every answer read committed by the time its node stopped');
    } finally {
      await admin.disconnect();
    }
  });
});
