// The embedded store commits writes in the order they were queued, so an actor goes on as
// soon as its write is queued and its answer waits for the disk only where it leaves the
// actors (actors/region.ts, `Unfinished`). These tests hold the store and the region to the
// rules that make that safe: numbered writes, a write that depends on a failed one fails
// too, an actor whose write failed writes nothing more until it recovers, and nothing
// leaves the actors before what it reflects is durable.
import assert from 'assert/strict';
import { Region } from '../../actors/region';
import type { EntityKind } from '../../actors/entity';
import type { PersistedEvent, Store } from '../../actors/ports/store';
import { openCassandraStore } from '../../infra/store/cassandra-store';
import { OrderedWrites } from '../../infra/store/ordered-writes';
import { SqliteStore } from '../../infra/store/sqlite-store';
import sinon from 'sinon';
import { useCassandra } from '../support/cassandra';
import { startTestWorld, tempDir, type TestWorld } from '../support/world';
import { waitFor } from '../support/wait';

const event = (key: string, sequenceNumber: number, data: unknown): PersistedEvent =>
  ({ key, sequenceNumber, createdAt: Date.now(), data, tags: [], isDeleted: false }) as PersistedEvent;

/** Data the store cannot write (JSON has no BigInt): the write fails after it was queued, when its batch is made for the writer thread. */
const UNWRITABLE = { events: [{ type: 'added', amount: 1n }] };

/** A store that numbers its writes: the embedded one, or Cassandra as the sole writer of its world (one node). */
type OrderedStore = Store & { writeStats: { batches: number } };

const eventsOf = async (store: Store, key: string) =>
  (await store.engine.events(key, 0, 100, []).reduce(async (all: Promise<unknown[]>, e: PersistedEvent) => [...(await all), e.data], Promise.resolve([]))) as unknown[];

describe('the bookkeeping of ordered writes (both stores)', () => {
  const settledYet = async (p: Promise<void>) => {
    let done = false;
    void p.then(() => { done = true; });
    await new Promise((r) => setImmediate(r));
    return done;
  };

  it("numbers each persist and makes it depend on its actor's previous one and on those it names, until they are settled", () => {
    const o = new OrderedWrites();
    const a1 = o.number('a', 1, undefined);
    const b1 = o.number('b', 1, undefined);
    const a2 = o.number('a', 2, [b1.seq]);
    assert.deepEqual([a1.seq, b1.seq, a2.seq], [1, 2, 3]);
    assert.deepEqual([a1.after, b1.after, a2.after], [undefined, undefined, [2, 1]]);
    assert.equal(o.ready(a2.after, new Set()), false);
    assert.equal(o.ready(a2.after, new Set([1, 2])), true, 'sent in the same batch');
    o.settle(1, 'a', 1, true);
    assert.equal(o.ready(a2.after, new Set()), false, 'b:1 is still on its way');
    o.settle(2, 'b', 1, true);
    assert.equal(o.ready(a2.after, new Set()), true);
    assert.equal(o.number('a', 3, undefined).after?.join(), '3', 'a:2 is unsettled');
  });

  it("refuses what its actor wrote after a failed persist and what depends on it, until the actor's next life", () => {
    const o = new OrderedWrites();
    const a1 = o.number('a', 1, undefined);
    o.settle(a1.seq, 'a', 1, false);
    assert.match(o.number('a', 2, undefined).refused!, /an earlier write of a failed/);
    assert.match(o.number('b', 1, [a1.seq]).refused!, /a write it depends on failed/);
    assert.equal(o.number('c', 1, undefined).refused, null);
    o.recovering('a');
    assert.equal(o.refusal('a', 2, undefined), null);
  });

  it("counts a queued snapshot for the actor's recovery, but nothing depends on it and its failure refuses none of the actor's events", async () => {
    const o = new OrderedWrites();
    const snap = o.number('a', 4, undefined, true);
    assert.equal(snap.refused, null);
    const recovered = o.settledFor('a');
    assert.equal(await settledYet(recovered), false, 'a recovery waits for the snapshot');
    assert.equal(o.number('a', 5, undefined).after, undefined, 'an event does not wait for a snapshot');
    o.settle(snap.seq, 'a', 4, false, true);
    assert.equal(o.refusal('a', 6, undefined), null, 'a failed snapshot refuses no event');
    o.settle(snap.seq + 1, 'a', 5, true);
    assert.equal(await settledYet(recovered), true);
  });

  it("refuses a snapshot at or after a failed event's number, not one before it", () => {
    const o = new OrderedWrites();
    const a3 = o.number('a', 3, undefined);
    o.settle(a3.seq, 'a', 3, false);
    assert.match(o.number('a', 3, undefined, true).refused!, /an earlier write of a failed/, "the snapshot would hold the failed event's state");
    assert.equal(o.refusal('a', 2, undefined, true), null);
  });

  it("lets a recovery wait for every unsettled persist of its actor, and a snapshot for the newest one only", async () => {
    const o = new OrderedWrites();
    const a1 = o.number('a', 1, undefined);
    const a2 = o.number('a', 2, undefined);
    const recovery = o.settledFor('a');
    const snapshot = o.settledFor('a', false);
    // The later persist fails first (refused: a dependency failed), the earlier one is still on its way.
    o.settle(a2.seq, 'a', 2, false);
    assert.equal(await settledYet(snapshot), true);
    assert.equal(await settledYet(recovery), false);
    o.settle(a1.seq, 'a', 1, true);
    assert.equal(await settledYet(recovery), true);
  });
});

describe('ordered writes of the embedded store', () => {
  let store: SqliteStore;
  beforeEach(() => { store = new SqliteStore(tempDir()); });
  afterEach(async () => { await store.close(); });

  it('numbers every write in the order it was queued, before persist returns', async () => {
    const tickets = [{}, {}, {}] as Array<{ seq?: number }>;
    const written = tickets.map((ticket, i) => store.engine.persist(event(`a${i}`, 1, { events: [] }), { ticket }));
    const seqs = tickets.map((t) => t.seq);
    assert.ok(seqs.every((n) => typeof n === 'number'), 'numbered at once');
    assert.deepEqual(seqs, [...seqs].sort((x, y) => x! - y!));
    assert.equal(new Set(seqs).size, 3);
    await Promise.all(written);
  });

  it('fails a write that depends on a write that failed in the same commit, and writes none of it', async () => {
    const bad = { seq: undefined as number | undefined };
    const failing = store.engine.persist(event('a', 1, UNWRITABLE), { ticket: bad });
    const dependent = store.engine.persist(event('b', 1, { events: [] }), { after: [bad.seq!], rows: [{ kind: 'thing', id: 'b', doc: { b: 1 } }] });
    const unrelated = store.engine.persist(event('c', 1, { events: [] }));
    await assert.rejects(failing);
    await assert.rejects(dependent, /depends on failed/);
    await unrelated;
    assert.deepEqual(await eventsOf(store, 'b'), []);
    assert.equal(await store.row('thing', 'b'), undefined, 'its rows were not written either');
    assert.equal((await eventsOf(store, 'c')).length, 1, 'a write depending on nothing still commits');
  });

  it('fails a write queued after the failure it depends on is known', async () => {
    const bad = { seq: undefined as number | undefined };
    await assert.rejects(store.engine.persist(event('a', 1, UNWRITABLE), { ticket: bad }));
    await assert.rejects(store.engine.persist(event('b', 1, { events: [] }), { after: [bad.seq!] }), /depends on failed/);
    assert.deepEqual(await eventsOf(store, 'b'), []);
  });

  it("after an actor's write fails, its later writes and snapshots fail too until its next life begins", async () => {
    await store.engine.persist(event('a', 1, { events: [{ n: 1 }] }));
    const failed = store.engine.persist(event('a', 2, UNWRITABLE));
    const later = store.engine.persist(event('a', 3, { events: [{ n: 3 }] })); // decided on the failed state
    await assert.rejects(failed);
    await assert.rejects(later, /earlier write of a failed/);
    await assert.rejects(store.engine.persist(event('a', 4, { events: [{ n: 4 }] })), /earlier write of a failed/);
    // A snapshot at the failed number, or after it, holds the failed state.
    await assert.rejects(store.engine.takeSnapshot({ key: 'a', sequenceNumber: 2, createdAt: Date.now(), data: { poisoned: true } } as never), /earlier write of a failed/);
    await assert.rejects(store.engine.takeSnapshot({ key: 'a', sequenceNumber: 4, createdAt: Date.now(), data: { poisoned: true } } as never), /earlier write of a failed/);
    // The next life recovers to 1 (nact reads its snapshot first) and writes 2 again.
    assert.equal(await store.engine.latestSnapshot('a'), undefined, 'no snapshot of the failed state');
    await store.engine.persist(event('a', 2, { events: [{ n: 2 }] }));
    await store.engine.persist(event('a', 3, { events: [{ n: 3 }] }));
    assert.deepEqual(await eventsOf(store, 'a'), [{ events: [{ n: 1 }] }, { events: [{ n: 2 }] }, { events: [{ n: 3 }] }]);
  });

  it('lets the next life write on from what is on disk, even when the failed write had reached it', async () => {
    await store.engine.persist(event('a', 1, { events: [{ n: 1 }] }));
    // The same number again: refused by the journal, as a commit reported failed after it landed would be retried.
    await assert.rejects(store.engine.persist(event('a', 1, { events: [{ n: 1 }] })));
    await assert.rejects(store.engine.persist(event('a', 2, { events: [{ n: 2 }] })), /earlier write of a failed/);
    await store.engine.latestSnapshot('a'); // the next life recovers: to 1
    await store.engine.persist(event('a', 2, { events: [{ n: 2 }] }));
    assert.equal((await eventsOf(store, 'a')).length, 2);
  });

  it('commits the rest of a batch in which one write is refused by SQLite, failing what depended on it', async () => {
    await store.engine.persist(event('a', 1, { events: [{ n: 1 }] }));
    await store.engine.persist(event('warm', 1, { events: [] })); // the next persists of this turn travel as one batch
    const batchesBefore = store.writeStats.batches;
    const dup = { seq: undefined as number | undefined };
    // Queued in one turn: one batch, in which the journal refuses the second write of a:1.
    const before = store.engine.persist(event('c', 1, { events: [] }), { rows: [{ kind: 'thing', id: 'c', doc: { c: 1 } }] });
    const duplicate = store.engine.persist(event('a', 1, { events: [{ n: 'again' }] }), { ticket: dup });
    const dependent = store.engine.persist(event('b', 1, { events: [] }), { after: [dup.seq!], rows: [{ kind: 'thing', id: 'b', doc: { b: 1 } }] });
    const laterOfA = store.engine.persist(event('a', 2, { events: [{ n: 2 }] }));
    const after = store.engine.persist(event('d', 1, { events: [] }), { history: [{ day: 1, category: 'test', agent_id: null, organization_ids: [], summary: 'd' }] });
    await assert.rejects(duplicate, /UNIQUE|constraint/i);
    await assert.rejects(dependent, /depends on failed/);
    await assert.rejects(laterOfA, /earlier write of a failed/);
    await before;
    await after;
    assert.equal(store.writeStats.batches - batchesBefore, 1, 'they travelled as one batch');
    assert.deepEqual(await eventsOf(store, 'a'), [{ events: [{ n: 1 }] }], 'the journal keeps the first a:1 alone');
    assert.deepEqual(await eventsOf(store, 'b'), []);
    assert.equal(await store.row('thing', 'b'), undefined, 'the dependent wrote none of its rows');
    assert.deepEqual(await store.row('thing', 'c'), { c: 1 });
    assert.equal((await eventsOf(store, 'd')).length, 1);
    assert.equal((await store.history({ category: 'test', limit: 10 })).length, 1, "the last write's history too");
  });

  it('fails every write that waited for the writer thread, and every later one, once the thread is gone', async () => {
    const writer = (store as unknown as { writer: { terminate(): Promise<number> } }).writer;
    const queued = store.engine.persist(event('a', 1, { events: [] }));
    await writer.terminate();
    await assert.rejects(queued, /writer thread stopped/);
    await assert.rejects(store.engine.persist(event('b', 1, { events: [] })), /writer thread stopped/);
    assert.deepEqual(await eventsOf(store, 'b'), []);
    await assert.rejects(store.ping(), /writer thread stopped/, 'the health check says so');
  });

  it("reads an actor's snapshot only after the writes of its key still on their way (recovery sees them)", async () => {
    const written = store.engine.persist(event('a', 1, { events: [{ n: 1 }] }));
    assert.equal(await store.engine.latestSnapshot('a'), undefined);
    assert.equal((await eventsOf(store, 'a')).length, 1, 'the queued write was committed before the snapshot was read');
    await written;
  });
});

describe('ordered writes of Cassandra on one node', function () {
  this.timeout(60_000);
  const cassandra = useCassandra();
  let store: Awaited<ReturnType<typeof openCassandraStore>>;
  afterEach(async () => { sinon.restore(); await store?.close(); });

  it('numbers every persist as it is called, and only the sole writer of its world does', async () => {
    store = await openCassandraStore(cassandra.options({ soleWriter: true }));
    const tickets = [{}, {}, {}] as Array<{ seq?: number }>;
    const written = tickets.map((ticket, i) => store.engine.persist(event(`a${i}`, 1, { events: [] }), { ticket }));
    const seqs = tickets.map((t) => t.seq!);
    assert.ok(seqs.every((n) => typeof n === 'number'), 'numbered at once');
    assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
    await Promise.all(written);
    const many = await openCassandraStore(cassandra.options({ fence: () => null }));
    try {
      const ticket: { seq?: number } = {};
      await many.engine.persist(event('m', 1, { events: [] }), { ticket });
      assert.equal(ticket.seq, undefined, 'on many nodes every persist is waited for');
    } finally {
      await many.close();
    }
  });

  it('sends a persist only once the ones it depends on are acknowledged: its actor\'s previous one and those it names', async () => {
    store = await openCassandraStore(cassandra.options({ soleWriter: true, groupCommit: { persists: 1 } }));
    const client = (store as unknown as { client: { batch: (...args: unknown[]) => Promise<unknown> } }).client;
    const log: string[] = [];
    const batch = client.batch.bind(client);
    sinon.stub(client, 'batch').callsFake(async (statements: unknown, ...rest: unknown[]) => {
      const keys = (statements as Array<{ params: unknown[] }>).map((st) => st.params[1]).filter((k) => typeof k === 'string' && /^[a-z]:/.test(k as string));
      log.push(`sent ${keys.join(',')}`);
      const r = await batch(statements, ...rest);
      log.push(`acknowledged ${keys.join(',')}`);
      return r;
    });
    const first = { seq: undefined as number | undefined };
    const writes = [
      store.engine.persist(event('a:1', 1, { events: [{ n: 1 }] }), { ticket: first }),
      store.engine.persist(event('a:1', 2, { events: [{ n: 2 }] })),
    ];
    writes.push(store.engine.persist(event('b:1', 1, { events: [] }), { after: [first.seq!] }));
    await Promise.all(writes);
    const at = (line: string) => log.indexOf(line);
    assert.ok(at('acknowledged a:1') >= 0 && at('acknowledged a:1') < log.lastIndexOf('sent a:1'), `the second write of a:1 left after the first was acknowledged: ${log}`);
    assert.ok(at('acknowledged a:1') < at('sent b:1'), `b:1 left after the write it names: ${log}`);
    assert.deepEqual(await eventsOf(store, 'a:1'), [{ events: [{ n: 1 }] }, { events: [{ n: 2 }] }]);
  });

  it('fails, unsent, what depends on a failed persist and what its actor wrote after it, until the actor recovers', async () => {
    store = await openCassandraStore(cassandra.options({ soleWriter: true }));
    await store.engine.persist(event('a:1', 1, { events: [{ n: 1 }] }));
    const bad = { seq: undefined as number | undefined };
    const failing = store.engine.persist(event('a:1', 2, UNWRITABLE), { ticket: bad });
    const later = store.engine.persist(event('a:1', 3, { events: [{ n: 3 }] }));
    const dependent = store.engine.persist(event('b:1', 1, { events: [] }), { after: [bad.seq!], rows: [{ kind: 'thing', id: 'b', doc: { b: 1 } }] });
    const unrelated = store.engine.persist(event('c:1', 1, { events: [] }));
    await assert.rejects(failing);
    await assert.rejects(later, /earlier write of a:1 failed/);
    await assert.rejects(dependent, /depends on failed/);
    await unrelated;
    assert.deepEqual(await eventsOf(store, 'b:1'), []);
    assert.equal(await store.row('thing', 'b'), undefined, 'its rows were not written either');
    await store.engine.takeSnapshot({ key: 'a:1', sequenceNumber: 3, createdAt: Date.now(), data: { poisoned: true } } as never);
    // The next life recovers to 1 (nact reads its snapshot first: none was taken of the failed state) and writes 2 again.
    assert.equal(await store.engine.latestSnapshot('a:1'), undefined, 'no snapshot of the failed state');
    await store.engine.persist(event('a:1', 2, { events: [{ n: 2 }] }));
    assert.deepEqual(await eventsOf(store, 'a:1'), [{ events: [{ n: 1 }] }, { events: [{ n: 2 }] }]);
  });

  /** Holds each batch that writes the journal of `key` for `ms` before sending it; answers the order things happened in. */
  const delayBatchesOf = (key: string, ms: number, failKey?: string) => {
    const client = (store as unknown as { client: { batch: (...args: unknown[]) => Promise<unknown> } }).client;
    const batch = client.batch.bind(client);
    const log: string[] = [];
    sinon.stub(client, 'batch').callsFake(async (statements: unknown, ...rest: unknown[]) => {
      const keys = (statements as Array<{ params: unknown[] }>).map((st) => st.params[1]);
      if (failKey !== undefined && keys.includes(failKey)) {
        await new Promise((r) => setTimeout(r, 20));
        throw new Error(`refused for the test: ${failKey}`);
      }
      if (keys.includes(key)) await new Promise((r) => setTimeout(r, ms));
      const r = await batch(statements, ...rest);
      if (keys.includes(key)) log.push(`acknowledged ${key}`);
      return r;
    });
    return log;
  };

  it("reads an actor's snapshot only after the writes of its key still on their way (recovery sees them)", async () => {
    store = await openCassandraStore(cassandra.options({ soleWriter: true }));
    const log = delayBatchesOf('a:1', 200);
    const written = store.engine.persist(event('a:1', 1, { events: [{ n: 1 }] }));
    assert.equal(await store.engine.latestSnapshot('a:1'), undefined);
    log.push('snapshot read');
    assert.deepEqual(log, ['acknowledged a:1', 'snapshot read']);
    assert.equal((await eventsOf(store, 'a:1')).length, 1, 'recovery reads the journal with the write in it');
    await written;
  });

  it("recovers an actor only after every write of its key settled, even when a later one failed first", async () => {
    store = await openCassandraStore(cassandra.options({ soleWriter: true, groupCommit: { persists: 1 } }));
    const log = delayBatchesOf('x:1', 300, 'y:1');
    const first = { seq: undefined as number | undefined };
    const other = { seq: undefined as number | undefined };
    const a = store.engine.persist(event('x:1', 1, { events: [{ n: 1 }] }), { ticket: first });
    const b = store.engine.persist(event('y:1', 1, { events: [] }), { ticket: other });
    // The actor's next write depends on y's, which fails while its first write is still on its way.
    const c = store.engine.persist(event('x:1', 2, { events: [{ n: 2 }] }), { after: [other.seq!] });
    await assert.rejects(b);
    await assert.rejects(c, /depends on failed/);
    // Its next life: the recovery waits for the first write, so it recovers to 1 and writes 2 on from there.
    assert.equal(await store.engine.latestSnapshot('x:1'), undefined);
    log.push('recovered');
    assert.deepEqual(log, ['acknowledged x:1', 'recovered']);
    await a;
    await store.engine.persist(event('x:1', 2, { events: [{ n: 'next life' }] }));
    assert.deepEqual(await eventsOf(store, 'x:1'), [{ events: [{ n: 1 }] }, { events: [{ n: 'next life' }] }]);
  });
});

// Two kinds: a ledger (higher) asks a purse (lower) to pay, then records what was paid.
type Purse = { id: string; total: number } | null;
type PurseCommand = { type: 'pay'; id: string; amount: number; unwritable?: boolean; slowMs?: number } | { type: 'get' };
type PurseEvent = { type: 'paid'; id: string; amount: number; note?: bigint };
type Ledger = { id: string; entries: number; intents?: number } | null;
type LedgerCommand =
  | { type: 'record'; id: string; purse: string; amount: number; unwritable?: boolean; read?: boolean; slowMs?: number }
  /** A saga: the ledger records its intent first (unwritable when asked), then asks the purse, then records. */
  | { type: 'record-after-intent'; id: string; purse: string; amount: number; unwritableIntent?: boolean; slowMs?: number }
  | { type: 'get' };
type LedgerEvent = { type: 'recorded'; id: string } | { type: 'intended'; id: string; note?: bigint };
type TestProtocols = { purse: PurseCommand; ledger: LedgerCommand };

const purseKind: EntityKind<Purse, PurseCommand, PurseEvent> = {
  kind: 'purse',
  rank: 5,
  commands: { pay: true, get: true },
  initialState: null,
  evolve: (s, e) => ({ id: e.id, total: (s?.total ?? 0) + e.amount }),
  project: (s) => (s ? [{ kind: 'purse', id: s.id, doc: { ...s } }] : []),
  chronicle: () => [],
  view: (s) => s,
  async handle(_s, c) {
    if (c.type !== 'pay') return { events: [] };
    if (c.slowMs) await new Promise((r) => setTimeout(r, c.slowMs));
    if (c.amount === 0) return { events: [] };
    return { events: [{ type: 'paid', id: c.id, amount: c.amount, ...(c.unwritable ? { note: 1n } : {}) }] };
  },
};

const ledgerKind: EntityKind<Ledger, LedgerCommand, LedgerEvent> = {
  kind: 'ledger',
  rank: 10,
  commands: { record: true, 'record-after-intent': true, get: true },
  initialState: null,
  evolve: (s, e) => (e.type === 'intended' ? { id: e.id, entries: s?.entries ?? 0, intents: (s?.intents ?? 0) + 1 } : { id: e.id, entries: (s?.entries ?? 0) + 1, intents: s?.intents }),
  project: (s) => (s ? [{ kind: 'ledger', id: s.id, doc: { ...s } }] : []),
  chronicle: () => [],
  view: (s) => s,
  async handle(_s, c, io) {
    if (c.type === 'get') return { events: [] };
    if (c.type === 'record-after-intent') {
      return {
        events: [{ type: 'intended', id: c.id, ...(c.unwritableIntent ? { note: 1n } : {}) }],
        andThen: async () => {
          const paid = await io.ask<Purse>('purse' as never, c.purse, { type: 'pay', id: c.purse, amount: c.amount, slowMs: c.slowMs } as never);
          if (!paid.ok) return { refusal: paid.refusal };
          return { events: [{ type: 'recorded', id: c.id }] };
        },
      };
    }
    // The world's protocols type `io`; these test kinds are not among them.
    const paid = await io.ask<Purse>('purse' as never, c.purse, { type: 'pay', id: c.purse, amount: c.amount, unwritable: c.unwritable } as never);
    if (!paid.ok) return { refusal: paid.refusal };
    const row = c.read ? await io.read.row('purse', c.purse) : undefined;
    return { events: [{ type: 'recorded', id: c.id }], reply: (s) => ({ ledger: s, purse: paid.value, row }) };
  },
};

describe('actors on ordered writes', () => {
  describe('of the embedded store', () => actorsOnOrderedWrites(async () => new SqliteStore(tempDir()), holdSqliteCommit));
  describe('of Cassandra on one node', function () {
    this.timeout(60_000);
    const cassandra = useCassandra();
    actorsOnOrderedWrites(() => openCassandraStore(cassandra.options({ soleWriter: true })), holdCassandraCommit);
  });
});

/** Holds the acknowledgement of the store's next commit until `until` resolves; the commits after it go as they would. */
type HoldCommit = (store: OrderedStore, until: Promise<void>) => void;

/** The embedded store: its writer thread's answer to the batch it has in flight (it sends the next one after it). */
function holdSqliteCommit(store: OrderedStore, until: Promise<void>): void {
  const s = store as unknown as { settle(result: unknown): void };
  const settle = s.settle.bind(s);
  let held = false;
  sinon.stub(s, 'settle').callsFake((result: unknown) => {
    if (held) return settle(result);
    held = true;
    void until.then(() => settle(result));
  });
}

/** Cassandra: the answer to the batch sent first. */
function holdCassandraCommit(store: OrderedStore, until: Promise<void>): void {
  const client = (store as unknown as { client: { batch: (...args: unknown[]) => Promise<unknown> } }).client;
  const batch = client.batch.bind(client);
  let held = false;
  sinon.stub(client, 'batch').callsFake(async (...args: unknown[]) => {
    const r = await batch(...args);
    if (!held) {
      held = true;
      await until;
    }
    return r;
  });
}

function actorsOnOrderedWrites(open: () => Promise<OrderedStore>, holdCommit: HoldCommit): void {
  let store: OrderedStore;
  let region: Region<TestProtocols>;
  /** What the region logged: a test waits for a failure to be known by its line, not for a fixed time. */
  let logged: string[];
  const loggedYet = (pattern: RegExp) => waitFor(() => logged.some((l) => pattern.test(l)), () => `the region to log ${pattern} (it logged ${JSON.stringify(logged)})`, 20_000, 5);
  beforeEach(async () => {
    store = await open();
    logged = [];
    region = new Region<TestProtocols>(store.engine, store, [purseKind, ledgerKind], { log: (line: string) => { logged.push(line); } });
  });
  afterEach(async () => {
    sinon.restore();
    region.stop();
    await store.close();
  });

  it('go on while their writes are on their way to disk: one actor shares commits, and every answer is durable', async () => {
    // The first write's commit is held until the actor has queued all 20: had it waited for
    // each write, the second would not be queued before the first was acknowledged. (Unheld,
    // how many share a commit depends on how fast the disk answers against the actor.)
    let queued = 0;
    let allQueued!: () => void;
    const all = new Promise<void>((r) => { allQueued = r; });
    const persist = store.engine.persist.bind(store.engine);
    sinon.stub(store.engine, 'persist').callsFake((...args: Parameters<typeof persist>) => {
      if (++queued === 20) allQueued();
      return persist(...args);
    });
    holdCommit(store, Promise.race([all, new Promise<void>((r) => setTimeout(r, 10_000))]));
    const before = store.writeStats.batches;
    const answers = await Promise.all(Array.from({ length: 20 }, () => region.ask('purse', 'p', { type: 'pay', id: 'p', amount: 1 })));
    assert.ok(answers.every((a) => a.ok));
    assert.equal(queued, 20, 'all 20 were queued while the first was held');
    const commits = store.writeStats.batches - before;
    assert.equal(commits, 2, `20 writes of one actor in ${commits} commits: the first, then the 19 queued meanwhile (one each if it waited for each)`);
    // Each answer came out once its write was durable: the read model holds every payment.
    assert.deepEqual(await store.row('purse', 'p'), { id: 'p', total: 20 });
    assert.deepEqual(answers.map((a) => a.ok && (a.value as { total: number }).total).sort((x, y) => Number(x) - Number(y)), Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('answer 503 when a write the answer depends on fails, and write nothing that depended on it', async () => {
    await region.ask('purse', 'p', { type: 'pay', id: 'p', amount: 5 });
    const r = await region.ask('ledger', 'l', { type: 'record', id: 'l', purse: 'p', amount: 7, unwritable: true });
    assert.equal(!r.ok && r.refusal.status, 503);
    assert.deepEqual(await eventsOf(store, 'ledger:l'), [], "the ledger's record depended on the failed payment");
    assert.equal(await store.row('ledger', 'l'), undefined);
    // The purse recovers from what is on disk: the failed payment never happened.
    const purse = await region.ask('purse', 'p', { type: 'get' });
    assert.deepEqual(purse, { ok: true, value: { id: 'p', total: 5 } });
    const again = await region.ask('ledger', 'l', { type: 'record', id: 'l', purse: 'p', amount: 7 });
    assert.ok(again.ok);
    assert.deepEqual(await store.row('purse', 'p'), { id: 'p', total: 12 });
    assert.deepEqual(await store.row('ledger', 'l'), { id: 'l', entries: 1 });
  });

  it("make what an asked actor writes depend on the asker's unfinished writes: the intent failed, so the payment is not made", async () => {
    const r = await region.ask('ledger', 'l', { type: 'record-after-intent', id: 'l', purse: 'p', amount: 7, unwritableIntent: true });
    assert.equal(!r.ok && r.refusal.status, 503);
    assert.deepEqual(await eventsOf(store, 'ledger:l'), []);
    assert.deepEqual(await eventsOf(store, 'purse:p'), [], 'the payment depended on the intent that failed');
    assert.equal(await store.row('purse', 'p'), undefined);
    // Both recover from disk and act again.
    const again = await region.ask('ledger', 'l', { type: 'record-after-intent', id: 'l', purse: 'p', amount: 7 });
    assert.ok(again.ok, JSON.stringify(again));
    assert.deepEqual(await store.row('purse', 'p'), { id: 'p', total: 7 });
    assert.deepEqual(await store.row('ledger', 'l'), { id: 'l', entries: 1, intents: 1 });
  });

  it('write nothing more in a life whose write failed, once it is known, and leave the next life writing', async () => {
    // The intent fails while the purse takes its time: by then the ledger knows.
    const r = await region.ask('ledger', 'l', { type: 'record-after-intent', id: 'l', purse: 'p', amount: 7, unwritableIntent: true, slowMs: 100 });
    assert.equal(!r.ok && r.refusal.status, 503);
    assert.deepEqual(await eventsOf(store, 'ledger:l'), []);
    for (let i = 0; i < 3; i++) {
      const next = await region.ask('ledger', 'l', { type: 'record-after-intent', id: 'l', purse: 'p', amount: 1 });
      assert.ok(next.ok, `command ${i + 1} after the failure: ${JSON.stringify(next)}`);
    }
    assert.deepEqual(await store.row('ledger', 'l'), { id: 'l', entries: 3, intents: 3 });
    assert.deepEqual(await store.row('purse', 'p'), { id: 'p', total: 3 });
  });

  it('let no write of a life whose write failed land after its next life began', async () => {
    // The old life waits on the purse (which writes nothing) while a new life starts from disk,
    // once the old one knows its intent failed.
    let oldAnswered = false;
    const old = region.ask('ledger', 'l', { type: 'record-after-intent', id: 'l', purse: 'p', amount: 0, unwritableIntent: true, slowMs: 1_500 })
      .finally(() => { oldAnswered = true; });
    await loggedYet(/^ledger:l could not persist/);
    assert.equal(oldAnswered, false, 'the old life still waits on the purse');
    assert.deepEqual(await region.ask('ledger', 'l', { type: 'get' }), { ok: true, value: null }, 'the next life, from disk');
    assert.equal(oldAnswered, false, 'the next life answered while the old one still waited');
    const r = await old;
    assert.equal(!r.ok && r.refusal.status, 503);
    assert.deepEqual(await eventsOf(store, 'ledger:l'), [], 'the old life recorded nothing once its intent had failed');
  });

  it('answer a fan-out that waits for the disk itself (durableLater) once the writes are queued, and hand it their durability', async () => {
    const waits: Array<Promise<void>> = [];
    const later = { durableLater: (durable: Promise<void>) => { waits.push(durable); } };
    // The answer comes before the write's failure is known: an answer that waited would be 503.
    const r = await region.ask('purse', 'p', { type: 'pay', id: 'p', amount: 2, unwritable: true }, undefined, later);
    assert.deepEqual(r, { ok: true, value: { id: 'p', total: 2 } });
    assert.equal(waits.length, 1);
    await assert.rejects(waits[0], 'the wait fails with the write');
    assert.equal(await store.row('purse', 'p'), undefined);
    // The purse recovers from disk: the failed payment never happened.
    assert.deepEqual(await region.ask('purse', 'p', { type: 'get' }), { ok: true, value: null });
    const paid = await region.ask('purse', 'p', { type: 'pay', id: 'p', amount: 3 }, undefined, later);
    assert.deepEqual(paid, { ok: true, value: { id: 'p', total: 3 } });
    assert.equal(waits.length, 2);
    await waits[1];
    assert.deepEqual(await store.row('purse', 'p'), { id: 'p', total: 3 }, 'durable once the wait resolves');
  });

  it("let an actor's read of the read model see the writes of the answers it was given", async () => {
    const r = await region.ask('ledger', 'l', { type: 'record', id: 'l', purse: 'p', amount: 3, read: true });
    assert.ok(r.ok);
    assert.deepEqual((r.value as { row: unknown }).row, { id: 'p', total: 3 }, 'the read waited for the payment to be durable');
  });
}

describe("the day's fan-out on ordered writes", () => {
  let w: TestWorld;
  beforeEach(async () => { w = await startTestWorld({ store: 'sqlite', bus: 'local', nodes: 1 }); });
  afterEach(async () => {
    sinon.restore();
    await w.close();
  });

  it("asks an organization again when its day's writes fail after it answered, and settles the day once", async () => {
    const agent = await w.register('Fan-out Founder');
    const founded = await w.post('/api/organizations', { name: 'Fan-out House', kind: 'merchant company' }, agent.key);
    assert.equal(founded.status, 201, founded.text);
    const id = founded.body.id as number;
    const before = (await w.services.read.row<{ treasury: number }>('organization', id))!;
    // The first write of its day is queued, then fails when its batch is made for the writer (JSON has no BigInt).
    const engine = w.services.store.engine;
    const persist = engine.persist.bind(engine);
    const failures: Array<Promise<unknown>> = [];
    sinon.stub(engine, 'persist').callsFake((event: PersistedEvent, writes?: any) => {
      if (event.key !== `organization:${id}` || failures.length > 0) return persist(event, writes);
      const failed = persist({ ...event, data: { ...(event.data as object), poisoned: 1n } } as PersistedEvent, writes);
      failures.push(failed.then(() => 'written', () => 'failed'));
      return failed;
    });
    const day = await w.tick();
    assert.equal(failures.length, 1);
    assert.equal(await failures[0], 'failed');
    const after = (await w.services.read.row<{ treasury: number; daily_maintenance: number }>('organization', id))!;
    const upkeep = (await eventsOf(w.services.store as SqliteStore, `organization:${id}`))
      .flatMap((e) => (e as { events: Array<{ type: string; day: number }> }).events)
      .filter((e) => e.type === 'maintenance-paid' && e.day === day);
    assert.equal(upkeep.length, 1, 'asked again, it paid one upkeep for the day');
    assert.equal(after.treasury, before.treasury - after.daily_maintenance);
  });
});
