// Reads kept on Cassandra (http/read-cache.ts): on one node the process is the only writer of
// its world, so its store counts the batches it sends (readGeneration) and reads answer
// again from what they gave until the next one; a read after a 2xx still sees the write. A
// store that is not the sole writer (many nodes) has no generation and keeps nothing.
import assert from 'assert/strict';
import sinon from 'sinon';
import { errors, type Client } from 'cassandra-driver';
import type { PersistedEvent } from '../../actors/ports/store';
import { openCassandraStore } from '../../infra/store/cassandra-store';
import { useCassandra } from '../support/cassandra';
import { startTestWorld, type TestWorld } from '../support/world';

describe('reads kept on Cassandra', function () {
  this.timeout(180_000);
  const cassandra = useCassandra();

  describe('the store', () => {
    const event = (key: string, n: number) => ({ key, sequenceNumber: n, createdAt: Date.now(), data: { events: [] }, tags: [], isDeleted: false }) as PersistedEvent;

    it('of the sole writer changes its generation with every batch and setting it writes, before the write is acknowledged', async () => {
      const store = await openCassandraStore(cassandra.options({ soleWriter: true }));
      try {
        assert.ok(store.readGeneration, 'the sole writer has a generation');
        const before = store.readGeneration()!;
        let seenAtAck: number | undefined;
        await store.engine.persist(event('kept:1', 1), { rows: [{ kind: 'organization', id: 1, doc: { id: 1, name: 'Kept' } }] })
          .then(() => { seenAtAck = store.readGeneration!(); });
        assert.ok(seenAtAck! > before, 'changed by the time the persist resolves');
        assert.equal((await store.row<{ name: string }>('organization', 1))?.name, 'Kept');
        const afterPersist = store.readGeneration()!;
        await store.setSetting('kept-setting', 'x');
        assert.ok(store.readGeneration()! > afterPersist, 'a setting written changes it too');
      } finally {
        await store.close();
      }
    });

    it('of the sole writer keeps a page of a listing until a batch writes a row that may change it', async () => {
      const store = await openCassandraStore(cassandra.options({ soleWriter: true }));
      const other = await openCassandraStore(cassandra.options());
      try {
        const quest = (id: number, status: string) => ({ kind: 'quest', id, status, location_id: 'emberfall', doc: { id, status } });
        await store.engine.persist(event('board:1', 1), { rows: [quest(1, 'open'), quest(2, 'open'), quest(3, 'open')] });
        const board = () => store.listPageJson('openQuestsAt', 'emberfall', undefined, 2);
        const first = await board();
        assert.deepEqual(first.map((r) => r.id), ['1', '2']);
        assert.equal(await board(), first, 'the rows kept');
        await store.engine.persist(event('board:1', 2), { rows: [quest(4, 'open')] });
        assert.equal(await board(), first, 'a quest beyond the page leaves it');
        await store.engine.persist(event('board:1', 3), { rows: [quest(1, 'accepted')] });
        assert.deepEqual((await board()).map((r) => r.id), ['2', '3'], 'a quest of the page accepted: read again');
        assert.notEqual(await other.listPageJson('openQuestsAt', 'emberfall', undefined, 2), await other.listPageJson('openQuestsAt', 'emberfall', undefined, 2),
          'a store other processes may write keeps nothing');
      } finally {
        await store.close();
        await other.close();
      }
    });

    it('of the sole writer keeps no page and no answer for a while after a batch failed (Cassandra may still apply it later)', async () => {
      const store = await openCassandraStore(cassandra.options({ soleWriter: true }));
      try {
        await store.engine.persist(event('doubt:1', 1), { rows: [{ kind: 'quest', id: 1, status: 'open', location_id: 'emberfall', doc: { id: 1 } }] });
        const board = () => store.listPageJson('openQuestsAt', 'emberfall', undefined, 2);
        const first = await board();
        assert.equal(await board(), first, 'kept');
        assert.equal(typeof store.readGeneration!(), 'number', 'answers may be kept');
        const client = (store as unknown as { client: Client }).client;
        const failing = sinon.stub(client, 'batch').rejects(new errors.OperationTimedOutError('the batch timed out'));
        await assert.rejects(store.engine.persist(event('doubt:2', 1), { rows: [{ kind: 'organization', id: 9, doc: { id: 9 } }] }));
        failing.restore();
        const again = await board();
        assert.notEqual(again, first, 'dropped, though the batch wrote no quest');
        assert.notEqual(await board(), again, 'and not kept again yet');
        assert.equal(store.readGeneration!(), undefined, 'no answer is kept either (http/read-cache.ts keeps nothing without a generation)');
        const later = sinon.stub(Date, 'now').returns(Date.now() + 121_000);
        try {
          assert.equal(typeof store.readGeneration!(), 'number', 'two minutes on, answers may be kept again');
        } finally {
          later.restore();
        }
      } finally {
        await store.close();
      }
    });

    it('of a world other processes write (many nodes) has no generation', async () => {
      const fenced = await openCassandraStore(cassandra.options({ fence: () => null }));
      const plain = await openCassandraStore(cassandra.options());
      try {
        assert.equal(fenced.readGeneration, undefined);
        assert.equal(plain.readGeneration, undefined, 'not the sole writer unless told');
      } finally {
        await fenced.close();
        await plain.close();
      }
    });
  });

  describe('over HTTP, one node on Cassandra', () => {
    let w: TestWorld;
    before(async () => { w = await startTestWorld({ store: 'cassandra', bus: 'local', nodes: 1 }); });
    after(async () => { await w?.close(); });
    afterEach(() => sinon.restore());

    it('answer the same text again without reading Cassandra until a write lands; a read after a 2xx sees it', async () => {
      assert.ok(w.services.store.readGeneration, 'the one node is the sole writer of its world');
      const first = await w.get('/api/world');
      assert.equal(first.status, 200);
      const counted = sinon.spy(w.services.store, 'count');
      const again = await w.get('/api/world');
      assert.equal(again.text, first.text);
      assert.equal(counted.callCount, 0, 'answered from the kept answer');
      const agent = await w.register('Kept On Cassandra');
      const after = await w.get('/api/world');
      assert.equal(after.body.counts.agents, first.body.counts.agents + 1);
      assert.ok(counted.callCount > 0, 'computed afresh after the write');

      const me = await w.get('/api/agents/me', agent.key);
      assert.deepEqual(me.body.organizations, []);
      assert.equal((await w.get('/api/agents/me', agent.key)).text, me.text, 'kept for its caller');
      const founded = await w.post('/api/organizations', { name: 'Kept Company', kind: 'temple' }, agent.key);
      assert.equal(founded.status, 201, founded.text);
      assert.deepEqual((await w.get('/api/agents/me', agent.key)).body.organizations.map((o: { id: number }) => o.id), [founded.body.id],
        'the agent read after the 2xx sees its organization');
    });
  });
});
