// The embedded store: one SQLite file in WORLD_DATA_DIR, in WAL mode with
// synchronous=FULL, so a committed transaction survives a crash. Persists from every
// actor are queued and committed together at the end of the current turn of the event
// loop (group commit): one fsync serves many actors, and each persist's promise
// resolves only once its transaction is on disk.
import Database from 'better-sqlite3';
import fs from 'fs';
import path from 'path';
import type { PersistedEvent, PersistedSnapshot, PersistenceEngine } from 'nact';
import type {
  Credential, HistoryEvent, HistoryQuery, ProjectionRow, RowQuery, Store, Writes,
} from './ports';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS journal (
  persistence_key TEXT NOT NULL, sequence_nr INTEGER NOT NULL, created_at INTEGER NOT NULL,
  data TEXT NOT NULL, tags TEXT NOT NULL, is_deleted INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (persistence_key, sequence_nr)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
  persistence_key TEXT PRIMARY KEY, sequence_nr INTEGER NOT NULL, created_at INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entities (
  kind TEXT NOT NULL, id TEXT NOT NULL, status TEXT, location_id TEXT, organization_id INTEGER,
  agent_id INTEGER, doc TEXT NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entities_status ON entities (kind, status);
CREATE INDEX IF NOT EXISTS entities_location ON entities (kind, location_id);
CREATE INDEX IF NOT EXISTS entities_organization ON entities (kind, organization_id);
CREATE INDEX IF NOT EXISTS entities_agent ON entities (kind, agent_id);
CREATE TABLE IF NOT EXISTS credentials (key_hash TEXT PRIMARY KEY, agent_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS history (
  id INTEGER PRIMARY KEY AUTOINCREMENT, day INTEGER NOT NULL, category TEXT NOT NULL,
  agent_id INTEGER, organization_ids TEXT NOT NULL, summary TEXT NOT NULL, data TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS history_category ON history (category, id);
CREATE INDEX IF NOT EXISTS history_agent ON history (agent_id, id);
CREATE INDEX IF NOT EXISTS history_day ON history (day, id);
CREATE TABLE IF NOT EXISTS sequences (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

interface PendingPersist {
  event: PersistedEvent;
  writes: Writes;
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
  private queue: PendingPersist[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly stmts;

  constructor(dataDir: string) {
    fs.mkdirSync(dataDir, { recursive: true });
    this.db = new Database(path.join(dataDir, 'world.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    const db = this.db;
    this.stmts = {
      insertEvent: db.prepare('INSERT INTO journal (persistence_key, sequence_nr, created_at, data, tags, is_deleted) VALUES (?, ?, ?, ?, ?, ?)'),
      events: db.prepare('SELECT * FROM journal WHERE persistence_key = ? AND sequence_nr > ? ORDER BY sequence_nr LIMIT ?'),
      snapshot: db.prepare('SELECT * FROM snapshots WHERE persistence_key = ?'),
      putSnapshot: db.prepare('INSERT INTO snapshots (persistence_key, sequence_nr, created_at, data) VALUES (?, ?, ?, ?) ON CONFLICT (persistence_key) DO UPDATE SET sequence_nr = excluded.sequence_nr, created_at = excluded.created_at, data = excluded.data WHERE excluded.sequence_nr >= snapshots.sequence_nr'),
      upsertRow: db.prepare('INSERT INTO entities (kind, id, status, location_id, organization_id, agent_id, doc) VALUES (@kind, @id, @status, @location_id, @organization_id, @agent_id, @doc) ON CONFLICT (kind, id) DO UPDATE SET status = excluded.status, location_id = excluded.location_id, organization_id = excluded.organization_id, agent_id = excluded.agent_id, doc = excluded.doc'),
      row: db.prepare('SELECT doc FROM entities WHERE kind = ? AND id = ?'),
      insertHistory: db.prepare('INSERT INTO history (day, category, agent_id, organization_ids, summary, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      historyEvent: db.prepare('SELECT * FROM history WHERE id = ?'),
      historyDays: db.prepare('SELECT * FROM history WHERE day BETWEEN ? AND ? ORDER BY id LIMIT ?'),
      putCredential: db.prepare('INSERT OR REPLACE INTO credentials (key_hash, agent_id) VALUES (?, ?)'),
      credential: db.prepare('SELECT agent_id FROM credentials WHERE key_hash = ?'),
      nextId: db.prepare('INSERT INTO sequences (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value'),
      setting: db.prepare('SELECT value FROM settings WHERE name = ?'),
      putSetting: db.prepare('INSERT OR REPLACE INTO settings (name, value) VALUES (?, ?)'),
    };
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
      async takeSnapshot(s: PersistedSnapshot) {
        store.stmts.putSnapshot.run(s.key, s.sequenceNumber, s.createdAt, JSON.stringify(s.data));
      },
      persist(event: PersistedEvent, writes: Writes = {}) {
        return store.enqueue(event, writes);
      },
    } as PersistenceEngine;
  }

  private enqueue(event: PersistedEvent, writes: Writes): Promise<void> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ event, writes, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits every queued persist in one transaction, then settles their promises. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const now = new Date().toISOString();
    const apply = this.db.transaction((items: PendingPersist[]) => {
      for (const { event, writes } of items) {
        this.stmts.insertEvent.run(event.key, event.sequenceNumber, event.createdAt,
          JSON.stringify(event.data), JSON.stringify(event.tags ?? []), event.isDeleted ? 1 : 0);
        for (const row of writes.rows ?? []) this.upsert(row);
        for (const c of writes.credentials ?? []) this.stmts.putCredential.run(c.key_hash, c.agent_id);
        for (const h of writes.history ?? []) {
          this.stmts.insertHistory.run(h.day, h.category, h.agent_id, JSON.stringify(h.organization_ids),
            h.summary, JSON.stringify(h.data ?? {}), now);
        }
      }
    });
    try {
      apply(batch);
    } catch (e) {
      // One bad item must not sink the others: retry them one by one.
      if (batch.length > 1) {
        for (const item of batch) {
          try { apply([item]); item.resolve(); } catch (err) { item.reject(err); }
        }
        return;
      }
      batch[0].reject(e);
      return;
    }
    for (const item of batch) item.resolve();
  }

  private upsert(row: ProjectionRow): void {
    this.stmts.upsertRow.run({
      kind: row.kind, id: String(row.id), status: row.status ?? null, location_id: row.location_id ?? null,
      organization_id: row.organization_id ?? null, agent_id: row.agent_id ?? null, doc: JSON.stringify(row.doc),
    });
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

  private historyWhere(q: Omit<HistoryQuery, 'limit'>): { where: string; params: unknown[] } {
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (q.category !== undefined) { clauses.push('category = ?'); params.push(q.category); }
    if (q.agent_id !== undefined) { clauses.push('agent_id = ?'); params.push(q.agent_id); }
    if (q.before_id !== undefined) { clauses.push('id < ?'); params.push(q.before_id); }
    return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
  }

  historyCount(q: Omit<HistoryQuery, 'limit'>): number {
    const { where, params } = this.historyWhere(q);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM history ${where}`).get(...params) as { n: number }).n;
  }

  history(q: HistoryQuery): HistoryEvent[] {
    const { where, params } = this.historyWhere(q);
    params.push(q.limit);
    const rows = this.db.prepare(`SELECT * FROM history ${where} ORDER BY id DESC LIMIT ?`).all(...params) as HistoryRow[];
    return rows.map(toHistoryEvent);
  }

  historyEvent(id: number): HistoryEvent | undefined {
    const r = this.stmts.historyEvent.get(id) as HistoryRow | undefined;
    return r ? toHistoryEvent(r) : undefined;
  }

  historyBetweenDays(fromDay: number, toDay: number, limit: number): HistoryEvent[] {
    return (this.stmts.historyDays.all(fromDay, toDay, limit) as HistoryRow[]).map(toHistoryEvent);
  }

  agentForKeyHash(keyHash: string): number | undefined {
    const r = this.stmts.credential.get(keyHash) as { agent_id: number } | undefined;
    return r?.agent_id;
  }

  nextId(sequence: string): number {
    return (this.stmts.nextId.get(sequence) as { value: number }).value;
  }

  reserveIdsUpTo(sequence: string, value: number): void {
    this.db.prepare('INSERT INTO sequences (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = MAX(value, excluded.value)').run(sequence, value);
  }

  setting(name: string): string | undefined {
    return (this.stmts.setting.get(name) as { value: string } | undefined)?.value;
  }

  setSetting(name: string, value: string): void {
    this.stmts.putSetting.run(name, value);
  }

  /** Waits for queued persists to commit, then closes the file. */
  async close(): Promise<void> {
    while (this.queue.length > 0 || this.flushScheduled) {
      await new Promise((r) => setImmediate(r));
    }
    this.closed = true;
    this.db.close();
  }
}

export type { Credential };
