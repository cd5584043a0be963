// Fencing on many nodes (docs/operations.md): a node that lost a shard's lease can never
// write for it again. Two stores on one real Cassandra world, each fenced by its own node's
// leases, as two node processes would be.
import assert from 'assert';
import { ShardLeases } from '../../infra/cluster/shard-leases';
import { shardOfKey } from '../../infra/cluster/shards';
import { StoreUnavailableError } from '../../actors/ports/store';
import { openCassandraStore, type CassandraStore } from '../../infra/store/cassandra-store';
import { sharedKeyspace, useCassandra } from '../support/cassandra';

const SHARDS = 4;
const LEASE_MS = 1_500;

describe('Fencing: a node whose shard lease ran out cannot write for the shard (real Cassandra)', function () {
  this.timeout(60_000);
  const cassandra = useCassandra();
  const opened: CassandraStore[] = [];
  after(async () => { await Promise.all(opened.map((s) => s.close().catch(() => undefined))); });

  async function nodeOn(keyspace: string, world: string, name: string) {
    let leases!: ShardLeases;
    const store = await openCassandraStore(cassandra.options({ keyspace, world, fence: (key) => leases.refusal(shardOfKey(key, SHARDS)) }));
    opened.push(store);
    const lost: number[] = [];
    leases = new ShardLeases(store.cassandra, name, { leaseMs: LEASE_MS, onLost: (s) => lost.push(s) });
    return { store, leases, lost };
  }

  const event = (key: string, sequenceNumber: number, data: unknown) => ({ key, sequenceNumber, data: { events: [data] }, createdAt: Date.now(), tags: [] as string[] });

  async function journal(store: CassandraStore, key: string): Promise<unknown[]> {
    const out: unknown[] = [];
    await store.engine.events(key, 0).reduce(async (_: unknown, e: any) => { out.push(e.data); return undefined; }, undefined);
    return out;
  }

  it('takes the next epoch only after the holder released the shard or its lease ran out, and refuses the deposed holder\'s writes', async () => {
    const keyspace = sharedKeyspace();
    const world = cassandra.world();
    const a = await nodeOn(keyspace, world, 'node-a');
    const b = await nodeOn(keyspace, world, 'node-b');
    const key = 'agent:7';
    const shard = shardOfKey(key, SHARDS);

    const first = await a.leases.acquire(shard, () => true);
    assert.equal(first?.epoch, 1, 'the first holder takes epoch 1');
    await a.store.engine.persist(event(key, 1, { by: 'a', n: 1 }) as any, {});
    // Node a freezes (as a process under SIGSTOP would): it renews nothing from now on.
    a.leases.freeze();
    const started = Date.now();
    const second = await b.leases.acquire(shard, () => true);
    const waited = Date.now() - started;
    assert.equal(second?.epoch, 2, 'the next holder moves the shard to epoch 2');
    assert.ok(waited >= LEASE_MS - 1_100, `b waited for a's lease to run out (${waited} ms)`);

    // Node a wakes: its write for the shard is refused by its store, and nothing reaches Cassandra.
    assert.notEqual(a.leases.refusal(shard), null);
    await assert.rejects(a.store.engine.persist(event(key, 2, { by: 'a', n: 2 }) as any, {}), (e: unknown) => e instanceof StoreUnavailableError && /lease|does not hold/.test((e as Error).message));
    await b.store.engine.persist(event(key, 2, { by: 'b', n: 2 }) as any, {});
    assert.deepEqual(await journal(b.store, key), [{ events: [{ by: 'a', n: 1 }] }, { events: [{ by: 'b', n: 2 }] }], 'the journal holds a\'s write from its epoch and b\'s, never a\'s after it lost the shard');

    // A renewal by the deposed holder finds the new epoch: the shard is lost for good.
    await a.leases.renewAll();
    assert.equal(a.leases.refusal(shard), `this node does not hold shard ${shard}`);
    await b.leases.close();
  });

  it('a released shard is taken at once, and a shard another node holds is waited for', async () => {
    const keyspace = sharedKeyspace();
    const world = cassandra.world();
    const a = await nodeOn(keyspace, world, 'node-a');
    const b = await nodeOn(keyspace, world, 'node-b');
    await a.leases.acquire(2, () => true);
    let wanted = true;
    const waiting = b.leases.acquire(2, () => wanted);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(b.leases.lease(2), null, 'b does not hold a shard a renews');
    const started = Date.now();
    await a.leases.release(2);
    const lease = await waiting;
    assert.equal(lease?.epoch, 2);
    assert.ok(Date.now() - started < LEASE_MS, 'released: no need to wait for the lease to run out');
    assert.equal(a.leases.refusal(2), 'this node does not hold shard 2');
    // A shard Kafka gave elsewhere meanwhile is not taken.
    wanted = false;
    assert.equal(await a.leases.acquire(2, () => wanted), null);
    await Promise.all([a.leases.close(), b.leases.close()]);
  });
});
