// Pure mapping between the store port's values and the Cassandra store's rows: where a
// read-model row or a history event lives (partition and clustering keys) and what the
// index columns hold. No I/O here; cassandra-store.ts does the reading and writing.
import { QUERIES, type HistoryEntry, type HistoryEvent, type ProjectionRow, type QuerySpec } from '../../actors/ports/store';

/** The partition sizes of one keyspace, fixed when it is created (kept in store_meta). */
export interface Layout {
  /** Sequence numbers per journal partition: partition_nr = floor(sequence_nr / size). */
  journalPartitionSize: number;
  /** Integer ids per read-model partition: bucket = floor(id_num / size). */
  entityBucketSize: number;
  /** History ids per partition of the whole history: bucket = floor(id / size). */
  historyBucketSize: number;
  /**
   * History ids per partition of a filter's table (category, agent, organization): coarser, as
   * each holds only the events of one value, in slim rows.
   */
  historyFilterBucketSize: number;
}

/** Which index columns the named queries of a kind read. */
export interface IndexedColumns { status: boolean; location: boolean; organization: boolean; agent: boolean; due: boolean }

const NONE: IndexedColumns = { status: false, location: false, organization: false, agent: false, due: false };
const indexedByKind = new Map<string, IndexedColumns>();
for (const spec of Object.values(QUERIES as Record<string, QuerySpec>)) {
  const c = indexedByKind.get(spec.kind) ?? { ...NONE };
  if (spec.status || spec.by === 'status') c.status = true;
  if (spec.by === 'location_id') c.location = true;
  if (spec.by === 'organization_id') c.organization = true;
  if (spec.by === 'agent_id') c.agent = true;
  if (spec.by === 'due_by') c.due = true;
  indexedByKind.set(spec.kind, c);
}

/**
 * The index columns a kind's rows carry: those its named queries read. The others are never
 * written for that kind (left unset, so not indexed): every value written to an indexed column
 * costs the index work on each write of the row, an empty one included.
 */
export function indexedColumns(kind: string): IndexedColumns {
  return indexedByKind.get(kind) ?? NONE;
}

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

/** The value of k_due: "<world>|<kind>" for a row with a due day, '' otherwise. */
export function dueValue(world: string, kind: string, dueDay?: number | null): string {
  return dueDay === null || dueDay === undefined ? '' : `${world}|${kind}`;
}

/** The index column a `by` of a named query reads, and the value it looks for. */
export function byIndex(world: string, spec: QuerySpec, arg: string | number): { column: string; value: string } {
  switch (spec.by) {
    case 'location_id': return { column: 'k_location', value: indexValue(world, spec.kind, String(arg)) };
    case 'organization_id': return { column: 'k_organization', value: indexValue(world, spec.kind, integerArg(arg)) };
    case 'agent_id': return { column: 'k_agent', value: indexValue(world, spec.kind, integerArg(arg)) };
    case 'status': return { column: 'k_status', value: indexValue(world, spec.kind, String(arg)) };
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

/**
 * The values of one entities row of a world, in ENTITY_COLUMNS order. Index columns its kind's
 * queries never read are `undefined` (unset: not written, not indexed); an absent value of a
 * column they read is '' (written, so it replaces an earlier value). due_day is written with
 * k_due and only read where k_due is set.
 */
export function entityValues(layout: Layout, world: string, row: ProjectionRow): unknown[] {
  const k = entityKey(layout, row.kind, row.id);
  const c = indexedColumns(row.kind);
  const hasDue = row.due_day !== null && row.due_day !== undefined;
  return [
    world, k.kind, k.bucket, k.idNum, k.id,
    c.status ? indexValue(world, row.kind, row.status) : undefined,
    c.location ? indexValue(world, row.kind, row.location_id) : undefined,
    c.organization ? indexValue(world, row.kind, row.organization_id) : undefined,
    c.agent ? indexValue(world, row.kind, row.agent_id) : undefined,
    c.due ? dueValue(world, row.kind, row.due_day) : undefined,
    c.due && hasDue ? row.due_day : undefined,
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

/**
 * One access path of the history: the whole history (the events, in `history`), or one value
 * of a filter (slim rows: the id and the filter columns, in `history_filters`, clustered by
 * dimension and value within coarser buckets), and the dimension its buckets are listed under.
 */
export interface HistoryPath {
  dimension: 'all' | 'category' | 'agent' | 'organization';
  /** The filter's value ('' for the whole history). */
  value: string;
}

export const allHistory: HistoryPath = { dimension: 'all', value: '' };
export const byCategory = (category: string): HistoryPath => ({ dimension: 'category', value: category });
export const byAgent = (agent: number): HistoryPath => ({ dimension: 'agent', value: String(agent) });
export const byOrganization = (organization: number): HistoryPath => ({ dimension: 'organization', value: String(organization) });

/** A filter's path (slim rows in history_filters), as against the whole history. */
export const isFilter = (path: HistoryPath): boolean => path.dimension !== 'all';

/** The bucket of an id on a path: history_bucket_size for the whole history, history_filter_bucket_size for a filter. */
export function pathBucket(layout: Layout, path: HistoryPath, id: number): number {
  return Math.floor(id / (isFilter(path) ? layout.historyFilterBucketSize : layout.historyBucketSize));
}

/** Every access path an entry is written to: the whole history, its category, its agent, each organization it names. */
export function historyPaths(entry: HistoryEntry): HistoryPath[] {
  const paths = [allHistory, byCategory(entry.category)];
  if (entry.agent_id !== null && entry.agent_id !== undefined) paths.push(byAgent(entry.agent_id));
  for (const o of new Set(entry.organization_ids)) paths.push(byOrganization(o));
  return paths;
}

export const HISTORY_COLUMNS = 'id, day, category, agent_id, organization_ids, summary, data, created_at';
/** The columns of a filter table's slim row: enough to apply the other filters before reading the events. */
export const FILTER_COLUMNS = 'id, category, agent_id, organization_ids';

/** The slim row of a filter table, in FILTER_COLUMNS order. */
export function filterValues(id: number, entry: HistoryEntry): unknown[] {
  return [id, entry.category, entry.agent_id ?? undefined, JSON.stringify(entry.organization_ids)];
}

/** A filter table's slim row as read back. */
export function toFilterRow(r: { get(name: string): unknown }): { id: number; category: string; agent_id: number | null; organization_ids: number[] } {
  const agent = r.get('agent_id');
  return {
    id: num(r.get('id')), category: String(r.get('category')),
    agent_id: agent === null || agent === undefined ? null : num(agent),
    organization_ids: JSON.parse(String(r.get('organization_ids'))) as number[],
  };
}

/**
 * The day marks one batch writes: for each day among its events, the smallest and the largest
 * id of that day in the batch. Every event of a day then lies between the smallest and the
 * largest mark of its day, whatever the order of ids across processes.
 */
export function dayMarks(events: Array<{ id: number; day: number }>): Array<{ day: number; id: number }> {
  const range = new Map<number, [number, number]>();
  for (const { id, day } of events) {
    const r = range.get(day);
    if (!r) range.set(day, [id, id]);
    else { if (id < r[0]) r[0] = id; if (id > r[1]) r[1] = id; }
  }
  const marks: Array<{ day: number; id: number }> = [];
  for (const [day, [lo, hi]] of range) {
    marks.push({ day, id: lo });
    if (hi !== lo) marks.push({ day, id: hi });
  }
  return marks;
}

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
