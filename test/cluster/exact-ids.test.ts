// Ids on many nodes (docs/operations.md): with exactIds, an id handed out after another by
// any process is higher, so listings ordered by id are ordered by time on every node.
import assert from 'assert';
import { openCassandraStore, type CassandraStore } from '../../infra/store/cassandra-store';
import { sharedKeyspace, useCassandra } from '../support/cassandra';

describe('Exact ids: two stores of one world hand out ids that increase with time across both (real Cassandra)', function () {
  this.timeout(60_000);
  const cassandra = useCassandra();
  const opened: CassandraStore[] = [];
  after(async () => { await Promise.all(opened.map((s) => s.close().catch(() => undefined))); });

  it('an id taken after another (on either store) is higher; ids taken at once are distinct', async () => {
    const keyspace = sharedKeyspace();
    const world = cassandra.world();
    const a = await openCassandraStore(cassandra.options({ keyspace, world, exactIds: true }));
    const b = await openCassandraStore(cassandra.options({ keyspace, world, exactIds: true }));
    opened.push(a, b);
    const sequence: number[] = [];
    for (let i = 0; i < 20; i++) sequence.push(await (i % 3 === 0 ? a : b).nextId('message'));
    assert.deepEqual(sequence, [...sequence].sort((x, y) => x - y), `in the order taken: ${sequence.join(',')}`);
    assert.equal(new Set(sequence).size, sequence.length);
    const together = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).nextId('message')));
    assert.equal(new Set(together).size, 50, 'ids taken at the same moment are distinct');
    assert.ok(Math.min(...together) > Math.max(...sequence), 'and above every id taken before');
    // History ids: a persist on b after a persist on a lists after it.
    const persist = (s: CassandraStore, key: string, summary: string) => s.engine.persist(
      { key, sequenceNumber: 1, data: { events: [{}] }, createdAt: Date.now(), tags: [] } as any,
      { history: [{ day: 1, category: 'world', agent_id: null, organization_ids: [], summary, data: {} }] } as any);
    await persist(a, 'agent:1', 'first');
    await persist(b, 'agent:2', 'second');
    await persist(a, 'agent:3', 'third');
    const newest = await b.history({ limit: 3 } as any);
    assert.deepEqual(newest.map((e: { summary: string }) => e.summary), ['third', 'second', 'first']);
  });
});
