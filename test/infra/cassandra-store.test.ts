// The Cassandra store against a real Cassandra 5.0 (test/support/cassandra.ts starts it).
// Reads are checked against the SQLite store as an oracle: both are given the same writes,
// and every named query and history filter must answer alike.
import assert from 'assert/strict';
import sinon from 'sinon';
import { Client, errors, types } from 'cassandra-driver';
import {
  QUERIES, type HistoryEntry, type HistoryEvent, type PersistedEvent, type ProjectionRow, type QueryName, type QuerySpec, type Store, type Writes,
} from '../../actors/ports/store';
import { Region } from '../../actors/region';
import type { EntityKind } from '../../actors/entity';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { CassandraStore, openCassandraStore } from '../../infra/store/cassandra-store';
import { StoreUnavailableError } from '../../infra/store/cassandra-errors';
import { MIGRATIONS, SCHEMA_VERSION } from '../../infra/store/cassandra-schema';
import { tempDir } from '../support/world';
import { SMALL_LAYOUT, useCassandra } from '../support/cassandra';
import { freePort, tcpProxy } from '../support/tcp-proxy';

/** Persists records under keys of its own, numbering each key's records as nact would. */
function writer() {
  const seqs = new Map<string, number>();
  return (stores: Store[], key: string, writes: Writes, data: unknown = { events: [] }) => {
    const n = (seqs.get(key) ?? 0) + 1;
    seqs.set(key, n);
    const event = { key, sequenceNumber: n, createdAt: Date.now(), data, tags: [], isDeleted: false } as PersistedEvent;
    return Promise.all(stores.map((s) => s.engine.persist(event, writes))).then(() => undefined);
  };
}

/** Every event sequence number of a key after `offset`, as nact replays them. */
function replay(store: Store, key: string, offset?: number, limit?: number): Promise<number[]> {
  return Promise.resolve(store.engine.events(key, offset, limit).reduce(
    async (previous: Promise<number[]>, e: PersistedEvent) => [...await previous, e.sequenceNumber], Promise.resolve([] as number[])));
}

/** A small deterministic generator, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  const next = () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

const withoutCreatedAt = (events: HistoryEvent[]) => events.map(({ created_at: _c, ...rest }) => rest);

describe('Cassandra store (real Cassandra 5.0)', function () {
  this.timeout(60_000);
  const cassandra = useCassandra();

  describe('schema', () => {
    it('creates the keyspace by versioned migrations, once, when two processes start at the same moment', async () => {
      const keyspace = cassandra.keyspace();
      const world = cassandra.world();
      const [a, b] = await Promise.all([openCassandraStore(cassandra.options({ keyspace, world })), openCassandraStore(cassandra.options({ keyspace, world }))]);
      await a.setSetting('x', '1');
      assert.equal(await b.setting('x'), '1');
      await Promise.all([a.close(), b.close()]);
      const again = await openCassandraStore(cassandra.options({ keyspace, world }));
      assert.equal(await again.setting('x'), '1', 'opening an existing keyspace keeps its data');
      await again.close();
      const client = new Client({ contactPoints: cassandra.server().contactPoints, localDataCenter: cassandra.server().localDataCenter });
      await client.connect();
      const versions = (await client.execute(`SELECT version FROM ${keyspace}.schema_version`)).rows.map((r) => r.get('version'));
      const indexes = (await client.execute(`SELECT index_name FROM system_schema.indexes WHERE keyspace_name = ?`, [keyspace])).rows.map((r) => r.get('index_name')).sort();
      const lock = (await client.execute(`SELECT * FROM ${keyspace}.schema_lock`)).rows;
      const replication = (await client.execute('SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?', [keyspace])).first().get('replication');
      await client.shutdown();
      assert.deepEqual(versions.map(Number).sort((x, y) => x - y), MIGRATIONS.map((m) => m.version));
      assert.equal(Math.max(...versions.map(Number)), SCHEMA_VERSION);
      assert.deepEqual(indexes, ['entities_due_day', 'entities_k_agent', 'entities_k_due', 'entities_k_location', 'entities_k_organization', 'entities_k_status']);
      assert.equal(lock.length, 0, 'the migration lease is given back');
      assert.equal(replication.class, 'org.apache.cassandra.locator.SimpleStrategy');
      assert.equal(replication.replication_factor, '1');
    });

    it("reads a due query through the due_day index, and every row with a due day while that index cannot answer (still building)", async () => {
      const keyspace = cassandra.keyspace();
      const store = await openCassandraStore(cassandra.options({ keyspace, world: cassandra.world() }));
      const client = new Client({ contactPoints: cassandra.server().contactPoints, localDataCenter: cassandra.server().localDataCenter });
      await client.connect();
      try {
        const rows: ProjectionRow[] = [1, 2, 3, 4].map((id) => ({ kind: 'quest', id, status: 'open', due_day: id * 10, doc: { id } }));
        rows.push({ kind: 'quest', id: 5, status: 'open', doc: { id: 5 } });
        await store.engine.persist({ key: 'due:1', sequenceNumber: 1, createdAt: 0, data: {}, tags: [], isDeleted: false } as never, { rows });
        const due = async () => ({ ids: await store.ids('questsDue', 25), count: await store.count('questsDue', 25) });
        const sent = sinon.spy(store as unknown as { exec(what: string, query: string, params: unknown[]): unknown }, 'exec');
        const dueReads = () => sent.getCalls().filter((c) => c.args[0] === 'due rows').map((c) => (String(c.args[1]).includes('due_day <= ?') ? 'by day' : 'every due row'));
        try {
          assert.deepEqual(await due(), { ids: ['1', '2'], count: 2 });
          assert.deepEqual(dueReads(), ['by day', 'by day']);
          await client.execute(`DROP INDEX ${keyspace}.entities_due_day`);
          sent.resetHistory();
          assert.deepEqual(await due(), { ids: ['1', '2'], count: 2 }, 'without the index: every row with a due day, the day checked in the process');
          assert.deepEqual(dueReads(), ['by day', 'every due row', 'by day', 'every due row']);
        } finally {
          sent.restore();
        }
        // A read that ran out of time is not sent again the long way.
        const timedOut = sinon.stub(store as unknown as { exec(what: string): Promise<unknown> }, 'exec').callThrough();
        timedOut.withArgs('due rows').rejects(new StoreUnavailableError('Cassandra is unavailable', new errors.ResponseError(types.responseErrorCodes.readTimeout, 'read timeout')));
        try {
          await assert.rejects(store.ids('questsDue', 25), StoreUnavailableError);
          assert.equal(timedOut.withArgs('due rows').callCount, 1);
        } finally {
          timedOut.restore();
        }
      } finally {
        await client.shutdown();
        await store.close();
      }
    });

    it('keeps the partition sizes a keyspace was created with', async () => {
      const keyspace = cassandra.keyspace();
      const first = await openCassandraStore(cassandra.options({ keyspace, layout: { journalPartitionSize: 7, entityBucketSize: 3, historyBucketSize: 11, historyFilterBucketSize: 13 } }));
      await first.close();
      const second = await openCassandraStore(cassandra.options({ keyspace, layout: { journalPartitionSize: 100 } }));
      assert.deepEqual(second.layout, { journalPartitionSize: 7, entityBucketSize: 3, historyBucketSize: 11, historyFilterBucketSize: 13 });
      await second.close();
    });

    it('refuses a keyspace name that is not a plain identifier, and a world name that is not plain', async () => {
      await assert.rejects(openCassandraStore(cassandra.options({ keyspace: 'bad-name; DROP' })), /invalid keyspace name/);
      await assert.rejects(openCassandraStore(cassandra.options({ world: 'a|b' })), /invalid world name/);
    });

    it('opens a new world of an existing keyspace without any DDL, in milliseconds', async () => {
      const options = cassandra.options();
      await (await openCassandraStore(options)).close();
      const client = new Client({ contactPoints: cassandra.server().contactPoints, localDataCenter: cassandra.server().localDataCenter });
      await client.connect();
      const schema = async () => String((await client.execute('SELECT schema_version FROM system.local')).first().get('schema_version'));
      try {
        const before = await schema();
        const times: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t0 = performance.now();
          const store = await openCassandraStore({ ...options, world: cassandra.world() });
          times.push(performance.now() - t0);
          await store.setSetting('opened', 'yes');
          await store.close();
        }
        assert.equal(await schema(), before, 'the schema did not change');
        times.sort((x, y) => x - y);
        // Creating a keyspace's tables and indexes takes seconds; a new world is a connection, a read of
        // the schema versions and one lightweight transaction (the layout).
        assert.ok(times[2] < 1000, `a new world opens in ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
      } finally {
        await client.shutdown();
      }
    });
  });

  describe('worlds in one keyspace', () => {
    let a: CassandraStore;
    let b: CassandraStore;
    let oracleA: SqliteStore;
    let oracleB: SqliteStore;
    const persist = writer();
    const args: Record<string, Array<string | number>> = {
      location_id: ['emberfall', 'greenhollow'], organization_id: [1, 2, 3], agent_id: [1, 2], due_by: [3, 5, 100],
      status: ['active', 'open', 'proposed', 'resolved', 'nothing'], requester_id: [1, 2, 99],
    };
    const kinds = [...new Set(Object.values(QUERIES).map((q) => q.kind))];
    const statusesOf = (kind: string) => [...new Set(Object.values(QUERIES as Record<string, QuerySpec>).filter((q) => q.kind === kind).flatMap((q) => q.status ?? [])), null];

    /** The same ids, keys and names in both worlds, with different rows, history, credentials and journals. */
    async function fill(store: Store, oracle: Store, seed: number, world: string) {
      const r = rng(seed);
      for (const kind of kinds) {
        const ids: Array<string | number> = kind === 'location' ? ['emberfall', 'greenhollow', 'ashen-moors'] : [1, 2, 3, 11, 12, 25];
        const rows: ProjectionRow[] = ids.map((id) => ({
          kind, id, status: r.pick(statusesOf(kind)), location_id: r.pick(['emberfall', 'greenhollow', null]),
          organization_id: r.pick([1, 2, 3, null]), agent_id: r.pick([1, 2, null]), due_day: r.pick([null, 3, 5]), doc: { kind, id, world },
        })).map((row) => ({ ...row, doc: { ...row.doc, ...documentFields(row) } }));
        await persist([store, oracle], `${world}:rows:${kind}`, { rows });
      }
      for (let i = 0; i < 40; i++) {
        const history: HistoryEntry[] = [{
          day: 1 + Math.floor(i / 8), category: r.pick(['trade', 'quest']), agent_id: r.pick([null, 1, 2]),
          organization_ids: r.pick([[], [1], [2], [1, 2], [3]]), summary: `${world} event ${i}`,
        }];
        await persist([store, oracle], `${world}:history`, { history });
      }
      await persist([store, oracle], `${world}:cred`, { credentials: [{ key_hash: 'shared-hash', agent_id: seed }, { key_hash: `only-${world}`, agent_id: 1 }] });
    }

    before(async function () {
      this.timeout(120_000);
      a = await openCassandraStore(cassandra.options({ layout: SMALL_LAYOUT, historyIdBlock: 7 }));
      b = await openCassandraStore(cassandra.options({ layout: SMALL_LAYOUT, historyIdBlock: 7 }));
      assert.equal(a.keyspace, b.keyspace);
      assert.notEqual(a.world, b.world);
      oracleA = new SqliteStore(tempDir());
      oracleB = new SqliteStore(tempDir());
      await fill(a, oracleA, 1, 'a');
      await fill(b, oracleB, 2, 'b');
    });
    after(async () => { await a?.close(); await b?.close(); await oracleA?.close(); await oracleB?.close(); });

    it('answer every named query from their own rows', async () => {
      for (const [name, spec] of Object.entries(QUERIES as Record<string, QuerySpec>)) {
        const query = name as QueryName;
        const column = spec.by ?? spec.field;
        for (const arg of column ? args[column] : [undefined]) {
          for (const [store, oracle, w] of [[a, oracleA, 'a'], [b, oracleB, 'b']] as const) {
            assert.deepEqual(await store.list(query, arg), await oracle.list(query, arg), `${w}: ${name}(${arg})`);
            assert.deepEqual(await store.ids(query, arg), await oracle.ids(query, arg), `${w}: ${name}(${arg}) ids`);
            assert.equal(await store.count(query, arg), await oracle.count(query, arg), `${w}: ${name}(${arg}) count`);
          }
        }
      }
      assert.deepEqual(await a.row('agent', 1), { kind: 'agent', id: 1, world: 'a' });
      assert.deepEqual(await b.row('agent', 1), { kind: 'agent', id: 1, world: 'b' });
    });

    it('keep their own history under every filter, ids counting from 1 in each', async () => {
      assert.equal(await a.lastHistoryId(), 40);
      assert.equal(await b.lastHistoryId(), 40);
      const filters = [{}, { category: 'trade' }, { agent_id: 1 }, { organization_id: 2 }, { category: 'quest', agent_id: 2 }, { organization_id: 1, category: 'trade' }];
      for (const [store, oracle] of [[a, oracleA], [b, oracleB]] as const) {
        for (const filter of filters) {
          for (const before_id of [undefined, 20]) {
            const q = { ...filter, limit: 100, ...(before_id === undefined ? {} : { before_id }) };
            assert.deepEqual(withoutCreatedAt(await store.history(q)), withoutCreatedAt(await oracle.history(q)), `${store.world} ${JSON.stringify(q)}`);
          }
        }
        for (const agent of [1, 2]) assert.equal(await store.historyCountOfAgent(agent), await oracle.historyCountOfAgent(agent));
        assert.deepEqual(withoutCreatedAt([(await store.historyEvent(7))!]), withoutCreatedAt([(await oracle.historyEvent(7))!]));
        assert.deepEqual(withoutCreatedAt(await store.historyBetweenDays(1, 3, 100, 10)), withoutCreatedAt(await oracle.historyBetweenDays(1, 3, 100, 10)));
      }
      assert.match((await a.historyEvent(1))!.summary, /^a event/);
      assert.match((await b.historyEvent(1))!.summary, /^b event/);
    });

    it('keep their own credentials', async () => {
      assert.equal(await a.agentForKeyHash('shared-hash'), 1);
      assert.equal(await b.agentForKeyHash('shared-hash'), 2);
      assert.equal(await a.agentForKeyHash('only-b'), undefined);
      assert.equal(await b.agentForKeyHash('only-a'), undefined);
    });

    it('keep their own id sequences and settings', async () => {
      assert.deepEqual([await a.nextId('organization'), await a.nextId('organization')], [1, 2]);
      await a.reserveIdsUpTo('quest', 500);
      assert.equal(await b.nextId('organization'), 1);
      assert.equal(await b.nextId('quest'), 1);
      assert.equal(await a.nextId('quest'), 501);
      await a.setSetting('admin_key', 'key-a');
      assert.equal(await b.setting('admin_key'), undefined);
      await b.setSetting('admin_key', 'key-b');
      assert.equal(await a.setting('admin_key'), 'key-a');
      assert.equal(await b.setting('admin_key'), 'key-b');
    });

    it('keep their own journals and snapshots under the same persistence keys', async () => {
      const key = 'organization:1';
      for (let n = 1; n <= 7; n++) await a.engine.persist({ key, sequenceNumber: n, createdAt: n, data: { world: 'a', n }, tags: [], isDeleted: false } as PersistedEvent);
      for (let n = 1; n <= 3; n++) await b.engine.persist({ key, sequenceNumber: n, createdAt: n, data: { world: 'b', n }, tags: [], isDeleted: false } as PersistedEvent);
      assert.deepEqual(await replay(a, key), [1, 2, 3, 4, 5, 6, 7]);
      assert.deepEqual(await replay(b, key), [1, 2, 3]);
      const data = await b.engine.events(key, 0).reduce(async (p: Promise<unknown[]>, e: PersistedEvent) => [...await p, e.data], Promise.resolve([] as unknown[]));
      assert.deepEqual(data, [1, 2, 3].map((n) => ({ world: 'b', n })));
      await a.engine.takeSnapshot({ key, sequenceNumber: 6, createdAt: 6, data: { world: 'a' } });
      assert.equal(await b.engine.latestSnapshot(key), undefined);
      await b.engine.takeSnapshot({ key, sequenceNumber: 2, createdAt: 2, data: { world: 'b' } });
      assert.deepEqual((await a.engine.latestSnapshot(key))?.data, { world: 'a' }, 'a snapshot of the other world deletes nothing here');
      assert.deepEqual((await b.engine.latestSnapshot(key))?.data, { world: 'b' });
    });
  });

  describe('writes and the read model', () => {
    let store: CassandraStore;
    const persist = writer();
    before(async () => { store = await openCassandraStore(cassandra.options({ layout: SMALL_LAYOUT })); });
    after(async () => { await store?.close(); });

    it('persists a record with its rows, history and credentials, and reads them back', async () => {
      await persist([store], 'agent:1', {
        rows: [{ kind: 'agent', id: 1, status: 'active', doc: { id: 1, name: 'Mira' } }],
        history: [{ day: 1, category: 'agent', agent_id: 1, organization_ids: [], summary: 'Mira arrived', data: { x: 1 } }],
        credentials: [{ key_hash: 'h1', agent_id: 1 }],
      }, { events: [{ type: 'registered' }] });
      assert.deepEqual(await store.row('agent', 1), { id: 1, name: 'Mira' });
      assert.deepEqual(await store.row('agent', '1'), { id: 1, name: 'Mira' }, 'an id as text finds the same row');
      assert.equal(await store.row('agent', 2), undefined);
      assert.equal(await store.agentForKeyHash('h1'), 1);
      assert.equal(await store.agentForKeyHash('nope'), undefined);
      const [event] = await store.history({ limit: 10 });
      assert.equal(event.summary, 'Mira arrived');
      assert.equal(event.agent_id, 1);
      assert.deepEqual(event.data, { x: 1 });
      assert.ok(!Number.isNaN(Date.parse(event.created_at)));
      assert.deepEqual(await store.historyEvent(event.id), event);
      const journal = await store.engine.events('agent:1', 0, 100).reduce(
        async (previous: Promise<unknown[]>, e: PersistedEvent) => [...await previous, e.data], Promise.resolve([] as unknown[]));
      assert.deepEqual(journal, [{ events: [{ type: 'registered' }] }]);
    });

    it('replaces a row on update and removes it when marked deleted, indexes included', async () => {
      await persist([store], 'party:1', { rows: [{ kind: 'party', id: 31, organization_id: 4, status: 'ready', doc: { v: 1 } }] });
      assert.deepEqual(await store.ids('partiesOf', 4), ['31']);
      await persist([store], 'party:1', { rows: [{ kind: 'party', id: 31, organization_id: 5, doc: { v: 2 } }] });
      assert.deepEqual(await store.ids('partiesOf', 4), [], 'the old index entry is gone');
      assert.deepEqual(await store.list('partiesOf', 5), [{ v: 2 }]);
      await persist([store], 'party:1', { rows: [{ kind: 'party', id: 31, organization_id: 5, deleted: true, doc: {} }] });
      assert.equal(await store.row('party', 31), undefined);
      assert.deepEqual(await store.ids('partiesOf', 5), []);
      assert.deepEqual(await store.ids('parties'), []);
    });

    it('keeps the last write of a row that one record writes twice', async () => {
      await persist([store], 'twice:1', { rows: [
        { kind: 'suggestion', id: 900, status: 'new', doc: { v: 'first' } },
        { kind: 'suggestion', id: 900, status: 'reviewed', doc: { v: 'second' } },
      ] });
      assert.deepEqual(await store.row('suggestion', 900), { v: 'second' });
    });

    it('keeps settings', async () => {
      assert.equal(await store.setting('seed'), undefined);
      await store.setSetting('seed', 'emberfall');
      assert.equal(await store.setting('seed'), 'emberfall');
      await store.setSetting('seed', 'other');
      assert.equal(await store.setting('seed'), 'other');
    });
  });

  describe('every named query, against the SQLite store as oracle', () => {
    let store: CassandraStore;
    let oracle: SqliteStore;
    const persist = writer();
    const args: Record<string, Array<string | number>> = {
      location_id: ['emberfall', 'greenhollow', 'nowhere'],
      organization_id: [1, 2, '2', 3, 99],
      agent_id: [1, 2, 7],
      due_by: [0, 3, 5, 10, 100],
      status: ['active', 'open', 'accepted', 'proposed', 'other', 'nothing'],
      requester_id: [1, 2, '2', 3, 99],
    };
    const statusesOf = (kind: string) => [...new Set(Object.values(QUERIES as Record<string, QuerySpec>).filter((q) => q.kind === kind).flatMap((q) => q.status ?? [])), 'other', null];

    before(async function () {
      this.timeout(120_000);
      store = await openCassandraStore(cassandra.options({ layout: SMALL_LAYOUT }));
      oracle = new SqliteStore(tempDir());
      const r = rng(42);
      const kinds = [...new Set(Object.values(QUERIES).map((q) => q.kind))];
      let record = 0;
      const writes: Array<Promise<void>> = [];
      for (const kind of kinds) {
        // Integer ids over several buckets; names for locations; both for messages (chronicle reports are named).
        const ids: Array<string | number> = kind === 'location' ? ['emberfall', 'greenhollow', 'ashen-moors', 'Zed', 'a10', 'a9']
          : Array.from({ length: 34 }, (_, i) => (i * 7) % 45 + 1);
        if (kind === 'message') ids.push('world-event-1', 'world-event-12', 'world-event-2');
        for (let i = 0; i < ids.length; i += 3) {
          const rows: ProjectionRow[] = ids.slice(i, i + 3).map((id) => ({
            kind, id,
            status: r.pick(statusesOf(kind)),
            location_id: r.pick(['emberfall', 'greenhollow', null]),
            organization_id: r.pick([1, 2, 3, null]),
            agent_id: r.pick([1, 2, null]),
            due_day: r.pick([null, null, 3, 5, 12]),
            doc: { kind, id, n: record },
          })).map((row) => ({ ...row, doc: { ...row.doc, ...documentFields(row) } }));
          writes.push(persist([store, oracle], `seed:${record++}`, { rows }));
        }
      }
      await Promise.all(writes);
      // Moves: a row that changes status and place must leave its old index entries.
      await persist([store, oracle], 'move:1', { rows: [{ kind: 'organization', id: 8, status: 'bankrupt', location_id: 'greenhollow', organization_id: null, agent_id: 2, doc: { moved: true } }] });
      await persist([store, oracle], 'move:2', { rows: [{ kind: 'adventurer', id: 15, deleted: true, doc: {} }] });
      await persist([store, oracle], 'move:3', { rows: [{ kind: 'quest', id: 22, status: 'open', due_day: 4, doc: { due: 4 } }] });
    });
    after(async () => { await store?.close(); await oracle?.close(); });

    for (const [name, spec] of Object.entries(QUERIES as Record<string, QuerySpec>)) {
      it(`${name}: ${spec.kind}${spec.by ? ` by ${spec.by}` : ''}${spec.field ? ` by its document's ${spec.field}` : ''}${spec.status ? ` in [${spec.status.join(', ')}]` : ''}`, async () => {
        const column = spec.by ?? spec.field;
        for (const arg of column ? args[column] : [undefined]) {
          const query = name as QueryName;
          assert.deepEqual(await store.list(query, arg), await oracle.list(query, arg), `${name}(${arg}) rows`);
          assert.deepEqual(await store.ids(query, arg), await oracle.ids(query, arg), `${name}(${arg}) ids`);
          assert.equal(await store.count(query, arg), await oracle.count(query, arg), `${name}(${arg}) count`);
        }
      });
    }

    it('the seeded data exercises every query (no trivially empty answers)', async () => {
      let empty = 0;
      for (const [name, spec] of Object.entries(QUERIES as Record<string, QuerySpec>)) {
        // A status query, with the first status its kind's rows take.
        const column = spec.by ?? spec.field;
        const arg = spec.by === 'status' || spec.field === 'status' ? statusesOf(spec.kind)[0]! : column ? args[column][spec.by === 'due_by' ? 3 : 0] : undefined;
        if ((await store.count(name as QueryName, arg)) === 0) empty++;
      }
      assert.equal(empty, 0);
    });

    it('orders integer ids numerically and names by name', async () => {
      assert.deepEqual(await store.ids('locations'), ['Zed', 'a10', 'a9', 'ashen-moors', 'emberfall', 'greenhollow']);
      const messages = await store.ids('messages');
      assert.deepEqual(messages.slice(0, 3), ['world-event-1', 'world-event-12', 'world-event-2']);
      const numbers = messages.slice(3).map(Number);
      assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b));
    });

    it('refuses an unknown query and a by-query without its argument', async () => {
      await assert.rejects(store.list('nope' as QueryName), /unknown query/);
      await assert.rejects(store.list('membersOf'), /needs an argument/);
    });
  });

  describe('history', () => {
    let store: CassandraStore;
    let oracle: SqliteStore;
    const persist = writer();
    const entries: HistoryEntry[] = [];

    before(async function () {
      this.timeout(120_000);
      store = await openCassandraStore(cassandra.options({ layout: SMALL_LAYOUT, historyIdBlock: 7 }));
      oracle = new SqliteStore(tempDir());
      const r = rng(7);
      let day = 1;
      for (let i = 0; i < 120; i++) {
        if (r.next() < 0.15) day += r.pick([1, 1, 2, 4]);
        const history: HistoryEntry[] = Array.from({ length: r.pick([0, 1, 1, 2, 3]) }, () => ({
          day,
          category: r.pick(['trade', 'quest', 'organization', 'world']),
          agent_id: r.pick([null, 1, 2, 3]),
          organization_ids: r.pick([[], [1], [2], [1, 2], [2, 2], [3, 4, 5]]),
          summary: `event ${entries.length}`,
          data: r.next() < 0.5 ? { ledger: [{ organization_id: 1, flow: 'trade', gold: 3 }] } : undefined,
        }));
        entries.push(...history);
        // One after another, so both stores number the events alike.
        await persist([store, oracle], `h:${i % 9}`, { history });
      }
    });
    after(async () => { await store?.close(); await oracle?.close(); });

    it('numbers events 1, 2, 3 ... in one process, across id blocks and buckets', async () => {
      assert.ok(entries.length > 100);
      assert.equal(await store.lastHistoryId(), entries.length);
      const all = await store.history({ limit: 10_000 });
      assert.deepEqual(all.map((e) => e.id), Array.from({ length: entries.length }, (_, i) => entries.length - i));
      assert.deepEqual(all.map((e) => e.summary), entries.map((e) => e.summary).reverse());
    });

    it('answers every filter and page as the SQLite store does', async () => {
      const filters = [{}, { category: 'trade' }, { agent_id: 2 }, { organization_id: 2 }, { organization_id: 9 }, { category: 'quest', agent_id: 1 },
        { organization_id: 1, category: 'trade' }, { agent_id: 3, organization_id: 2 }, { category: 'none' }];
      for (const filter of filters) {
        for (const limit of [1, 5, 30, 500]) {
          for (const before_id of [undefined, 1, 2, 17, 33, 100, entries.length, entries.length + 1, 10_000]) {
            const q = { ...filter, limit, ...(before_id === undefined ? {} : { before_id }) };
            assert.deepEqual(withoutCreatedAt(await store.history(q)), withoutCreatedAt(await oracle.history(q)), JSON.stringify(q));
          }
        }
      }
    });

    it('pages back with before_id through the whole history without gaps or repeats', async () => {
      for (const filter of [{}, { category: 'world' }, { organization_id: 2 }, { agent_id: 1, category: 'trade' }]) {
        const seen: number[] = [];
        let before: number | undefined;
        for (;;) {
          const page = await store.history({ ...filter, limit: 7, ...(before === undefined ? {} : { before_id: before }) });
          if (page.length === 0) break;
          seen.push(...page.map((e) => e.id));
          before = page[page.length - 1].id;
        }
        assert.deepEqual(seen, (await oracle.history({ ...filter, limit: 10_000 })).map((e) => e.id), JSON.stringify(filter));
      }
    });

    it('counts the events of an agent', async () => {
      for (const agent of [1, 2, 3, 4]) assert.equal(await store.historyCountOfAgent(agent), await oracle.historyCountOfAgent(agent));
    });

    it('finds one event by id', async () => {
      for (const id of [1, 16, 17, entries.length]) assert.deepEqual(withoutCreatedAt([(await store.historyEvent(id))!]), withoutCreatedAt([(await oracle.historyEvent(id))!]));
      assert.equal(await store.historyEvent(0), undefined);
      assert.equal(await store.historyEvent(entries.length + 1), undefined);
    });

    it('investigates a window of days: the events nearest to one, in id order', async () => {
      const withIds = entries.map((e, i) => ({ ...e, id: i + 1 }));
      const lastDay = withIds[withIds.length - 1].day;
      for (const near of [1, 20, 57, withIds.length]) {
        const day = withIds[near - 1].day;
        for (const [from, to] of [[day - 1, day + 1], [day, day], [0, lastDay + 3], [day + 100, day + 101]]) {
          for (const limit of [1, 4, 9, 500]) {
            const expected = withIds.filter((e) => e.day >= from && e.day <= to)
              .sort((a, b) => Math.abs(a.id - near) - Math.abs(b.id - near) || a.id - b.id)
              .slice(0, limit).sort((a, b) => a.id - b.id);
            const got = await store.historyBetweenDays(from, to, limit, near);
            assert.deepEqual(got.map((e) => e.id), expected.map((e) => e.id), `near ${near} days ${from}..${to} limit ${limit}`);
          }
          for (const limit of [3, 10_000]) {
            assert.deepEqual(withoutCreatedAt(await store.historyBetweenDays(from, to, limit, near)), withoutCreatedAt(await oracle.historyBetweenDays(from, to, limit, near)), 'as SQLite');
          }
        }
      }
    });
  });

  describe('history ids with writers in parallel', () => {
    it('are unique, and increase in the order persists were issued within a process', async () => {
      const world = cassandra.world();
      const a = await openCassandraStore(cassandra.options({ world, historyIdBlock: 10, layout: SMALL_LAYOUT }));
      const b = await openCassandraStore(cassandra.options({ world, historyIdBlock: 10, layout: SMALL_LAYOUT }));
      const persistA = writer();
      const persistB = writer();
      // a's events are of day 1 and b's of day 2, so the two days' ids interleave block by block.
      const entry = (who: string, i: number): HistoryEntry => ({ day: who === 'a' ? 1 : 2, category: who, agent_id: null, organization_ids: [], summary: `${who}${i}` });
      await Promise.all(Array.from({ length: 300 }, (_, i) => [
        persistA([a], `a:${i % 17}`, { history: [entry('a', i)] }),
        persistB([b], `b:${i % 13}`, { history: [entry('b', i), entry('b', i)] }),
      ]).flat());
      const all = await a.history({ limit: 10_000 });
      assert.equal(all.length, 900);
      assert.equal(new Set(all.map((e) => e.id)).size, 900, 'unique ids');
      for (const who of ['a', 'b']) {
        const mine = all.filter((e) => e.category === who).sort((x, y) => x.id - y.id).map((e) => Number(e.summary.slice(1)));
        assert.deepEqual(mine, [...mine].sort((x, y) => x - y), `${who}'s ids follow the order of its persists`);
      }
      assert.deepEqual((await b.history({ limit: 10_000, category: 'a' })).length, 300, 'the other process reads them');
      // The investigation of a day finds that day's events only, nearest first, though the days' ids interleave.
      for (const near of [1, all[450].id, all[0].id]) {
        for (const [from, to] of [[1, 1], [2, 2], [1, 2], [3, 4]]) {
          for (const limit of [1, 25, 1000]) {
            const expected = all.filter((e) => e.day >= from && e.day <= to)
              .sort((x, y) => Math.abs(x.id - near) - Math.abs(y.id - near) || x.id - y.id).slice(0, limit).map((e) => e.id).sort((x, y) => x - y);
            assert.deepEqual((await a.historyBetweenDays(from, to, limit, near)).map((e) => e.id), expected, `days ${from}..${to} near ${near} limit ${limit}`);
          }
        }
      }
      await Promise.all([a.close(), b.close()]);
    });
  });

  describe('id sequences', () => {
    it('hands out unique ids under concurrent nextId from two stores on one keyspace', async () => {
      const world = cassandra.world();
      const a = await openCassandraStore(cassandra.options({ world, idBlock: 5 }));
      const b = await openCassandraStore(cassandra.options({ world, idBlock: 5 }));
      const ids = await Promise.all(Array.from({ length: 400 }, (_, i) => (i % 2 ? a : b).nextId('organization')));
      assert.equal(new Set(ids).size, ids.length, 'no id handed out twice');
      const fromA = await Promise.all(Array.from({ length: 50 }, () => a.nextId('organization')));
      assert.deepEqual(fromA, [...fromA].sort((x, y) => x - y), 'increasing within a process');
      await Promise.all([a.close(), b.close()]);
    });

    it('starts at 1, skips ids reserved for the seeded world, and never reuses an id after a restart', async () => {
      const world = cassandra.world();
      let store = await openCassandraStore(cassandra.options({ world }));
      assert.equal(await store.nextId('thing'), 1);
      assert.equal(await store.nextId('thing'), 2);
      await store.reserveIdsUpTo('other', 10);
      assert.equal(await store.nextId('other'), 11, 'ids reserved for the seeded world are never handed out');
      await store.reserveIdsUpTo('thing', 40);
      assert.equal(await store.nextId('thing'), 41, 'the block in memory goes on above the reserved value');
      await store.reserveIdsUpTo('thing', 5);
      const before = await Promise.all(Array.from({ length: 100 }, () => store.nextId('thing')));
      await store.close();
      store = await openCassandraStore(cassandra.options({ world }));
      const after = await store.nextId('thing');
      assert.ok(after > Math.max(...before), `an id after a restart (${after}) is above every earlier one`);
      assert.equal(new Set(before).size, before.length);
      await store.close();
    });
  });

  describe('ids after a clean restart', () => {
    it('run on without a gap when this process held the top of the sequence', async () => {
      const world = cassandra.world();
      const persist = writer();
      const entry: HistoryEntry = { day: 1, category: 'c', agent_id: null, organization_ids: [], summary: 's' };
      let store = await openCassandraStore(cassandra.options({ world }));
      assert.deepEqual([await store.nextId('thing'), await store.nextId('thing')], [1, 2]);
      for (let i = 0; i < 5; i++) await persist([store], 'k:1', { history: [entry] });
      await store.close();
      store = await openCassandraStore(cassandra.options({ world }));
      assert.equal(await store.nextId('thing'), 3);
      await persist([store], 'k:1', { history: [entry] });
      assert.equal(await store.lastHistoryId(), 6, 'the newest id counts the history');
      await store.close();
    });

    it('leave ids unused that the history counts around: counts.history_events is a count, not the newest id', async () => {
      const world = cassandra.world();
      const persist = writer();
      const entry: HistoryEntry = { day: 1, category: 'c', agent_id: null, organization_ids: [], summary: 's' };
      const open = () => openCassandraStore(cassandra.options({ world, layout: SMALL_LAYOUT, historyIdBlock: 20 }));
      const a = await open();
      const b = await open();
      await persist([a], 'k:1', { history: [entry] });
      await persist([b], 'k:1', { history: [entry] });
      await a.close(); // b reserved after a's block: the rest of it stays unused
      for (let i = 0; i < 30; i++) await persist([b], 'k:1', { history: [entry] });
      const written = 32;
      const newest = await b.lastHistoryId();
      assert.ok(newest > written, `ids were left unused (newest ${newest})`);
      assert.ok(newest >= 3 * SMALL_LAYOUT.historyBucketSize, 'buckets two behind the newest are counted once and remembered');
      assert.equal(await b.historyCount(), written);
      assert.equal((await b.history({ limit: 100 })).length, written);
      await persist([b], 'k:1', { history: [entry] });
      assert.equal(await b.historyCount(), written + 1, 'a new event counts at once');
      const c = await open();
      assert.equal(await c.historyCount(), written + 1, 'another process counts the same');
      await b.close();
      await c.close();
    });

    it('count an event written late into an older bucket once its count is no longer reused', async () => {
      const world = cassandra.world();
      const persist = writer();
      const entry: HistoryEntry = { day: 1, category: 'c', agent_id: null, organization_ids: [], summary: 's' };
      const reuseMs = 200;
      const a = await openCassandraStore(cassandra.options({ world, layout: SMALL_LAYOUT, historyIdBlock: 20 }));
      const b = await openCassandraStore(cassandra.options({ world, layout: SMALL_LAYOUT, historyIdBlock: 20, historyCountReuseMs: reuseMs }));
      await persist([a], 'k:1', { history: [entry] });
      for (let i = 0; i < 40; i++) await persist([b], 'k:1', { history: [entry] });
      assert.ok(await b.lastHistoryId() >= 3 * SMALL_LAYOUT.historyBucketSize, 'the first bucket is two behind the newest');
      assert.equal(await b.historyCount(), 41);
      await persist([a], 'k:1', { history: [entry] }); // a writes on from its old block, into the first bucket
      await new Promise((resolve) => setTimeout(resolve, reuseMs + 50));
      assert.equal(await b.historyCount(), 42);
      await a.close();
      await b.close();
    });

    it('skip the rest of a block when another process reserved after it, and never repeat', async () => {
      const world = cassandra.world();
      const a = await openCassandraStore(cassandra.options({ world }));
      const b = await openCassandraStore(cassandra.options({ world }));
      assert.equal(await a.nextId('thing'), 1);
      assert.equal(await b.nextId('thing'), 65);
      await a.close();
      assert.equal(await b.nextId('thing'), 66);
      await b.close();
      const c = await openCassandraStore(cassandra.options({ world }));
      assert.equal(await c.nextId('thing'), 67, 'b gave back 67..128 when it closed; a could not give back 2..64');
      await assert.rejects(a.nextId('thing'), /closed/);
      await c.close();
    });
  });

  describe('the nact engine', () => {
    let store: CassandraStore;
    const persist = writer();
    before(async () => { store = await openCassandraStore(cassandra.options({ layout: SMALL_LAYOUT })); });
    after(async () => { await store?.close(); });

    const events = (key: string, offset: number, limit?: number) => replay(store, key, offset, limit);

    it('reads events after an offset, at most a limit, across journal partitions', async () => {
      for (let n = 1; n <= 23; n++) await persist([store], 'j:1', {}, { n });
      const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
      assert.deepEqual(await events('j:1', 0), range(1, 23));
      assert.deepEqual(await events('j:1', 4, 3), [5, 6, 7]);
      assert.deepEqual(await events('j:1', 3, 2), [4, 5]);
      assert.deepEqual(await events('j:1', 5, 100), range(6, 23));
      assert.deepEqual(await events('j:1', 9), range(10, 23));
      assert.deepEqual(await events('j:1', 10, 10), range(11, 20));
      assert.deepEqual(await events('j:1', 19), [20, 21, 22, 23]);
      assert.deepEqual(await events('j:1', 23), []);
      assert.deepEqual(await events('j:1', 40), []);
      assert.deepEqual(await events('nobody', 0), []);
      await persist([store], 'j:2', {}, { n: 1 });
      for (let n = 2; n <= 10; n++) await persist([store], 'j:2', {}, { n });
      assert.deepEqual(await events('j:2', 0), range(1, 10), 'a journal that ends exactly at a partition boundary');
    });

    it('reduces as nact recovers: in order, each step awaited, with the index', async () => {
      const seen: Array<[number, number]> = [];
      const result = await store.engine.events('j:1', 2, 30).reduce(async (prev: Promise<number>, e: PersistedEvent, i: number) => {
        const acc = await prev;
        await new Promise((r) => setTimeout(r, 1));
        seen.push([e.sequenceNumber, i]);
        return acc + (e.data as { n: number }).n;
      }, Promise.resolve(0));
      assert.equal(result, (3 + 23) * 21 / 2);
      assert.deepEqual(seen, Array.from({ length: 21 }, (_, i) => [i + 3, i]));
    });

    it('keeps the newest snapshot only', async () => {
      assert.equal(await store.engine.latestSnapshot('s:1'), undefined);
      for (const seq of [3, 9, 6]) await store.engine.takeSnapshot({ key: 's:1', sequenceNumber: seq, createdAt: 1000 + seq, data: { at: seq } });
      const latest = await store.engine.latestSnapshot('s:1');
      assert.deepEqual(latest, { key: 's:1', sequenceNumber: 9, createdAt: 1009, data: { at: 9 } });
      const client = new Client({ contactPoints: cassandra.server().contactPoints, localDataCenter: cassandra.server().localDataCenter });
      await client.connect();
      const left = (await client.execute(`SELECT sequence_nr FROM ${store.keyspace}.snapshots WHERE world = ? AND persistence_key = 's:1'`, [store.world])).rows.map((r) => Number(r.get('sequence_nr')));
      await client.shutdown();
      assert.deepEqual(left, [9, 6], 'older snapshots than the one taken are deleted (6 was taken after 9, and stays below it)');
    });
  });

  describe('actors on the Cassandra store', () => {
    type Counter = { id: string; total: number } | null;
    type CounterCommand = { type: 'add'; id: string; amount: number } | { type: 'get' };
    type CounterEvent = { type: 'added'; id: string; amount: number };
    type TestProtocols = { counter: CounterCommand };
    const counterKind: EntityKind<Counter, CounterCommand, CounterEvent> = {
      kind: 'counter',
      rank: 10,
      commands: { add: true, get: true },
      initialState: null,
      evolve: (s, e) => ({ id: e.id, total: (s?.total ?? 0) + e.amount }),
      project: (s) => (s ? [{ kind: 'counter', id: s.id, status: s.total > 10 ? 'big' : 'small', doc: { ...s } }] : []),
      chronicle: (e, after) => [{ day: 1, category: 'counter', agent_id: null, organization_ids: [], summary: `${after!.id} +${e.amount}` }],
      view: (s) => s,
      handle: (_s, c) => (c.type === 'add' ? { events: [{ type: 'added', id: c.id, amount: c.amount }] } : { events: [] }),
    };

    it('answers only after the write, and recovers an actor from snapshot and journal after a restart', async () => {
      const world = cassandra.world();
      let store = await openCassandraStore(cassandra.options({ world, layout: SMALL_LAYOUT }));
      let region = new Region<TestProtocols>(store.engine, store, [counterKind], { snapshotEvery: 3 });
      for (let i = 1; i <= 7; i++) {
        const r = await region.ask('counter', 'x', { type: 'add', id: 'x', amount: i });
        assert.deepEqual(r, { ok: true, value: { id: 'x', total: (i * (i + 1)) / 2 } });
        assert.deepEqual(await store.row('counter', 'x'), { id: 'x', total: (i * (i + 1)) / 2 }, 'the row is readable once the actor answered');
      }
      region.stop();
      await store.close();

      store = await openCassandraStore(cassandra.options({ world, layout: SMALL_LAYOUT }));
      const snapshot = await store.engine.latestSnapshot('counter:x');
      assert.ok(snapshot && snapshot.sequenceNumber >= 3, 'a snapshot was taken');
      region = new Region<TestProtocols>(store.engine, store, [counterKind], { snapshotEvery: 3 });
      assert.deepEqual(await region.ask('counter', 'x', { type: 'get' }), { ok: true, value: { id: 'x', total: 28 } });
      assert.deepEqual(await region.ask('counter', 'x', { type: 'add', id: 'x', amount: 2 }), { ok: true, value: { id: 'x', total: 30 } });
      assert.equal(await store.count('counter' as QueryName).catch(() => -1), -1, 'counter is no named query');
      assert.equal((await store.history({ limit: 100, category: 'counter' })).length, 8);
      region.stop();
      await store.close();
    });

    it('commits many concurrent persists with a bounded number of requests in flight', async function () {
      this.timeout(180_000);
      const store = await openCassandraStore(cassandra.options({ maxInFlight: 64 }));
      const region = new Region<TestProtocols>(store.engine, store, [counterKind]);
      const ids = Array.from({ length: 3000 }, (_, i) => `c${i}`);
      // What is measured is the bound, not the time: the asks may wait long behind it on a busy machine.
      const answers = await Promise.all(ids.map((id) => region.ask('counter', id, { type: 'add', id, amount: 12 }, 100_000)));
      assert.ok(answers.every((a) => a.ok));
      assert.ok(store.peakInFlight <= 64, `at most 64 requests in flight (peak ${store.peakInFlight})`);
      assert.equal(await store.lastHistoryId(), 3000);
      region.stop();
      await store.close();
    });
  });

  describe('all or nothing', () => {
    it('a batch Cassandra refuses writes none of its journal, rows, history or credentials', async () => {
      const store = await openCassandraStore(cassandra.options());
      const persist = writer();
      // Over batch_size_fail_threshold (50 KiB by default): Cassandra refuses the whole batch.
      const big = 'x'.repeat(80 * 1024);
      await assert.rejects(persist([store], 'big:1', {
        rows: [{ kind: 'agent', id: 5, status: 'active', doc: { name: 'small' } }, { kind: 'organization', id: 6, doc: { big } }],
        history: [{ day: 1, category: 'agent', agent_id: 5, organization_ids: [6], summary: 'never' }],
        credentials: [{ key_hash: 'never', agent_id: 5 }],
      }));
      assert.equal(await store.row('agent', 5), undefined);
      assert.equal(await store.row('organization', 6), undefined);
      assert.deepEqual(await store.history({ limit: 10 }), []);
      assert.equal(await store.agentForKeyHash('never'), undefined);
      assert.deepEqual(await replay(store, 'big:1'), []);
      await store.close();
    });
  });

  describe('group commit', () => {
    it('sends persists waiting at the same moment in one logged batch, each readable once it resolves', async () => {
      const store = await openCassandraStore(cassandra.options());
      const persist = writer();
      const before = store.writeStats;
      await Promise.all(Array.from({ length: 100 }, (_, i) => persist([store], `g:${i}`, {
        rows: [{ kind: 'agent', id: i + 1, status: 'active', doc: { i } }],
        history: [{ day: 1, category: 'agent', agent_id: i + 1, organization_ids: [], summary: `g${i}` }],
      })));
      const after = store.writeStats;
      assert.equal(after.writes - before.writes, 100);
      assert.ok(after.batches - before.batches < 50, `100 persists in ${after.batches - before.batches} batches`);
      assert.equal(await store.count('agents'), 100);
      assert.equal((await store.history({ limit: 1000 })).length, 100);
      await store.close();
    });

    it('keeps the write of a row by the persist called last, in one batch or in several', async () => {
      for (const persists of [64, 1]) {
        const store = await openCassandraStore(cassandra.options({ groupCommit: { persists } }));
        const persist = writer();
        await Promise.all([1, 2, 3].map((v) => persist([store], `w:${v}`, { rows: [{ kind: 'agent', id: 1, status: `s${v}`, doc: { v } }] })));
        assert.deepEqual(await store.row('agent', 1), { v: 3 }, `${persists} persists a batch`);
        assert.deepEqual(await store.ids('activeAgents'), []);
        await store.close();
      }
    });

    it('a persist Cassandra refuses fails alone when it shared a batch with others', async () => {
      const store = await openCassandraStore(cassandra.options({ groupCommit: { bytes: 10_000_000 } }));
      const persist = writer();
      const big = 'x'.repeat(80 * 1024);
      const results = await Promise.allSettled([
        ...Array.from({ length: 10 }, (_, i) => persist([store], `ok:${i}`, {
          rows: [{ kind: 'agent', id: 100 + i, status: 'active', doc: { i } }],
          history: [{ day: 1, category: 'agent', agent_id: 100 + i, organization_ids: [], summary: `ok${i}` }],
        })),
        persist([store], 'big:1', { rows: [{ kind: 'organization', id: 7, doc: { big } }], history: [{ day: 1, category: 'big', agent_id: null, organization_ids: [7], summary: 'never' }] }),
      ]);
      assert.deepEqual(results.map((r) => r.status), [...Array(10).fill('fulfilled'), 'rejected']);
      assert.ok(store.writeStats.batches >= 12, 'one refused batch, then each persist alone');
      assert.deepEqual(await store.ids('activeAgents'), Array.from({ length: 10 }, (_, i) => String(100 + i)));
      assert.equal(await store.row('organization', 7), undefined);
      assert.deepEqual(await store.history({ limit: 10, organization_id: 7 }), []);
      assert.equal((await store.history({ limit: 100 })).length, 10);
      await store.close();
    });
  });

  describe('when Cassandra is out of reach', () => {
    it('opening rejects with StoreUnavailableError', async () => {
      const port = await freePort();
      const error = await openCassandraStore({ contactPoints: [`127.0.0.1:${port}`], localDataCenter: 'datacenter1', keyspace: 'worldsim_unreachable', connectTimeoutMs: 1000 })
        .then(() => null, (e: unknown) => e);
      assert.ok(error instanceof StoreUnavailableError, `got ${error}`);
      assert.equal(error.status, 503);
    });

    it('reads, persists and ids reject with StoreUnavailableError, and work again once it is back', async function () {
      this.timeout(120_000);
      const target = cassandra.server().contactPoints[0];
      const proxy = await tcpProxy(target);
      await proxy.start();
      const store = await openCassandraStore(cassandra.options({ contactPoints: [`127.0.0.1:${proxy.port}`], requestTimeoutMs: 2000 }));
      const persist = writer();
      await persist([store], 'u:1', { rows: [{ kind: 'agent', id: 1, doc: { ok: true } }] });
      assert.deepEqual(await store.row('agent', 1), { ok: true });

      await proxy.stop();
      const failures = await Promise.all([
        store.row('agent', 1), store.list('agents'), store.history({ limit: 5 }), store.setting('x'), store.agentForKeyHash('k'),
        persist([store], 'u:1', { rows: [{ kind: 'agent', id: 2, doc: {} }] }), store.nextId('fresh'),
      ].map((p) => (p as Promise<unknown>).then(() => null, (e: unknown) => e)));
      for (const e of failures) assert.ok(e instanceof StoreUnavailableError, `expected StoreUnavailableError, got ${(e as Error)?.stack ?? e}`);

      await proxy.start();
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          assert.deepEqual(await store.row('agent', 1), { ok: true });
          break;
        } catch (e) {
          assert.ok(e instanceof StoreUnavailableError, String(e));
          if (Date.now() > deadline) throw e;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      await store.close();
      await proxy.stop();
    });
  });
});

/** The fields a kind's queries by a document's field compare (QuerySpec.field), as its row's columns hold them. */
function documentFields(row: ProjectionRow): Record<string, unknown> {
  const fields = (Object.values(QUERIES) as QuerySpec[]).filter((q) => q.kind === row.kind && q.field).map((q) => q.field!);
  return Object.fromEntries(fields.map((field) => [field, field === 'requester_id' ? row.organization_id : row.status]));
}
