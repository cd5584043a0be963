// The world's history on Kafka (docs/history-topic.md), against a real broker: after a
// busy world (every category of event), a fresh consumer reading the history topic from
// the beginning finds every event of GET /api/events exactly once after deduplication by
// id, in the documented schema, in id order within each key; the example consumer's gold
// table matches the history's ledgers.
import assert from 'assert/strict';
import { execFile } from 'child_process';
import path from 'path';
import fc from 'fast-check';
import { historyKey } from '../../infra/history/relay';
import { allEvents, historyTopicOf, readTopic, relayCaughtUp } from '../support/kafka';
import { EconomyDriver, actionArbitrary } from '../support/economy-driver';
import { expectStatus, foundOrg } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

const brokers = () => (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');

describe('the history topic on Kafka', function () {
  this.timeout(300_000);
  let w: TestWorld;
  after(async () => { await w?.close(); });

  it('holds every event of GET /api/events exactly once after deduplication by id, in the documented schema and in id order per key', async () => {
    w = await startTestWorld({ bus: 'kafka', seed: 'history-topic' });
    // Every category: the accounting driver's random actions, then what it does not do.
    const driver = new EconomyDriver(w, 4);
    await driver.start();
    for (const action of fc.sample(actionArbitrary(4), { seed: 7, numRuns: 250 })) await driver.step(action);
    const a = await foundOrg(w, 'Topic Writers', 'merchant company');
    expectStatus(await w.post('/api/suggestions', { title: 'A topic', body: 'Please keep every event on the topic.' }, a.key), 201);
    expectStatus(await w.post('/api/agents/retire', { reason: 'Done writing to the topic, for now.' }, a.key), 200);
    await relayCaughtUp(w);

    const events = await allEvents(w);
    const categories = new Set(events.map((e) => e.category));
    for (const c of ['world', 'agent', 'organization', 'maintenance', 'trade', 'market', 'workers', 'project', 'quest', 'contract', 'message', 'world_event', 'suggestion', 'party', 'adventurer']) {
      assert.ok(categories.has(c), `the scenario wrote a ${c} event: ${[...categories].join(', ')}`);
    }
    const topic = historyTopicOf(w);
    const records = await readTopic(brokers(), topic, (rs) => new Set(rs.map((r) => r.value.id)).size >= events.length);

    const byId = new Map<number, unknown>();
    for (const r of records) {
      const existing = byId.get(r.value.id);
      if (existing) assert.deepEqual(r.value, existing, `a duplicate of event ${r.value.id} has the same content`);
      byId.set(r.value.id, r.value);
    }
    assert.equal(byId.size, events.length, 'every event once after deduplication, none extra');
    for (const e of events) {
      assert.deepEqual(byId.get(e.id), { schema: 1, ...e }, `event ${e.id}: the record is the event with its schema version`);
    }
    // One key per organization (world-wide events under one key); ids increase within each key.
    const lastOfKey = new Map<string, number>();
    for (const r of records) {
      assert.equal(r.key, historyKey(r.value), `event ${r.value.id} is keyed by its first organization`);
      const last = lastOfKey.get(r.key) ?? 0;
      assert.ok(r.value.id >= last, `within key ${r.key}, event ${r.value.id} came after ${last}`);
      lastOfKey.set(r.key, r.value.id);
    }
    assert.ok(lastOfKey.has('world') && lastOfKey.size > 5, 'world-wide and per-organization keys');

    // The example consumer: a running table of gold per organization, from the topic.
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [path.resolve(__dirname, '..', '..', 'infra', 'history', 'gold-table.js'), '--brokers', brokers().join(','), '--topic', topic, '--until-idle', '3000', '--json'],
        { timeout: 120_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
    });
    const table = JSON.parse(out.trim().split('\n').pop()!);
    assert.equal(table.events, events.length);
    const net = new Map<number, number>();
    for (const e of events) for (const l of (e.data.ledger as Array<{ organization_id: number; gold?: number }> | undefined) ?? []) net.set(l.organization_id, (net.get(l.organization_id) ?? 0) + (l.gold ?? 0));
    for (const [id, gold] of net) assert.equal(table.organizations[id]?.net ?? 0, gold, `organization ${id}: the gold table's net`);
    for (const id of [1, ...driver.agents.map((x) => x.org).filter((x): x is number => x !== null)]) {
      const o = (await w.get(`/api/organizations/${id}`)).body;
      assert.equal(table.organizations[id]?.net ?? 0, o.treasury, `organization ${id}: the gold table gives its treasury`);
    }
  });
});
