// The store port, owned by the domain. Actors persist their events through nact's
// PersistenceEngine; the same write carries the read-model rows, history entries and
// credentials the events produce, so the journal, the projections and the public history
// never disagree. Reads go through named queries: each is one access path that the
// handlers and actors really use, and each maps to one table or index of every adapter
// (an SQLite index; a Cassandra table or storage-attached index). Every method is
// asynchronous, so a store across the network fits the same port as the embedded one.
import type { PersistedEvent, PersistedSnapshot } from 'nact';

export type { PersistedEvent, PersistedSnapshot };

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
  /**
   * Filled in by a store whose writes become durable in the order they were queued (the
   * embedded store): the write's number, set before `persist` returns. A write queued after
   * another is never durable before it, so an actor may go on once its write is numbered
   * and answer once the last write its answer reflects is durable (actors/region.ts). A
   * store that leaves it empty is waited on at every write.
   */
  ticket?: { seq?: number };
  /** Numbered writes this one depends on: it fails, and writes nothing, if any of them failed. */
  after?: number[];
}

/**
 * A named query: rows of one kind, optionally those whose `by` column equals the
 * argument, optionally only those in the listed statuses (a `by: 'status'` query takes the
 * status as its argument instead, for a listing filtered by the status a request names;
 * only for kinds whose status is already indexed, so that no older world's rows lack it). Rows come in id order
 * (`compareIds`: integer ids numerically, string ids by name). `due_by` queries take a
 * day and return the rows whose due_day is at most that day. A row whose filtered column
 * is null never matches.
 */
export interface QuerySpec {
  kind: string;
  /** The column the argument is compared with: a place, an organization, an agent, a status (one of a kind's, asked for by a request), or `due_by`. */
  by?: 'location_id' | 'organization_id' | 'agent_id' | 'status' | 'due_by';
  status?: readonly string[];
  /**
   * The document's field that holds the day a row was made: the query can also be read
   * newest first (ReadModel.listNewestJson), so that a page of a listing as long as the
   * world's correspondence is read without the rest where the adapter keeps that order in
   * an index (SQLite; Cassandra sorts what it reads). Not with `by: 'due_by'`.
   */
  newestBy?: 'sent_day';
  /**
   * A field of the document that the argument is compared with (equal, of the same type),
   * for a filter that no index column of the kind holds in every store: Cassandra writes
   * only the index columns a kind's queries read, so the rows an older version wrote lack a
   * new one, while every document holds its fields. SQLite reads it through an index on the
   * field; Cassandra reads the kind's rows and compares each document's field. Not with `by`
   * or `status`.
   */
  field?: 'requester_id' | 'status';
}

/** Every access path of the read model. Adding one means adding its index to every adapter. */
export const QUERIES = {
  agents: { kind: 'agent' },
  activeAgents: { kind: 'agent', status: ['active'] },
  departures: { kind: 'departure' },

  organizations: { kind: 'organization' },
  activeOrganizations: { kind: 'organization', status: ['active'] },
  bankruptOrganizations: { kind: 'organization', status: ['bankrupt'] },
  dissolvedOrganizations: { kind: 'organization', status: ['dissolved'] },
  organizationsOfAgent: { kind: 'organization', by: 'agent_id' },
  activeOrganizationsAt: { kind: 'organization', by: 'location_id', status: ['active'] },

  adventurersListed: { kind: 'adventurer', status: ['available', 'employed'] },
  adventurersAvailable: { kind: 'adventurer', status: ['available'] },
  adventurersEmployed: { kind: 'adventurer', status: ['employed'] },
  adventurersDead: { kind: 'adventurer', status: ['dead'] },
  membersOf: { kind: 'adventurer', by: 'organization_id' },
  employeesOf: { kind: 'adventurer', by: 'organization_id', status: ['employed'] },
  adventurersDue: { kind: 'adventurer', by: 'due_by' },

  projects: { kind: 'project' },
  activeProjects: { kind: 'project', status: ['active'] },
  projectsOf: { kind: 'project', by: 'organization_id' },
  projectsAt: { kind: 'project', by: 'location_id' },
  activeProjectsAt: { kind: 'project', by: 'location_id', status: ['active'] },
  activeProjectsOf: { kind: 'project', by: 'organization_id', status: ['active'] },
  projectsInStatus: { kind: 'project', by: 'status' },
  productionPlans: { kind: 'production' },

  contracts: { kind: 'contract' },
  /** A contract row keeps its proposer in organization_id and its counterparty in agent_id. */
  contractsProposedBy: { kind: 'contract', by: 'organization_id' },
  contractsOfferedTo: { kind: 'contract', by: 'agent_id' },
  contractsInStatus: { kind: 'contract', field: 'status' },
  /**
   * The live contracts (actors/contract/rules.ts LIVE_CONTRACT_STATUSES) of either side. Rows
   * an older version wrote to Cassandra lack the status column; the live ones are written
   * again once per world at start-up (actors/contract/live-rows.ts).
   */
  liveContractsProposedBy: { kind: 'contract', by: 'organization_id', status: ['proposed', 'accepted'] },
  liveContractsOfferedTo: { kind: 'contract', by: 'agent_id', status: ['proposed', 'accepted'] },

  alliances: { kind: 'alliance' },
  liveAlliances: { kind: 'alliance', status: ['proposed', 'active'] },
  /** An alliance row keeps its proposer in organization_id and its counterparty in agent_id. */
  alliancesProposedBy: { kind: 'alliance', by: 'organization_id' },
  alliancesOfferedTo: { kind: 'alliance', by: 'agent_id' },
  liveAlliancesProposedBy: { kind: 'alliance', by: 'organization_id', status: ['proposed', 'active'] },
  liveAlliancesOfferedTo: { kind: 'alliance', by: 'agent_id', status: ['proposed', 'active'] },
  alliancesInStatus: { kind: 'alliance', by: 'status' },

  parties: { kind: 'party' },
  partiesOf: { kind: 'party', by: 'organization_id' },

  establishments: { kind: 'establishment' },
  establishmentsOf: { kind: 'establishment', by: 'organization_id' },
  establishmentsAt: { kind: 'establishment', by: 'location_id' },

  questsListed: { kind: 'quest', status: ['open', 'accepted', 'resolved'] },
  liveQuests: { kind: 'quest', status: ['open', 'accepted'] },
  openQuests: { kind: 'quest', status: ['open'] },
  questsAt: { kind: 'quest', by: 'location_id' },
  openQuestsAt: { kind: 'quest', by: 'location_id', status: ['open'] },
  questsDue: { kind: 'quest', by: 'due_by' },
  questsInStatus: { kind: 'quest', by: 'status' },
  /** A quest's requester is its row's organization_id too, but quests' rows in an older keyspace lack that index column. */
  questsRequestedBy: { kind: 'quest', field: 'requester_id' },

  messages: { kind: 'message', newestBy: 'sent_day' },
  publicMessages: { kind: 'message', status: ['public', 'chronicle'], newestBy: 'sent_day' },
  /** A message row keeps its sender in organization_id and its recipient in agent_id. */
  messagesFrom: { kind: 'message', by: 'organization_id', newestBy: 'sent_day' },
  privateMessagesTo: { kind: 'message', by: 'agent_id', status: ['private'], newestBy: 'sent_day' },

  locations: { kind: 'location' },
  markets: { kind: 'market' },
  marketsAt: { kind: 'market', by: 'location_id' },

  worldEvents: { kind: 'world_event' },
  activeWorldEvents: { kind: 'world_event', status: ['active'] },
  expiredWorldEvents: { kind: 'world_event', status: ['expired'] },

  /** One organization's trust score toward another (actors/organization/actor.ts trustRows), in the order of the pairs. */
  trusts: { kind: 'trust' },

  suggestions: { kind: 'suggestion' },
  suggestionsOfAgent: { kind: 'suggestion', by: 'agent_id' },

  /**
   * Actions that span actors whose initiating actor recorded its intent and has not yet
   * recorded the end (actors/intents.ts): one row per actor, `<kind>:<id>`, deleted when it ends.
   */
  pendingIntents: { kind: 'intent' },
} as const satisfies Record<string, QuerySpec>;

export type QueryName = keyof typeof QUERIES;

/**
 * The order of every listing: ids that are integers numerically, after any ids that are
 * not (a chronicle message's `world-event-3`, a location's `emberfall`), which sort by
 * name. Adapters that cannot sort this way in the database sort with this.
 */
export function compareIds(a: string | number, b: string | number): number {
  const rank = (id: string | number) => (typeof id === 'number' ? id : /^\d+$/.test(id) ? Number(id) : 0);
  const byNumber = rank(a) - rank(b);
  if (byNumber !== 0) return byNumber;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The order of a listing newest first (QuerySpec.newestBy): the later day first, and within
 * a day the listings' order reversed (compareIds), so that of two messages sent the same day
 * the one with the higher id, sent later, comes first.
 */
export function compareNewest(a: { id: string | number; day: number }, b: { id: string | number; day: number }): number {
  return b.day - a.day || compareIds(b.id, a.id);
}

export interface HistoryQuery {
  limit: number;
  category?: string;
  agent_id?: number;
  /** Only events that name this organization among their organization_ids. */
  organization_id?: number;
  before_id?: number;
}

/** A row of a named query as stored: its id (text) and its document (JSON text). */
export interface StoredRow { id: string; doc: string }

/** Reads over the projections: what every read endpoint answers from. */
export interface ReadModel {
  /** One row by kind and id (any kind). */
  row<T = Record<string, unknown>>(kind: string, id: string | number): Promise<T | undefined>;
  /**
   * The rows of a named query, in id order; `arg` is the value of its `by` column (a day for
   * due queries). With `pick`, each document is handed to it as it is read and only what it
   * returns is kept: a long listing of which a few fields are needed (the day's fan-out over
   * every active organization) holds no whole documents.
   */
  list<T = Record<string, unknown>>(query: QueryName, arg?: string | number, pick?: (doc: any) => T): Promise<T[]>;
  /**
   * One page of a named query's rows in id order: at most `limit` of those whose id comes
   * after `afterId` in that order (`compareIds`), or from the first when it is undefined.
   */
  listPage<T = Record<string, unknown>>(query: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number): Promise<T[]>;
  /**
   * The documents of a named query's rows as stored (JSON text), in id order: for answers
   * that carry them unchanged, which need not parse them only to write them again.
   */
  listJson(query: QueryName, arg?: string | number): Promise<string[]>;
  /** One page as `listPage` reads it, each row's id and its document as stored (JSON text); a store may give the same rows to every reader, so none may change them. */
  listPageJson(query: QueryName, arg: string | number | undefined, afterId: string | undefined, limit: number): Promise<readonly StoredRow[]>;
  /**
   * The rows of a named query in id order after `afterId` (from the first when undefined),
   * each row's id and its document as stored, in chunks read as they are taken: a listing
   * filtered by what no query selects (a reward's range, an establishment's kind) is read
   * only as far as its page needs. SQLite reads each chunk from where the last one ended (256
   * rows, then larger ones as the scan goes on), so a scan is not a snapshot: a chunk read
   * after a commit sees it, and as the chunks cover separate spans of ids no row comes twice.
   * Cassandra reads the rows once and sorts them, as for a page: one chunk.
   */
  scanJson(query: QueryName, arg: string | number | undefined, afterId: string | undefined): AsyncIterable<readonly StoredRow[]>;
  /**
   * A page of a named query that can be read newest first (its spec's `newestBy`): the rows in
   * that order (compareNewest), after skipping `offset` of them, at most `limit`, each row's id
   * and its document as stored. Only the page is read where the adapter keeps that order.
   */
  listNewestJson(query: QueryName, arg: string | number | undefined, offset: number, limit: number): Promise<readonly StoredRow[]>;
  /** The ids of a named query's rows, as stored (text), in id order. */
  ids(query: QueryName, arg?: string | number): Promise<string[]>;
  count(query: QueryName, arg?: string | number): Promise<number>;
  /** `count`, counting no further than `max`: for a rule that only asks whether there are that many (reads at most `max` rows). */
  countAtMost(query: QueryName, max: number, arg?: string | number): Promise<number>;

  /** History, newest first, by the filters of GET /api/events. */
  history(query: HistoryQuery): Promise<HistoryEvent[]>;
  /** How many events an agent caused. */
  historyCountOfAgent(agentId: number): Promise<number>;
  /**
   * Events with ids above `afterId`, oldest first, at most `limit`: the history read as
   * an outbox (the Kafka relay). Where writes from several writers become visible out of
   * id order (Cassandra), an id may appear later than a higher one; callers allow for it.
   */
  historySince(afterId: number, limit: number): Promise<HistoryEvent[]>;
  /** The id of the newest history event (0 before any). */
  lastHistoryId(): Promise<number>;
  /**
   * How many history events there are. Not always the newest id: where ids are reserved
   * before their write (Cassandra), a write that fails or times out leaves its ids unused.
   */
  historyCount(): Promise<number>;
  historyEvent(id: number): Promise<HistoryEvent | undefined>;
  /** Events of the days fromDay..toDay, at most `limit` of them: those nearest to event `nearId` (the earlier of two as near), in id order. */
  historyBetweenDays(fromDay: number, toDay: number, limit: number, nearId: number): Promise<HistoryEvent[]>;

  agentForKeyHash(keyHash: string): Promise<number | undefined>;
}

/** What nact replays on recovery: `reduce` takes nact's async reducer and returns its result (a promise). */
export interface EventStream {
  reduce<U>(reducer: (previous: U, event: PersistedEvent, index: number) => U, initial: U): U | Promise<U>;
}

/**
 * The persistence engine nact runs on (it is handed to nact's configurePersistence).
 * persist(event, writes) resolves only once the event and its writes are durable
 * together, all or nothing; an actor answers only after that.
 */
export interface StoreEngine {
  /** The events of one persistence key with sequence numbers above `offset`, at most `limit`, in sequence order. */
  events(persistenceKey: string, offset?: number, limit?: number, tags?: string[]): EventStream;
  /** The snapshot with the highest sequence number, or undefined. */
  latestSnapshot(persistenceKey: string): Promise<PersistedSnapshot | undefined>;
  takeSnapshot(snapshot: PersistedSnapshot): Promise<void>;
  persist(event: PersistedEvent, writes?: Writes): Promise<void>;
}

/** An EventStream over events loaded at once (for adapters whose reads are asynchronous). */
export const eventStream = (load: () => Promise<PersistedEvent[]>): EventStream => ({
  reduce: (reducer, initial) => load().then((events) => events.reduce(reducer, initial)),
});

/**
 * The store cannot be reached right now (a database across the network is down or
 * overloaded). The service answers 503 and tries again later; the outcome of a write
 * that failed so is unknown.
 */
export class StoreUnavailableError extends Error {
  /** The HTTP status the service answers with. */
  readonly status = 503;
  constructor(message: string, readonly cause?: unknown) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * One remembered request: what an Idempotency-Key (within its caller's scope) stands for.
 * The store treats every text field as opaque; the HTTP layer (http/idempotency.ts)
 * decides what goes in (hashes, and answers and notes it has encrypted).
 */
export interface IdempotencyRecord {
  /** What the request was (a hash of its method, path and body): another request under the same key is refused. */
  fingerprint: string;
  /** The attempt acting under the key now (a random token); only it may note, complete or release. */
  owner: string;
  /** Until when (ms since the epoch) the owner's claim holds while it has no answer; after that a retry may take it over. */
  leaseUntil: number;
  /** When the record is forgotten (ms since the epoch): 24 hours after the first request. */
  expiresAt: number;
  /** What the acting attempt noted so a retry acts the same way (the ids it took), or null. */
  notes: string | null;
  /** The final answer, or null while the request is still being acted on. */
  answer: string | null;
}

/** What `claim` found: `taken` means the caller now owns the record and must act. */
export type IdempotencyClaim = { taken: true; record: IdempotencyRecord } | { taken: false; record: IdempotencyRecord };

/**
 * The remembered answers of requests sent with an Idempotency-Key. Each key is claimed
 * atomically (on a store across several nodes too): of two requests racing for a key,
 * exactly one is `taken`. Every method takes `now` (ms since the epoch) from the caller,
 * and a record whose `expiresAt` is at most `now` counts as absent.
 */
export interface IdempotencyStore {
  /**
   * Takes `key` for `fresh` when there is no live record (none, or one expired), or when
   * the live record has the same fingerprint, no answer and a lease that has run out (an
   * attempt that stopped part-way): then `fresh.owner` and `fresh.leaseUntil` replace its
   * owner and lease, and its notes and expiry stay. Otherwise answers the live record.
   */
  claim(key: string, fresh: IdempotencyRecord, now: number): Promise<IdempotencyClaim>;
  /** The live record of `key`, if any. */
  idempotencyRecord(key: string, now: number): Promise<IdempotencyRecord | undefined>;
  /** Replaces the notes, if `owner` still owns the record; answers whether it did. */
  note(key: string, owner: string, notes: string, now: number): Promise<boolean>;
  /** Records the final answer, if `owner` still owns the record; answers whether it did. */
  complete(key: string, owner: string, answer: string, now: number): Promise<boolean>;
  /** Forgets the record, if `owner` still owns it and it has no answer (the outcome was not final). */
  release(key: string, owner: string): Promise<void>;
}

/** Everything the service needs from a persistence backend. */
export interface Store extends ReadModel {
  /** The remembered answers of requests with an Idempotency-Key. */
  idempotency: IdempotencyStore;
  /** Resolves when the store answers; rejects with StoreUnavailableError when it cannot be reached. */
  ping(): Promise<void>;
  /** The nact engine; its persist(event, writes) applies `writes` together with the event, all or nothing. */
  engine: StoreEngine;
  /** A new identifier of the given sequence (organization, agent, ...); never reused. */
  nextId(sequence: string): Promise<number>;
  /** Makes sure the sequence will not hand out ids up to `value` (the seeded world takes fixed ids). */
  reserveIdsUpTo(sequence: string, value: number): Promise<void>;
  /** Small durable settings (generated operator keys, the world seed, whether the world was seeded). */
  setting(name: string): Promise<string | undefined>;
  /** Several settings read at once (one request on Cassandra): the value of each name that has one. */
  settings(names: readonly string[]): Promise<Map<string, string>>;
  setSetting(name: string, value: string): Promise<void>;
  close(): Promise<void>;
  /**
   * A number that changes whenever anything the read model answers may have changed, before
   * any write that changed it is acknowledged (the embedded store counts its commits): reads
   * may keep their answers while it stays the same (http/read-cache.ts). Absent where other
   * processes change the read model too (Cassandra on many nodes); undefined while the store
   * cannot tell (a write that failed may still land): then nothing is kept.
   */
  readGeneration?(): number | undefined;
}
