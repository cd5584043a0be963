// Topics every node of a world needs, created by whichever node comes first. Several nodes
// starting together race to create them: the losers are told the topic exists, and for a
// moment after its creation a broker may still answer that it does not host its
// partitions. A topic is ready once every partition has a leader.
import type { Admin } from 'kafkajs';

export interface TopicSpec { topic: string; numPartitions: number; replicationFactor: number }

const LEADER_POLL_MS = 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates the topics that are missing and resolves once every partition of each has a leader. */
export async function ensureTopics(admin: Admin, topics: TopicSpec[], timeoutMs = 15_000): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(t.topic));
  if (missing.length) {
    await admin.createTopics({ topics: missing, waitForLeaders: false }).catch((e: unknown) => {
      // Another node created it first: what matters is that it exists.
      if (!/already exists/i.test(String((e as Error)?.message))) throw e;
    });
  }
  const names = topics.map((t) => t.topic);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const meta = await admin.fetchTopicMetadata({ topics: names }).catch(() => null);
    if (meta && meta.topics.length === names.length && meta.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
    if (Date.now() >= deadline) throw new Error(`the topics ${names.join(', ')} have no leader yet`);
    await sleep(LEADER_POLL_MS);
  }
}

/** Retries `step` while Kafka says a new topic's partitions are not hosted yet (a few hundred ms after its creation). */
export async function whileTopicsSettle<T>(step: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 50; ; wait = Math.min(wait * 2, 500)) {
    try {
      return await step();
    } catch (e) {
      const m = String((e as Error)?.message);
      if (Date.now() >= deadline || !/does not host this topic-partition|leader|UNKNOWN_TOPIC/i.test(m)) throw e;
      await sleep(wait);
    }
  }
}
