import assert from 'assert/strict';
import Database from 'better-sqlite3';
import path from 'path';
import { Region } from '../../actors/region';
import type { EntityKind } from '../../actors/entity';
import sinon from 'sinon';
import { ID_BLOCK, ID_BLOCK_MAX, SqliteStore } from '../../infra/store/sqlite-store';
import { QUERIES, type QueryName, type QuerySpec } from '../../actors/ports/store';
import { tempDir } from '../support/world';

/** How SQLite plans a statement with these parameters: its steps, joined. */
const planOf = (db: Database.Database, sql: string, params: readonly unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((p) => p.detail).join('; ');

// A tiny counter entity: enough to exercise the store and the region without the world's rules.
type Counter = { id: string; total: number } | null;
type CounterCommand = { type: 'add'; id: string; amount: number } | { type: 'get' };
type CounterEvent = { type: 'added'; id: string; amount: number };
/** The protocols of the kinds these tests host. */
type TestProtocols = { counter: CounterCommand; low: CounterCommand };
const counterKind: EntityKind<Counter, CounterCommand, CounterEvent> = {
  kind: 'counter',
  rank: 10,
  commands: { add: true, get: true },
  initialState: null,
  evolve: (s, e) => ({ id: e.id, total: (s?.total ?? 0) + e.amount }),
  project: (s) => (s ? [{ kind: 'counter', id: s.id, status: s.total > 10 ? 'big' : 'small', doc: { ...s } }] : []),
  chronicle: (e, after) => [{ day: 1, category: 'counter', agent_id: null, organization_ids: [], summary: `${after!.id} +${e.amount}` }],
  view: (s) => s,
  handle: (_s, c) => (c.type === 'add'
    ? (c.amount > 0 ? { events: [{ type: 'added', id: c.id, amount: c.amount }] } : { refusal: { status: 422, detail: 'amount must be positive' } })
    : { events: [] }),
};

describe('SQLite store and entity region', () => {
  it('writes the journal, the projection row and the history entry of an event together', async () => {
    const store = new SqliteStore(tempDir());
    const region = new Region<TestProtocols>(store.engine, store, [counterKind]);
    const r = await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 4 });
    assert.deepEqual(r, { ok: true, value: { id: 'a', total: 4 } });
    assert.deepEqual(await store.row('counter', 'a'), { id: 'a', total: 4 });
    assert.equal((await store.history({ limit: 10 }))[0].summary, 'a +4');
    assert.equal(await store.engine.events('counter:a', 0, 100, []).reduce(async (n: Promise<number>) => (await n) + 1, Promise.resolve(0)), 1);
    region.stop();
    await store.close();
  });

  it('persists nothing for a refused command', async () => {
    const store = new SqliteStore(tempDir());
    const region = new Region<TestProtocols>(store.engine, store, [counterKind]);
    const r = await region.ask('counter', 'a', { type: 'add', id: 'a', amount: -1 });
    assert.deepEqual(r, { ok: false, refusal: { status: 422, detail: 'amount must be positive' } });
    assert.equal(await store.row('counter', 'a'), undefined);
    assert.equal(await store.lastHistoryId(), 0);
    region.stop();
    await store.close();
  });

  it('commits concurrent persists from many actors and answers each', async () => {
    const store = new SqliteStore(tempDir());
    const region = new Region<TestProtocols>(store.engine, store, [counterKind]);
    const ids = Array.from({ length: 200 }, (_, i) => `c${i}`);
    const answers = await Promise.all(ids.map((id) => region.ask('counter', id, { type: 'add', id, amount: 12 })));
    assert.ok(answers.every((a) => a.ok));
    const rows = await Promise.all(ids.map((id) => store.row<{ total: number }>('counter', id)));
    assert.ok(rows.every((r) => r?.total === 12), 'every row was committed');
    assert.equal((await store.history({ limit: 1000, category: 'counter' })).length, 200);
    region.stop();
    await store.close();
  });

  it('recovers an actor from snapshot and journal after a restart', async () => {
    const dir = tempDir();
    let store = new SqliteStore(dir);
    let region = new Region<TestProtocols>(store.engine, store, [counterKind], { snapshotEvery: 3 });
    for (let i = 1; i <= 7; i++) await region.ask('counter', 'x', { type: 'add', id: 'x', amount: i });
    region.stop();
    await store.close();

    store = new SqliteStore(dir);
    const snapshot = await store.engine.latestSnapshot('counter:x');
    assert.ok(snapshot && snapshot.sequenceNumber >= 3, 'a snapshot was taken');
    region = new Region<TestProtocols>(store.engine, store, [counterKind], { snapshotEvery: 3 });
    const r = await region.ask('counter', 'x', { type: 'get' });
    assert.deepEqual(r, { ok: true, value: { id: 'x', total: 28 } });
    const more = await region.ask('counter', 'x', { type: 'add', id: 'x', amount: 2 });
    assert.deepEqual(more, { ok: true, value: { id: 'x', total: 30 } });
    region.stop();
    await store.close();
  });

  it('hands out increasing ids that survive a restart', async () => {
    const dir = tempDir();
    let store = new SqliteStore(dir);
    assert.equal(await store.nextId('thing'), 1);
    assert.equal(await store.nextId('thing'), 2);
    await store.reserveIdsUpTo('other', 10);
    assert.equal(await store.nextId('other'), 11, 'ids reserved for the seeded world are never handed out');
    const before = await Promise.all(Array.from({ length: 100 }, () => store.nextId('thing')));
    await store.close();
    store = new SqliteStore(dir);
    const after = await store.nextId('thing');
    assert.ok(after > Math.max(...before), `an id after a restart (${after}) is above every earlier one`);
    assert.equal(new Set(before).size, before.length);
    await store.close();
  });

  it('goes on after a clean restart where the ids stopped, and never below what was reserved since', async () => {
    const dir = tempDir();
    let store = new SqliteStore(dir);
    assert.deepEqual([await store.nextId('thing'), await store.nextId('thing'), await store.nextId('other')], [1, 2, 1]);
    await store.close();
    store = new SqliteStore(dir);
    assert.deepEqual([await store.nextId('thing'), await store.nextId('other')], [3, 2], 'the rest of each block was given back');
    await store.reserveIdsUpTo('thing', 500);
    await store.close();
    store = new SqliteStore(dir);
    assert.equal(await store.nextId('thing'), 501);
    await store.close();
  });

  it('closes once when asked twice at once', async () => {
    const store = new SqliteStore(tempDir());
    await store.nextId('thing');
    await Promise.all([store.close(), store.close()]);
  });

  it('reserves larger blocks of ids for a busy sequence, and smaller ones again once it calms down', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['performance'] });
    const dir = tempDir();
    const store = new SqliteStore(dir);
    const reserved = () => {
      const db = new Database(path.join(dir, 'world.sqlite'), { readonly: true });
      try { return (db.prepare("SELECT value FROM sequences WHERE name = 'thing'").get() as { value: number }).value; } finally { db.close(); }
    };
    try {
      for (let i = 0; i < ID_BLOCK; i++) await store.nextId('thing');
      assert.equal(reserved(), ID_BLOCK);
      assert.equal(await store.nextId('thing'), ID_BLOCK + 1);
      assert.equal(reserved(), ID_BLOCK * 3, 'the block lasted under a second: the next is twice as large');
      for (let i = 0; i < 2 * ID_BLOCK - 1; i++) await store.nextId('thing');
      clock.tick(5_000);
      assert.equal(await store.nextId('thing'), 3 * ID_BLOCK + 1);
      assert.equal(reserved(), 3 * ID_BLOCK + ID_BLOCK, 'the block lasted 5 s: the next is half as large');
      let last = 0;
      for (let i = 0; i < 20_000; i++) last = await store.nextId('thing');
      assert.equal(last, 3 * ID_BLOCK + 1 + 20_000);
      assert.ok(reserved() - last < ID_BLOCK_MAX, `at most ${ID_BLOCK_MAX} ids a block`);
    } finally {
      clock.restore();
      await store.close();
    }
  });

  it('refuses an ask that goes up the ask order', async () => {
    const store = new SqliteStore(tempDir());
    const low = { ...counterKind, kind: 'low', rank: 1, handle: async (_s: Counter, _c: CounterCommand, io: any) => {
      await io.ask('counter', 'a', { type: 'get' });
      return { events: [] };
    } } as EntityKind<Counter, CounterCommand, CounterEvent>;
    const region = new Region<TestProtocols>(store.engine, store, [counterKind, low], { log: () => undefined });
    const r = await region.ask('low', 'l', { type: 'get' });
    assert.equal(r.ok, false);
    region.stop();
    await store.close();
  });

  it('reads a page of a long listing in id order from an index, without sorting the whole listing', async () => {
    const dir = tempDir();
    const store = new SqliteStore(dir);
    const rows = Array.from({ length: 300 }, (_, i) => ({ kind: 'adventurer', id: 300 - i, status: 'available', doc: { id: 300 - i } }));
    await store.engine.persist({ key: 'fixture', sequenceNumber: 1, createdAt: 0, data: {}, tags: [] } as any, { rows } as any);
    const page = await store.listPage<{ id: number }>('adventurersAvailable', undefined, '98', 3);
    assert.deepEqual(page.map((r) => r.id), [99, 100, 101], 'ids in numeric order after 98');
    // The plan of the listing's statement (as the store prepares it): an index gives the order.
    const db = new Database(path.join(dir, 'world.sqlite'), { readonly: true });
    const plan = (sql: string, ...params: unknown[]) => planOf(db, sql, params);
    const oneStatus = plan('SELECT doc FROM entities WHERE kind = ? AND status IN (?) ORDER BY CAST(id AS INTEGER), id LIMIT ?', 'adventurer', 'available', 20);
    const twoStatuses = plan('SELECT doc FROM entities WHERE kind = ? AND status IN (?, ?) ORDER BY CAST(id AS INTEGER), id LIMIT ?', 'adventurer', 'available', 'employed', 20);
    const everyRow = plan('SELECT doc FROM entities WHERE kind = ? ORDER BY CAST(id AS INTEGER), id LIMIT ?', 'organization', 20);
    db.close();
    assert.match(oneStatus, /USING INDEX entities_status_ordered/);
    for (const p of [oneStatus, twoStatuses, everyRow]) assert.doesNotMatch(p, /TEMP B-TREE/, p);
    await store.close();
  });

  it('reads a page of the messages newest first from their index, without sorting them all', async () => {
    const dir = tempDir();
    const store = new SqliteStore(dir);
    // 300 messages over 30 days, ten a day, written in no order.
    const rows = Array.from({ length: 300 }, (_, i) => {
      const id = ((i * 7) % 300) + 1;
      return { kind: 'message', id, status: id % 3 === 0 ? 'private' : 'public', doc: { id, sent_day: Math.ceil(id / 10) } };
    });
    await store.engine.persist({ key: 'fixture', sequenceNumber: 1, createdAt: 0, data: {}, tags: [] } as any, { rows } as any);
    const page = await store.listNewestJson('publicMessages', undefined, 2, 3);
    assert.deepEqual(page.map((r) => r.id), ['296', '295', '293'], 'the third to fifth newest public messages (every third is private)');
    // The plans of the store's own statements: the newest index gives the order.
    const db = new Database(path.join(dir, 'world.sqlite'), { readonly: true });
    const cases = [
      ['messages', [], 'entities_message_newest'],
      ['publicMessages', ['public', 'chronicle'], 'entities_message_newest'],
      ['messagesFrom', [5], 'entities_message_newest_by_organization_id'],
      ['privateMessagesTo', [7, 'private'], 'entities_message_newest_by_agent_id'],
    ] as const;
    for (const [name, params, index] of cases) {
      const statement = (store as unknown as { query(n: string): { newest: { source: string } } }).query(name).newest;
      const plan = planOf(db, statement.source, [...params, 20, 0]);
      assert.match(plan, new RegExp(`USING INDEX ${index}\\b`), `${name}: ${plan}`);
      assert.doesNotMatch(plan, /TEMP B-TREE/, `${name}: ${plan}`);
    }
    db.close();
    await store.close();
  });

  it('reads a query by a document field (a quest\'s requester, a contract\'s status) from an index made of the rows already stored, in id order, without sorting', async () => {
    const dir = tempDir();
    let store = new SqliteStore(dir);
    const quests = Array.from({ length: 200 }, (_, i) => ({ kind: 'quest', id: 200 - i, status: 'resolved', organization_id: 1, doc: { id: 200 - i, requester_id: (200 - i) % 4 } }));
    const contracts = Array.from({ length: 60 }, (_, i) => ({ kind: 'contract', id: i + 1, status: 'active', doc: { id: i + 1, status: i % 3 === 0 ? 'proposed' : 'fulfilled' } }));
    await store.engine.persist({ key: 'fixture', sequenceNumber: 1, createdAt: 0, data: {}, tags: [] } as any, { rows: [...quests, ...contracts] } as any);
    await store.close();
    // A file of a version before these indexes: dropped, then made again at the next start from the rows there.
    const old = new Database(path.join(dir, 'world.sqlite'));
    old.exec('DROP INDEX entities_quest_by_requester_id; DROP INDEX entities_contract_by_status;');
    old.close();
    store = new SqliteStore(dir);
    assert.deepEqual((await store.listPage<{ id: number }>('questsRequestedBy', 2, '100', 3)).map((r) => r.id), [102, 106, 110], 'the document\'s requester, not the row\'s organization');
    assert.equal(await store.count('questsRequestedBy', 3), 50);
    assert.deepEqual((await store.ids('contractsInStatus', 'proposed')).slice(0, 4), ['1', '4', '7', '10'], 'the document\'s status, not the row\'s');
    assert.equal(await store.count('contractsInStatus', 'active'), 0);
    const db = new Database(path.join(dir, 'world.sqlite'), { readonly: true });
    const cases = [['questsRequestedBy', [2], 'entities_quest_by_requester_id'], ['contractsInStatus', ['proposed'], 'entities_contract_by_status']] as const;
    for (const [name, params, index] of cases) {
      const q = (store as unknown as { query(n: string): { first: { source: string }; after: { source: string } } }).query(name);
      for (const [statement, more] of [[q.first, [20]], [q.after, [5, 5, '5', 20]]] as const) {
        const plan = planOf(db, statement.source, [...params, ...more]);
        assert.match(plan, new RegExp(`USING INDEX ${index}\\b`), `${name}: ${plan}`);
        assert.doesNotMatch(plan, /TEMP B-TREE/, `${name}: ${plan}`);
      }
    }
    db.close();
    await store.close();
  });

  it('reads every query by a column in statuses from its partial index, so that the live rows are found without passing over the ended ones', async () => {
    const dir = tempDir();
    const store = new SqliteStore(dir);
    // An organization's 300 fulfilled contracts and its two live ones, the last proposed.
    const rows = Array.from({ length: 302 }, (_, i) => ({ kind: 'contract', id: i + 1, status: i === 150 ? 'accepted' : i === 301 ? 'proposed' : 'fulfilled', organization_id: 5, agent_id: 6, doc: { id: i + 1 } }));
    await store.engine.persist({ key: 'fixture', sequenceNumber: 1, createdAt: 0, data: {}, tags: [] } as any, { rows } as any);
    assert.deepEqual(await store.ids('liveContractsProposedBy', 5), ['151', '302']);
    assert.deepEqual((await store.listPage<{ id: number }>('liveContractsOfferedTo', 6, '151', 5)).map((r) => r.id), [302]);
    const db = new Database(path.join(dir, 'world.sqlite'), { readonly: true });
    let checked = 0;
    for (const [name, spec] of Object.entries(QUERIES) as Array<[QueryName, QuerySpec]>) {
      if (!spec.status || !(spec.by === 'location_id' || spec.by === 'organization_id' || spec.by === 'agent_id')) continue;
      const q = (store as unknown as { query(n: string): { first: { source: string }; params(arg: unknown): unknown[] } }).query(name);
      const plan = planOf(db, q.first.source, [...q.params(spec.by === 'location_id' ? 'emberfall' : 5), 20]);
      assert.match(plan, new RegExp(`USING INDEX entities_${spec.kind}_by_${spec.by}_status \\(${spec.by}=\\? AND status=\\?\\)`), `${name}: ${plan}`);
      // One status: in order from the index; several: each read from it, and only those sorted.
      if (spec.status.length === 1) assert.doesNotMatch(plan, /TEMP B-TREE/, `${name}: ${plan}`);
      checked++;
    }
    assert.ok(checked >= 8, `${checked} queries`);
    db.close();
    await store.close();
  });

  it('enters every listing\'s index at the id a page starts after, rather than walking the rows before it', async () => {
    const dir = tempDir();
    const store = new SqliteStore(dir);
    const db = new Database(path.join(dir, 'world.sqlite'), { readonly: true });
    let checked = 0;
    for (const [name, spec] of Object.entries(QUERIES) as Array<[QueryName, QuerySpec]>) {
      if (spec.by === 'due_by') continue;
      const q = (store as unknown as { query(n: string): { after: { source: string }; params(arg: unknown): unknown[] } }).query(name);
      const arg = spec.by === 'location_id' ? 'emberfall' : spec.by === 'status' || spec.field === 'status' ? 'open' : 5;
      const plan = planOf(db, q.after.source, [...q.params(spec.by || spec.field ? arg : undefined), 5, 5, '5', 20]);
      assert.match(plan, /SEARCH entities USING (COVERING )?INDEX \w+ \([^)]*<expr>>\?\)/, `${name}: ${plan}`);
      checked++;
    }
    assert.ok(checked > 40, `${checked} queries`);
    db.close();
    await store.close();
  });

  it('prepares statements whose plan does not depend on a value bound to them, so that each is prepared once and not at every run', async () => {
    // With a bare LIMIT ? (or OFFSET ?), or a kind = ? beside the partial indexes' kind = '...',
    // SQLite plans with the value bound and prepares the statement again each time it runs
    // with one, as better-sqlite3 binds at every run: several times a short page's cost.
    const prepare = sinon.spy(Database.prototype, 'prepare');
    const dir = tempDir();
    let store: SqliteStore | undefined;
    try {
      store = new SqliteStore(dir);
      for (const [name, spec] of Object.entries(QUERIES) as Array<[QueryName, QuerySpec]>) {
        const arg = spec.by === 'due_by' ? 3 : spec.by === 'location_id' ? 'emberfall' : spec.by || spec.field ? 5 : undefined;
        await store.listPageJson(name, arg, undefined, 20);
        await store.listPageJson(name, arg, '5', 20);
        await store.countAtMost(name, 3, arg);
        if (spec.newestBy) await store.listNewestJson(name, arg, 2, 20);
      }
      for (let shape = 0; shape < 16; shape++) {
        await store.history({ limit: 30, ...(shape & 1 ? { organization_id: 5 } : {}), ...(shape & 2 ? { before_id: 9 } : {}), ...(shape & 4 ? { category: 'trade' } : {}), ...(shape & 8 ? { agent_id: 2 } : {}) });
      }
      await store.historySince(0, 10);
    } finally {
      prepare.restore();
    }
    const sources = prepare.args.map(([sql]) => String(sql).replace(/\s+/g, ' '));
    assert.ok(sources.filter((sql) => /\bLIMIT\b/.test(sql)).length > 100, `${sources.length} statements`);
    for (const sql of sources) {
      assert.doesNotMatch(sql, /\b(LIMIT|OFFSET) [?@:$]/, sql);
      // A lookup by the whole key is answered by the key, whatever the kind bound.
      assert.doesNotMatch(sql.replace(/kind = \? AND id = \?/g, ''), /\bkind = [?@:$]/, sql);
    }
    await store!.close();
  });

  it('scans a listing a chunk at a time, each larger than the last, in id order from after a start, as far as it is taken', async () => {
    const dir = tempDir();
    const store = new SqliteStore(dir);
    const rows = Array.from({ length: 2000 }, (_, i) => ({ kind: 'quest', id: 2000 - i, status: 'resolved', doc: { id: 2000 - i } }));
    await store.engine.persist({ key: 'fixture', sequenceNumber: 1, createdAt: 0, data: {}, tags: [] } as any, { rows } as any);
    const all: number[] = [];
    const sizes: number[] = [];
    for await (const chunk of store.scanJson('questsInStatus', 'resolved', '10')) { sizes.push(chunk.length); all.push(...chunk.map((r) => JSON.parse(r.doc).id)); }
    assert.deepEqual(all, Array.from({ length: 1990 }, (_, i) => i + 11), 'past several chunks, each id once, in order');
    assert.deepEqual(sizes, [256, 1024, 710], 'each chunk four times the last');
    const statements = (store as unknown as { query(n: string): { first: Database.Statement; after: Database.Statement } }).query('questsInStatus');
    const first = sinon.spy(statements.first, 'all');
    const after = sinon.spy(statements.after, 'all');
    try {
      for await (const chunk of store.scanJson('questsInStatus', 'resolved', undefined)) {
        assert.deepEqual(chunk.slice(0, 3).map((r) => r.id), ['1', '2', '3']);
        break;
      }
      assert.equal(first.callCount + after.callCount, 1, 'one chunk read for the first three');
    } finally {
      first.restore(); after.restore();
    }
    await store.close();
  });
});

/** A journal event of `key` at `sequenceNumber`, for persists made straight on the engine. */
const event = (key: string, sequenceNumber: number) => ({ key, sequenceNumber, createdAt: 0, data: {}, tags: [], isDeleted: false }) as never;

describe('a batch the writer commits as one transaction (sqlite-writer.ts)', () => {
  let store: SqliteStore;
  beforeEach(() => { store = new SqliteStore(tempDir()); });
  afterEach(async () => { await store.close(); });
  /** What SQLite holds, read past the store's kept rows. */
  const onDisk = (kind: string, id: string): { status: string | null; doc: unknown } | undefined => {
    const db = new Database((store as unknown as { db: { name: string } }).db.name, { readonly: true });
    try {
      const r = db.prepare('SELECT status, doc FROM entities WHERE kind = ? AND id = ?').get(kind, id) as { status: string | null; doc: string } | undefined;
      return r && { status: r.status, doc: JSON.parse(r.doc) };
    } finally {
      db.close();
    }
  };

  it('leaves each row as the last write of the batch made it', async () => {
    await store.engine.persist(event('m', 1), { rows: [{ kind: 'thing', id: 'gone', doc: { n: 0 } }, { kind: 'thing', id: 'back', doc: { n: 0 } }] });
    const batches = store.writeStats.batches;
    await Promise.all([
      store.engine.persist(event('m', 2), { rows: [{ kind: 'thing', id: 'a', status: 'open', doc: { n: 1 } }, { kind: 'thing', id: 'gone', doc: { n: 1 } }, { kind: 'thing', id: 'back', deleted: true, doc: {} }] }),
      store.engine.persist(event('o', 1), { rows: [{ kind: 'thing', id: 'a', status: 'open', doc: { n: 2 } }] }),
      store.engine.persist(event('m', 3), { rows: [{ kind: 'thing', id: 'a', status: 'closed', doc: { n: 3 } }, { kind: 'thing', id: 'gone', deleted: true, doc: {} }, { kind: 'thing', id: 'back', doc: { n: 3 } }] }),
    ]);
    assert.equal(store.writeStats.batches - batches, 1, 'one batch');
    assert.deepEqual(onDisk('thing', 'a'), { status: 'closed', doc: { n: 3 } });
    assert.equal(onDisk('thing', 'gone'), undefined, 'written, then deleted');
    assert.deepEqual(onDisk('thing', 'back'), { status: null, doc: { n: 3 } }, 'deleted, then written again');
    assert.equal((store.engine.events('m', 0, 100, []) as unknown as unknown[]).length, 3, 'every event is in the journal');
  });

  it('keeps the rows of the writes that commit when a later write of the same row is refused', async () => {
    await store.engine.persist(event('m', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1 } }] });
    await store.engine.persist(event('warm', 1)); // the next persists of this turn travel as one batch
    const written = store.engine.persist(event('o', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 2 } }] });
    const refused = store.engine.persist(event('m', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 3 } }] }); // the journal refuses m:1 again
    await written;
    await assert.rejects(refused, /UNIQUE|constraint/i);
    assert.deepEqual(onDisk('thing', 'a'), { status: null, doc: { n: 2 } });
    assert.deepEqual(await store.row('thing', 'a'), { n: 2 });
  });
});

describe('the counts of a kind and of its statuses (entity_counts)', () => {
  // Counted from what the writes keep, and compared with the rows themselves.
  const cases: Array<[QueryName, string | undefined, string, string[] | null]> = [
    ['adventurersAvailable', undefined, 'adventurer', ['available']],
    ['adventurersListed', undefined, 'adventurer', ['available', 'employed']],
    ['adventurersDead', undefined, 'adventurer', ['dead']],
    ['agents', undefined, 'agent', null],
    ['questsInStatus', 'open', 'quest', ['open']],
    ['questsInStatus', 'cancelled', 'quest', ['cancelled']],
    ['liveQuests', undefined, 'quest', ['open', 'accepted']],
  ];
  const rowsCounted = (file: string, kind: string, statuses: string[] | null): number => {
    const db = new Database(file, { readonly: true });
    try {
      const where = statuses ? ` AND status IN (${statuses.map(() => '?').join(', ')})` : '';
      return (db.prepare(`SELECT COUNT(*) AS n FROM entities WHERE kind = ?${where}`).get(kind, ...(statuses ?? [])) as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const sameAsRows = async (store: SqliteStore, when: string) => {
    const file = (store as unknown as { db: { name: string } }).db.name;
    for (const [name, arg, kind, statuses] of cases) {
      const n = rowsCounted(file, kind, statuses);
      assert.equal(await store.count(name, arg), n, `${name} ${arg ?? ''} ${when}`);
      assert.equal(await store.countAtMost(name, 2, arg), Math.min(n, 2), `${name} ${arg ?? ''} at most 2 ${when}`);
    }
  };
  const rowOf = (kind: string, id: number, status: string | null) => ({ kind, id: String(id), status, doc: { id, status } });

  it('follows every write of a row: rows added, a status changed, a document alone changed, rows deleted and added again, a refused write', async () => {
    const store = new SqliteStore(tempDir());
    try {
      const statuses = ['available', 'employed', 'dead'];
      await store.engine.persist(event('a', 1), { rows: [
        ...Array.from({ length: 30 }, (_, i) => rowOf('adventurer', i + 1, statuses[i % 3])),
        ...Array.from({ length: 6 }, (_, i) => rowOf('agent', i + 1, i % 2 ? 'active' : null)),
        ...Array.from({ length: 8 }, (_, i) => rowOf('quest', i + 1, i < 5 ? 'open' : 'accepted')),
      ] } as never);
      await sameAsRows(store, 'after the rows were added');
      await store.engine.persist(event('a', 2), { rows: [
        rowOf('adventurer', 1, 'employed'), rowOf('adventurer', 2, 'dead'), { ...rowOf('adventurer', 4, 'available'), doc: { id: 4, n: 2 } },
        { kind: 'adventurer', id: '7', deleted: true, doc: {} }, { kind: 'agent', id: '2', deleted: true, doc: {} }, { kind: 'quest', id: '8', deleted: true, doc: {} },
        rowOf('quest', 1, 'cancelled'), rowOf('quest', 2, null), rowOf('agent', 9, 'departed'),
      ] } as never);
      // One batch: a row written twice, deleted and written again.
      await Promise.all([
        store.engine.persist(event('b', 1), { rows: [rowOf('quest', 3, 'accepted'), { kind: 'quest', id: '4', deleted: true, doc: {} }] } as never),
        store.engine.persist(event('c', 1), { rows: [rowOf('quest', 3, 'cancelled'), rowOf('quest', 4, 'open')] } as never),
      ]);
      await sameAsRows(store, 'after statuses changed and rows were deleted');
      await store.engine.persist(event('warm', 1)); // the next persists of this turn travel as one batch
      const written = store.engine.persist(event('d', 1), { rows: [rowOf('adventurer', 3, 'available')] } as never);
      const refused = store.engine.persist(event('a', 1), { rows: [rowOf('adventurer', 5, 'dead'), rowOf('quest', 99, 'open')] } as never); // the journal refuses a:1 again
      await written;
      await assert.rejects(refused, /UNIQUE|constraint/i);
      await sameAsRows(store, 'after a refused write');
      assert.equal(await store.count('adventurersDead'), 10 + 1 - 1, 'ten dead, one more, one back (the refused write changed nothing)');
    } finally {
      await store.close();
    }
  });

  it('gives a database written before the counts existed its counts from the rows it holds, when it is next opened', async () => {
    const dir = tempDir();
    let store = new SqliteStore(dir);
    await store.engine.persist(event('a', 1), { rows: Array.from({ length: 12 }, (_, i) => rowOf('adventurer', i + 1, i % 4 ? 'available' : 'dead')) } as never);
    await store.close();
    const old = new Database(path.join(dir, 'world.sqlite'));
    old.exec('DROP TABLE entity_counts;');
    old.prepare("INSERT INTO entities (kind, id, status, doc) VALUES ('adventurer', '40', 'dead', '{}'), ('quest', '1', 'open', '{}')").run();
    old.close();
    store = new SqliteStore(dir);
    try {
      await sameAsRows(store, 'at the first open');
      assert.equal(await store.count('adventurersDead'), 4);
      await store.engine.persist(event('a', 2), { rows: [rowOf('adventurer', 40, 'available')] } as never);
      await sameAsRows(store, 'and after a write');
    } finally {
      await store.close();
    }
  });
});

describe('rows and keys the embedded store keeps in memory (row-cache.ts)', () => {
  let store: SqliteStore;
  beforeEach(() => { store = new SqliteStore(tempDir()); });
  afterEach(async () => { await store.close(); });

  it('answers a row read before a write with what the write committed, from the moment it is acknowledged', async () => {
    await store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1 } }, { kind: 'thing', id: 'b', doc: { n: 1 } }] });
    assert.deepEqual(await store.row('thing', 'a'), { n: 1 });
    assert.deepEqual(await store.row('thing', 'b'), { n: 1 });
    const written = store.engine.persist(event('w', 2), { rows: [{ kind: 'thing', id: 'a', doc: { n: 2 } }, { kind: 'thing', id: 'b', deleted: true, doc: {} }] });
    assert.deepEqual(await store.row('thing', 'a'), { n: 1 }, 'not yet committed');
    await written;
    assert.deepEqual(await store.row('thing', 'a'), { n: 2 });
    assert.equal(await store.row('thing', 'b'), undefined, 'a deleted row is gone');
  });

  it('answers a row first read while a write of it is on its way to disk with what the write committed, once it is acknowledged', async () => {
    await store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1 } }] });
    const written = store.engine.persist(event('w', 2), { rows: [{ kind: 'thing', id: 'a', doc: { n: 2 } }] });
    await new Promise((resolve) => setImmediate(resolve)); // the batch leaves for the writer thread
    const meanwhile = await store.row('thing', 'a');
    assert.ok([1, 2].includes((meanwhile as { n: number }).n), JSON.stringify(meanwhile));
    await written;
    assert.deepEqual(await store.row('thing', 'a'), { n: 2 }, 'the copy read before the commit is not served after it');
  });

  it('keeps a row as SQLite holds it when a write of it fails', async () => {
    await store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1 } }] });
    assert.deepEqual(await store.row('thing', 'a'), { n: 1 });
    const bad = { seq: undefined as number | undefined };
    const failing = store.engine.persist(event('x', 1), { ticket: bad, rows: [{ kind: 'other', id: 'x', doc: { big: 1n } }] });
    const dependent = store.engine.persist(event('w', 2), { after: [bad.seq!], rows: [{ kind: 'thing', id: 'a', doc: { n: 2 } }] });
    await assert.rejects(failing);
    await assert.rejects(dependent, /depends on failed/);
    assert.deepEqual(await store.row('thing', 'a'), { n: 1 });
    // SQLite refuses a write inside a batch that others commit with (the same journal number again).
    const duplicate = store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 3 } }] });
    await assert.rejects(duplicate, /UNIQUE|constraint/i);
    assert.deepEqual(await store.row('thing', 'a'), { n: 1 });
  });

  it('reads a row from SQLite once, and again only after a commit it cannot account for', async () => {
    await store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1 } }] });
    const statement = sinon.spy((store as unknown as { stmts: { row: { get: (...a: unknown[]) => unknown } } }).stmts.row, 'get');
    try {
      for (let i = 0; i < 3; i++) assert.deepEqual(await store.row('thing', 'a'), { n: 1 });
      assert.equal(statement.callCount, 1, 'kept after the first read');
      await store.engine.persist(event('w', 2), { rows: [{ kind: 'thing', id: 'a', doc: { n: 2 } }] });
      assert.deepEqual(await store.row('thing', 'a'), { n: 2 });
      assert.equal(statement.callCount, 1, 'the commit brought the new document');
    } finally {
      statement.restore();
    }
  });

  it('takes what each write of a batch did: the rows of the written ones, SQLite for the refused one', async () => {
    await store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1 } }, { kind: 'thing', id: 'c', doc: { n: 1 } }] });
    assert.deepEqual(await store.row('thing', 'a'), { n: 1 });
    assert.deepEqual(await store.row('thing', 'c'), { n: 1 });
    await store.engine.persist(event('warm', 1)); // the next persists of this turn travel as one batch
    const batches = store.writeStats.batches;
    const written = store.engine.persist(event('c', 1), { rows: [{ kind: 'thing', id: 'c', doc: { n: 2 } }] });
    const duplicate = store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 3 } }] }); // the journal refuses w:1 again
    await written;
    await assert.rejects(duplicate, /UNIQUE|constraint/i);
    assert.equal(store.writeStats.batches - batches, 1, 'one batch');
    assert.deepEqual(await store.row('thing', 'c'), { n: 2 });
    assert.deepEqual(await store.row('thing', 'a'), { n: 1 });
  });

  it('forgets what it kept once the writer thread is lost (a batch on its way may have committed)', async () => {
    await store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1 } }] });
    assert.deepEqual(await store.row('thing', 'a'), { n: 1 });
    const writer = (store as unknown as { writer: { terminate(): Promise<number> } }).writer;
    const queued = store.engine.persist(event('w', 2), { rows: [{ kind: 'thing', id: 'a', doc: { n: 2 } }] });
    const generation = store.readGeneration();
    await writer.terminate();
    await assert.rejects(queued, /writer thread stopped/);
    assert.notEqual(store.readGeneration(), generation, 'answers kept before the loss are not served again');
    // What SQLite holds now, whoever wrote it, is what a read finds.
    const db = new Database(path.join((store as unknown as { db: { name: string } }).db.name), { timeout: 5_000 });
    db.prepare("UPDATE entities SET doc = '{\"n\":5}' WHERE kind = 'thing' AND id = 'a'").run();
    db.close();
    assert.deepEqual(await store.row('thing', 'a'), { n: 5 });
  });

  it('treats an answer of its writer to a batch not on its way as a lost writer: the batch on its way fails at once, and so does every later write', async () => {
    await store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1 } }] });
    const settle = (store as unknown as { settle(r: { batch: number; errors: (string | null)[] }): void }).settle.bind(store);
    const onItsWay = store.engine.persist(event('w', 2), { rows: [{ kind: 'thing', id: 'a', doc: { n: 2 } }] });
    await new Promise((r) => setImmediate(r)); // the batch leaves for the writer
    const generation = store.readGeneration();
    settle({ batch: -1, errors: [null] });
    await assert.rejects(onItsWay, /answered batch -1 while batch \d+ was on its way/);
    assert.notEqual(store.readGeneration(), generation, 'answers kept before are not served again');
    await assert.rejects(store.engine.persist(event('w', 3), {}), /answered batch -1/);
    await assert.rejects(store.ping(), /answered batch -1/);
  });

  it('reads a page of a listing from SQLite once, and again only after a commit that may change it', async () => {
    const quest = (id: number, status: string, location_id = 'emberfall') => ({ kind: 'quest', id, status, location_id, doc: { id, status } });
    await store.engine.persist(event('q', 1), { rows: [quest(1, 'open'), quest(2, 'open'), quest(3, 'open')] });
    const first = (store as unknown as { query(name: string): { first: { all: (...a: unknown[]) => unknown } } }).query('openQuestsAt').first;
    const statement = sinon.spy(first, 'all');
    const board = async () => (await store.listPageJson('openQuestsAt', 'emberfall', undefined, 2)).map((r) => JSON.parse(r.doc));
    try {
      assert.deepEqual(await board(), [{ id: 1, status: 'open' }, { id: 2, status: 'open' }]);
      assert.deepEqual(await board(), [{ id: 1, status: 'open' }, { id: 2, status: 'open' }]);
      assert.equal(statement.callCount, 1, 'kept after the first read');
      await store.engine.persist(event('q', 2), { rows: [quest(3, 'accepted'), quest(4, 'open'), quest(0, 'open', 'ashford')] });
      await board();
      assert.equal(statement.callCount, 1, 'rows beyond the page, or elsewhere, leave it');
      const accepted = store.engine.persist(event('q', 3), { rows: [quest(2, 'accepted')] });
      assert.deepEqual((await board()).map((q) => q.id), [1, 2], 'not yet committed');
      await accepted;
      assert.deepEqual((await board()).map((q) => q.id), [1, 4], 'read again once the write is acknowledged');
      assert.equal(statement.callCount, 2);
      const writer = (store as unknown as { writer: { terminate(): Promise<number> } }).writer;
      await writer.terminate();
      await board();
      assert.equal(statement.callCount, 3, 'a lost writer may have committed anything: read again');
    } finally {
      statement.restore();
    }
  });

  it('gives every reader its own copy of a kept row', async () => {
    await store.engine.persist(event('w', 1), { rows: [{ kind: 'thing', id: 'a', doc: { n: 1, list: [1] } }] });
    const first = await store.row<{ n: number; list: number[] }>('thing', 'a');
    first!.n = 99;
    first!.list.push(2);
    assert.deepEqual(await store.row('thing', 'a'), { n: 1, list: [1] });
  });

  it("finds a key's agent again after a commit gives the key to another", async () => {
    await store.engine.persist(event('agent:1', 1), { credentials: [{ key_hash: 'k1', agent_id: 1 }] });
    assert.equal(await store.agentForKeyHash('k1'), 1);
    assert.equal(await store.agentForKeyHash('k2'), undefined);
    await store.engine.persist(event('agent:2', 1), { credentials: [{ key_hash: 'k1', agent_id: 2 }, { key_hash: 'k2', agent_id: 2 }] });
    assert.equal(await store.agentForKeyHash('k1'), 2);
    assert.equal(await store.agentForKeyHash('k2'), 2, 'an unknown key is not remembered as unknown');
  });
});
