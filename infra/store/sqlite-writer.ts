// The embedded store's writer, on its own thread. It commits each batch of persists in one
// transaction (WAL, synchronous=FULL), so the fsync that makes them durable never blocks
// the actors: while one batch is on its way to disk, the next one gathers (group commit).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'worker_threads';
import type { Credential } from '../../actors/ports/store';

/** Every write is numbered in queue order; `after` names the writes it depends on. */
export interface Numbered { seq: number; after?: number[] }

/** A projected row as the writer stores it: its columns, its document already JSON (the named parameters of its statements). */
export interface RowRecord {
  kind: string; id: string; status: string | null; location_id: string | null; organization_id: number | null;
  agent_id: number | null; due_day: number | null; doc: string;
}

/** A row that leaves the read model. */
export interface RowDeletion { kind: string; id: string; deleted: true }

export interface HistoryRecord { day: number; category: string; agent_id: number | null; organization_ids: number[]; summary: string; data: string }

/**
 * A write as the writer thread receives it: every document already JSON, made on the main
 * thread (sqlite-store.ts), so that strings cross to this thread rather than object graphs
 * to copy, and this thread only runs statements.
 */
export interface EventRecord extends Numbered {
  kind: 'event';
  key: string;
  sequenceNumber: number;
  createdAt: number;
  data: string;
  tags: string;
  isDeleted: boolean;
  rows: Array<RowRecord | RowDeletion>;
  history: HistoryRecord[];
  credentials: Credential[];
}

export interface SnapshotRecord extends Numbered { kind: 'snapshot'; key: string; sequenceNumber: number; createdAt: number; data: string }

export type WriteRecord = EventRecord | SnapshotRecord;

export interface BatchRequest { batch: number; items: WriteRecord[] }
/** For each item, null when written, or the reason it was not. */
export interface BatchResult { batch: number; errors: Array<string | null> }

const rowKey = (row: RowRecord | RowDeletion) => `${row.kind}\0${row.id}`;

function open(file: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 10000');
  const stmts = {
    insertEvent: db.prepare('INSERT INTO journal (persistence_key, sequence_nr, created_at, data, tags, is_deleted) VALUES (?, ?, ?, ?, ?, ?)'),
    putSnapshot: db.prepare('INSERT INTO snapshots (persistence_key, sequence_nr, created_at, data) VALUES (?, ?, ?, ?) ON CONFLICT (persistence_key) DO UPDATE SET sequence_nr = excluded.sequence_nr, created_at = excluded.created_at, data = excluded.data WHERE excluded.sequence_nr >= snapshots.sequence_nr'),
    upsertRow: db.prepare('INSERT INTO entities (kind, id, status, location_id, organization_id, agent_id, due_day, doc) VALUES (@kind, @id, @status, @location_id, @organization_id, @agent_id, @due_day, @doc) ON CONFLICT (kind, id) DO UPDATE SET status = excluded.status, location_id = excluded.location_id, organization_id = excluded.organization_id, agent_id = excluded.agent_id, due_day = excluded.due_day, doc = excluded.doc'),
    insertHistory: db.prepare('INSERT INTO history (day, category, agent_id, organization_ids, summary, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    linkHistory: db.prepare('INSERT OR IGNORE INTO history_organizations (organization_id, history_id) VALUES (?, ?)'),
    putCredential: db.prepare('INSERT OR REPLACE INTO credentials (key_hash, agent_id) VALUES (?, ?)'),
    updateDoc: db.prepare('UPDATE entities SET doc = @doc WHERE kind = @kind AND id = @id AND status IS @status AND location_id IS @location_id AND organization_id IS @organization_id AND agent_id IS @agent_id AND due_day IS @due_day'),
    deleteRow: db.prepare('DELETE FROM entities WHERE kind = ? AND id = ? RETURNING status'),
    statusOf: db.prepare('SELECT status FROM entities WHERE kind = ? AND id = ?'),
    addCount: db.prepare('INSERT INTO entity_counts (kind, status, n) VALUES (?, ?, ?) ON CONFLICT (kind, status) DO UPDATE SET n = n + excluded.n'),
  };
  /**
   * What the writes of a transaction (or of a savepoint) change in entity_counts, by kind and
   * status, applied at its end: a row added counts under its status, a deleted one no longer
   * under its old one, a row whose status changed moves. Counted here rather than by triggers,
   * which cost every write of a row about 7 µs (a row's write is about 10 µs).
   */
  type CountChanges = Map<string, number>;
  const count = (changes: CountChanges, kind: string, status: string | null, n: number) => {
    const key = `${kind}\0${status ?? ''}`;
    changes.set(key, (changes.get(key) ?? 0) + n);
  };
  const applyCounts = (changes: CountChanges) => {
    for (const [key, n] of changes) {
      if (n === 0) continue;
      const at = key.indexOf('\0');
      stmts.addCount.run(key.slice(0, at), key.slice(at + 1), n);
    }
  };
  /** `last`: in a batch written as one whole, the last write of each row; an earlier one is passed over. */
  const writeOne = (item: WriteRecord, now: string, counts: CountChanges, last?: Map<string, RowRecord | RowDeletion>) => {
    if (item.kind === 'snapshot') {
      stmts.putSnapshot.run(item.key, item.sequenceNumber, item.createdAt, item.data);
      return;
    }
    stmts.insertEvent.run(item.key, item.sequenceNumber, item.createdAt, item.data, item.tags, item.isDeleted ? 1 : 0);
    for (const row of item.rows) {
      if (last && last.get(rowKey(row)) !== row) continue;
      if ('deleted' in row) {
        const gone = stmts.deleteRow.get(row.kind, row.id) as { status: string | null } | undefined;
        if (gone) count(counts, row.kind, gone.status, -1);
        continue;
      }
      // Most writes change a row's document and none of its indexed columns: an UPDATE of the
      // document alone leaves the indexes (and the counts) untouched (a fifth of the writer's
      // time in a day's tick).
      if (stmts.updateDoc.run(row).changes === 0) {
        const before = stmts.statusOf.get(row.kind, row.id) as { status: string | null } | undefined;
        stmts.upsertRow.run(row);
        if (before) count(counts, row.kind, before.status, -1);
        count(counts, row.kind, row.status, 1);
      }
    }
    for (const c of item.credentials) stmts.putCredential.run(c.key_hash, c.agent_id);
    for (const h of item.history) {
      const id = stmts.insertHistory.run(h.day, h.category, h.agent_id, JSON.stringify(h.organization_ids), h.summary, h.data, now).lastInsertRowid;
      for (const o of h.organization_ids) stmts.linkHistory.run(o, id);
    }
  };
  // One transaction: no reader sees a row between two writes of it, so only its last write is
  // made (a market's row and its trade intent are written twice a trade, by every trade of a batch).
  const writeAll = db.transaction((items: WriteRecord[], now: string) => {
    const last = new Map<string, RowRecord | RowDeletion>();
    for (const item of items) if (item.kind === 'event') for (const row of item.rows) last.set(rowKey(row), row);
    const counts: CountChanges = new Map();
    for (const item of items) writeOne(item, now, counts, last);
    applyCounts(counts);
  });
  // Inside another transaction, better-sqlite3 runs a transaction function as a savepoint:
  // one that throws is rolled back alone, and the others commit together.
  const writeSingle = db.transaction((item: WriteRecord, now: string) => {
    const counts: CountChanges = new Map();
    writeOne(item, now, counts);
    applyCounts(counts);
  });
  // An error after which SQLite rolled the whole transaction back (a full disk) ends it: nothing
  // after it may commit on its own, and the caller starts again a transaction per write.
  const writeEach = db.transaction((items: WriteRecord[], now: string) => writeEachWith(items, (item) => writeSingle(item, now), () => !db.inTransaction));
  return { db, writeAll, writeSingle, writeEach };
}

/**
 * Writes the items one by one with `write`, answering each one's error or null (or throws,
 * once `lost` says the transaction they were written in is gone). An item that
 * depends on a failed one (a later write of the same actor, or one naming it in `after`)
 * fails with it, unwritten: it was decided on a state that never became durable.
 */
function writeEachWith(items: WriteRecord[], write: (item: WriteRecord) => void, lost: () => boolean = () => false): Array<string | null> {
  const failedSeqs = new Set<number>();
  const failedKeys = new Set<string>();
  return items.map((item) => {
    let error = failedKeys.has(item.key) ? `an earlier write of ${item.key} failed`
      : item.after?.some((n) => failedSeqs.has(n)) ? 'a write it depends on failed' : null;
    if (error === null) {
      try { write(item); } catch (e) {
        if (lost()) throw e;
        error = String((e as Error)?.message ?? e);
      }
    }
    if (error !== null) {
      failedSeqs.add(item.seq);
      if (item.kind === 'event') failedKeys.add(item.key);
    }
    return error;
  });
}

if (parentPort) {
  const port = parentPort;
  const { writeAll, writeSingle, writeEach, db } = open((workerData as { file: string }).file);
  port.on('message', (msg: BatchRequest | 'close') => {
    if (msg === 'close') {
      db.close();
      port.postMessage('closed');
      return;
    }
    const now = new Date().toISOString();
    let errors: Array<string | null>;
    try {
      writeAll(msg.items, now);
      errors = msg.items.map(() => null);
    } catch {
      // One bad item must not sink the others: each in a savepoint of one transaction (one
      // commit, one fsync). Should that transaction fail as a whole (an error that makes
      // SQLite roll everything back), each in a transaction of its own.
      try {
        errors = writeEach(msg.items, now);
      } catch {
        errors = writeEachWith(msg.items, (item) => writeSingle(item, now));
      }
    }
    port.postMessage({ batch: msg.batch, errors } satisfies BatchResult);
  });
}
