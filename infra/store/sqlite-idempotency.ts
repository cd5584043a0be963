// The remembered answers of requests with an Idempotency-Key, in the embedded store: one
// row per key in `idempotency`, written on the main connection (each call is one
// synchronous statement or transaction, so two requests racing for a key cannot both take
// it). Expired rows are cleaned lazily: at most once a minute a claim deletes up to 500 of
// them.
import type Database from 'better-sqlite3';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from '../../actors/ports/store';

export const IDEMPOTENCY_SCHEMA = `
CREATE TABLE IF NOT EXISTS idempotency (
  key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, owner TEXT NOT NULL, lease_until INTEGER NOT NULL,
  expires_at INTEGER NOT NULL, notes TEXT, answer TEXT) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency (expires_at);
`;

const CLEAN_EVERY_MS = 60_000;
const CLEAN_BATCH = 500;

interface Row {
  fingerprint: string; owner: string; lease_until: number; expires_at: number; notes: string | null; answer: string | null;
}

const record = (r: Row): IdempotencyRecord => ({
  fingerprint: r.fingerprint, owner: r.owner, leaseUntil: r.lease_until, expiresAt: r.expires_at, notes: r.notes, answer: r.answer,
});

export class SqliteIdempotency implements IdempotencyStore {
  private readonly stmts;
  private readonly claimTx;
  private lastClean = 0;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare('SELECT * FROM idempotency WHERE key = ? AND expires_at > ?'),
      put: db.prepare(`INSERT OR REPLACE INTO idempotency (key, fingerprint, owner, lease_until, expires_at, notes, answer)
        VALUES (@key, @fingerprint, @owner, @leaseUntil, @expiresAt, @notes, @answer)`),
      takeOver: db.prepare('UPDATE idempotency SET owner = ?, lease_until = ? WHERE key = ? AND owner = ?'),
      note: db.prepare('UPDATE idempotency SET notes = ? WHERE key = ? AND owner = ? AND answer IS NULL AND expires_at > ?'),
      complete: db.prepare('UPDATE idempotency SET answer = ? WHERE key = ? AND owner = ? AND answer IS NULL AND expires_at > ?'),
      release: db.prepare('DELETE FROM idempotency WHERE key = ? AND owner = ? AND answer IS NULL'),
      // The limit cast: a bare LIMIT ? would have SQLite prepare the statement again at each run (sqlite-store.ts, BOUND).
      clean: db.prepare('DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE expires_at <= ? LIMIT CAST(? AS INTEGER))'),
    };
    this.claimTx = db.transaction((key: string, fresh: IdempotencyRecord, now: number): IdempotencyClaim => {
      const live = this.stmts.get.get(key, now) as Row | undefined;
      if (!live) {
        this.stmts.put.run({ key, ...fresh });
        return { taken: true, record: fresh };
      }
      const existing = record(live);
      if (existing.answer === null && existing.fingerprint === fresh.fingerprint && existing.leaseUntil <= now) {
        this.stmts.takeOver.run(fresh.owner, fresh.leaseUntil, key, existing.owner);
        return { taken: true, record: { ...existing, owner: fresh.owner, leaseUntil: fresh.leaseUntil } };
      }
      return { taken: false, record: existing };
    });
  }

  async claim(key: string, fresh: IdempotencyRecord, now: number): Promise<IdempotencyClaim> {
    if (now - this.lastClean >= CLEAN_EVERY_MS || now < this.lastClean) {
      this.lastClean = now;
      this.stmts.clean.run(now, CLEAN_BATCH);
    }
    return this.claimTx.immediate(key, fresh, now);
  }

  async idempotencyRecord(key: string, now: number): Promise<IdempotencyRecord | undefined> {
    const r = this.stmts.get.get(key, now) as Row | undefined;
    return r && record(r);
  }

  async note(key: string, owner: string, notes: string, now: number): Promise<boolean> {
    return this.stmts.note.run(notes, key, owner, now).changes === 1;
  }

  async complete(key: string, owner: string, answer: string, now: number): Promise<boolean> {
    return this.stmts.complete.run(answer, key, owner, now).changes === 1;
  }

  async release(key: string, owner: string): Promise<void> {
    this.stmts.release.run(key, owner);
  }
}
