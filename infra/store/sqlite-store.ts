// The embedded store: one SQLite file in WORLD_DATA_DIR, in WAL mode with
// synchronous=FULL, so a committed transaction survives a crash. Persists from every
// actor go to a writer thread (sqlite-writer.ts) that commits them in batches: while one
// batch is being made durable, the next one gathers (group commit), so one fsync serves
// many actors and never blocks them. Each persist's promise resolves only once its
// transaction is on disk. Reads use this thread's own connection.
import Database from 'better-sqlite3';
import fs from 'fs';
import path from 'path';
import { Worker } from 'worker_threads';
import type { BatchResult, WriteItem } from './sqlite-writer';
import type { PersistedEvent, PersistedSnapshot, PersistenceEngine } from 'nact';
import type { Credential, HistoryEvent, HistoryQuery, RowQuery, Store, Writes } from './ports';

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
CREATE INDEX IF NOT EXISTS entities_status ON entities (kind, status);
CREATE INDEX IF NOT EXISTS entities_location ON entities (kind, location_id);
CREATE INDEX IF NOT EXISTS entities_organization ON entities (kind, organization_id);
CREATE INDEX IF NOT EXISTS entities_agent ON entities (kind, agent_id);
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

interface PendingWrite {
  item: WriteItem;
  resolve: () => void;
  reject: (e: unknown) => void;
}

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

export class SqliteStore implements Store {
  readonly engine: PersistenceEngine;
  private readonly db: Database.Database;
  private queue: PendingWrite[] = [];
  private flushScheduled = false;
  private inFlight: { batch: number; items: PendingWrite[] } | null = null;
  private batchCount = 0;
  private itemCount = 0;
  private readonly writer: Worker;
  private drained: Array<() => void> = [];
  /** Ids handed out from blocks reserved durably in advance (hi-lo): one disk write per ID_BLOCK ids. */
  private readonly idBlocks = new Map<string, { next: number; last: number }>();
  private closed = false;
  private readonly stmts;

  constructor(dataDir: string) {
    fs.mkdirSync(dataDir, { recursive: true });
    this.db = new Database(path.join(dataDir, 'world.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    // History written before history_organizations existed is indexed once.
    this.db.exec(`INSERT OR IGNORE INTO history_organizations (organization_id, history_id)
      SELECT j.value, h.id FROM history h, json_each(h.organization_ids) j
      WHERE h.id > (SELECT COALESCE(MAX(history_id), 0) FROM history_organizations)`);
    const db = this.db;
    this.stmts = {
      events: db.prepare('SELECT * FROM journal WHERE persistence_key = ? AND sequence_nr > ? ORDER BY sequence_nr LIMIT ?'),
      snapshot: db.prepare('SELECT * FROM snapshots WHERE persistence_key = ?'),
      row: db.prepare('SELECT doc FROM entities WHERE kind = ? AND id = ?'),
      historyEvent: db.prepare('SELECT * FROM history WHERE id = ?'),
      historyDays: db.prepare('SELECT * FROM (SELECT * FROM history WHERE day BETWEEN ? AND ? ORDER BY ABS(id - ?) LIMIT ?) ORDER BY id'),
      credential: db.prepare('SELECT agent_id FROM credentials WHERE key_hash = ?'),
      nextId: db.prepare('INSERT INTO sequences (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + ? RETURNING value'),
      setting: db.prepare('SELECT value FROM settings WHERE name = ?'),
      putSetting: db.prepare('INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)'),
    };
    this.writer = new Worker(path.join(__dirname, 'sqlite-writer.js'), { workerData: { file: path.join(dataDir, 'world.sqlite') } });
    this.writer.on('message', (m: BatchResult | 'closed') => { if (m !== 'closed') this.settle(m); });
    this.writer.unref();
    this.engine = this.makeEngine();
  }

  private makeEngine(): PersistenceEngine {
    const store = this;
    return {
      events(persistenceKey: string, offset = 0, limit = Number.MAX_SAFE_INTEGER) {
        const rows = store.stmts.events.all(persistenceKey, offset, limit) as Array<{
          persistence_key: string; sequence_nr: number; created_at: number; data: string; tags: string; is_deleted: number;
        }>;
        const events = rows.map((r) => ({
          key: r.persistence_key, sequenceNumber: r.sequence_nr, createdAt: r.created_at,
          data: JSON.parse(r.data), tags: JSON.parse(r.tags), isDeleted: r.is_deleted === 1,
        }));
        // nact reduces over the stream; an array already is one.
        return events as unknown as ReturnType<PersistenceEngine['events']>;
      },
      async latestSnapshot(persistenceKey: string) {
        const r = store.stmts.snapshot.get(persistenceKey) as
          { persistence_key: string; sequence_nr: number; created_at: number; data: string } | undefined;
        return (r ? { key: r.persistence_key, sequenceNumber: r.sequence_nr, createdAt: r.created_at, data: JSON.parse(r.data) } : undefined) as PersistedSnapshot;
      },
      takeSnapshot(s: PersistedSnapshot) {
        return store.enqueue({ kind: 'snapshot', key: s.key, sequenceNumber: s.sequenceNumber, createdAt: s.createdAt, data: s.data });
      },
      persist(event: PersistedEvent, writes: Writes = {}) {
        return store.enqueue({
          kind: 'event', key: event.key, sequenceNumber: event.sequenceNumber, createdAt: event.createdAt, data: event.data,
          tags: event.tags ?? [], isDeleted: !!event.isDeleted, rows: writes.rows ?? [], history: writes.history ?? [], credentials: writes.credentials ?? [],
        });
      },
    } as PersistenceEngine;
  }

  private enqueue(item: WriteItem): Promise<void> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
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
    const items = this.queue;
    this.queue = [];
    this.inFlight = { batch: ++this.batchCount, items };
    this.itemCount += items.length;
    this.writer.ref();
    this.writer.postMessage({ batch: this.inFlight.batch, items: items.map((p) => p.item) });
  }

  private settle(result: BatchResult): void {
    const done = this.inFlight;
    this.inFlight = null;
    this.writer.unref();
    if (!done || done.batch !== result.batch) return;
    done.items.forEach((p, i) => {
      const error = result.errors[i];
      if (error === null) p.resolve(); else p.reject(new Error(error));
    });
    this.flush();
  }

  /** Batches committed so far and the writes they carried (the benchmark reports the ratio). */
  get writeStats(): { batches: number; writes: number } {
    return { batches: this.batchCount, writes: this.itemCount };
  }

  private notifyDrained(): void {
    const waiting = this.drained;
    this.drained = [];
    for (const w of waiting) w();
  }

  row<T>(kind: string, id: string | number): T | undefined {
    const r = this.stmts.row.get(kind, String(id)) as { doc: string } | undefined;
    return r ? (JSON.parse(r.doc) as T) : undefined;
  }

  private where(kind: string, q: RowQuery): { sql: string; params: unknown[] } {
    const clauses = ['kind = ?'];
    const params: unknown[] = [kind];
    if (q.status !== undefined) {
      const list = Array.isArray(q.status) ? q.status : [q.status];
      clauses.push(`status IN (${list.map(() => '?').join(', ')})`);
      params.push(...list);
    }
    if (q.location_id !== undefined) { clauses.push('location_id = ?'); params.push(q.location_id); }
    if (q.organization_id !== undefined) { clauses.push('organization_id = ?'); params.push(q.organization_id); }
    if (q.agent_id !== undefined) { clauses.push('agent_id = ?'); params.push(q.agent_id); }
    if (q.due_by !== undefined) { clauses.push('due_day <= ?'); params.push(q.due_by); }
    return { sql: clauses.join(' AND '), params };
  }

  rows<T>(kind: string, q: RowQuery = {}): T[] {
    const { sql, params } = this.where(kind, q);
    // Integer ids sort numerically, string ids (locations) by name.
    const order = 'ORDER BY CAST(id AS INTEGER), id';
    const page = q.limit !== undefined ? ` LIMIT ${Math.trunc(q.limit)} OFFSET ${Math.trunc(q.offset ?? 0)}` : '';
    const rows = this.db.prepare(`SELECT doc FROM entities WHERE ${sql} ${order}${page}`).all(...params) as Array<{ doc: string }>;
    return rows.map((r) => JSON.parse(r.doc) as T);
  }

  ids(kind: string, q: RowQuery = {}): string[] {
    const { sql, params } = this.where(kind, q);
    return (this.db.prepare(`SELECT id FROM entities WHERE ${sql} ORDER BY CAST(id AS INTEGER), id`).all(...params) as Array<{ id: string }>).map((r) => r.id);
  }

  count(kind: string, q: RowQuery = {}): number {
    const { sql, params } = this.where(kind, q);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM entities WHERE ${sql}`).get(...params) as { n: number }).n;
  }

  /** The history rows matching a query: one organization's through its index, else the whole history. */
  private historyWhere(q: Omit<HistoryQuery, 'limit'>): { from: string; where: string; params: unknown[] } {
    const clauses: string[] = [];
    const params: unknown[] = [];
    let from = 'history';
    if (q.organization_id !== undefined) {
      from = 'history_organizations o JOIN history ON history.id = o.history_id';
      clauses.push('o.organization_id = ?'); params.push(q.organization_id);
      if (q.before_id !== undefined) { clauses.push('o.history_id < ?'); params.push(q.before_id); }
    } else if (q.before_id !== undefined) { clauses.push('id < ?'); params.push(q.before_id); }
    if (q.category !== undefined) { clauses.push('category = ?'); params.push(q.category); }
    if (q.agent_id !== undefined) { clauses.push('agent_id = ?'); params.push(q.agent_id); }
    return { from, where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
  }

  historyCount(q: Omit<HistoryQuery, 'limit'>): number {
    // History is never deleted, so the whole of it counts as far as its last id goes.
    if (q.category === undefined && q.agent_id === undefined && q.before_id === undefined && q.organization_id === undefined) {
      return (this.db.prepare('SELECT COALESCE(MAX(id), 0) AS n FROM history').get() as { n: number }).n;
    }
    const { from, where, params } = this.historyWhere(q);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM ${from} ${where}`).get(...params) as { n: number }).n;
  }

  history(q: HistoryQuery): HistoryEvent[] {
    const { from, where, params } = this.historyWhere(q);
    params.push(q.limit);
    const rows = this.db.prepare(`SELECT history.* FROM ${from} ${where} ORDER BY history.id DESC LIMIT ?`).all(...params) as HistoryRow[];
    return rows.map(toHistoryEvent);
  }

  historyEvent(id: number): HistoryEvent | undefined {
    const r = this.stmts.historyEvent.get(id) as HistoryRow | undefined;
    return r ? toHistoryEvent(r) : undefined;
  }

  historyBetweenDays(fromDay: number, toDay: number, limit: number, nearId: number): HistoryEvent[] {
    return (this.stmts.historyDays.all(fromDay, toDay, nearId, limit) as HistoryRow[]).map(toHistoryEvent);
  }

  agentForKeyHash(keyHash: string): number | undefined {
    const r = this.stmts.credential.get(keyHash) as { agent_id: number } | undefined;
    return r?.agent_id;
  }

  nextId(sequence: string): number {
    let block = this.idBlocks.get(sequence);
    if (!block || block.next > block.last) {
      // Reserve the next block durably; ids left unused by a crash are simply skipped.
      const last = (this.stmts.nextId.get(sequence, ID_BLOCK, ID_BLOCK) as { value: number }).value;
      block = { next: last - ID_BLOCK + 1, last };
      this.idBlocks.set(sequence, block);
    }
    return block.next++;
  }

  reserveIdsUpTo(sequence: string, value: number): void {
    this.db.prepare('INSERT INTO sequences (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = MAX(value, excluded.value)').run(sequence, value);
    const block = this.idBlocks.get(sequence);
    if (block && block.next <= value) this.idBlocks.delete(sequence);
  }

  setting(name: string): string | undefined {
    return (this.stmts.setting.get(name) as { value: string } | undefined)?.value;
  }

  setSetting(name: string, value: string): void {
    this.stmts.putSetting.run(name, value);
  }

  /** Waits for queued writes to commit, then closes the writer and the file. */
  async close(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight || this.flushScheduled) {
      await new Promise<void>((r) => { this.drained.push(r); if (!this.inFlight && !this.flushScheduled) this.flush(); });
    }
    this.closed = true;
    await new Promise<void>((resolve) => {
      this.writer.once('message', () => resolve());
      this.writer.postMessage('close');
    });
    await this.writer.terminate();
    this.db.close();
  }
}

export type { Credential };
