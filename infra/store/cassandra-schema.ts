// The Cassandra store's schema, created and brought up to date by versioned migrations at
// start-up. Each migration is a list of idempotent CQL statements (IF NOT EXISTS); the
// versions applied are recorded in `schema_version`. Two processes starting at once take
// turns: a lease in `schema_lock` (a lightweight transaction with a TTL) lets one of them
// migrate while the other waits until the versions it needs are recorded.
//
// Read docs/cassandra.md for why each table is shaped as it is.
import crypto from 'crypto';
import { errors, types, type Client } from 'cassandra-driver';
import { storeError } from './cassandra-errors';
import { IDEMPOTENCY_TABLE } from './cassandra-idempotency';

export interface Replication {
  class: 'SimpleStrategy' | 'NetworkTopologyStrategy';
  /** SimpleStrategy: the number of replicas. */
  replication_factor?: number;
  /** NetworkTopologyStrategy: replicas per data center, e.g. { dc1: 3, dc2: 3 }. */
  [dataCenter: string]: string | number | undefined;
}

export interface Migration {
  version: number;
  description: string;
  /** CQL with `{ks}` for the keyspace; every statement must be safe to run twice. */
  statements: string[];
}

/** The journal partition size a new keyspace gets unless the store is opened with another (it is kept in store_meta; the first value wins). */
export const DEFAULT_JOURNAL_PARTITION_SIZE = 500;


// Every table of a world's data has `world` as its first partition-key column, and every
// indexed value starts with "<world>|": several worlds share one keyspace (and its schema)
// and see nothing of one another. A new world costs no DDL. The service runs one world per
// keyspace ('main'); tests and benchmarks run many worlds in one keyspace.
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'worlds side by side: journal, snapshots, read model with storage-attached indexes, history by time bucket and by filter, credentials, sequences, settings',
    statements: [
      // Settings of the store itself, fixed when the keyspace is created (the partition sizes),
      // shared by its worlds. Written only by lightweight transactions, read at SERIAL.
      `CREATE TABLE IF NOT EXISTS {ks}.store_meta (name text PRIMARY KEY, value text)`,

      // nact's journal: one row per persisted record, in bounded partitions of
      // journal_partition_size sequence numbers (partition_nr = floor(sequence_nr / size)).
      `CREATE TABLE IF NOT EXISTS {ks}.journal (
        world text, persistence_key text, partition_nr bigint, sequence_nr bigint,
        created_at bigint, data text, tags text, is_deleted boolean,
        PRIMARY KEY ((world, persistence_key, partition_nr), sequence_nr))
        WITH CLUSTERING ORDER BY (sequence_nr ASC)`,

      // Snapshots: the newest first; taking one deletes the older ones of the key.
      `CREATE TABLE IF NOT EXISTS {ks}.snapshots (
        world text, persistence_key text, sequence_nr bigint, created_at bigint, data text,
        PRIMARY KEY ((world, persistence_key), sequence_nr))
        WITH CLUSTERING ORDER BY (sequence_nr DESC)`,

      // The read model: one row per (world, kind, id), partitioned by world, kind and a bucket
      // of ids (bucket = floor(id_num / entity_bucket_size)), clustered by id the way the port
      // orders it: id_num (the integer value of the id, 0 for names) then the id text.
      // The k_* columns hold "<world>|<kind>|<value>" (empty when the row has none) for the
      // storage-attached indexes, written only for the kinds whose named queries read them;
      // k_due holds "<world>|<kind>" when the row has a due day (due_day, indexed since
      // version 4; the day is checked in the process too). Nothing is ever written as null,
      // so upserts leave no tombstones.
      `CREATE TABLE IF NOT EXISTS {ks}.entities (
        world text, kind text, bucket bigint, id_num bigint, id text,
        k_status text, k_location text, k_organization text, k_agent text, k_due text, due_day int,
        doc text,
        PRIMARY KEY ((world, kind, bucket), id_num, id))`,
      `CREATE INDEX IF NOT EXISTS entities_k_status ON {ks}.entities (k_status) USING 'sai'`,
      `CREATE INDEX IF NOT EXISTS entities_k_location ON {ks}.entities (k_location) USING 'sai'`,
      `CREATE INDEX IF NOT EXISTS entities_k_organization ON {ks}.entities (k_organization) USING 'sai'`,
      `CREATE INDEX IF NOT EXISTS entities_k_agent ON {ks}.entities (k_agent) USING 'sai'`,
      `CREATE INDEX IF NOT EXISTS entities_k_due ON {ks}.entities (k_due) USING 'sai'`,
      // The buckets of each kind that hold rows: a listing of a kind walks them in order.
      `CREATE TABLE IF NOT EXISTS {ks}.entity_buckets (
        world text, kind text, bucket bigint, PRIMARY KEY ((world, kind), bucket))
        WITH CLUSTERING ORDER BY (bucket ASC)`,

      // History, newest first: the events, partitioned by a bucket of ids (bucket = floor(id /
      // history_bucket_size)); ids grow with time, so a bucket is a span of time.
      `CREATE TABLE IF NOT EXISTS {ks}.history (world text, bucket bigint,
        id bigint, day int, category text, agent_id bigint, organization_ids text, summary text, data text, created_at text,
        PRIMARY KEY ((world, bucket), id))
        WITH CLUSTERING ORDER BY (id DESC)`,
      // The filters (dimension 'category', 'agent', 'organization' and the value), in slim
      // rows (the id and the filter columns), partitioned by a coarser bucket of ids
      // (history_filter_bucket_size) and clustered by dimension, value and id, newest first:
      // one partition takes every filter row of a batch, and a page of one value is a slice.
      // The other filters are checked on the slim rows; only a page's events are read from history.
      `CREATE TABLE IF NOT EXISTS {ks}.history_filters (world text, bucket bigint, dimension text, value text,
        id bigint, category text, agent_id bigint, organization_ids text,
        PRIMARY KEY ((world, bucket), dimension, value, id))
        WITH CLUSTERING ORDER BY (dimension ASC, value ASC, id DESC)`,
      // Day marks: each batch writes, for each day among its events, the smallest and largest id
      // of that day in it; every event of a day lies between the first and last mark of its day.
      `CREATE TABLE IF NOT EXISTS {ks}.history_days (world text, day int, id bigint,
        PRIMARY KEY ((world, day), id))
        WITH CLUSTERING ORDER BY (id ASC)`,
      // The buckets that hold events, per access path: dimension 'all' (value ''), 'category',
      // 'agent' or 'organization'. A page reads this small partition, then only the buckets
      // listed, newest first.
      `CREATE TABLE IF NOT EXISTS {ks}.history_buckets (
        world text, dimension text, value text, bucket bigint,
        PRIMARY KEY ((world, dimension, value), bucket))
        WITH CLUSTERING ORDER BY (bucket DESC)`,

      `CREATE TABLE IF NOT EXISTS {ks}.credentials (world text, key_hash text, agent_id bigint, PRIMARY KEY ((world, key_hash)))`,
      // Id sequences: the highest id reserved so far. Written only by lightweight transactions.
      `CREATE TABLE IF NOT EXISTS {ks}.sequences (world text, name text, value bigint, PRIMARY KEY ((world, name)))`,
      `CREATE TABLE IF NOT EXISTS {ks}.settings (world text, name text, value text, PRIMARY KEY ((world, name)))`,
    ],
  },
  {
    version: 2,
    description: 'the remembered answers of requests with an Idempotency-Key',
    statements: [
      // Written only by lightweight transactions, each with the TTL the record has left;
      // read at SERIAL (infra/store/cassandra-idempotency.ts).
      IDEMPOTENCY_TABLE,
    ],
  },
  {
    version: 3,
    description: 'shard leases of the nodes (many nodes)',
    statements: [
      // One row per shard: the node that holds it, the epoch of its ownership (each new
      // owner takes the next), until when its lease runs unless renewed, and whether it let
      // it go. Written only by lightweight transactions (infra/cluster/shard-leases.ts).
      `CREATE TABLE IF NOT EXISTS {ks}.shard_leases (world text, shard int, epoch bigint, node text, expires_at bigint, released boolean,
        PRIMARY KEY ((world, shard)))`,
    ],
  },
  {
    version: 4,
    description: 'a storage-attached index on due_day, so that a due query reads only the rows due',
    statements: [
      // With k_due's: WHERE k_due = ? AND due_day <= ? (both indexes). Built in the background
      // for the rows already there; until then the store reads every row with a due day.
      `CREATE INDEX IF NOT EXISTS entities_due_day ON {ks}.entities (due_day) USING 'sai'`,
    ],
  },
];

/** The version a store of this code needs. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

export interface MigrateOptions {
  keyspace: string;
  replication: Replication;
  /** How long to wait for another process's migration before giving up. */
  waitMs?: number;
  log?: (line: string) => void;
}

const LOCK = 'migrations';
const LOCK_TTL_SECONDS = 60;

export function validKeyspace(name: string): string {
  if (!/^[a-zA-Z][a-zA-Z0-9_]{0,47}$/.test(name)) throw new Error(`invalid keyspace name '${name}': letters, digits and _ (at most 48), starting with a letter`);
  return name;
}

export function replicationCql(r: Replication): string {
  const entries = Object.entries(r).filter(([, v]) => v !== undefined);
  if (r.class === 'SimpleStrategy' && !(Number(r.replication_factor) >= 1)) throw new Error('SimpleStrategy needs replication_factor >= 1');
  if (r.class === 'NetworkTopologyStrategy' && entries.length < 2) throw new Error('NetworkTopologyStrategy needs at least one data center and its replica count');
  return `{${entries.map(([k, v]) => `'${String(k).replace(/'/g, "''")}': '${String(v).replace(/'/g, "''")}'`).join(', ')}}`;
}

const serial = { prepare: true, consistency: types.consistencies.serial };

/**
 * Creates the keyspace if needed and applies every migration not yet recorded. Safe when
 * several processes call it at once: one migrates under the lease, the others wait.
 */
export async function migrate(client: Client, opts: MigrateOptions): Promise<number> {
  const ks = validKeyspace(opts.keyspace);
  const log = opts.log ?? (() => undefined);
  const run = async (cql: string, params: unknown[] = [], options: Record<string, unknown> = { prepare: true }) => {
    try {
      return await client.execute(cql.replace(/\{ks\}/g, ks), params, options);
    } catch (e) {
      throw storeError(e, 'schema migration');
    }
  };
  const applied = async () => new Set((await run(`SELECT version FROM {ks}.schema_version`, [], serial)).rows.map((r) => Number(r.version)));
  // A keyspace already up to date (the usual case, and every new world of a keyspace) costs
  // one read and no DDL at all.
  const upToDate = await applied().then((done) => MIGRATIONS.every((m) => done.has(m.version)), (e: unknown) => {
    // The keyspace or its schema_version table does not exist yet: bootstrap below.
    if (e instanceof errors.ResponseError && e.code === types.responseErrorCodes.invalid) return false;
    throw e;
  });
  if (upToDate) return SCHEMA_VERSION;

  // The bootstrap: the keyspace and the two tables the lease needs. These are the only
  // statements two processes may run at the same moment; IF NOT EXISTS makes that harmless
  // on one node, and the driver waits for schema agreement after each (see docs/cassandra.md).
  await run(`CREATE KEYSPACE IF NOT EXISTS {ks} WITH replication = ${replicationCql(opts.replication)}`, [], {});
  await run(`CREATE TABLE IF NOT EXISTS {ks}.schema_version (version int PRIMARY KEY, description text, applied_at timestamp)`, [], {});
  await run(`CREATE TABLE IF NOT EXISTS {ks}.schema_lock (name text PRIMARY KEY, owner text)`, [], {});

  let done = await applied();
  if (MIGRATIONS.every((m) => done.has(m.version))) return SCHEMA_VERSION;

  const owner = crypto.randomUUID();
  const deadline = Date.now() + (opts.waitMs ?? 120_000);
  for (;;) {
    const took = await run(`INSERT INTO {ks}.schema_lock (name, owner) VALUES (?, ?) IF NOT EXISTS USING TTL ${LOCK_TTL_SECONDS}`, [LOCK, owner]);
    if (took.wasApplied()) break;
    // Someone else migrates: wait for the versions, or for its lease to lapse.
    await new Promise((r) => setTimeout(r, 250));
    done = await applied();
    if (MIGRATIONS.every((m) => done.has(m.version))) return SCHEMA_VERSION;
    if (Date.now() > deadline) throw new Error(`schema migration of keyspace ${ks}: another process holds the migration lease for too long`);
  }
  try {
    done = await applied();
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      log(`cassandra: migrating keyspace ${ks} to version ${m.version} (${m.description})`);
      for (const statement of m.statements) await run(statement, [], {});
      // Renew the lease before recording, so a slow migration keeps it.
      await run(`UPDATE {ks}.schema_lock USING TTL ${LOCK_TTL_SECONDS} SET owner = ? WHERE name = ? IF owner = ?`, [owner, LOCK, owner]);
      await run(`INSERT INTO {ks}.schema_version (version, description, applied_at) VALUES (?, ?, ?) IF NOT EXISTS`, [m.version, m.description, new Date()]);
    }
  } finally {
    await run(`DELETE FROM {ks}.schema_lock WHERE name = ? IF owner = ?`, [LOCK, owner]).catch(() => undefined);
  }
  return SCHEMA_VERSION;
}
