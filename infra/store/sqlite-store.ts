// The embedded store: one SQLite file in WORLD_DATA_DIR, in WAL mode with
// synchronous=FULL, so a committed transaction survives a crash. Persists from every
// actor go to a writer thread (sqlite-writer.ts) that commits them in batches: while one
// batch is being made durable, the next one gathers (group commit), so one fsync serves
// many actors and never blocks them. Each persist's promise resolves only once its
// transaction is on disk. Reads use this thread's own connection: the port is
// asynchronous, and here each read is a synchronous better-sqlite3 call on a statement
// prepared once (one per named query and method).
import Database from 'better-sqlite3';
import fs from 'fs';
import path from 'path';
import { Worker } from 'worker_threads';
import type { BatchRequest, BatchResult, Numbered, RowDeletion, RowRecord, WriteRecord } from './sqlite-writer';
import { IDEMPOTENCY_SCHEMA, SqliteIdempotency } from './sqlite-idempotency';
import { OrderedWrites } from './ordered-writes';
import { NO_METRICS, secondsSince, type Metrics } from '../../actors/ports/metrics';
import { RowCache } from './row-cache';
import { PageCache } from './page-cache';
import {
  QUERIES, StoreUnavailableError, type EventStream, type HistoryEvent, type HistoryQuery, type PersistedEvent, type PersistedSnapshot,
  type IdempotencyStore, type QueryName, type QuerySpec, type Store, type StoreEngine, type Writes,
  type Credential, type HistoryEntry, type ProjectionRow, type StoredRow,
} from '../../actors/ports/store';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  persistence_key TEXT NOT NULL, sequence_nr INTEGER NOT NULL, created_at INTEGER NOT NULL,
  data TEXT NOT NULL, tags TEXT NOT NULL, is_deleted INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (persistence_key, sequence_nr)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
  persistence_key TEXT PRIMARY KEY, sequence_nr INTEGER NOT NULL, created_at INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entities (
  kind TEXT NOT NULL, id TEXT NOT NULL, status TEXT, location_id TEXT, organization_id INTEGER,
  agent_id INTEGER, due_day INTEGER, doc TEXT NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID;
-- Each index ends in the listings' order (ID_ORDER), so that a page of a long listing
-- (the first 20 of 100,000 adventurers for hire) is read in order instead of sorted; a
-- listing of several statuses walks the kind in order (entities_ordered), filtering.
DROP INDEX IF EXISTS entities_status;
DROP INDEX IF EXISTS entities_location;
DROP INDEX IF EXISTS entities_organization;
DROP INDEX IF EXISTS entities_agent;
CREATE INDEX IF NOT EXISTS entities_ordered ON entities (kind, CAST(id AS INTEGER), id);
CREATE INDEX IF NOT EXISTS entities_status_ordered ON entities (kind, status, CAST(id AS INTEGER), id);
CREATE INDEX IF NOT EXISTS entities_location_ordered ON entities (kind, location_id, CAST(id AS INTEGER), id);
CREATE INDEX IF NOT EXISTS entities_organization_ordered ON entities (kind, organization_id, CAST(id AS INTEGER), id);
CREATE INDEX IF NOT EXISTS entities_agent_ordered ON entities (kind, agent_id, CAST(id AS INTEGER), id);
CREATE INDEX IF NOT EXISTS entities_due ON entities (kind, due_day) WHERE due_day IS NOT NULL;
CREATE TABLE IF NOT EXISTS credentials (key_hash TEXT PRIMARY KEY, agent_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS history (
  id INTEGER PRIMARY KEY AUTOINCREMENT, day INTEGER NOT NULL, category TEXT NOT NULL,
  agent_id INTEGER, organization_ids TEXT NOT NULL, summary TEXT NOT NULL, data TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS history_category ON history (category, id);
CREATE INDEX IF NOT EXISTS history_agent ON history (agent_id, id);
CREATE INDEX IF NOT EXISTS history_day ON history (day, id);
CREATE TABLE IF NOT EXISTS history_organizations (
  organization_id INTEGER NOT NULL, history_id INTEGER NOT NULL, PRIMARY KEY (organization_id, history_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sequences (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

export const ID_BLOCK = 64;
/**
 * A sequence whose block lasted less than ID_BLOCK_FAST_MS reserves twice as many ids the
 * next time, up to ID_BLOCK_MAX: a busy sequence (a message a request) writes to
 * `sequences` a few times a second at most, rather than every 64 ids. Each reservation is
 * a durable write on the main thread, which waits for the writer's commit in progress.
 */
export const ID_BLOCK_MAX = 4096;
const ID_BLOCK_FAST_MS = 1_000;

/** A write as it is queued: what the actor persisted, as objects. */
interface EventItem extends Numbered {
  kind: 'event';
  key: string;
  sequenceNumber: number;
  createdAt: number;
  data: unknown;
  tags: string[];
  isDeleted: boolean;
  rows: ProjectionRow[];
  history: HistoryEntry[];
  credentials: Credential[];
}

interface SnapshotItem extends Numbered { kind: 'snapshot'; key: string; sequenceNumber: number; createdAt: number; data: unknown }

type WriteItem = EventItem | SnapshotItem;

/** A document as JSON text; throws for what JSON cannot hold (a BigInt, a cycle, nothing at all). */
function json(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error('it holds nothing JSON can write');
  return text;
}

/** What the writer thread is sent for a queued write: its documents as JSON (throws for what JSON cannot hold). */
function recordOf(item: WriteItem): WriteRecord {
  if (item.kind === 'snapshot') return { kind: 'snapshot', seq: item.seq, key: item.key, sequenceNumber: item.sequenceNumber, createdAt: item.createdAt, data: json(item.data) };
  return {
    kind: 'event', seq: item.seq, after: item.after, key: item.key, sequenceNumber: item.sequenceNumber, createdAt: item.createdAt,
    data: json(item.data), tags: json(item.tags), isDeleted: item.isDeleted,
    rows: item.rows.map((row) => (row.deleted
      ? { kind: row.kind, id: String(row.id), deleted: true as const }
      : {
        kind: row.kind, id: String(row.id), status: row.status ?? null, location_id: row.location_id ?? null,
        organization_id: row.organization_id ?? null, agent_id: row.agent_id ?? null, due_day: row.due_day ?? null, doc: json(row.doc),
      })),
    history: item.history.map((h) => ({ day: h.day, category: h.category, agent_id: h.agent_id, organization_ids: h.organization_ids, summary: h.summary, data: json(h.data ?? {}) })),
    credentials: item.credentials,
  };
}

/**
 * What the main thread keeps of a queued write: how it is ordered, refused and settled, and
 * its record, made when it was queued. The objects the actor persisted are not kept: made
 * into JSON at once, they die young, instead of living (and being copied by the collector)
 * for the one or two commits a write waits.
 */
interface QueuedWrite extends Numbered { kind: WriteItem['kind']; key: string; sequenceNumber: number }

interface PendingWrite {
  item: QueuedWrite;
  /** Until it leaves for the writer. */
  record: WriteRecord | null;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** A row of a committed batch as the caches need it: the document only when it was kept in memory as the batch left. */
type CommittedRow = Omit<RowRecord, 'doc'> & { doc?: string } | RowDeletion;
interface CommittedRecord { kind: WriteRecord['kind']; rows: CommittedRow[]; credentials: Credential[] }

interface HistoryRow {
  id: number; day: number; category: string; agent_id: number | null;
  organization_ids: string; summary: string; data: string; created_at: string;
}

function toHistoryEvent(r: HistoryRow): HistoryEvent {
  return {
    id: r.id, day: r.day, category: r.category, agent_id: r.agent_id,
    organization_ids: JSON.parse(r.organization_ids), summary: r.summary,
    data: JSON.parse(r.data), created_at: r.created_at,
  };
}

/** The statements of one named query: its rows, their ids, their number. */
interface NamedQuery {
  list: Database.Statement;
  first: Database.Statement;
  after: Database.Statement;
  ids: Database.Statement;
  count: Database.Statement;
  /** Null when the count is read from entity_counts (then `count` is read). */
  countAtMost: Database.Statement | null;
  /** Newest first (QuerySpec.newestBy), with an offset; null for a query that has no such order. */
  newest: Database.Statement | null;
  params: (arg: string | number | undefined) => unknown[];
}

/** The expression of a document's day field, written the same way in its index and its queries (so the planner matches them). */
const dayOf = (field: string) => `json_extract(doc, '$.${field}')`;

/** The name of the newest index a query reads: its kind's, or its kind's by its `by` column. */
const newestIndexName = (spec: QuerySpec) => `entities_${spec.kind}_newest${spec.by ? `_by_${spec.by}` : ''}`;

/**
 * The indexes of the queries that are listed newest first (QuerySpec.newestBy): partial,
 * over their kind's rows alone, led by the query's `by` column if it has one, then in the
 * order compareNewest reverses, so a page of the newest is read from its end. Their names
 * and fields come from QUERIES, never from a request.
 */
function newestIndexes(): string {
  const made = new Map<string, string>();
  for (const spec of Object.values(QUERIES) as QuerySpec[]) {
    if (!spec.newestBy || spec.by === 'due_by') continue;
    const columns = [...(spec.by ? [spec.by] : []), dayOf(spec.newestBy), 'CAST(id AS INTEGER)', 'id'];
    made.set(newestIndexName(spec), `CREATE INDEX IF NOT EXISTS ${newestIndexName(spec)} ON entities (${columns.join(', ')}) WHERE kind = '${spec.kind}';`);
  }
  return [...made.values()].join('\n');
}

/** The expression of a document's field, written the same way in its index and its queries. */
const fieldOf = (field: string) => `json_extract(doc, '$.${field}')`;

/**
 * The partial index of a query (over its kind's rows alone) that the general indexes do not
 * serve well, and that its statements name (INDEXED BY: without statistics the planner would
 * rather walk the kind's, a place's or an organization's rows in id order and test each):
 * - a query by a document's field (QuerySpec.field): the field, then the listings' order;
 * - a query by a column in statuses (an organization's live contracts, a place's open
 *   quests): the column, the status, then the listings' order, so that the live rows are
 *   found without passing over the ended ones, which grow for ever (a list of statuses
 *   reads each and sorts what it found).
 * Made from every row already stored when first created. Names and fields come from QUERIES.
 */
function queryIndex(spec: QuerySpec): { name: string; columns: string[] } | null {
  if (spec.field) return { name: `entities_${spec.kind}_by_${spec.field}`, columns: [fieldOf(spec.field), 'CAST(id AS INTEGER)', 'id'] };
  if (spec.status && (spec.by === 'location_id' || spec.by === 'organization_id' || spec.by === 'agent_id')) {
    return { name: `entities_${spec.kind}_by_${spec.by}_status`, columns: [spec.by, 'status', 'CAST(id AS INTEGER)', 'id'] };
  }
  return null;
}

function queryIndexes(): string {
  const made = new Map<string, string>();
  for (const spec of Object.values(QUERIES) as QuerySpec[]) {
    const index = queryIndex(spec);
    if (index) made.set(index.name, `CREATE INDEX IF NOT EXISTS ${index.name} ON entities (${index.columns.join(', ')}) WHERE kind = '${spec.kind}';`);
  }
  return [...made.values()].join('\n');
}

/**
 * How many rows of each kind are in each status (a row without a status counts under ''),
 * kept by the writer thread in the transaction of every write of a row (sqlite-writer.ts),
 * so that a count of a kind, or of a kind in statuses, reads a row or a few rather than
 * walking the kind: the world's summary counts every agent, organization and adventurer, and
 * is read again after every commit. Made once, from the rows already stored, before the
 * writer starts.
 */
const ENTITY_COUNTS = `
CREATE TABLE entity_counts (kind TEXT NOT NULL, status TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, status)) WITHOUT ROWID;
INSERT INTO entity_counts (kind, status, n) SELECT kind, COALESCE(status, ''), COUNT(*) FROM entities GROUP BY 1, 2;`;

/**
 * The count of a named query from entity_counts, for a query by kind and statuses alone: its
 * clauses (namedQuerySql's `where`) name only the kind and the status, which that table holds
 * too, so the statement takes the query's own parameters.
 */
function countsSql(spec: QuerySpec, where: string): string | null {
  if (spec.field || (spec.by !== undefined && spec.by !== 'status')) return null;
  return `SELECT COALESCE(SUM(n), 0) AS n FROM entity_counts WHERE ${where}`;
}

/**
 * The clauses of a named query over the entities table; its `by` column (if any) is the
 * first parameter. The kind is written out, not bound: beside the partial indexes' `kind =
 * '...'`, a bound kind makes SQLite plan the statement again every time it is run (see BOUND).
 */
function namedQuerySql(name: string, spec: QuerySpec): { where: string; params: NamedQuery['params'] } {
  if (!/^[a-z_]+$/.test(spec.kind)) throw new Error(`query ${name}: a kind of letters and underscores, not ${JSON.stringify(spec.kind)}`);
  const clauses = [`kind = '${spec.kind}'`];
  if (spec.by === 'due_by') clauses.push('due_day <= ?');
  else if (spec.by) clauses.push(`${spec.by} = ?`);
  else if (spec.field) clauses.push(`${fieldOf(spec.field)} = ?`);
  const status = spec.status ?? [];
  if (status.length) clauses.push(`status IN (${status.map(() => '?').join(', ')})`);
  const params = (arg: string | number | undefined): unknown[] => {
    const by = spec.by ?? spec.field;
    if (!by) return [...status];
    if (arg === undefined || arg === null) throw new Error(`query ${name} needs its ${by} argument`);
    return [arg, ...status];
  };
  return { where: clauses.join(' AND '), params };
}

/**
 * A bound LIMIT or OFFSET. Bare (`LIMIT ?`), SQLite plans with the value bound, so the
 * statement is prepared again each time it runs with a value (better-sqlite3 binds on every
 * run): about 7 µs a run, several times what reading a short page costs. Cast, the value is
 * read only as the statement runs.
 */
const BOUND = 'CAST(? AS INTEGER)';

/** Rows a scan (ReadModel.scanJson) reads first, and at most at a time as it goes on. */
const SCAN_CHUNK = 256;
const SCAN_CHUNK_MAX = 16_384;

// Integer ids sort numerically, string ids (locations, markets, chronicle messages) by name.
const ID_ORDER = 'ORDER BY CAST(id AS INTEGER), id';

export class SqliteStore implements Store {
  readonly engine: StoreEngine;
  readonly idempotency: IdempotencyStore;
  private readonly db: Database.Database;
  private queue: PendingWrite[] = [];
  private flushScheduled = false;
  private inFlight: { batch: number; items: PendingWrite[]; records: CommittedRecord[]; started: number } | null = null;
  private batchCount = 0;
  private itemCount = 0;
  /** Seconds from sending batches to the writer to their results, summed. */
  private commitSeconds = 0;
  private readonly writer: Worker;
  private drained: Array<() => void> = [];
  /** Changes with every commit (Store.readGeneration). */
  private generation = 0;
  /** Rows and key hashes as read, until a commit changes them (row-cache.ts). */
  private readonly rowCache = new RowCache();
  private readonly credentialCache = new RowCache();
  private readonly pageCache = new PageCache();
  /** Numbers the writes, remembers which failed, and who waits for an actor's writes to settle. */
  private readonly ordered = new OrderedWrites();
  /** Ids handed out from blocks reserved durably in advance (hi-lo): one disk write per ID_BLOCK ids. */
  private readonly idBlocks = new Map<string, { next: number; last: number; size: number; reservedAt: number }>();
  private closed = false;
  /** Why the writer thread is gone, once it is. */
  private lostWriter: string | null = null;
  private readonly stmts;
  private readonly named = new Map<string, NamedQuery>();
  private readonly historyStmts = new Map<string, Database.Statement>();

  private readonly metrics: Metrics;

  constructor(dataDir: string, opts: { metrics?: Metrics } = {}) {
    this.metrics = opts.metrics ?? NO_METRICS;
    fs.mkdirSync(dataDir, { recursive: true });
    this.db = new Database(path.join(dataDir, 'world.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    // What this connection deletes or replaces (a plain operator key of an older version replaced by its hash) is overwritten on disk.
    this.db.pragma('secure_delete = ON');
    this.db.exec(SCHEMA);
    this.db.exec(newestIndexes());
    this.db.exec(queryIndexes());
    this.db.exec(IDEMPOTENCY_SCHEMA);
    if (!this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entity_counts'").get()) {
      this.db.transaction(() => this.db.exec(ENTITY_COUNTS)).immediate();
    }
    this.idempotency = new SqliteIdempotency(this.db);
    // History written before history_organizations existed is indexed once.
    this.db.exec(`INSERT OR IGNORE INTO history_organizations (organization_id, history_id)
      SELECT j.value, h.id FROM history h, json_each(h.organization_ids) j
      WHERE h.id > (SELECT COALESCE(MAX(history_id), 0) FROM history_organizations)`);
    const db = this.db;
    this.stmts = {
      events: db.prepare(`SELECT * FROM journal WHERE persistence_key = ? AND sequence_nr > ? ORDER BY sequence_nr LIMIT ${BOUND}`),
      snapshot: db.prepare('SELECT * FROM snapshots WHERE persistence_key = ?'),
      row: db.prepare('SELECT doc FROM entities WHERE kind = ? AND id = ?'),
      historyEvent: db.prepare('SELECT * FROM history WHERE id = ?'),
      historySince: db.prepare(`SELECT * FROM history WHERE id > ? ORDER BY id LIMIT ${BOUND}`),
      // The nearest events first (the earlier of two as near), then in id order.
      historyDays: db.prepare(`SELECT * FROM (SELECT * FROM history WHERE day BETWEEN ? AND ? ORDER BY ABS(id - ?), id LIMIT ${BOUND}) ORDER BY id`),
      historyOfAgent: db.prepare('SELECT COUNT(*) AS n FROM history WHERE agent_id = ?'),
      lastHistoryId: db.prepare('SELECT COALESCE(MAX(id), 0) AS n FROM history'),
      credential: db.prepare('SELECT agent_id FROM credentials WHERE key_hash = ?'),
      nextId: db.prepare('INSERT INTO sequences (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + ? RETURNING value'),
      // A block's unused ids, given back on a clean close (unless the sequence moved on since).
      releaseIds: db.prepare('UPDATE sequences SET value = ? WHERE name = ? AND value = ?'),
      reserveIds: db.prepare('INSERT INTO sequences (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = MAX(value, excluded.value)'),
      setting: db.prepare('SELECT value FROM settings WHERE name = ?'),
      putSetting: db.prepare('INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)'),
    };
    this.writer = new Worker(path.join(__dirname, 'sqlite-writer.js'), { workerData: { file: path.join(dataDir, 'world.sqlite') } });
    this.writer.on('message', (m: BatchResult | 'closed') => { if (m !== 'closed') this.settle(m); });
    // A writer thread that dies takes no write with it: what waited for it fails, and so does what comes after.
    this.writer.on('error', (e) => this.writerLost(`the store's writer thread failed: ${e?.message ?? e}`));
    this.writer.on('exit', (code) => {
      // Whatever it was committing has landed or not by now, and nothing more will: reads compute afresh once more.
      this.generation++;
      if (!this.closed) this.writerLost(`the store's writer thread stopped (exit code ${code})`);
    });
    this.writer.unref();
    this.engine = this.makeEngine();
  }

  private makeEngine(): StoreEngine {
    const store = this;
    return {
      events(persistenceKey: string, offset = 0, limit = Number.MAX_SAFE_INTEGER): EventStream {
        const rows = store.stmts.events.all(persistenceKey, offset, limit) as Array<{
          persistence_key: string; sequence_nr: number; created_at: number; data: string; tags: string; is_deleted: number;
        }>;
        // nact reduces over the stream; an array already is one (read at once, as it always was).
        return rows.map((r): PersistedEvent => ({
          key: r.persistence_key, sequenceNumber: r.sequence_nr, createdAt: r.created_at,
          data: JSON.parse(r.data), tags: JSON.parse(r.tags), isDeleted: r.is_deleted === 1,
        }));
      },
      async latestSnapshot(persistenceKey: string) {
        // An actor recovering (nact reads its snapshot first, then its events) sees every write
        // its previous life queued: those still on their way are waited for. Its new life
        // starts from what is on disk, so a failure of the previous one no longer refuses its writes.
        await store.ordered.settledFor(persistenceKey);
        store.ordered.recovering(persistenceKey);
        const r = store.stmts.snapshot.get(persistenceKey) as
          { persistence_key: string; sequence_nr: number; created_at: number; data: string } | undefined;
        return r ? { key: r.persistence_key, sequenceNumber: r.sequence_nr, createdAt: r.created_at, data: JSON.parse(r.data) } : undefined;
      },
      takeSnapshot(s: PersistedSnapshot) {
        return store.enqueue({ kind: 'snapshot', seq: 0, key: s.key, sequenceNumber: s.sequenceNumber, createdAt: s.createdAt, data: s.data });
      },
      persist(event: PersistedEvent, writes: Writes = {}) {
        return store.enqueue({
          kind: 'event', seq: 0, after: writes.after?.length ? writes.after : undefined, key: event.key, sequenceNumber: event.sequenceNumber, createdAt: event.createdAt, data: event.data,
          tags: event.tags ?? [], isDeleted: !!event.isDeleted, rows: writes.rows ?? [], history: writes.history ?? [], credentials: writes.credentials ?? [],
        }, writes.ticket);
      },
    };
  }

  /**
   * Queues a write and numbers it (`ticket`): writes commit in the order they are numbered,
   * one batch at a time, so a write is never durable before one numbered earlier. A write
   * whose actor had an earlier write fail, or that depends on a failed write (`after`),
   * fails without being written: it was decided on a state that never became durable.
   */
  private enqueue(item: WriteItem, ticket?: { seq?: number }): Promise<void> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    if (this.lostWriter !== null) return Promise.reject(new StoreUnavailableError(this.lostWriter));
    const { seq, refused } = this.ordered.number(item.key, item.sequenceNumber, item.kind === 'event' ? item.after : undefined, item.kind === 'snapshot');
    item.seq = seq;
    if (ticket) ticket.seq = seq;
    if (refused !== null) {
      this.settled(item, false);
      return Promise.reject(new Error(refused));
    }
    const queued: QueuedWrite = { kind: item.kind, seq, key: item.key, sequenceNumber: item.sequenceNumber, after: item.kind === 'event' ? item.after : undefined };
    let record: WriteRecord;
    try {
      record = recordOf(item);
    } catch (e) {
      // One JSON cannot hold fails as a write the writer could not make would.
      this.settled(queued, false);
      return Promise.reject(new Error(`it could not be written: ${(e as Error)?.message ?? e}`));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item: queued, record, resolve, reject });
      if (!this.inFlight && !this.flushScheduled) {
        this.flushScheduled = true;
        // Let the persists of this turn of the event loop travel together.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends every queued write to the writer as one batch, unless a batch is still on its way to disk. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.inFlight || this.queue.length === 0) {
      if (!this.inFlight && this.queue.length === 0) this.notifyDrained();
      return;
    }
    const items: PendingWrite[] = [];
    const records: WriteRecord[] = [];
    for (const p of this.queue) {
      // A write whose actor's earlier write, or a write it depends on, failed since it was queued.
      const refused = this.refusal(p.item);
      if (refused === null) {
        records.push(p.record!);
        items.push(p);
        continue;
      }
      this.settled(p.item, false);
      p.reject(new Error(refused));
    }
    this.queue = [];
    if (items.length === 0) { this.flush(); return; }
    const batch = ++this.batchCount;
    this.itemCount += items.length;
    this.writer.ref();
    this.writer.postMessage({ batch, items: records } satisfies BatchRequest);
    // The writer has its copy: of the documents only those the row cache holds are kept, to replace them on commit.
    for (const p of items) p.record = null;
    this.inFlight = { batch, items, records: records.map((r) => this.committedRecord(r)), started: performance.now() };
  }

  /** What the caches need of a write once it is committed. */
  private committedRecord(record: WriteRecord): CommittedRecord {
    if (record.kind !== 'event') return { kind: record.kind, rows: [], credentials: [] };
    const rows = record.rows.map((row): CommittedRow => {
      if ('deleted' in row) return row;
      const { doc, ...columns } = row;
      return this.rowCache.has(row.kind, row.id) ? row : columns;
    });
    return { kind: record.kind, rows, credentials: record.credentials };
  }

  private settle(result: BatchResult): void {
    const done = this.inFlight;
    this.inFlight = null;
    this.writer.unref();
    if (!done || done.batch !== result.batch) {
      // Not the answer to the batch on its way (a fault of this store): what the writer did is
      // unknown, so it is treated as lost, and stopped.
      this.writerLost(`the store's writer answered batch ${result.batch} while ${done ? `batch ${done.batch}` : 'none'} was on its way`, done);
      void this.writer.terminate();
      return;
    }
    const seconds = secondsSince(done.started);
    this.commitSeconds += seconds;
    this.metrics.committed(done.items.length, result.errors.every((e) => e === null), seconds);
    // Before any write of the batch is acknowledged: a read that follows the acknowledgement
    // computes afresh, and finds the rows the batch wrote.
    if (result.errors.some((e) => e === null)) this.generation++;
    done.records.forEach((record, i) => this.committedRows(record, result.errors[i] === null));
    done.items.forEach((p, i) => {
      const error = result.errors[i];
      this.settled(p.item, error === null);
      if (error === null) p.resolve(); else p.reject(new Error(error));
    });
    this.flush();
  }

  /** The kept copies of the rows and credentials a write carried: the new ones if it was written, none if it failed. */
  private committedRows(record: CommittedRecord, written: boolean): void {
    if (record.kind !== 'event') return;
    // A failed write's rows too: SQLite holds what it held, but nothing is kept on a failure's word.
    this.pageCache.written(record.rows);
    for (const row of record.rows) {
      // A row read into the cache after its batch left holds the text from before the commit: forgotten.
      if (!written || (!('deleted' in row) && row.doc === undefined)) this.rowCache.forget(row.kind, row.id);
      else this.rowCache.written(row.kind, row.id, 'deleted' in row ? null : row.doc!);
    }
    for (const c of record.credentials) {
      if (!written) this.credentialCache.forget('key', c.key_hash);
      else this.credentialCache.written('key', c.key_hash, String(c.agent_id));
    }
  }

  /** Writes whose outcome is unknown: only SQLite can tell what is on disk. */
  private forgetCachedRows(): void {
    this.rowCache.clear();
    this.credentialCache.clear();
    this.pageCache.clear();
  }

  /** Why a queued write may not be written (see enqueue), or null. */
  private refusal(item: QueuedWrite): string | null {
    return this.ordered.refusal(item.key, item.sequenceNumber, item.kind === 'event' ? item.after : undefined, item.kind === 'snapshot');
  }

  /** A queued write is committed (`ok`) or failed. */
  private settled(item: QueuedWrite, ok: boolean): void {
    this.ordered.settle(item.seq, item.key, item.sequenceNumber, ok, item.kind === 'snapshot');
  }

  /** The writer thread is gone: every write waiting for it fails, and every later one (see enqueue). */
  private writerLost(reason: string, inFlight = this.inFlight): void {
    if (this.lostWriter !== null) return;
    this.lostWriter = reason;
    const waiting = [...(inFlight?.items ?? []), ...this.queue];
    this.inFlight = null;
    // A batch on its way may have committed: no answer kept before now is served again.
    this.generation++;
    this.forgetCachedRows();
    this.queue = [];
    for (const p of waiting) {
      this.settled(p.item, false);
      p.reject(new StoreUnavailableError(reason));
    }
    this.notifyDrained();
  }

  /** Writes waiting for the writer or on their way to disk. */
  get queueDepth(): number {
    return this.queue.length + (this.inFlight?.items.length ?? 0);
  }

  /** Batches committed so far, the writes they carried and the seconds they took (the benchmark reports them). */
  get writeStats(): { batches: number; writes: number; seconds: number } {
    return { batches: this.batchCount, writes: this.itemCount, seconds: this.commitSeconds };
  }

  private notifyDrained(): void {
    const waiting = this.drained;
    this.drained = [];
    for (const w of waiting) w();
  }

  async row<T>(kind: string, id: string | number): Promise<T | undefined> {
    const key = String(id);
    let doc = this.rowCache.get(kind, key);
    if (doc === undefined) {
      doc = (this.stmts.row.get(kind, key) as { doc: string } | undefined)?.doc;
      if (doc === undefined) return undefined;
      this.rowCache.keep(kind, key, doc);
    }
    // Parsed for each caller: what one does with its copy cannot reach another.
    return JSON.parse(doc) as T;
  }

  /** The statements of a named query, prepared on its first use. */
  private query(name: QueryName): NamedQuery {
    let q = this.named.get(name);
    if (!q) {
      const spec: QuerySpec | undefined = QUERIES[name];
      if (!spec) throw new Error(`unknown query ${String(name)}`);
      const { where, params } = namedQuerySql(name, spec);
      const index = queryIndex(spec);
      const from = index ? `entities INDEXED BY ${index.name}` : 'entities';
      const counted = countsSql(spec, where);
      q = {
        list: this.db.prepare(`SELECT doc FROM ${from} WHERE ${where} ${ID_ORDER}`),
        first: this.db.prepare(`SELECT id, doc FROM ${from} WHERE ${where} ${ID_ORDER} LIMIT ${BOUND}`),
        // After an id in ID_ORDER: a larger integer value, or the same one and a larger text.
        // Written as a range on the integer value first, so that the index is entered at the
        // id rather than walked from the start of the query's rows (a deep page, a long scan).
        after: this.db.prepare(`SELECT id, doc FROM ${from} WHERE ${where} AND CAST(id AS INTEGER) >= ? AND (CAST(id AS INTEGER) > ? OR id > ?) ${ID_ORDER} LIMIT ${BOUND}`),
        ids: this.db.prepare(`SELECT id FROM ${from} WHERE ${where} ${ID_ORDER}`),
        count: this.db.prepare(counted ?? `SELECT COUNT(*) AS n FROM ${from} WHERE ${where}`),
        // From entity_counts the count is one read: at most `max` of it is taken after.
        countAtMost: counted ? null : this.db.prepare(`SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where} LIMIT ${BOUND})`),
        // Through the kind's newest index, named: without statistics the planner would rather
        // read every row of the kind by its key and sort them.
        newest: spec.newestBy ? this.db.prepare(`SELECT id, doc FROM entities INDEXED BY ${newestIndexName(spec)}
          WHERE ${where} ORDER BY ${dayOf(spec.newestBy)} DESC, CAST(id AS INTEGER) DESC, id DESC LIMIT ${BOUND} OFFSET ${BOUND}`) : null,
        params,
      };
      this.named.set(name, q);
    }
    return q;
  }

  async list<T>(name: QueryName, arg?: string | number, pick?: (doc: any) => T): Promise<T[]> {
    const q = this.query(name);
    if (!pick) return (q.list.all(...q.params(arg)) as Array<{ doc: string }>).map((r) => JSON.parse(r.doc) as T);
    // Row by row, so that each row's text and document die young.
    const picked: T[] = [];
    for (const r of q.list.iterate(...q.params(arg)) as IterableIterator<{ doc: string }>) picked.push(pick(JSON.parse(r.doc)));
    return picked;
  }

  async listJson(name: QueryName, arg?: string | number): Promise<string[]> {
    const q = this.query(name);
    return (q.list.all(...q.params(arg)) as Array<{ doc: string }>).map((r) => r.doc);
  }

  async listPage<T>(name: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number): Promise<T[]> {
    return (await this.listPageJson(name, arg, afterId, limit)).map((r) => JSON.parse(r.doc) as T);
  }

  async listPageJson(name: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number): Promise<readonly StoredRow[]> {
    const kept = this.pageCache.get(name, arg, afterId, limit);
    if (kept) return kept;
    const rows = this.readAfter(this.query(name), arg, afterId, limit);
    // Read at once, in this turn: no commit settled between the read and keeping it.
    return this.pageCache.keep(name, arg, afterId, limit, rows);
  }

  /** At most `limit` rows of a named query after `afterId` in id order (from the first when undefined). */
  private readAfter(q: NamedQuery, arg: string | number | undefined, afterId: string | undefined, limit: number): StoredRow[] {
    // The integer value CAST gives an id, as compareIds ranks it (text that is not all digits ranks 0).
    const rank = afterId === undefined ? 0 : /^\d+$/.test(afterId) ? Number(afterId) : 0;
    return (afterId === undefined
      ? q.first.all(...q.params(arg), limit)
      : q.after.all(...q.params(arg), rank, rank, afterId, limit)) as StoredRow[];
  }

  /** A chunk at a time, each four times the last up to SCAN_CHUNK_MAX, read past the kept pages (a long scan would push them out). */
  async *scanJson(name: QueryName, arg: string | number | undefined, afterId: string | undefined): AsyncIterable<readonly StoredRow[]> {
    const q = this.query(name);
    for (let after = afterId, size = SCAN_CHUNK; ; size = Math.min(size * 4, SCAN_CHUNK_MAX)) {
      const rows = this.readAfter(q, arg, after, size);
      if (rows.length > 0) yield rows;
      if (rows.length < size) return;
      after = rows[rows.length - 1].id;
    }
  }

  async listNewestJson(name: QueryName, arg: string | number | undefined, offset: number, limit: number): Promise<readonly StoredRow[]> {
    const q = this.query(name);
    if (!q.newest) throw new Error(`query ${name} is not listed newest first`);
    return q.newest.all(...q.params(arg), limit, offset) as StoredRow[];
  }

  async ids(name: QueryName, arg?: string | number): Promise<string[]> {
    const q = this.query(name);
    return (q.ids.all(...q.params(arg)) as Array<{ id: string }>).map((r) => r.id);
  }

  async count(name: QueryName, arg?: string | number): Promise<number> {
    const q = this.query(name);
    return (q.count.get(...q.params(arg)) as { n: number }).n;
  }

  async countAtMost(name: QueryName, max: number, arg?: string | number): Promise<number> {
    const q = this.query(name);
    if (!q.countAtMost) return Math.min((q.count.get(...q.params(arg)) as { n: number }).n, Math.max(0, max));
    return (q.countAtMost.get(...q.params(arg), Math.max(0, max)) as { n: number }).n;
  }

  async history(q: HistoryQuery): Promise<HistoryEvent[]> {
    // One statement per combination of filters: one organization's events through its index, else the whole history.
    const shape = `${q.organization_id !== undefined ? 'o' : ''}${q.before_id !== undefined ? 'b' : ''}${q.category !== undefined ? 'c' : ''}${q.agent_id !== undefined ? 'a' : ''}`;
    let stmt = this.historyStmts.get(shape);
    if (!stmt) {
      const clauses: string[] = [];
      let from = 'history';
      if (q.organization_id !== undefined) {
        from = 'history_organizations o JOIN history ON history.id = o.history_id';
        clauses.push('o.organization_id = @organization_id');
        if (q.before_id !== undefined) clauses.push('o.history_id < @before_id');
      } else if (q.before_id !== undefined) clauses.push('id < @before_id');
      if (q.category !== undefined) clauses.push('category = @category');
      if (q.agent_id !== undefined) clauses.push('agent_id = @agent_id');
      const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
      stmt = this.db.prepare(`SELECT history.* FROM ${from} ${where} ORDER BY history.id DESC LIMIT CAST(@limit AS INTEGER)`);
      this.historyStmts.set(shape, stmt);
    }
    const params: Record<string, unknown> = { limit: q.limit };
    if (q.organization_id !== undefined) params.organization_id = q.organization_id;
    if (q.before_id !== undefined) params.before_id = q.before_id;
    if (q.category !== undefined) params.category = q.category;
    if (q.agent_id !== undefined) params.agent_id = q.agent_id;
    return (stmt.all(params) as HistoryRow[]).map(toHistoryEvent);
  }

  async historyCountOfAgent(agentId: number): Promise<number> {
    return (this.stmts.historyOfAgent.get(agentId) as { n: number }).n;
  }

  async lastHistoryId(): Promise<number> {
    return (this.stmts.lastHistoryId.get() as { n: number }).n;
  }

  /** History ids are given by the transaction that writes the events (AUTOINCREMENT), and nothing is deleted: no id is skipped. */
  async historyCount(): Promise<number> {
    return this.lastHistoryId();
  }

  async historySince(afterId: number, limit: number): Promise<HistoryEvent[]> {
    return (this.stmts.historySince.all(afterId, Math.max(0, Math.trunc(limit))) as HistoryRow[]).map(toHistoryEvent);
  }

  async historyEvent(id: number): Promise<HistoryEvent | undefined> {
    const r = this.stmts.historyEvent.get(id) as HistoryRow | undefined;
    return r ? toHistoryEvent(r) : undefined;
  }

  async historyBetweenDays(fromDay: number, toDay: number, limit: number, nearId: number): Promise<HistoryEvent[]> {
    return (this.stmts.historyDays.all(fromDay, toDay, nearId, limit) as HistoryRow[]).map(toHistoryEvent);
  }

  async agentForKeyHash(keyHash: string): Promise<number | undefined> {
    const kept = this.credentialCache.get('key', keyHash);
    if (kept !== undefined) return Number(kept);
    const r = this.stmts.credential.get(keyHash) as { agent_id: number } | undefined;
    // Only a known key is kept: an unknown one may be registered by the next commit.
    if (r) this.credentialCache.keep('key', keyHash, String(r.agent_id));
    return r?.agent_id;
  }

  async nextId(sequence: string): Promise<number> {
    let block = this.idBlocks.get(sequence);
    if (!block || block.next > block.last) {
      // Reserve the next block durably; ids left unused by a crash are simply skipped.
      const now = performance.now();
      const size = !block ? ID_BLOCK
        : now - block.reservedAt < ID_BLOCK_FAST_MS ? Math.min(ID_BLOCK_MAX, block.size * 2) : Math.max(ID_BLOCK, block.size / 2);
      const last = (this.stmts.nextId.get(sequence, size, size) as { value: number }).value;
      block = { next: last - size + 1, last, size, reservedAt: now };
      this.idBlocks.set(sequence, block);
    }
    return block.next++;
  }

  async reserveIdsUpTo(sequence: string, value: number): Promise<void> {
    this.stmts.reserveIds.run(sequence, value);
    const block = this.idBlocks.get(sequence);
    if (block && block.next <= value) this.idBlocks.delete(sequence);
  }

  async setting(name: string): Promise<string | undefined> {
    return (this.stmts.setting.get(name) as { value: string } | undefined)?.value;
  }

  async settings(names: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const name of names) {
      const row = this.stmts.setting.get(name) as { value: string } | undefined;
      if (row) found.set(name, row.value);
    }
    return found;
  }

  /** See Store.readGeneration: the commits of the writer and the settings written here, counted. */
  readGeneration(): number {
    return this.generation;
  }

  async setSetting(name: string, value: string): Promise<void> {
    this.stmts.putSetting.run(name, value);
    this.generation++;
  }

  /** Waits for queued writes to commit, then closes the writer and the file. */
  async ping(): Promise<void> {
    if (this.lostWriter !== null) throw new StoreUnavailableError(this.lostWriter);
    this.db.prepare('SELECT 1').get();
  }

  /** The close under way: a second call waits for it rather than closing again (SIGINT, then SIGTERM). */
  private closing: Promise<void> | null = null;

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight || this.flushScheduled) {
      await new Promise<void>((r) => { this.drained.push(r); if (!this.inFlight && !this.flushScheduled) this.flush(); });
    }
    this.closed = true;
    if (this.lostWriter === null) {
      await new Promise<void>((resolve) => {
        this.writer.once('message', () => resolve());
        this.writer.postMessage('close');
      });
    }
    await this.writer.terminate();
    // The ids of each block not handed out go back: a restart goes on where this process stopped.
    this.db.transaction(() => {
      for (const [sequence, block] of this.idBlocks) if (block.next <= block.last) this.stmts.releaseIds.run(block.next - 1, sequence, block.last);
    })();
    this.idBlocks.clear();
    this.db.close();
  }
}

