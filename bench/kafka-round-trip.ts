// The nodes benchmark's ceiling for a hop: kafkajs alone, asked and answered through the
// same broker with the settings a node uses (bench/nodes.ts forks it). A ping goes to a
// topic read by a responder's consumer group, which answers on a reply topic read by the
// asker's: two produce-to-receipt legs, as a cross-node ask has, and no actor, no store, no
// HTTP. One ping is in flight at a time, one every PROBE_GAP_MS, so the probe adds little
// load of its own. While the nodes are loaded, its p99 is what the broker and the shared
// cores give any round trip: the hop cannot be faster than that.
//   (forked) env KAFKA_BROKERS, PROBE_TOPIC; messages 'reset' (forget the samples so far),
//   'report' (answered with { n, p50, p99, max } in ms), 'stop'.
import crypto from 'crypto';
import { Kafka, logLevel } from 'kafkajs';
import { immediateSockets } from '../infra/bus/kafka-socket';
import { ensureTopics, whileTopicsSettle } from '../infra/bus/kafka-topics';

const GAP_MS = Number(process.env.PROBE_GAP_MS ?? 50);
const TIMEOUT_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface RoundTrips { n: number; p50: number | null; p99: number | null; max: number | null }

/** Nearest-rank percentiles of the samples, in ms to one decimal. */
export function summarize(samples: number[]): RoundTrips {
  if (samples.length === 0) return { n: 0, p50: null, p99: null, max: null };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 10) / 10;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: Math.round(sorted[sorted.length - 1] * 10) / 10 };
}

async function main(): Promise<void> {
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  const topic = process.env.PROBE_TOPIC ?? `probe${crypto.randomBytes(3).toString('hex')}`;
  const replies = `${topic}.replies`;
  // The settings of infra/cluster/node.ts: sockets without Nagle's delay, fetches that wait
  // at most 250 ms, one partition's batch at a time, replies and pings produced with acks 1;
  // the responder commits after each batch (as a node's command consumer does), the asker
  // never holds its fetches back for a commit (as a node's reply consumer).
  const kafka = new Kafka({ clientId: topic, brokers, logLevel: logLevel.NOTHING, socketFactory: immediateSockets });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, [{ topic, numPartitions: 1, replicationFactor: 1 }, { topic: replies, numPartitions: 1, replicationFactor: 1 }]);
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const responder = kafka.consumer({ groupId: `${topic}.responder`, maxWaitTimeInMs: 250, allowAutoTopicCreation: false });
  const asker = kafka.consumer({ groupId: `${topic}.asker`, maxWaitTimeInMs: 250, allowAutoTopicCreation: false });
  const pending = new Map<string, () => void>();
  for (const [consumer, from] of [[responder, topic], [asker, replies]] as const) {
    await consumer.connect();
    await whileTopicsSettle(() => consumer.subscribe({ topic: from, fromBeginning: true }));
  }
  const joined = Promise.all([responder, asker].map((c) => new Promise<void>((r) => c.on(c.events.GROUP_JOIN, () => r()))));
  await responder.run({
    partitionsConsumedConcurrently: 1, autoCommitInterval: 1_000,
    eachMessage: async ({ message }) => { void producer.send({ topic: replies, acks: 1, messages: [{ value: message.value }] }).catch(() => undefined); },
  });
  await asker.run({ autoCommit: false, eachMessage: async ({ message }) => { pending.get(String(message.value))?.(); } });
  await joined;

  let samples: number[] = [];
  let stopped = false;
  process.on('message', (m: unknown) => {
    if (m === 'reset') samples = [];
    else if (m === 'report') process.send!({ roundTrips: summarize(samples) });
    else if (m === 'stop') stopped = true;
  });
  process.send!('ready');
  while (!stopped) {
    const correlation = crypto.randomUUID();
    const started = performance.now();
    const answered = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), TIMEOUT_MS);
      pending.set(correlation, () => { clearTimeout(timer); resolve(true); });
    });
    await producer.send({ topic, acks: 1, messages: [{ value: correlation }] });
    if (await answered) samples.push(performance.now() - started);
    pending.delete(correlation);
    await sleep(GAP_MS);
  }
  await Promise.all([responder.disconnect(), asker.disconnect(), producer.disconnect()]);
  await admin.deleteTopics({ topics: [topic, replies] }).catch(() => undefined);
  await admin.disconnect();
  process.exit(0);
}

if (require.main === module) main().catch((e) => { console.error(e); process.exit(1); });
