// The shell every entity actor shares. An entity kind supplies pure rules (evolve,
// project, chronicle) and a `handle` that turns a command into events, asking actors of
// lower rank when it must (see docs/architecture.md for the order). The shell persists
// the events together with the rows and history they produce, then replies.
import type { Entities } from './ports/entities';
import type { HistoryEntry, ProjectionRow, ReadModel, Credential } from './ports/store';
import type { Refusal } from './result';

/**
 * What an actor may use while it handles a command: `ask` an actor of a lower rank
 * (asking upward throws: it could deadlock), `tell` anyone (no answer is awaited), and
 * read the read model. A tell leaves at once, before the writes of the command that sends
 * it are durable (before they are even made, when sent from `handle`), and nothing waits
 * on it; no actor tells another today, and one that does should tell only what holds
 * whether or not its own write lands.
 */
export interface EntityIO extends Entities {
  read: ReadModel;
}

/**
 * Every command type of a kind's protocol, each once (`{ found: true, update: true, ... }`):
 * one missing from the Command union, or not in it, does not compile. The region refuses
 * any other command type before the actor sees it.
 */
export type CommandTypes<C extends { type: string }> = { readonly [T in C['type']]: true };

/**
 * What handling a command produced: events to persist and the answer to give. A step of
 * an action that spans actors (a saga) records its intent first: its outcome names the
 * intent's events and, in `andThen`, the rest of the action, which runs once those events
 * are durable and may itself record events and go on (see docs/architecture.md, "Actions
 * that span actors"). A refusal may carry events too: the compensation recorded before
 * the refusal is answered, closing an intent a lower actor refused.
 */
export type Outcome<S, E> =
  | {
    events: E[];
    reply?: (state: S) => unknown;
    /** Work that must follow the durable write and precede the answer (the clock's daily fan-out). */
    after?: (state: S) => Promise<void>;
    /** The rest of the action, run on the state after these events are durable. */
    andThen?: (state: S) => Promise<Outcome<S, E>> | Outcome<S, E>;
  }
  | { refusal: Refusal; events?: E[] };

/**
 * The events of `first` and the rest of its action, then `next`: how a command goes on after
 * finishing what was under way (an intent a crash or a 503 left pending), without dropping
 * the steps that action still had to take. A refusal of what was under way ends that action
 * (its events are kept) and the command is decided all the same.
 */
export function followedBy<S, E>(first: Outcome<S, E>, next: (state: S) => Promise<Outcome<S, E>> | Outcome<S, E>): Outcome<S, E> {
  if ('refusal' in first || !first.andThen) return { events: first.events ?? [], andThen: next };
  const rest = first.andThen;
  return { events: first.events, andThen: async (s) => followedBy(await rest(s), next) };
}

export interface EntityKind<S, C extends { type: string }, E> {
  kind: string;
  /** The command types `handle` takes. */
  commands: CommandTypes<C>;
  /** Position in the ask order: an actor may ask only kinds of a lower rank. */
  rank: number;
  /** State before the first event (an entity that does not exist yet). */
  initialState: S;
  evolve(state: S, event: E): S;
  /**
   * The read-model rows of the state after a command's events. Given `before`, the state
   * before them (in the same life of the actor, whose rows are on record), it may leave out
   * the rows whose content cannot have changed: those made from parts of the state that
   * `evolve` kept by reference (it copies what it changes).
   */
  project(state: S, before?: S): ProjectionRow[];
  /** The public history entries an event produces (none for internal bookkeeping). */
  chronicle(event: E, after: S, before: S): HistoryEntry[];
  /** Read-model rows an event itself creates (records that outlive the entity's state, like messages). */
  eventRows?(event: E, after: S): ProjectionRow[];
  /** Key hashes an event registers (agents only). */
  credentials?(event: E): Credential[];
  handle(state: S, command: C, io: EntityIO): Promise<Outcome<S, E>> | Outcome<S, E>;
  /** The default answer after a command: the entity's public view. */
  view(state: S): unknown;
}

/** The record nact persists for one handled command. */
export interface PersistedRecord<E> {
  events: E[];
  /** The command's id, when it carried one (see CommandOptions in ports/entities.ts). */
  command_id?: string;
  /** The answer given to that command, answered again if the id comes back. */
  answer?: unknown;
}

export interface Envelope<C> {
  command: C;
  replyTo: unknown;
  /** Names the command: the actor applies each id once (ports/entities.ts CommandOptions). */
  commandId?: string;
  /**
   * The asking actor's writes not yet durable when it asked (numbered writes: actors/region.ts,
   * `Unfinished`): what this command does depends on them, so its writes name them in `after`.
   */
  after?: number[];
}

/**
 * How many applied command ids (with their answers) an actor keeps: the newest ones that
 * produced events. The HTTP layer keeps the answer of an Idempotency-Key for 24 hours on
 * its own; the actor's list covers what that cannot: a command delivered twice, and a
 * request retried after the service stopped between the actor's write and the stored
 * answer. docs/idempotency.md says why 128.
 */
export const COMMAND_IDS_KEPT = 128;

/** An actor's state as the region keeps it: the kind's own state and the recent command ids it applied. */
export interface ShellState<S> {
  state: S;
  /** [command id, answer], oldest first, at most COMMAND_IDS_KEPT. */
  applied: Array<[string, unknown]>;
}
