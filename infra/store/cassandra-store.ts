// The Cassandra store: the asynchronous store port (actors/ports/store.ts) on Apache
// Cassandra 5.0. One command's journal record, its read-model rows, history entries and
// credentials go to Cassandra as ONE logged batch (all or nothing), at QUORUM by default,
// and the persist resolves only when the batch is acknowledged; reads are at QUORUM too, so
// a read that follows an acknowledged persist sees it. Every request passes one bounded
// limiter (a few hundred in flight at most). When Cassandra is out of reach, reads and
// persists reject with StoreUnavailableError (503), never crash the process.
//
// Tables, keys and the order guarantees are described in docs/cassandra.md; the schema and
// its migrations are in cassandra-schema.ts, the pure key mapping in cassandra-model.ts and
// the id blocks in cassandra-ids.ts.
import { Client, errors, types } from 'cassandra-driver';
import {
  QUERIES, compareIds, compareNewest, type Credential, type EventStream, type HistoryEntry, type HistoryEvent, type HistoryQuery, type PersistedEvent,
  type PersistedSnapshot, type ProjectionRow, type StoredRow, type QueryName, type QuerySpec, type Store, type StoreEngine, type Writes,
} from '../../actors/ports/store';
import { OrderedWrites } from './ordered-writes';
import { PageCache } from './page-cache';
import { StoreUnavailableError, storeError } from './cassandra-errors';
import { ExactSequence, Sequence, SequenceReserver, type IdSource } from './cassandra-ids';
import { CassandraIdempotency } from './cassandra-idempotency';
import { Limiter, mapLimited } from './cassandra-limit';
import { NO_METRICS, secondsSince, type Metrics } from '../../actors/ports/metrics';
import {
  DEFAULT_WORLD, ENTITY_COLUMNS, FILTER_COLUMNS, HISTORY_COLUMNS, allHistory, byAgent, byCategory, byIndex, byOrganization, compareKeys,
  dayMarks, dueValue, entityKey, entityValues, filterValues, historyBucket, historyPaths, historyValues, indexValue, isFilter, num, pathBucket,
  toFilterRow, toHistoryEvent, validWorld, type HistoryPath, type Layout,
} from './cassandra-model';
import { DEFAULT_JOURNAL_PARTITION_SIZE, migrate, validKeyspace, type Replication } from './cassandra-schema';

export type ConsistencyName = 'ANY' | 'ONE' | 'TWO' | 'THREE' | 'QUORUM' | 'ALL' | 'LOCAL_QUORUM' | 'EACH_QUORUM' | 'LOCAL_ONE';

export interface CassandraStoreOptions {
  /** host or host:port of one or more nodes. */
  contactPoints: string[];
  /** The data center this process is in (datacenter1 for SimpleSnitch). */
  localDataCenter: string;
  keyspace: string;
  /**
   * The world within the keyspace (letters, digits, _ and -; default 'main'). Worlds of one
   * keyspace share its schema and layout and nothing else; opening a new one costs no DDL.
   */
  world?: string;
  /** Consistency of reads and writes; QUORUM by default. With RF = 3, QUORUM reads after QUORUM writes see them. */
  consistency?: ConsistencyName;
  /** Overrides `consistency` for reads. */
  readConsistency?: ConsistencyName;
  /** Overrides `consistency` for writes. */
  writeConsistency?: ConsistencyName;
  /** Consistency of the lightweight transactions' Paxos phase: SERIAL (default) or LOCAL_SERIAL. */
  serialConsistency?: 'SERIAL' | 'LOCAL_SERIAL';
  /** Replication of the keyspace when this store creates it; SimpleStrategy with one replica by default. */
  replication?: Replication;
  /** Requests of this store in flight at once, at most (default 256; one connection refuses beyond 2,048). */
  maxInFlight?: number;
  /** Ids reserved per lightweight transaction for nextId (default 64, as the SQLite store). */
  idBlock?: number;
  /** History ids reserved per lightweight transaction (default 1,000; the next block is reserved when half is left). */
  historyIdBlock?: number;
  /**
   * Ids in the order asked for across processes (many nodes): each group of callers gets
   * exactly the ids it needs from one lightweight transaction, instead of blocks kept in
   * memory (ExactSequence). Default false (one process: blocks).
   */
  exactIds?: boolean;
  /**
   * How long the count of an older bucket of the history is reused by historyCount (default
   * 60,000 ms; 0 counts every bucket on every call).
   */
  historyCountReuseMs?: number;
  /** Partition sizes for a NEW keyspace; an existing keyspace keeps the ones it was created with. */
  layout?: Partial<Layout>;
  /**
   * Group commit: persists waiting at the same moment go to Cassandra together, as ONE logged
   * batch of at most `persists` persists and about `bytes` bytes of values, with at most
   * `inFlight` such batches on their way at once (the others wait and gather). Every persist
   * in a batch is applied with all the others or not at all. Default { persists: 64, bytes:
   * 40_000, inFlight: 32 } (the bytes are an estimate above Cassandra's own count, which it
   * refuses beyond 50 KiB); persists: 1 sends each persist alone.
   */
  groupCommit?: { persists?: number; bytes?: number; inFlight?: number };
  /** Connections to each node of the local data center (default 2: the node decodes and answers each connection on its own event loop). */
  connectionsPerHost?: number;
  /** Client-side timeout of one request (default 12 s). */
  requestTimeoutMs?: number;
  /** Timeout of the first connection (default 5 s). */
  connectTimeoutMs?: number;
  log?: (line: string) => void;
  /** Where group commits are reported (operators' metrics); nowhere by default. */
  metrics?: Metrics;
  /**
   * Fencing on many nodes: asked, at the moment a batch leaves for Cassandra, whether this
   * node may still write for an entity (by its persistence key `<kind>:<id>`); a reason
   * means it may not (its shard went to another node) and that persist is refused
   * (StoreUnavailableError, 503) without being sent. None on one node.
   */
  fence?: (persistenceKey: string) => string | null;
  /**
   * This process is the only one writing its world (one node, no cluster). It counts the
   * batches it sends, so reads may keep their answers until the next one (Store.readGeneration,
   * http/read-cache.ts); and it numbers its persists (Writes.ticket) and sends each only
   * once the persists it depends on are acknowledged (its actor's previous one, and
   * Writes.after), so an actor goes on while its write is on its way (ordered writes,
   * actors/region.ts). Default false: other processes may change the read model, nothing
   * is kept, and every persist is waited for.
   */
  soleWriter?: boolean;
}

export const DEFAULT_LAYOUT: Layout = {
  journalPartitionSize: DEFAULT_JOURNAL_PARTITION_SIZE,
  entityBucketSize: 1000,
  historyBucketSize: 10_000,
  historyFilterBucketSize: 100_000,
};

/** The sequence history ids come from; not a name the world uses. */
const HISTORY_SEQUENCE = '$history';
/** Buckets and partitions read at once by one listing. */
const FAN_OUT = 8;
const PAGE = 1000;
/** Bucket keys this process knows are registered; forgotten (and written again) past this many. */
const KNOWN_BUCKETS_MAX = 100_000;

const consistencyOf = (name: string): number => {
  const key = name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof typeof types.consistencies;
  const value = types.consistencies[key];
  if (typeof value !== 'number') throw new Error(`unknown consistency ${name}`);
  return value;
};

/** One statement of a persist; `row` names the row it writes when a later write of the same row in one batch must replace it. */
interface Statement { query: string; params: unknown[]; row?: string }

/** How long after a failed batch no page or answer is kept: longer than Cassandra's write timeout and its batchlog's replay after it. */
const FAILED_BATCH_DOUBT_MS = 120_000;

/**
 * Whether a read failed because an index cannot answer it (still building: a read failure;
 * missing: an invalid query, or a statement prepared before it went), rather than for want
 * of time or replicas. The driver may report the server's answer inside NoHostAvailableError.
 */
function indexCannotAnswer(e: unknown): boolean {
  const cause = e instanceof StoreUnavailableError ? e.cause : e;
  const answers = cause instanceof errors.NoHostAvailableError ? Object.values(cause.innerErrors ?? {}) : [cause];
  const codes: number[] = [types.responseErrorCodes.readFailure, types.responseErrorCodes.invalid, types.responseErrorCodes.unprepared];
  return answers.some((a) => a instanceof errors.ResponseError && codes.includes(a.code));
}

/** A persist waiting for its batch. */
interface PendingPersist {
  /** The entity's persistence key (`<kind>:<id>`), for the fence. */
  key: string;
  /** Ordered writes: its number, its event's sequence number, and the numbers it waits for (they must be acknowledged first). */
  seq?: number;
  sequenceNumber: number;
  after?: number[];
  statements: Statement[];
  /** Its history events' ids and days (the batch writes the day marks). */
  events: Array<{ id: number; day: number }>;
  /** Roughly the bytes its values weigh (Cassandra refuses a batch over batch_size_fail_threshold, 50 KiB by default). */
  bytes: number;
  newBuckets: Set<string>;
  /** The entity rows it writes (the page cache learns of them when the batch lands). */
  rows: readonly ProjectionRow[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Roughly the bytes of a statement as Cassandra counts a batch's size: each cell's value, timestamp and flags, the keys. */
function weight(params: unknown[]): number {
  let n = 32;
  for (const p of params) n += (typeof p === 'string' ? p.length : 8) + 16;
  return n;
}

interface RowWithKey { idNum: number; id: string; doc?: string }

/** What nact's persistent actor needs from events(): a stream with an async-friendly reduce (also awaitable, as nact's EventStream type says). */
class JournalStream implements EventStream {
  constructor(private readonly read: (onEvent: (e: PersistedEvent) => Promise<void>) => Promise<void>) {}

  /** Folds the events in order; each step waits for the previous one, so a page at a time is held in memory. */
  reduce<U>(f: (acc: U, event: PersistedEvent, index: number) => U, init: U): Promise<U> {
    return (async () => {
      let acc = init;
      let index = 0;
      await this.read(async (e) => { acc = await f(acc, e, index++); });
      return acc;
    })();
  }

  then<R1 = PersistedEvent[], R2 = never>(
    onFulfilled?: ((value: PersistedEvent[]) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    const all: PersistedEvent[] = [];
    return this.read(async (e) => { all.push(e); }).then(() => all).then(onFulfilled, onRejected);
  }
}

export class CassandraStore implements Store {
  readonly engine: StoreEngine;
  readonly idempotency: CassandraIdempotency;
  readonly keyspace: string;
  /** The world of this store within the keyspace. */
  readonly world: string;
  readonly layout: Layout;
  private readonly limiter: Limiter;
  private readonly read: number;
  private readonly write: number;
  private readonly serial: number;
  private readonly reserver: SequenceReserver;
  private readonly sequences = new Map<string, IdSource>();
  private readonly historyIds: IdSource;
  /** Counts of the whole history's buckets two or more behind the newest, and when each was taken (historyCount). */
  private readonly olderBucketCounts = new Map<number, { n: number; at: number }>();
  private readonly historyCountReuseMs: number;
  private readonly exactIds: boolean;
  private readonly idBlock: number;
  private readonly knownBuckets = new Set<string>();
  /** Per day, the smallest and largest day marks written by this process (written again once forgotten). */
  private readonly dayRanges = new Map<number, [number, number]>();
  private readonly pending = new Set<Promise<unknown>>();
  /** Persists waiting for a batch, in the order they were called. */
  private readonly waiting: PendingPersist[] = [];
  /** Ordered writes (soleWriter): see OrderedWrites. */
  private readonly ordered: OrderedWrites | null;
  private batchesInFlight = 0;
  /** Persists in the batches on their way. */
  private persistsInFlight = 0;
  private readonly metrics: Metrics;
  private flushScheduled = false;
  private readonly group: { persists: number; bytes: number; inFlight: number };
  private readonly fence: ((persistenceKey: string) => string | null) | undefined;
  /** The statements of the write path, built once. */
  private readonly cql: ReturnType<CassandraStore['statements']>;
  /** The write timestamp of the last batch (microseconds), so batches sent later always win. */
  private lastTimestamp = 0;
  /** Batches and settings written so far, when this process is the only writer (readGeneration). */
  private generation = 0;
  /**
   * See Store.readGeneration; present only for the sole writer of its world
   * (CassandraStoreOptions.soleWriter), and undefined for a while after a batch failed.
   */
  readonly readGeneration?: () => number | undefined;
  /** Pages of listings kept until a batch may change them: only by the sole writer of its world, which sees every batch. */
  private readonly pageCache: PageCache | null;
  /** Until when no page or answer is kept: a batch failed, and Cassandra may still apply it. */
  private doubtedUntil = 0;
  /** close() has begun: no new writes or ids. */
  private closing = false;
  private closed = false;

  constructor(private readonly client: Client, opts: CassandraStoreOptions, layout: Layout) {
    this.keyspace = validKeyspace(opts.keyspace);
    this.world = validWorld(opts.world ?? DEFAULT_WORLD);
    this.layout = layout;
    this.limiter = new Limiter(opts.maxInFlight ?? 256);
    this.read = consistencyOf(opts.readConsistency ?? opts.consistency ?? 'QUORUM');
    this.write = consistencyOf(opts.writeConsistency ?? opts.consistency ?? 'QUORUM');
    this.serial = consistencyOf(opts.serialConsistency ?? 'SERIAL');
    this.reserver = new SequenceReserver(client, this.keyspace, this.world, (what, fn) => this.run(what, fn), this.serial, this.write);
    this.idBlock = opts.idBlock ?? 64;
    this.group = { persists: 64, bytes: 40_000, inFlight: 32, ...opts.groupCommit };
    this.fence = opts.fence;
    this.metrics = opts.metrics ?? NO_METRICS;
    if (!(this.group.persists >= 1 && this.group.inFlight >= 1)) throw new Error('groupCommit: persists and inFlight must be at least 1');
    this.exactIds = opts.exactIds ?? false;
    this.historyCountReuseMs = opts.historyCountReuseMs ?? 60_000;
    this.historyIds = this.exactIds ? new ExactSequence(this.reserver, HISTORY_SEQUENCE) : new Sequence(this.reserver, HISTORY_SEQUENCE, opts.historyIdBlock ?? 1000, true);
    this.cql = this.statements();
    this.engine = this.makeEngine();
    if (opts.soleWriter) this.readGeneration = () => (this.doubted() ? undefined : this.generation);
    this.pageCache = opts.soleWriter ? new PageCache() : null;
    this.ordered = opts.soleWriter ? new OrderedWrites() : null;
    this.idempotency = new CassandraIdempotency((what, query, params, o) => this.exec(what, query, params, o), this.keyspace, this.world, this.write, this.serial);
  }

  private statements() {
    const insert = (table: string, columns: string) => `INSERT INTO ${this.t(table)} (${columns}) VALUES (${columns.split(',').map(() => '?').join(', ')})`;
    const history = insert('history', `world, bucket, ${HISTORY_COLUMNS}`);
    const historyFilter = insert('history_filters', `world, bucket, dimension, value, ${FILTER_COLUMNS}`);
    return {
      insertJournal: insert('journal', 'world, persistence_key, partition_nr, sequence_nr, created_at, data, tags, is_deleted'),
      insertEntity: insert('entities', ENTITY_COLUMNS),
      deleteEntity: `DELETE FROM ${this.t('entities')} WHERE world = ? AND kind = ? AND bucket = ? AND id_num = ? AND id = ?`,
      insertEntityBucket: insert('entity_buckets', 'world, kind, bucket'),
      insertCredential: insert('credentials', 'world, key_hash, agent_id'),
      insertHistoryBucket: insert('history_buckets', 'world, dimension, value, bucket'),
      insertDayMark: insert('history_days', 'world, day, id'),
      history,
      historyFilter,
    };
  }

  private batchCount = 0;
  private persistCount = 0;
  private statementCount = 0;

  /** The session, keyspace and world, for infrastructure that keeps tables of its own beside the store's (the shard leases). */
  get cassandra(): { client: Client; keyspace: string; world: string; serial: number } {
    return { client: this.client, keyspace: this.keyspace, world: this.world, serial: this.serial };
  }

  /** Batches sent so far, the persists and the statements they carried (the benchmark reports them). */
  get writeStats(): { batches: number; writes: number; statements: number } {
    return { batches: this.batchCount, writes: this.persistCount, statements: this.statementCount };
  }

  /** Persists waiting for a batch or on their way to Cassandra. */
  get queueDepth(): number {
    return this.waiting.length + this.persistsInFlight;
  }

  /** The most requests this store ever had in flight at once. */
  get peakInFlight(): number {
    return this.limiter.peak;
  }

  // ------------------------------------------------------------------------------------------
  // Requests

  /** Runs one driver request under the limiter; unreachable Cassandra becomes StoreUnavailableError. */
  private async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('store is closed');
    try {
      return await this.limiter.run(fn);
    } catch (e) {
      throw storeError(e, what);
    }
  }

  private t(table: string): string {
    return `${this.keyspace}.${table}`;
  }

  private exec(what: string, query: string, params: unknown[], opts: Record<string, unknown> = {}): Promise<types.ResultSet> {
    return this.run(what, () => this.client.execute(query, params, { prepare: true, consistency: this.read, ...opts }));
  }

  /** Every row of a query, page by page (each page is one request under the limiter). */
  private async all(what: string, query: string, params: unknown[], onRow: (row: types.Row) => void | Promise<void>, fetchSize = PAGE, done?: () => boolean): Promise<void> {
    let pageState: string | undefined;
    do {
      const r = await this.exec(what, query, params, { fetchSize, pageState, autoPage: false });
      for (const row of r.rows) await onRow(row);
      pageState = r.pageState ?? undefined;
    } while (pageState && !done?.());
  }

  /** Keeps track of a write until it settles, so close() can wait for it. */
  private track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    const done = () => { this.pending.delete(p); };
    p.then(done, done);
    return p;
  }

  // ------------------------------------------------------------------------------------------
  // The nact engine

  private makeEngine(): StoreEngine {
    const store = this;
    return {
      events(persistenceKey: string, offset = 0, limit?: number) {
        return new JournalStream((onEvent) => store.readJournal(persistenceKey, offset, limit, onEvent));
      },
      latestSnapshot(persistenceKey: string) {
        return store.latestSnapshot(persistenceKey);
      },
      takeSnapshot(snapshot: PersistedSnapshot) {
        return store.takeSnapshot(snapshot);
      },
      persist(event: PersistedEvent, writes?: Writes) {
        return store.persist(event, writes ?? {});
      },
    };
  }

  /** The journal of a key after sequence number `offset`, at most `limit` records, partition after partition. */
  private async readJournal(key: string, offset: number, limit: number | undefined, onEvent: (e: PersistedEvent) => Promise<void>): Promise<void> {
    const size = this.layout.journalPartitionSize;
    let remaining = limit ?? Number.MAX_SAFE_INTEGER;
    let from = Math.max(0, Math.floor(offset)) + 1;
    let partition = Math.floor(from / size);
    while (remaining > 0) {
      let last = -1;
      await this.all('journal read',
        `SELECT sequence_nr, created_at, data, tags, is_deleted FROM ${this.t('journal')} WHERE world = ? AND persistence_key = ? AND partition_nr = ? AND sequence_nr >= ? LIMIT ?`,
        [this.world, key, partition, from, Math.min(remaining, 2 ** 31 - 1)],
        async (r) => {
          last = num(r.get('sequence_nr'));
          remaining--;
          await onEvent({
            key, sequenceNumber: last, createdAt: num(r.get('created_at')),
            data: JSON.parse(r.get('data')), tags: JSON.parse(r.get('tags') ?? '[]'), isDeleted: r.get('is_deleted') === true,
          } as PersistedEvent);
        }, Math.min(PAGE, size));
      // Sequence numbers have no gaps: a partition that ends early is the last one.
      if (last < (partition + 1) * size - 1) return;
      partition++;
      from = partition * size;
    }
  }

  private async latestSnapshot(key: string): Promise<PersistedSnapshot | undefined> {
    // Ordered writes: an actor recovering sees every write its previous life queued (those on
    // their way are waited for); its new life starts from what is in Cassandra, so a failure
    // of the previous one no longer refuses its writes.
    if (this.ordered) {
      await this.ordered.settledFor(key);
      this.ordered.recovering(key);
    }
    const r = await this.exec('snapshot read', `SELECT sequence_nr, created_at, data FROM ${this.t('snapshots')} WHERE world = ? AND persistence_key = ? LIMIT 1`, [this.world, key]);
    const row = r.first();
    return row ? { key, sequenceNumber: num(row.get('sequence_nr')), createdAt: num(row.get('created_at')), data: JSON.parse(row.get('data')) } : undefined;
  }

  private async takeSnapshot(s: PersistedSnapshot): Promise<void> {
    // A snapshot is an optimisation: one this node may no longer write is simply not taken.
    if (this.fence?.(s.key)) return;
    if (this.ordered) {
      // Ordered writes: the state it holds must be in the journal first; after a failed write it is not taken.
      await this.ordered.settledFor(s.key, false);
      if (this.ordered.refusal(s.key, s.sequenceNumber, undefined, true) !== null) return;
    }
    // One partition: the batch is atomic and isolated. Older snapshots of the key go.
    return this.track(this.run('snapshot', () => this.client.batch([
      { query: `INSERT INTO ${this.t('snapshots')} (world, persistence_key, sequence_nr, created_at, data) VALUES (?, ?, ?, ?, ?)`, params: [this.world, s.key, s.sequenceNumber, s.createdAt, JSON.stringify(s.data)] },
      { query: `DELETE FROM ${this.t('snapshots')} WHERE world = ? AND persistence_key = ? AND sequence_nr < ?`, params: [this.world, s.key, s.sequenceNumber] },
    ], { prepare: true, logged: false, consistency: this.write, isIdempotent: true })).then(() => undefined));
  }

  /**
   * One record with everything it writes, in a logged batch (with other persists waiting at
   * the same moment: group commit); resolves once Cassandra acknowledged the batch.
   */
  persist(event: PersistedEvent, writes: Writes): Promise<void> {
    if (this.closing) return Promise.reject(new Error('store is closed'));
    // Numbered before persist returns (the actor goes on once it has the number).
    const numbered = this.ordered?.number(event.key, event.sequenceNumber, writes.after);
    if (numbered && writes.ticket) writes.ticket.seq = numbered.seq;
    if (numbered?.refused) {
      this.ordered!.settle(numbered.seq, event.key, event.sequenceNumber, false);
      return Promise.reject(new Error(numbered.refused));
    }
    // History ids are taken now, before any await, so they increase in the order of persists.
    const history = writes.history ?? [];
    const ids = this.historyIds.take(history.length);
    return this.track((async () => {
      let pending: PendingPersist;
      try {
        const historyIds = Array.isArray(ids) ? ids : await ids.catch((e) => { throw storeError(e, 'history ids'); });
        const { statements, newBuckets } = this.batchOf(event, writes.rows ?? [], history, historyIds, writes.credentials ?? []);
        let bytes = 0;
        for (const st of statements) bytes += weight(st.params);
        const events = history.map((e, i) => ({ id: historyIds[i], day: e.day }));
        pending = { key: event.key, seq: numbered?.seq, sequenceNumber: event.sequenceNumber, after: numbered?.after, statements, events, bytes, newBuckets, rows: writes.rows ?? [], resolve: () => undefined, reject: () => undefined };
      } catch (e) {
        // Never queued: what depends on it fails too.
        if (numbered) { this.ordered!.settle(numbered.seq, event.key, event.sequenceNumber, false); this.scheduleFlush(); }
        throw e;
      }
      await new Promise<void>((resolve, reject) => {
        pending.resolve = resolve;
        pending.reject = reject;
        this.waiting.push(pending);
        this.scheduleFlush();
      });
    })());
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // After the current turn of the event loop, so persists called in it share a batch.
    setImmediate(() => { this.flushScheduled = false; this.flush(); });
  }

  /** Sends the waiting persists in batches, while fewer than group.inFlight batches are on their way. */
  private flush(): void {
    if (this.ordered) { this.flushOrdered(this.ordered); return; }
    while (this.waiting.length > 0 && this.batchesInFlight < this.group.inFlight) {
      const batch: PendingPersist[] = [this.waiting.shift()!];
      let bytes = batch[0].bytes;
      while (this.waiting.length > 0 && batch.length < this.group.persists && bytes + this.waiting[0].bytes <= this.group.bytes) {
        bytes += this.waiting[0].bytes;
        batch.push(this.waiting.shift()!);
      }
      this.dispatch(batch);
    }
  }

  private dispatch(batch: PendingPersist[]): void {
    this.batchesInFlight++;
    this.persistsInFlight += batch.length;
    void this.send(batch, this.timestamp()).finally(() => {
      this.batchesInFlight--;
      this.persistsInFlight -= batch.length;
      this.flush();
    });
  }

  /**
   * Ordered writes: the waiting persists in their order, each into a batch once every
   * persist it depends on is acknowledged or goes earlier in the same batch (a logged batch
   * is applied whole or not at all); one whose dependency failed fails unsent. The others
   * wait for a later flush (each acknowledgement flushes again).
   */
  private flushOrdered(ordered: OrderedWrites): void {
    // In place: the persists that wait are moved to the front (`kept`), those sent or failed
    // dropped, and the tail left unread once no more batches may go.
    const waiting = this.waiting;
    let kept = 0;
    let read = 0;
    let batch: PendingPersist[] = [];
    let bytes = 0;
    const inBatch = new Set<number>();
    for (; read < waiting.length && this.batchesInFlight < this.group.inFlight; read++) {
      const p = waiting[read];
      const refused = ordered.refusal(p.key, p.sequenceNumber, p.after);
      if (refused !== null) {
        ordered.settle(p.seq!, p.key, p.sequenceNumber, false);
        p.reject(new Error(refused));
        continue;
      }
      if (!ordered.ready(p.after, inBatch)) { waiting[kept++] = p; continue; }
      if (batch.length > 0 && (batch.length >= this.group.persists || bytes + p.bytes > this.group.bytes)) {
        this.dispatch(batch);
        batch = [];
        bytes = 0;
        inBatch.clear();
        // Its dependencies may have been in the batch just sent: it waits for them to be acknowledged.
        if (this.batchesInFlight >= this.group.inFlight || !ordered.ready(p.after, inBatch)) { waiting[kept++] = p; continue; }
      }
      batch.push(p);
      bytes += p.bytes;
      inBatch.add(p.seq!);
    }
    waiting.splice(kept, read - kept);
    if (batch.length > 0) this.dispatch(batch);
  }

  /** The persists this node may still write; the others are refused with the fence's reason. */
  private fenced(persists: PendingPersist[]): PendingPersist[] {
    if (!this.fence) return persists;
    const allowed: PendingPersist[] = [];
    for (const p of persists) {
      const reason = this.fence(p.key);
      if (reason === null) { allowed.push(p); continue; }
      if (p.seq !== undefined) this.ordered?.settle(p.seq, p.key, p.sequenceNumber, false);
      p.reject(new StoreUnavailableError(`not written: ${reason}`));
    }
    return allowed;
  }

  /** A write timestamp (microseconds) above every one given before: a batch sent later wins over one sent earlier. */
  private timestamp(): number {
    this.lastTimestamp = Math.max(this.lastTimestamp + 1, Date.now() * 1000);
    return this.lastTimestamp;
  }

  /** One logged batch for these persists; settles each of them. */
  private async send(all: PendingPersist[], timestamp: number): Promise<void> {
    const persists = this.fenced(all);
    if (persists.length === 0) return;
    // Statements of one batch share its timestamp: of several writes of one row, only the last
    // (in the order of the persists) is sent, as applying them one after another would leave it.
    const statements: Statement[] = [];
    const rowAt = new Map<string, number>();
    // The day marks of the batch's events, but for those this process already wrote.
    const marks = dayMarks(persists.flatMap((p) => p.events)).filter(({ day, id }) => {
      const known = this.dayRanges.get(day);
      return !known || id < known[0] || id > known[1];
    });
    for (const { day, id } of marks) statements.push({ query: this.cql.insertDayMark, params: [this.world, day, id] });
    for (const p of persists) {
      for (const st of p.statements) {
        if (st.row !== undefined) {
          const at = rowAt.get(st.row);
          if (at !== undefined) statements[at] = st;
          else { rowAt.set(st.row, statements.length); statements.push(st); }
        } else statements.push(st);
      }
    }
    this.batchCount++;
    this.persistCount += persists.length;
    this.statementCount += statements.length;
    const started = performance.now();
    try {
      await this.run('persist', async () => {
        // Checked again at the last moment, when the limiter lets the batch go.
        if (this.fence && this.fenced(persists).length < persists.length) throw new StoreUnavailableError('a shard of this batch moved to another node');
        return this.client.batch(statements, {
          prepare: true, logged: statements.length > 1, consistency: this.write, isIdempotent: true, timestamp,
        });
      });
    } catch (e) {
      if (persists.length > 1 && !(e instanceof StoreUnavailableError)) {
        // Cassandra refused the batch (too large, a value it cannot take): each persist alone, so
        // only the one at fault fails. Ordered writes go one after another, later ones with later
        // timestamps, and one whose dependency failed fails unsent; the others with the same timestamp.
        const ordered = this.ordered;
        if (ordered) {
          for (const p of persists) {
            const refused = ordered.refusal(p.key, p.sequenceNumber, p.after);
            if (refused === null) await this.send([p], this.timestamp());
            else { ordered.settle(p.seq!, p.key, p.sequenceNumber, false); p.reject(new Error(refused)); }
          }
        } else await Promise.all(persists.map((p) => this.send([p], timestamp)));
        return;
      }
      this.metrics.committed(persists.length, false, secondsSince(started));
      // A batch that failed (a timeout) may still be applied: kept reads are dropped all the same.
      this.generation++;
      // And later (Cassandra replays a logged batch from its batchlog), when no commit would
      // say so: no page and no answer is kept for a while.
      this.pageCache?.clear();
      this.doubtedUntil = Date.now() + FAILED_BATCH_DOUBT_MS;
      for (const p of persists) {
        if (p.seq !== undefined) this.ordered?.settle(p.seq, p.key, p.sequenceNumber, false);
        p.reject(e);
      }
      return;
    }
    this.metrics.committed(persists.length, true, secondsSince(started));
    // Before any persist of the batch is acknowledged: a read that follows the acknowledgement computes afresh.
    this.generation++;
    for (const p of persists) this.pageCache?.written(p.rows);
    for (const { day, id } of marks) this.rememberDayMark(day, id);
    for (const p of persists) {
      for (const b of p.newBuckets) this.rememberBucket(b);
      if (p.seq !== undefined) this.ordered?.settle(p.seq, p.key, p.sequenceNumber, true);
      p.resolve();
    }
  }

  /** The smallest and largest day marks this process wrote for a day. */
  private rememberDayMark(day: number, id: number): void {
    const known = this.dayRanges.get(day);
    if (known) { known[0] = Math.min(known[0], id); known[1] = Math.max(known[1], id); return; }
    if (this.dayRanges.size >= 1000) this.dayRanges.clear();
    this.dayRanges.set(day, [id, id]);
  }

  private rememberBucket(key: string): void {
    if (this.knownBuckets.size >= KNOWN_BUCKETS_MAX) this.knownBuckets.clear();
    this.knownBuckets.add(key);
  }

  private batchOf(event: PersistedEvent, rows: ProjectionRow[], history: HistoryEntry[], historyIds: number[], credentials: Credential[]) {
    const statements: Statement[] = [];
    const newBuckets = new Set<string>();
    const registerBucket = (key: string, statement: Statement) => {
      if (this.knownBuckets.has(key) || newBuckets.has(key)) return;
      newBuckets.add(key);
      statement.row = key;
      statements.push(statement);
    };
    statements.push({
      query: this.cql.insertJournal,
      params: [this.world, event.key, Math.floor(event.sequenceNumber / this.layout.journalPartitionSize), event.sequenceNumber,
        event.createdAt, JSON.stringify(event.data), JSON.stringify(event.tags ?? []), !!event.isDeleted],
    });
    // Statements of one batch share a timestamp: send() keeps only the last write of each row, as a sequential apply would.
    for (const row of rows) {
      const k = entityKey(this.layout, row.kind, row.id);
      const key = `r\u0000${k.kind}\u0000${k.id}`;
      if (row.deleted) {
        statements.push({ query: this.cql.deleteEntity, params: [this.world, k.kind, k.bucket, k.idNum, k.id], row: key });
        continue;
      }
      statements.push({ query: this.cql.insertEntity, params: entityValues(this.layout, this.world, row), row: key });
      registerBucket(`e\u0000${k.kind}\u0000${k.bucket}`, { query: this.cql.insertEntityBucket, params: [this.world, k.kind, k.bucket] });
    }
    for (const c of credentials) {
      statements.push({ query: this.cql.insertCredential, params: [this.world, c.key_hash, c.agent_id] });
    }
    const createdAt = new Date().toISOString();
    history.forEach((entry, i) => {
      const id = historyIds[i];
      const values = historyValues(id, entry, createdAt);
      const slim = filterValues(id, entry);
      for (const path of historyPaths(entry)) {
        const bucket = pathBucket(this.layout, path, id);
        statements.push(isFilter(path)
          ? { query: this.cql.historyFilter, params: [this.world, bucket, path.dimension, path.value, ...slim] }
          : { query: this.cql.history, params: [this.world, bucket, ...values] });
        registerBucket(`h\u0000${path.dimension}\u0000${path.value}\u0000${bucket}`, {
          query: this.cql.insertHistoryBucket, params: [this.world, path.dimension, path.value, bucket],
        });
      }
    });
    return { statements, newBuckets };
  }

  // ------------------------------------------------------------------------------------------
  // The read model

  async row<T = Record<string, unknown>>(kind: string, id: string | number): Promise<T | undefined> {
    const k = entityKey(this.layout, kind, id);
    const r = await this.exec('row read', `SELECT doc FROM ${this.t('entities')} WHERE world = ? AND kind = ? AND bucket = ? AND id_num = ? AND id = ?`, [this.world, k.kind, k.bucket, k.idNum, k.id]);
    const row = r.first();
    return row ? (JSON.parse(row.get('doc')) as T) : undefined;
  }

  private spec(name: QueryName): QuerySpec {
    const spec = (QUERIES as Record<string, QuerySpec>)[name];
    if (!spec) throw new Error(`unknown query ${String(name)}`);
    return spec;
  }

  /**
   * How a named query reads the entities table: a whole kind (and a query by a document's
   * field, whose rows select filters) walks its buckets, a request per bucket in order; a `due_by` reads the due_day index; any other reads the
   * storage-attached indexes, one request per status listed (SAI answers = but not IN; the
   * statuses are disjoint). A request is the condition of a read of `entities`.
   */
  private async plan(name: QueryName, arg: string | number | undefined): Promise<
    | { walk: Array<{ where: string; params: unknown[] }>; spec: QuerySpec }
    | { due: number; spec: QuerySpec }
    | { index: Array<{ where: string; params: unknown[] }>; spec: QuerySpec }> {
    const spec = this.spec(name);
    if (spec.by === undefined && spec.status === undefined) {
      const walk: Array<{ where: string; params: unknown[] }> = [];
      await this.all('bucket list', `SELECT bucket FROM ${this.t('entity_buckets')} WHERE world = ? AND kind = ?`, [this.world, spec.kind], (r) => {
        walk.push({ where: 'world = ? AND kind = ? AND bucket = ?', params: [this.world, spec.kind, num(r.get('bucket'))] });
      });
      return { walk, spec };
    }
    if (arg === undefined && spec.by !== undefined) throw new Error(`query ${String(name)} needs an argument (${spec.by})`);
    if (spec.by === 'due_by') return { due: Number(arg), spec };
    const by = spec.by !== undefined ? byIndex(this.world, spec, arg!) : undefined;
    const statuses: Array<string | undefined> = spec.status ? spec.status.map((s) => indexValue(this.world, spec.kind, s)) : [undefined];
    return {
      spec,
      index: statuses.map((status) => {
        const where: string[] = [];
        const params: unknown[] = [];
        if (by) { where.push(`${by.column} = ?`); params.push(by.value); }
        if (status !== undefined) { where.push('k_status = ?'); params.push(status); }
        return { where: where.join(' AND '), params };
      }),
    };
  }

  /** The rows of a named query in id order; `withDoc` false reads the keys only. */
  private async select(name: QueryName, arg: string | number | undefined, withDoc: boolean): Promise<RowWithKey[]> {
    const plan = await this.plan(name, arg);
    const { spec } = plan;
    // A query by a document's field reads the documents to compare that field (QuerySpec.field).
    const field = spec.field;
    if (field !== undefined && arg === undefined) throw new Error(`query ${String(name)} needs an argument (${field})`);
    const docColumn = withDoc || field ? ', doc' : '';
    const take = (into: RowWithKey[]) => (r: types.Row) => {
      if (field !== undefined) {
        const doc: string = r.get('doc');
        if ((JSON.parse(doc) as Record<string, unknown>)[field] !== arg) return;
        into.push({ idNum: num(r.get('id_num')), id: r.get('id'), doc: withDoc ? doc : undefined });
        return;
      }
      into.push({ idNum: num(r.get('id_num')), id: r.get('id'), doc: withDoc ? r.get('doc') : undefined });
    };
    if ('walk' in plan) {
      // Buckets in order, each already sorted by its clustering key.
      const parts = await mapLimited(plan.walk, FAN_OUT, async ({ where, params }) => {
        const rows: RowWithKey[] = [];
        await this.all('list', `SELECT id_num, id${docColumn} FROM ${this.t('entities')} WHERE ${where}`, params, take(rows));
        return rows;
      });
      return parts.flat();
    }
    const rows: RowWithKey[] = [];
    if ('due' in plan) {
      // The rows of the kind with a due day (k_due) up to the day (the due_day index): a busy
      // world's 80,000 adventurers for hire each have one (the end of their career), and few
      // are due. The day and statuses are checked here too.
      const statuses = spec.status?.map((s) => indexValue(this.world, spec.kind, s));
      const due = (where: string, params: unknown[]) => this.all('due rows', `SELECT id_num, id, k_status, due_day${docColumn} FROM ${this.t('entities')} WHERE ${where}`, params, (r) => {
        const day = r.get('due_day');
        if (day !== null && day <= plan.due && (!statuses || statuses.includes(r.get('k_status')))) take(rows)(r);
      });
      const kind = dueValue(this.world, spec.kind, plan.due);
      try {
        await due('k_due = ? AND due_day <= ?', [kind, plan.due]);
      } catch (e) {
        // The due_day index of a keyspace migrated moments ago may still be building (a
        // replica answers the read with a failure until it is), or be missing: every row with
        // a due day. A timeout or an overload is not read twice.
        if (!indexCannotAnswer(e)) throw e;
        rows.length = 0;
        await due('k_due = ?', [kind]);
      }
    } else {
      await mapLimited(plan.index, FAN_OUT, ({ where, params }) =>
        this.all('query', `SELECT id_num, id${docColumn} FROM ${this.t('entities')} WHERE ${where}`, params, take(rows)));
    }
    return rows.sort(compareKeys);
  }

  async list<T = Record<string, unknown>>(query: QueryName, arg?: string | number, pick?: (doc: any) => T): Promise<T[]> {
    return (await this.select(query, arg, true)).map((r) => (pick ? pick(JSON.parse(r.doc!)) : JSON.parse(r.doc!) as T));
  }

  async listJson(query: QueryName, arg?: string | number): Promise<string[]> {
    return (await this.select(query, arg, true)).map((r) => r.doc!);
  }

  /** The rows are read whole and sorted here (as list does); only the page's documents are decoded. */
  async listPage<T = Record<string, unknown>>(query: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number): Promise<T[]> {
    return (await this.listPageJson(query, arg, afterId, limit)).map((r) => JSON.parse(r.doc) as T);
  }

  async listPageJson(query: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number): Promise<readonly StoredRow[]> {
    const kept = this.pageCache?.get(query, arg, afterId, limit);
    if (kept) return kept;
    const generation = this.generation;
    const rows = await this.select(query, arg, true);
    const from = afterId === undefined ? rows : rows.filter((r) => compareIds(r.id, afterId) > 0);
    const page = from.slice(0, limit).map((r) => ({ id: r.id, doc: r.doc! }));
    // Kept only if no batch landed while it was read (its rows may be on the page or not), and
    // none failed lately (it may still be applied, and no commit would say so).
    return this.pageCache && this.generation === generation && !this.doubted() ? this.pageCache.keep(query, arg, afterId, limit, page) : page;
  }

  /** The rows read once and sorted, as for a page (Cassandra keeps no order across a kind's partitions). */
  async *scanJson(query: QueryName, arg: string | number | undefined, afterId: string | undefined): AsyncIterable<readonly StoredRow[]> {
    const rows = (await this.select(query, arg, true)).filter((r) => afterId === undefined || compareIds(r.id, afterId) > 0);
    if (rows.length > 0) yield rows.map((r) => ({ id: r.id, doc: r.doc! }));
  }

  /**
   * Read whole and sorted here, as listPage is: Cassandra keeps no order across the
   * partitions of a kind. Each document is parsed for its day alone.
   */
  async listNewestJson(query: QueryName, arg: string | number | undefined, offset: number, limit: number): Promise<readonly StoredRow[]> {
    const field = (QUERIES[query] as QuerySpec).newestBy;
    if (!field) throw new Error(`query ${query} is not listed newest first`);
    const rows = (await this.select(query, arg, true)).map((r) => ({ id: r.id, doc: r.doc!, day: Number(JSON.parse(r.doc!)[field]) }));
    return rows.sort(compareNewest).slice(offset, offset + limit).map((r) => ({ id: r.id, doc: r.doc }));
  }

  /** Whether a batch failed lately (FAILED_BATCH_DOUBT_MS): Cassandra may still apply it. */
  private doubted(): boolean {
    return this.doubtedUntil !== 0 && Date.now() < this.doubtedUntil;
  }

  async ids(query: QueryName, arg?: string | number): Promise<string[]> {
    return (await this.select(query, arg, false)).map((r) => r.id);
  }

  /** Counted by Cassandra (COUNT(*) per bucket or per index value), so no keys travel; due queries count what they read. */
  async count(query: QueryName, arg?: string | number): Promise<number> {
    const plan = await this.plan(query, arg);
    if ('due' in plan || plan.spec.field) return (await this.select(query, arg, false)).length;
    const count = async (cql: string, params: unknown[]) =>
      num((await this.exec('count', cql, params, { readTimeout: 60_000 })).first().get('n'));
    const counts = await mapLimited('walk' in plan ? plan.walk : plan.index, FAN_OUT, ({ where, params }) => count(`SELECT COUNT(*) AS n FROM ${this.t('entities')} WHERE ${where}`, params));
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Rows read a request at a time (buckets in order, or index values one after another), only until `max` are found. */
  async countAtMost(query: QueryName, max: number, arg?: string | number): Promise<number> {
    if (max <= 0) return 0;
    const plan = await this.plan(query, arg);
    if ('due' in plan || plan.spec.field) return Math.min(max, (await this.select(query, arg, false)).length);
    let found = 0;
    for (const { where, params } of 'walk' in plan ? plan.walk : plan.index) {
      if (found >= max) break;
      // One page of at most what is still wanted (the driver's pages are 5,000 rows otherwise).
      found += (await this.exec('count at most', `SELECT id FROM ${this.t('entities')} WHERE ${where} LIMIT ?`, [...params, max - found], { fetchSize: max - found })).rowLength;
    }
    return Math.min(found, max);
  }

  // ------------------------------------------------------------------------------------------
  // History

  /** The buckets of an access path that hold events, newest first, from `maxBucket` down; read a few at a time. */
  private async *buckets(path: HistoryPath, maxBucket?: number): AsyncGenerator<number> {
    const where = maxBucket === undefined ? '' : ' AND bucket <= ?';
    const params: unknown[] = [this.world, path.dimension, path.value];
    if (maxBucket !== undefined) params.push(maxBucket);
    let pageState: string | undefined;
    do {
      const r = await this.exec('history buckets', `SELECT bucket FROM ${this.t('history_buckets')} WHERE world = ? AND dimension = ? AND value = ?${where}`, params, { fetchSize: 32, pageState, autoPage: false });
      for (const row of r.rows) yield num(row.get('bucket'));
      pageState = r.pageState ?? undefined;
    } while (pageState);
  }

  /** The table and WHERE clause of a path's partition (and, for a filter, its slice). */
  private partitionWhere(path: HistoryPath, bucket: number): { table: string; where: string; params: unknown[] } {
    return isFilter(path)
      ? { table: 'history_filters', where: 'world = ? AND bucket = ? AND dimension = ? AND value = ?', params: [this.world, bucket, path.dimension, path.value] }
      : { table: 'history', where: 'world = ? AND bucket = ?', params: [this.world, bucket] };
  }

  async history(q: HistoryQuery): Promise<HistoryEvent[]> {
    const limit = Math.max(0, Math.trunc(q.limit));
    if (limit === 0) return [];
    // The most selective access path the filters allow; the other filters are checked here.
    const path = q.organization_id !== undefined ? byOrganization(q.organization_id)
      : q.agent_id !== undefined ? byAgent(q.agent_id)
        : q.category !== undefined ? byCategory(q.category) : allHistory;
    const keep = (e: { category: string; agent_id: number | null; organization_ids: number[] }) => (q.category === undefined || e.category === q.category)
      && (q.agent_id === undefined || e.agent_id === q.agent_id)
      && (q.organization_id === undefined || e.organization_ids.includes(q.organization_id));
    const exact = [q.organization_id, q.agent_id, q.category].filter((f) => f !== undefined).length <= 1;
    const before = q.before_id;
    if (before !== undefined && before <= 1) return [];
    const out: HistoryEvent[] = [];
    const filter = isFilter(path);
    const columns = filter ? FILTER_COLUMNS : HISTORY_COLUMNS;
    for await (const bucket of this.buckets(path, before === undefined ? undefined : pathBucket(this.layout, path, before - 1))) {
      const { table, where, params } = this.partitionWhere(path, bucket);
      let cql = `SELECT ${columns} FROM ${this.t(table)} WHERE ${where}`;
      if (before !== undefined) { cql += ' AND id < ?'; params.push(before); }
      let pageState: string | undefined;
      do {
        // An exact path needs only what is missing; a filtered one reads a page at a time.
        const want = limit - out.length;
        const r = await this.exec('history', `${cql} LIMIT ?`, [...params, exact ? want : 2 ** 31 - 1],
          { fetchSize: exact ? want : Math.max(PAGE, want), pageState, autoPage: false });
        if (filter) {
          // Slim rows: the other filters first, then the events of those kept.
          const ids = r.rows.map(toFilterRow).filter(keep).slice(0, want).map((f) => f.id);
          out.push(...await this.eventsById(ids));
        } else {
          for (const row of r.rows) {
            const e = toHistoryEvent(row);
            if (keep(e)) out.push(e);
            if (out.length >= limit) break;
          }
        }
        if (out.length >= limit) return out;
        pageState = exact ? undefined : r.pageState ?? undefined;
      } while (pageState);
    }
    return out;
  }

  /** The events of these ids (newest first, as given), read from the whole history a bucket at a time. */
  private async eventsById(ids: number[]): Promise<HistoryEvent[]> {
    if (ids.length === 0) return [];
    const byBucket = new Map<number, number[]>();
    for (const id of ids) {
      const b = historyBucket(this.layout, id);
      const list = byBucket.get(b);
      if (list) list.push(id); else byBucket.set(b, [id]);
    }
    const found = new Map<number, HistoryEvent>();
    await mapLimited([...byBucket], FAN_OUT, async ([bucket, list]) => {
      for (let i = 0; i < list.length; i += 100) {
        const chunk = list.slice(i, i + 100);
        const r = await this.exec('history events', `SELECT ${HISTORY_COLUMNS} FROM ${this.t('history')} WHERE world = ? AND bucket = ? AND id IN ?`, [this.world, bucket, chunk], { fetchSize: chunk.length });
        for (const row of r.rows) { const e = toHistoryEvent(row); found.set(e.id, e); }
      }
    });
    // An id without its event cannot happen: both are written by one logged batch.
    return ids.map((id) => found.get(id)).filter((e): e is HistoryEvent => e !== undefined);
  }

  async historyCountOfAgent(agentId: number): Promise<number> {
    return this.countEvents(byAgent(agentId));
  }

  /**
   * The events of an access path, counted a bucket at a time. With `older`, the count of a
   * bucket two or more behind the newest is kept there and reused for historyCountReuseMs.
   */
  private async countEvents(path: HistoryPath, older?: Map<number, { n: number; at: number }>): Promise<number> {
    const buckets: number[] = [];
    for await (const b of this.buckets(path)) buckets.push(b);
    const newest = buckets.length > 0 ? Math.max(...buckets) : 0;
    const now = Date.now();
    const counts = await mapLimited(buckets, FAN_OUT, async (bucket) => {
      const known = older?.get(bucket);
      if (known !== undefined && now - known.at < this.historyCountReuseMs) return known.n;
      const { table, where, params } = this.partitionWhere(path, bucket);
      const r = await this.exec('history count', `SELECT COUNT(*) AS n FROM ${this.t(table)} WHERE ${where}`, params);
      const n = num(r.first().get('n'));
      if (older && bucket <= newest - 2) older.set(bucket, { n, at: now });
      return n;
    });
    return counts.reduce((a, b) => a + b, 0);
  }

  async historySince(afterId: number, limit: number): Promise<HistoryEvent[]> {
    limit = Math.max(0, Math.trunc(limit));
    const out: HistoryEvent[] = [];
    if (limit === 0) return out;
    const last = await this.lastHistoryId();
    // The whole history's buckets, oldest first from the bucket of afterId + 1 (an absent bucket is simply empty).
    for (let bucket = historyBucket(this.layout, afterId + 1); bucket <= historyBucket(this.layout, last) && out.length < limit; bucket++) {
      const r = await this.exec('history since', `SELECT ${HISTORY_COLUMNS} FROM ${this.t('history')} WHERE world = ? AND bucket = ? AND id > ? ORDER BY id ASC LIMIT ?`,
        [this.world, bucket, afterId, limit - out.length]);
      for (const row of r.rows) out.push(toHistoryEvent(row));
    }
    return out;
  }

  async lastHistoryId(): Promise<number> {
    for await (const bucket of this.buckets(allHistory)) {
      const r = await this.exec('last history id', `SELECT id FROM ${this.t('history')} WHERE world = ? AND bucket = ? LIMIT 1`, [this.world, bucket]);
      const row = r.first();
      if (row) return num(row.get('id'));
    }
    return 0;
  }

  /**
   * Ids are reserved before their batch is written, so a batch that fails or times out
   * leaves its ids unused: the events are counted, a bucket at a time. A bucket two or more
   * behind the newest rarely changes, so its count is reused for a minute
   * (historyCountReuseMs); an event written that late into it (a batch applied long after
   * its ids were taken, or a second process on the same world writing from an old block)
   * is counted once that minute is over.
   */
  async historyCount(): Promise<number> {
    return this.countEvents(allHistory, this.olderBucketCounts);
  }

  async historyEvent(id: number): Promise<HistoryEvent | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const r = await this.exec('history event', `SELECT ${HISTORY_COLUMNS} FROM ${this.t('history')} WHERE world = ? AND bucket = ? AND id = ?`, [this.world, historyBucket(this.layout, id), id]);
    const row = r.first();
    return row ? toHistoryEvent(row) : undefined;
  }

  /**
   * The window's events nearest to nearId. The day marks bound the ids of the window's days;
   * the whole history is read from nearId down and from nearId up within those bounds, a page
   * at a time, keeping the events of the window's days, until `limit` on each side.
   */
  async historyBetweenDays(fromDay: number, toDay: number, limit: number, nearId: number): Promise<HistoryEvent[]> {
    limit = Math.max(0, Math.trunc(limit));
    if (limit === 0 || toDay < fromDay) return [];
    if (toDay - fromDay > 3660) throw new Error(`historyBetweenDays: a window of ${toDay - fromDay + 1} days is too wide`);
    const days = Array.from({ length: toDay - fromDay + 1 }, (_, i) => fromDay + i);
    const bounds = await mapLimited(days, FAN_OUT, async (day) => {
      const [first, last] = await Promise.all(['ASC', 'DESC'].map((order) => this.exec('history days',
        `SELECT id FROM ${this.t('history_days')} WHERE world = ? AND day = ? ORDER BY id ${order} LIMIT 1`, [this.world, day])));
      return first.first() ? [num(first.first().get('id')), num(last.first()!.get('id'))] : null;
    });
    const known = bounds.filter((b): b is number[] => b !== null);
    if (known.length === 0) return [];
    const lo = Math.min(...known.map((b) => b[0]));
    const hi = Math.max(...known.map((b) => b[1]));
    const inWindow = (e: HistoryEvent) => e.day >= fromDay && e.day <= toDay;
    const side = async (below: boolean): Promise<HistoryEvent[]> => {
      // Below: ids from min(nearId, hi) down to lo, newest first; above: from max(nearId + 1, lo) up to hi.
      const from = below ? Math.min(nearId, hi) : Math.max(nearId + 1, lo);
      const to = below ? lo : hi;
      if (below ? from < to : from > to) return [];
      const found: HistoryEvent[] = [];
      const size = this.layout.historyBucketSize;
      const first = historyBucket(this.layout, from);
      const last = historyBucket(this.layout, to);
      for (let bucket = first; below ? bucket >= last : bucket <= last; bucket += below ? -1 : 1) {
        const [a, b] = below ? [Math.max(to, bucket * size), Math.min(from, (bucket + 1) * size - 1)] : [Math.max(from, bucket * size), Math.min(to, (bucket + 1) * size - 1)];
        await this.all('history window',
          `SELECT ${HISTORY_COLUMNS} FROM ${this.t('history')} WHERE world = ? AND bucket = ? AND id >= ? AND id <= ? ORDER BY id ${below ? 'DESC' : 'ASC'}`,
          [this.world, bucket, a, b], (row) => {
            if (found.length >= limit) return;
            const e = toHistoryEvent(row);
            if (inWindow(e)) found.push(e);
          }, Math.min(PAGE, limit + 64), () => found.length >= limit);
        if (found.length >= limit) break;
      }
      return found;
    };
    const [below, above] = await Promise.all([side(true), side(false)]);
    return [...below, ...above]
      .sort((a, b) => Math.abs(a.id - nearId) - Math.abs(b.id - nearId) || a.id - b.id)
      .slice(0, limit)
      .sort((a, b) => a.id - b.id);
  }

  async agentForKeyHash(keyHash: string): Promise<number | undefined> {
    const r = await this.exec('credential read', `SELECT agent_id FROM ${this.t('credentials')} WHERE world = ? AND key_hash = ?`, [this.world, keyHash]);
    const row = r.first();
    return row ? num(row.get('agent_id')) : undefined;
  }

  // ------------------------------------------------------------------------------------------
  // Ids and settings

  private sequence(name: string): IdSource {
    if (name === HISTORY_SEQUENCE) throw new Error(`sequence name ${name} is reserved`);
    let s = this.sequences.get(name);
    if (!s) {
      s = this.exactIds ? new ExactSequence(this.reserver, name) : new Sequence(this.reserver, name, this.idBlock, false);
      this.sequences.set(name, s);
    }
    return s;
  }

  async nextId(sequence: string): Promise<number> {
    if (this.closing) throw new Error('store is closed');
    try {
      return await this.sequence(sequence).next();
    } catch (e) {
      throw storeError(e, 'id block');
    }
  }

  async reserveIdsUpTo(sequence: string, value: number): Promise<void> {
    const s = this.sequence(sequence);
    s.raiseFloor(value);
    await this.reserver.reserveUpTo(sequence, value);
  }

  async setting(name: string): Promise<string | undefined> {
    const r = await this.exec('setting read', `SELECT value FROM ${this.t('settings')} WHERE world = ? AND name = ?`, [this.world, name]);
    const row = r.first();
    return row ? (row.get('value') as string) : undefined;
  }

  async settings(names: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (names.length === 0) return found;
    const r = await this.exec('settings read', `SELECT name, value FROM ${this.t('settings')} WHERE world = ? AND name IN ?`, [this.world, [...names]]);
    for (const row of r.rows) found.set(row.get('name') as string, row.get('value') as string);
    return found;
  }

  async setSetting(name: string, value: string): Promise<void> {
    try {
      await this.track(this.exec('setting write', `INSERT INTO ${this.t('settings')} (world, name, value) VALUES (?, ?, ?)`, [this.world, name, value], { consistency: this.write }));
    } finally {
      this.generation++;
    }
  }

  async ping(): Promise<void> {
    await this.exec('ping', 'SELECT release_version FROM system.local', []);
  }

  /** Waits for the writes under way, gives back the ids reserved but not handed out, then closes the connections. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    await Promise.all([this.historyIds, ...this.sequences.values()].map((s) => s.release()));
    this.closed = true;
    await this.client.shutdown();
  }
}

/** Reads the keyspace's layout, fixing it with the given one when the keyspace is new. */
async function loadLayout(client: Client, keyspace: string, wanted: Layout, serial: number, write: number): Promise<Layout> {
  const r = await client.execute(`INSERT INTO ${keyspace}.store_meta (name, value) VALUES ('layout', ?) IF NOT EXISTS`, [JSON.stringify(wanted)],
    { prepare: true, serialConsistency: serial, consistency: write });
  if (r.wasApplied()) return wanted;
  const stored = JSON.parse(r.first().get('value')) as Partial<Layout>;
  return { ...DEFAULT_LAYOUT, ...stored };
}

/**
 * Connects, creates or migrates the keyspace, and returns the store. Rejects with
 * StoreUnavailableError when Cassandra cannot be reached.
 */
export async function openCassandraStore(opts: CassandraStoreOptions): Promise<CassandraStore> {
  const keyspace = validKeyspace(opts.keyspace);
  validWorld(opts.world ?? DEFAULT_WORLD);
  const write = consistencyOf(opts.writeConsistency ?? opts.consistency ?? 'QUORUM');
  const serial = consistencyOf(opts.serialConsistency ?? 'SERIAL');
  const client = new Client({
    contactPoints: opts.contactPoints,
    localDataCenter: opts.localDataCenter,
    queryOptions: { consistency: consistencyOf(opts.readConsistency ?? opts.consistency ?? 'QUORUM'), prepare: true },
    socketOptions: { connectTimeout: opts.connectTimeoutMs ?? 5000, readTimeout: opts.requestTimeoutMs ?? 12_000 },
    protocolOptions: { maxSchemaAgreementWaitSeconds: 30 },
    pooling: { coreConnectionsPerHost: { [types.distance.local]: opts.connectionsPerHost ?? 2, [types.distance.remote]: 1, [types.distance.ignored]: 0 } },
  });
  try {
    await client.connect();
  } catch (e) {
    await client.shutdown().catch(() => undefined);
    throw new StoreUnavailableError(`Cassandra at ${opts.contactPoints.join(', ')} cannot be reached: ${(e as Error)?.message ?? e}`, e);
  }
  try {
    await migrate(client, { keyspace, replication: opts.replication ?? { class: 'SimpleStrategy', replication_factor: 1 }, log: opts.log });
    const layout = await loadLayout(client, keyspace, { ...DEFAULT_LAYOUT, ...opts.layout }, serial, write)
      .catch((e) => { throw storeError(e, 'layout'); });
    return new CassandraStore(client, opts, layout);
  } catch (e) {
    await client.shutdown().catch(() => undefined);
    throw e;
  }
}
