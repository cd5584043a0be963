// The remembered answers of requests with an Idempotency-Key, on Cassandra: one row per
// (world, key) in `idempotency`. Every write to that table is a lightweight transaction
// (never a plain write on the same cells: Cassandra does not order the two), every read is
// at SERIAL, and every write carries the time the record has left to live as its TTL, so
// the row's cells expire together 24 hours after the first request.
import { types } from 'cassandra-driver';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyStore } from '../../actors/ports/store';

export const IDEMPOTENCY_TABLE = `CREATE TABLE IF NOT EXISTS {ks}.idempotency (world text, key text, fingerprint text, owner text,
  lease_until bigint, expires_at bigint, notes text, answer text, PRIMARY KEY ((world, key)))`;

type Exec = (what: string, query: string, params: unknown[], opts?: Record<string, unknown>) => Promise<types.ResultSet>;

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

function fromRow(row: types.Row): IdempotencyRecord {
  return {
    fingerprint: row.get('fingerprint'), owner: row.get('owner'),
    leaseUntil: num(row.get('lease_until')), expiresAt: num(row.get('expires_at')),
    notes: row.get('notes') ?? null, answer: row.get('answer') ?? null,
  };
}

/** Seconds the record has left at `now`: the TTL of every cell written to it. */
const ttl = (expiresAt: number, now: number) => Math.max(1, Math.ceil((expiresAt - now) / 1000));

export class CassandraIdempotency implements IdempotencyStore {
  private readonly table: string;
  private readonly lwt: Record<string, unknown>;
  private readonly serialRead: Record<string, unknown>;

  constructor(private readonly exec: Exec, keyspace: string, private readonly world: string, write: number, serial: number) {
    this.table = `${keyspace}.idempotency`;
    this.lwt = { consistency: write, serialConsistency: serial };
    this.serialRead = { consistency: serial };
  }

  async claim(key: string, fresh: IdempotencyRecord, now: number): Promise<IdempotencyClaim> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const inserted = await this.exec('idempotency claim', `INSERT INTO ${this.table} (world, key, fingerprint, owner, lease_until, expires_at, notes, answer)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS USING TTL ?`,
      [this.world, key, fresh.fingerprint, fresh.owner, types.Long.fromNumber(fresh.leaseUntil), types.Long.fromNumber(fresh.expiresAt), fresh.notes, fresh.answer, ttl(fresh.expiresAt, now)], this.lwt);
      if (inserted.wasApplied()) return { taken: true, record: fresh };
      const existing = fromRow(inserted.first());
      let replace: IdempotencyRecord | null = null;
      if (existing.expiresAt <= now || !existing.fingerprint || !existing.owner) replace = fresh; // expired by the caller's clock (or in part by TTL)
      else if (existing.answer === null && existing.fingerprint === fresh.fingerprint && existing.leaseUntil <= now) {
        replace = { ...existing, owner: fresh.owner, leaseUntil: fresh.leaseUntil };
      }
      if (!replace) return { taken: false, record: existing };
      const r = await this.exec('idempotency claim', `UPDATE ${this.table} USING TTL ? SET fingerprint = ?, owner = ?, lease_until = ?, expires_at = ?, notes = ?, answer = ?
        WHERE world = ? AND key = ? IF owner = ?`,
      [ttl(replace.expiresAt, now), replace.fingerprint, replace.owner, types.Long.fromNumber(replace.leaseUntil), types.Long.fromNumber(replace.expiresAt), replace.notes, replace.answer,
        this.world, key, existing.owner], this.lwt);
      if (r.wasApplied()) return { taken: true, record: replace };
      // Someone else changed the record in between (or its TTL ran out): look again.
    }
    throw new Error(`idempotency claim of a key kept changing under it`);
  }

  async idempotencyRecord(key: string, now: number): Promise<IdempotencyRecord | undefined> {
    const r = await this.exec('idempotency read', `SELECT * FROM ${this.table} WHERE world = ? AND key = ?`, [this.world, key], this.serialRead);
    const row = r.first();
    if (!row || row.get('owner') === null) return undefined;
    const record = fromRow(row);
    return record.expiresAt > now ? record : undefined;
  }

  private async update(what: string, column: 'notes' | 'answer', key: string, owner: string, value: string, now: number): Promise<boolean> {
    const current = await this.idempotencyRecord(key, now);
    if (!current || current.owner !== owner || current.answer !== null) return false;
    const r = await this.exec(what, `UPDATE ${this.table} USING TTL ? SET ${column} = ? WHERE world = ? AND key = ? IF owner = ? AND answer = null`,
      [ttl(current.expiresAt, now), value, this.world, key, owner], this.lwt);
    return r.wasApplied();
  }

  note(key: string, owner: string, notes: string, now: number): Promise<boolean> {
    return this.update('idempotency note', 'notes', key, owner, notes, now);
  }

  complete(key: string, owner: string, answer: string, now: number): Promise<boolean> {
    return this.update('idempotency answer', 'answer', key, owner, answer, now);
  }

  async release(key: string, owner: string): Promise<void> {
    await this.exec('idempotency release', `DELETE FROM ${this.table} WHERE world = ? AND key = ? IF owner = ? AND answer = null`, [this.world, key, owner], this.lwt);
  }
}
