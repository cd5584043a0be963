// Test support for Kafka: reading a world's whole history over HTTP, waiting for the
// history relay to catch up, and reading a topic from the beginning with a fresh group.
import crypto from 'crypto';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaNameFor, type TestWorld } from './world';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Event { id: number; day: number; category: string; agent_id: number | null; organization_ids: number[]; summary: string; data: Record<string, unknown>; created_at: string }

/** The history topic of a test world on Kafka (test/support/world.ts names it after the data folder). */
export const historyTopicOf = (w: TestWorld) => `${kafkaNameFor(w.dataDir)}.history`;

/** Every event of GET /api/events, oldest first. */
export async function allEvents(w: TestWorld): Promise<Event[]> {
  const out: Event[] = [];
  let before = '';
  for (;;) {
    const page = (await w.get<Event[]>(`/api/events?limit=100${before}`)).body;
    out.push(...page);
    if (page.length < 100) return out.reverse();
    before = `&before_id=${page[page.length - 1].id}`;
  }
}

/** Waits until the relay has published everything the history holds. */
export async function relayCaughtUp(w: TestWorld, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const h = (await w.get('/healthz')).body;
    const latest = (await w.get<Event[]>('/api/events?limit=1')).body[0]?.id ?? 0;
    if (h.history_relay && h.history_relay.published_id >= latest && h.history_relay.lag === 0) return;
    if (Date.now() > deadline) throw new Error(`the relay did not catch up: ${JSON.stringify(h)}, latest ${latest}`);
    await sleep(100);
  }
}

/** Every record of a topic from the beginning, with its key, in the order consumed; stops once `until` says it has enough. */
export async function readTopic(brokers: string[], topic: string, until: (records: Array<{ key: string; value: any }>) => boolean, timeoutMs = 60_000) {
  const kafka = new Kafka({ clientId: 'history-test', brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `history-test-${crypto.randomBytes(4).toString('hex')}`, maxWaitTimeInMs: 250 });
  const records: Array<{ key: string; value: any }> = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => { records.push({ key: String(message.key), value: JSON.parse(String(message.value)) }); } });
  const deadline = Date.now() + timeoutMs;
  while (!until(records) && Date.now() < deadline) await sleep(100);
  await consumer.disconnect();
  return records;
}
