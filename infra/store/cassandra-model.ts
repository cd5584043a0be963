// Pure mapping between the store port's values and the Cassandra store's rows: where a
// read-model row or a history event lives (partition and clustering keys) and what the
// index columns hold. No I/O here; cassandra-store.ts does the reading and writing.
import type { HistoryEntry, HistoryEvent, ProjectionRow, QuerySpec } from '../../actors/ports/store';

/** The partition sizes of one keyspace, fixed when it is created (kept in store_meta). */
export interface Layout {
  /** Sequence numbers per journal partition: partition_nr = floor(sequence_nr / size). */
  journalPartitionSize: number;
  /** Integer ids per read-model partition: bucket = floor(id_num / size). */
  entityBucketSize: number;
  /** History ids per history partition: bucket = floor(id / size). */
  historyBucketSize: number;
}

/** due_day of a row with no due day: above every day, so `due_day <= day` never finds it. */
export const NO_DUE_DAY = 2147483647;

/**
 * The integer an id sorts by, as the port's compareIds ranks it: an integer id (or its
 * text, digits only) is its value; any other id (a place's name, a chronicle report's
 * `world-event-3`) is 0. Rows cluster by (id_num, id), which is compareIds' order.
 */
export function idNum(id: string | number): number {
  const n = typeof id === 'number' ? id : /^\d+$/.test(id) ? Number(id) : 0;
  // Beyond 2^53 an id still gets a row of its own (by its text), ordered among the largest.
  return Number.isSafeInteger(n) ? n : n > 0 ? Number.MAX_SAFE_INTEGER : 0;
}

export interface EntityKey { kind: string; bucket: number; idNum: number; id: string }

export function entityKey(layout: Layout, kind: string, id: string | number): EntityKey {
  const n = idNum(id);
  return { kind, bucket: Math.floor(n / layout.entityBucketSize), idNum: n, id: String(id) };
}

/** The world of a store when none is named: a keyspace of the service holds this one world. */
export const DEFAULT_WORLD = 'main';

/**
 * A world's name: letters, digits, `_` and `-` (at most 48). It is the first partition-key
 * column of every table of a world's data and the first part of every index value, so it
 * must never contain the index values' separator `|`.
 */
export function validWorld(name: string): string {
  if (!/^[A-Za-z0-9_-]{1,48}$/.test(name)) throw new Error(`invalid world name '${name}': letters, digits, _ and - (1 to 48)`);
  return name;
}

/**
 * The value of an index column: "<world>|<kind>|<value>", or '' (not indexed) when the row
 * has none. World and kind never contain '|', so two different (world, kind, value) never
 * share an index value: a lookup stays within its world and kind.
 */
export function indexValue(world: string, kind: string, value: string | number | null | undefined): string {
  return value === null || value === undefined ? '' : `${world}|${kind}|${value}`;
}

/** The value of k_due: "<world>|<kind>" for a row with a due day, '' (not indexed) otherwise. */
export function dueValue(world: string, kind: string, dueDay?: number | null): string {
  return dueDay === null || dueDay === undefined ? '' : `${world}|${kind}`;
}

/** The index column a `by` of a named query reads, and the value it looks for. */
export function byIndex(world: string, spec: QuerySpec, arg: string | number): { column: string; value: string } {
  switch (spec.by) {
    case 'location_id': return { column: 'k_location', value: indexValue(world, spec.kind, String(arg)) };
    case 'organization_id': return { column: 'k_organization', value: indexValue(world, spec.kind, integerArg(arg)) };
    case 'agent_id': return { column: 'k_agent', value: indexValue(world, spec.kind, integerArg(arg)) };
    default: throw new Error(`query by ${spec.by} has no index column`);
  }
}

/** An integer column's argument as the index stores it ('5' and 5 alike); anything else matches nothing. */
function integerArg(arg: string | number): string {
  const n = typeof arg === 'number' ? arg : String(arg).trim() === '' ? NaN : Number(String(arg).trim());
  return Number.isFinite(n) ? String(n) : `\u0000${String(arg)}`;
}

/** The columns of one entities row, in the order entityValues gives their values. */
export const ENTITY_COLUMNS = 'world, kind, bucket, id_num, id, k_status, k_location, k_organization, k_agent, k_due, due_day, doc';

/** The values of one entities row of a world, in ENTITY_COLUMNS order. */
export function entityValues(layout: Layout, world: string, row: ProjectionRow): unknown[] {
  const k = entityKey(layout, row.kind, row.id);
  return [
    world, k.kind, k.bucket, k.idNum, k.id,
    indexValue(world, row.kind, row.status),
    indexValue(world, row.kind, row.location_id),
    indexValue(world, row.kind, row.organization_id),
    indexValue(world, row.kind, row.agent_id),
    dueValue(world, row.kind, row.due_day),
    row.due_day === null || row.due_day === undefined ? NO_DUE_DAY : row.due_day,
    JSON.stringify(row.doc),
  ];
}

/** The order of the port's compareIds, on keys whose id_num is already known. */
export function compareKeys(a: { idNum: number; id: string }, b: { idNum: number; id: string }): number {
  return a.idNum - b.idNum || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function historyBucket(layout: Layout, id: number): number {
  return Math.floor(id / layout.historyBucketSize);
}

/** One access path of the history: its table, its partition column, and the dimension its buckets are listed under. */
export interface HistoryPath {
  table: string;
  /** The partition column besides `bucket` (none for the whole history). */
  column?: string;
  dimension: 'all' | 'category' | 'agent' | 'organization' | 'day';
  /** The partition value: a string for category, a number otherwise. */
  value?: string | number;
}

export const allHistory: HistoryPath = { table: 'history', dimension: 'all' };
export const byCategory = (category: string): HistoryPath => ({ table: 'history_by_category', column: 'by_category', dimension: 'category', value: category });
export const byAgent = (agent: number): HistoryPath => ({ table: 'history_by_agent', column: 'by_agent', dimension: 'agent', value: agent });
export const byOrganization = (organization: number): HistoryPath => ({ table: 'history_by_organization', column: 'by_organization', dimension: 'organization', value: organization });
export const byDay = (day: number): HistoryPath => ({ table: 'history_by_day', column: 'by_day', dimension: 'day', value: day });

/** The value under which a path's buckets are listed in history_buckets. */
export function dimensionValue(path: HistoryPath): string {
  return path.value === undefined ? '' : String(path.value);
}

/** Every access path an entry is written to: the whole history, its day, its category, its agent, each organization it names. */
export function historyPaths(entry: HistoryEntry): HistoryPath[] {
  const paths = [allHistory, byDay(entry.day), byCategory(entry.category)];
  if (entry.agent_id !== null && entry.agent_id !== undefined) paths.push(byAgent(entry.agent_id));
  for (const o of new Set(entry.organization_ids)) paths.push(byOrganization(o));
  return paths;
}

export const HISTORY_COLUMNS = 'id, day, category, agent_id, organization_ids, summary, data, created_at';

/** The event columns of a history row, in HISTORY_COLUMNS order. */
export function historyValues(id: number, entry: HistoryEntry, createdAt: string): unknown[] {
  return [
    id, entry.day, entry.category,
    // undefined is "unset": a fresh row gets no tombstone for an absent agent.
    entry.agent_id ?? undefined,
    JSON.stringify(entry.organization_ids), entry.summary, JSON.stringify(entry.data ?? {}), createdAt,
  ];
}

/** A history row as read back. */
export function toHistoryEvent(r: { get(name: string): unknown }): HistoryEvent {
  const agent = r.get('agent_id');
  return {
    id: num(r.get('id')),
    day: num(r.get('day')),
    category: String(r.get('category')),
    agent_id: agent === null || agent === undefined ? null : num(agent),
    organization_ids: JSON.parse(String(r.get('organization_ids'))) as number[],
    summary: String(r.get('summary')),
    data: JSON.parse(String(r.get('data'))) as Record<string, unknown>,
    created_at: String(r.get('created_at')),
  };
}

/** A number from a driver value (bigint columns come back as Long). */
export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v && typeof (v as { toNumber?: unknown }).toNumber === 'function') return (v as { toNumber(): number }).toNumber();
  return Number(v);
}
