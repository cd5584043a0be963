// The store port. Actors persist their events through nact's PersistenceEngine; the
// same write carries the read-model rows and history entries the event produces, so the
// journal, the projections and the public history can never disagree.
import type { PersistenceEngine } from 'nact';

/** One row of the read model: the public view of an entity, plus the columns reads filter on. */
export interface ProjectionRow {
  kind: string;
  id: string | number;
  status?: string | null;
  location_id?: string | null;
  organization_id?: number | null;
  agent_id?: number | null;
  /** The row leaves the read model (a party of an ended organization). */
  deleted?: boolean;
  /** The next day the entity has work of its own to do (a wound heals, a deadline passes); the daily fan-out finds it by this. */
  due_day?: number | null;
  doc: Record<string, unknown>;
}

/** One entry of the public world history, before the store gives it its id. */
export interface HistoryEntry {
  day: number;
  category: string;
  agent_id: number | null;
  organization_ids: number[];
  summary: string;
  data?: Record<string, unknown>;
}

export interface HistoryEvent extends HistoryEntry {
  id: number;
  created_at: string;
}

/** A key hash and the agent it authenticates. The hash never enters a ProjectionRow. */
export interface Credential {
  key_hash: string;
  agent_id: number;
}

/** What an actor's persisted event also writes, in the same durable step. */
export interface Writes {
  rows?: ProjectionRow[];
  history?: HistoryEntry[];
  credentials?: Credential[];
}

export interface HistoryQuery {
  limit: number;
  category?: string;
  agent_id?: number;
  /** Only events that name this organization among their organization_ids. */
  organization_id?: number;
  before_id?: number;
}

export interface RowQuery {
  status?: string | string[];
  location_id?: string;
  organization_id?: number;
  agent_id?: number;
  /** Only rows whose due_day is at most this day. */
  due_by?: number;
  limit?: number;
  offset?: number;
}

/** Reads over the projections: what every read endpoint answers from. */
export interface ReadModel {
  row<T = Record<string, unknown>>(kind: string, id: string | number): T | undefined;
  rows<T = Record<string, unknown>>(kind: string, query?: RowQuery): T[];
  /** The ids of matching rows, as stored (text). */
  ids(kind: string, query?: RowQuery): string[];
  count(kind: string, query?: RowQuery): number;
  history(query: HistoryQuery): HistoryEvent[];
  historyCount(query: Omit<HistoryQuery, 'limit'>): number;
  historyEvent(id: number): HistoryEvent | undefined;
  /** Events of the days fromDay..toDay, at most `limit` of them: those nearest to event `nearId`, in id order. */
  historyBetweenDays(fromDay: number, toDay: number, limit: number, nearId: number): HistoryEvent[];
  agentForKeyHash(keyHash: string): number | undefined;
}

/** Everything the service needs from a persistence backend. */
export interface Store extends ReadModel {
  /** The nact engine; its persist(event, writes) applies `writes` in the same transaction. */
  engine: PersistenceEngine;
  /** A new identifier of the given sequence (organization, agent, ...); never reused. */
  nextId(sequence: string): number;
  /** Makes sure the sequence will not hand out ids up to `value` (the seeded world takes fixed ids). */
  reserveIdsUpTo(sequence: string, value: number): void;
  /** Small durable settings (generated keys, world seed). */
  setting(name: string): string | undefined;
  setSetting(name: string, value: string): void;
  close(): Promise<void>;
}
