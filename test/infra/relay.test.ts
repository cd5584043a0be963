// The history relay (infra/history/relay.ts) over a real SQLite store, with the sending
// side replaced by a recorder (and made to fail, for fault injection): it publishes in id
// order, records its position only after a batch was sent, resumes from that position,
// loses nothing when sending fails, and waits at a gap in the ids until it is old enough.
import assert from 'assert/strict';
import sinon from 'sinon';
import type { HistoryEntry, Store } from '../../actors/ports/store';
import { GAP_GRACE_MS, HistoryRelay, RELAY_POSITION, historyKey } from '../../infra/history/relay';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { tempDir } from '../support/world';

const entry = (i: number, orgs: number[] = []): HistoryEntry => ({ day: 1, category: 'test', agent_id: null, organization_ids: orgs, summary: `event ${i}`, data: { i } });

async function write(store: Store, key: string, seq: number, entries: HistoryEntry[]) {
  await store.engine.persist({ key, sequenceNumber: seq, createdAt: Date.now(), data: { events: [] }, tags: [], isDeleted: false } as never, { history: entries } as never);
}

describe('the history relay', () => {
  let store: SqliteStore;
  beforeEach(() => { store = new SqliteStore(tempDir('worldsim-relay-')); });
  afterEach(async () => { await store.close(); });

  it('publishes every event in id order, keyed by its first organization, and records its position after each batch', async () => {
    for (let i = 1; i <= 7; i++) await write(store, 'k', i, [entry(i, i % 3 === 0 ? [] : [i, 99])]);
    const sent: Array<{ key: string; value: string }> = [];
    const relay = new HistoryRelay(store, async (records) => { sent.push(...records); });
    assert.equal(await relay.pass(), 7);
    assert.deepEqual(sent.map((r) => JSON.parse(r.value).id), [1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(sent.map((r) => r.key), sent.map((r) => historyKey(JSON.parse(r.value))));
    assert.equal(sent[0].key, 'organization:1');
    assert.equal(sent[2].key, 'world');
    const first = JSON.parse(sent[0].value);
    assert.deepEqual(Object.keys(first).sort(), ['agent_id', 'category', 'created_at', 'data', 'day', 'id', 'organization_ids', 'schema', 'summary']);
    assert.equal(first.schema, 1);
    assert.equal(await store.setting(RELAY_POSITION), '7');
    assert.deepEqual(relay.status(), { published_id: 7, latest_id: 7, lag: 0, error: null });
    assert.equal(await relay.pass(), 0, 'nothing new');
  });

  it('resumes after a restart from the position it recorded', async () => {
    for (let i = 1; i <= 3; i++) await write(store, 'k', i, [entry(i)]);
    await new HistoryRelay(store, async () => undefined).pass();
    for (let i = 4; i <= 5; i++) await write(store, 'k', i, [entry(i)]);
    const sent: number[] = [];
    const relay = new HistoryRelay(store, async (records) => { sent.push(...records.map((r) => JSON.parse(r.value).id)); });
    relay.start();
    for (let i = 0; i < 50 && sent.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await relay.stop();
    assert.deepEqual(sent, [4, 5]);
  });

  it('loses nothing when sending fails: the position stays, and the same events go again', async () => {
    for (let i = 1; i <= 4; i++) await write(store, 'k', i, [entry(i)]);
    const send = sinon.stub().rejects(new Error('broker down'));
    const relay = new HistoryRelay(store, send);
    await assert.rejects(relay.pass(), /broker down/);
    assert.equal(await store.setting(RELAY_POSITION), undefined);
    send.resolves();
    assert.equal(await relay.pass(), 4);
    assert.deepEqual(send.secondCall.args[0].map((r: { value: string }) => JSON.parse(r.value).id), [1, 2, 3, 4]);
  });

  it('waits at a gap in the ids for GAP_GRACE_MS from when it first met it, then passes over it', async () => {
    for (let i = 1; i <= 4; i++) await write(store, 'k', i, [entry(i)]);
    // Event 2 is not visible yet (as can happen with several writers on Cassandra).
    const real = store.historySince.bind(store);
    sinon.stub(store, 'historySince').callsFake(async (after, limit) => (await real(after, limit)).filter((e) => e.id !== 2));
    let now = Date.now();
    const sent: number[] = [];
    const relay = new HistoryRelay(store, async (records) => { sent.push(...records.map((r) => JSON.parse(r.value).id)); }, () => undefined, () => now);
    assert.equal(await relay.pass(), 1, 'only what comes before the gap');
    assert.deepEqual(sent, [1]);
    now += GAP_GRACE_MS - 1;
    assert.equal(await relay.pass(), 0, 'still waiting');
    now += 1;
    assert.equal(await relay.pass(), 2);
    assert.deepEqual(sent, [1, 3, 4]);
    assert.equal(relay.status().published_id, 4);
  });
});
