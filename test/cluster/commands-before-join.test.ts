// Routing on many nodes (docs/operations.md, "Commands are never skipped"): a command sent
// to a shard's partition before any node of the group has read that partition is served
// once a node hosts the shard, not passed over as older than "latest". Real Cassandra and
// Kafka; the command is written with a plain producer before the world's first node starts.
import assert from 'assert';
import fs from 'fs';
import { Kafka, logLevel } from 'kafkajs';
import { CLOCK_ID } from '../../actors/clock/actor';
import { shardOf } from '../../infra/cluster/shards';
import { readTopic } from '../support/kafka';
import { kafkaNameFor, startTestWorld, tempDir, type TestWorld } from '../support/world';

const SHARDS = 4;

describe('Many nodes: a command sent before any node read its partition (real Cassandra and Kafka)', function () {
  this.timeout(120_000);
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  let w: TestWorld | undefined;
  const dataDir = tempDir('worldsim-before-join-');
  after(async () => { await w?.close(); fs.rmSync(dataDir, { recursive: true, force: true }); });

  it('is served and answered once the world\'s first node hosts the shard', async () => {
    const name = kafkaNameFor(dataDir);
    const commandTopic = `${name}.commands`;
    const replyTopic = `${name}.test-replies`;
    const shard = shardOf('clock', CLOCK_ID, SHARDS);
    const kafka = new Kafka({ clientId: `${name}.test`, brokers, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    const producer = kafka.producer();
    await admin.connect();
    await producer.connect();
    try {
      // The broker may answer for a new topic's partitions a moment after creating them
      // (it is deleting other test worlds' topics meanwhile): the setup is tried again.
      for (let attempt = 1; ; attempt++) {
        try {
          await admin.createTopics({ topics: [{ topic: commandTopic, numPartitions: SHARDS }, { topic: replyTopic, numPartitions: 1 }], waitForLeaders: true });
          break;
        } catch (e) {
          if (attempt >= 5 || !/does not host this topic-partition|LEADER_NOT_AVAILABLE|leader/i.test(String((e as Error)?.message))) throw e;
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }
      const routed = { kind: 'clock', id: CLOCK_ID, command: { type: 'now' }, commandId: `before-join:${name}`, deadline: Date.now() + 90_000, reply: { topic: replyTopic, correlation: 'sent-before-join' } };
      await producer.send({ topic: commandTopic, messages: [{ partition: shard, key: `clock:${CLOCK_ID}`, value: JSON.stringify(routed) }] });
    } finally {
      await producer.disconnect();
      await admin.disconnect();
    }

    w = await startTestWorld({ dataDir, store: 'cassandra', bus: 'kafka', nodes: 1, shards: SHARDS });
    const replies = await readTopic(brokers, replyTopic, (records) => records.length > 0, 60_000);
    assert.equal(replies.length, 1, 'the command was answered');
    assert.equal(replies[0].value.correlation, 'sent-before-join');
    const result = replies[0].value.result;
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(typeof result.value.day, 'number', 'the clock told its day');
  });
});
