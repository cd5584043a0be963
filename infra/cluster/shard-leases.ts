// Shard leases in Cassandra: the fencing of many nodes. Kafka decides which node should
// host a shard; before a node hosts it, it takes the shard's lease here, with a
// lightweight transaction that moves the shard to the next epoch. A lease runs for
// `leaseMs` unless its holder renews it (every third of that), and a new owner takes a
// shard only once the previous holder released it or its lease ran out. A node writes for
// a shard only while its own lease is valid by its own clock (checked by the store at the
// moment each batch leaves, `CassandraStore`'s fence), and it stops renewing a lease as
// soon as a renewal finds another epoch. So a node that was paused past its lease (or cut
// off) finds, when it wakes, that it may not write, and never writes again for that
// epoch. The rows are written only by lightweight transactions.
import crypto from 'crypto';
import type { Client } from 'cassandra-driver';

export interface LeaseTable {
  client: Client;
  keyspace: string;
  world: string;
  /** Consistency of the Paxos phase (SERIAL). */
  serial: number;
}

export interface Lease {
  epoch: number;
  /** This process may write for the shard until then (local clock, ms): the lease's end less a margin. */
  validUntil: number;
}

export const DEFAULT_LEASE_MS = 6_000;
/** Kept off the end of a lease, for clocks that drift apart and a batch on its way. */
export const LEASE_MARGIN_MS = 1_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ShardLeases {
  /** The holder's name: the node id and this process, so a restarted node never mistakes an old lease for its own. */
  readonly holder: string;
  private readonly held = new Map<number, Lease>();
  private readonly table: string;
  private renewing: NodeJS.Timeout | null = null;

  constructor(private readonly t: LeaseTable, node: string, private readonly opts: { leaseMs?: number; log?: (line: string) => void; onLost?: (shard: number) => void } = {}) {
    this.holder = `${node}/${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
    this.table = `${t.keyspace}.shard_leases`;
  }

  private get leaseMs(): number {
    return this.opts.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** The lease this process holds on a shard, while it may write for it; else null. */
  lease(shard: number): Lease | null {
    const l = this.held.get(shard);
    return l && Date.now() < l.validUntil ? l : null;
  }

  /** Why this process may not write for a shard now, or null when it may. */
  refusal(shard: number): string | null {
    const l = this.held.get(shard);
    if (!l) return `this node does not hold shard ${shard}`;
    if (Date.now() >= l.validUntil) return `this node's lease on shard ${shard} ran out`;
    return null;
  }

  private async lwt(query: string, params: unknown[]): Promise<{ applied: boolean; row: Record<string, unknown> }> {
    const r = await this.t.client.execute(query, params, { prepare: true, serialConsistency: this.t.serial });
    const row = r.first() as unknown as Record<string, unknown>;
    return { applied: Boolean(row?.['[applied]']), row };
  }

  /**
   * Takes a shard: waits until its previous holder released it or its lease ran out, then
   * moves it to the next epoch. Resolves with the lease, or null when `wanted()` turns
   * false meanwhile (Kafka gave the shard to another node).
   */
  async acquire(shard: number, wanted: () => boolean): Promise<Lease | null> {
    for (;;) {
      if (!wanted()) return null;
      const started = Date.now();
      const r = await this.t.client.execute(`SELECT epoch, node, expires_at, released FROM ${this.table} WHERE world = ? AND shard = ?`,
        [this.t.world, shard], { prepare: true, consistency: this.t.serial });
      const row = r.first();
      const expires = started + this.leaseMs;
      let taken: number | null = null;
      if (!row) {
        const ins = await this.lwt(`INSERT INTO ${this.table} (world, shard, epoch, node, expires_at, released) VALUES (?, ?, 1, ?, ?, false) IF NOT EXISTS`,
          [this.t.world, shard, this.holder, expires]);
        if (ins.applied) taken = 1;
      } else {
        const epoch = Number(row.epoch);
        const free = row.released === true || Number(row.expires_at) <= started;
        if (free) {
          const up = await this.lwt(`UPDATE ${this.table} SET epoch = ?, node = ?, expires_at = ?, released = false WHERE world = ? AND shard = ? IF epoch = ?`,
            [epoch + 1, this.holder, expires, this.t.world, shard, epoch]);
          if (up.applied) taken = epoch + 1;
        } else {
          // Held by another: wait for its lease to run out (or to be released), checking now and then.
          await sleep(Math.max(50, Math.min(500, Number(row.expires_at) - started + 20)));
          continue;
        }
      }
      if (taken !== null) {
        const lease = { epoch: taken, validUntil: started + this.leaseMs - LEASE_MARGIN_MS };
        this.held.set(shard, lease);
        this.startRenewing();
        if (!wanted()) { await this.release(shard); return null; }
        return lease;
      }
    }
  }

  /** Lets a shard go: it is no longer renewed, and its next owner need not wait for the lease to run out. */
  async release(shard: number): Promise<void> {
    const l = this.held.get(shard);
    if (!l) return;
    this.held.delete(shard);
    await this.lwt(`UPDATE ${this.table} SET released = true WHERE world = ? AND shard = ? IF epoch = ?`, [this.t.world, shard, l.epoch])
      .catch((e: unknown) => this.opts.log?.(`cluster: shard ${shard} could not be released (its lease runs out instead): ${(e as Error)?.message ?? e}`));
  }

  private startRenewing(): void {
    if (this.renewing) return;
    this.renewing = setInterval(() => void this.renewAll(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.renewing.unref();
  }

  /** Renews every lease held; one whose epoch moved on is lost at once. */
  async renewAll(): Promise<void> {
    await Promise.all([...this.held].map(async ([shard, l]) => {
      const started = Date.now();
      try {
        const r = await this.lwt(`UPDATE ${this.table} SET expires_at = ? WHERE world = ? AND shard = ? IF epoch = ?`,
          [started + this.leaseMs, this.t.world, shard, l.epoch]);
        if (this.held.get(shard) !== l) return;
        if (r.applied) l.validUntil = Math.max(l.validUntil, started + this.leaseMs - LEASE_MARGIN_MS);
        else {
          this.held.delete(shard);
          this.opts.log?.(`cluster: shard ${shard} was taken by ${String(r.row?.node)} (epoch ${String(r.row?.epoch)}); this node no longer writes for it`);
          this.opts.onLost?.(shard);
        }
      } catch (e) {
        // Cassandra did not answer: the lease simply runs out unless a later renewal succeeds.
        this.opts.log?.(`cluster: the lease on shard ${shard} could not be renewed: ${(e as Error)?.message ?? e}`);
      }
    }));
  }

  /** Releases every shard and stops renewing (a node that stops). */
  async close(): Promise<void> {
    if (this.renewing) clearInterval(this.renewing);
    this.renewing = null;
    await Promise.all([...this.held.keys()].map((s) => this.release(s)));
  }

  /** Stops renewing without releasing (a test of a node that froze). */
  freeze(): void {
    if (this.renewing) clearInterval(this.renewing);
    this.renewing = null;
  }
}
