// Routing to entity actors, in the manner of a shard region: an entity's actor is spawned
// on its first message, recovers from the store, and is passivated after a quiet spell.
// The region is the only place that knows how a (kind, id) pair becomes an actor. It
// implements the entities port in this process, and refuses a command its kind does not
// handle before any actor sees it.
import { dispatch, query, spawn, spawnPersistent, start, stop, configurePersistence, type Ref } from 'nact';
import type { PersistenceEngine } from 'nact';
import type { CommandOptions, Entities, Protocols } from './ports/entities';
import type { ReadModel, StoreEngine, Writes } from './ports/store';
import { NO_METRICS, secondsSince, type Metrics } from './ports/metrics';
import { COMMAND_IDS_KEPT, type EntityIO, type EntityKind, type Envelope, type Outcome, type PersistedRecord, type ShellState } from './entity';
import type { Result } from './result';
import { WORLD_ACTOR } from './organization/policy';

export interface RegionOptions {
  askTimeoutMs?: number;
  idleMs?: number;
  snapshotEvery?: number;
  log?: (line: string) => void;
  /**
   * Where an actor's asks and tells go (after the rank check): this region by default; on
   * many nodes, the cluster's entities, which keep what is local here and send the rest to
   * the node that hosts it.
   */
  route?: () => Entities<any>;
  /** Where asks and persists are reported (operators' metrics); nowhere by default. */
  metrics?: Metrics;
}

/** The longest command id an actor takes; a longer one is refused (422) before any actor sees it. */
export const MAX_COMMAND_ID = 512;

/** The ids an actor keeps after applying `id`: the newest COMMAND_IDS_KEPT. */
function remember(applied: Array<[string, unknown]>, id: string, answer: unknown): Array<[string, unknown]> {
  const next = applied.length >= COMMAND_IDS_KEPT ? applied.slice(applied.length - COMMAND_IDS_KEPT + 1) : applied.slice();
  next.push([id, answer]);
  return next;
}

/**
 * The state an actor keeps, copied property by property into a fresh object. V8 (Node 20)
 * gives an object made by spreading another and adding a key (`{ ...state, employment }`,
 * the way rules evolve) a hidden class of its own; every later spread of it gets another.
 * An actor would then carry its own hidden class and descriptors (about 600 bytes, and
 * property reads that no inline cache can serve). Object.assign onto an empty object walks
 * the shared transitions, so states with the same keys in the same order share one.
 */
function sharedShape<S>(state: S): S {
  if (typeof state !== 'object' || state === null || Object.getPrototypeOf(state) !== Object.prototype) return state;
  return Object.assign({}, state);
}

// Snapshots of an actor that has applied no command id are the kind's bare state, as they
// always were (so snapshots written before command ids existed still load); otherwise the
// state and the ids travel together, marked.
const SHELL_MARK = '@shell';
const encodeSnapshot = (shell: ShellState<unknown>): unknown =>
  shell.applied.length === 0 ? shell.state : { [SHELL_MARK]: 1, state: shell.state, applied: shell.applied };
const decodeSnapshot = (data: unknown): ShellState<unknown> =>
  data && typeof data === 'object' && (data as Record<string, unknown>)[SHELL_MARK] === 1
    ? { state: (data as { state: unknown }).state, applied: (data as { applied: Array<[string, unknown]> }).applied ?? [] }
    : { state: data, applied: [] };

const INTERNAL = { status: 503 as const, detail: 'the world could not finish this action in time; read the current state before trying again' };

/**
 * The answer to an ask whose actor stopped before it took the command up (nact drops what
 * a stopped actor had not begun): nothing of it happened. The region asks the actor's next
 * life once, unless it let the actor go (a shard that moved, the region stopping); then
 * the caller may send the command where the actor lives now (infra/cluster/node.ts).
 * Compared by identity: `isNotServed`.
 */
export const NOT_SERVED = Object.freeze({ status: 503 as const, detail: 'the world could not take this action up where it was sent (its actor stopped first); nothing of it happened; try again' });

/** True for the answer of an ask its actor never took up (NOT_SERVED). */
export const isNotServed = (r: Result<unknown>): boolean => !r.ok && r.refusal === NOT_SERVED;

/**
 * Writes an answer reflects that are queued but not yet durable. On a store that numbers
 * its writes (the embedded store commits them in that order), an actor goes on as soon as
 * its write is queued instead of waiting for the disk, and its answer carries what it
 * waits for: an actor asking another makes its next write depend on the answer's writes
 * (it fails if they fail), and an answer leaves the region (to the HTTP layer, the clock's
 * fan-out) only once every write it reflects is durable.
 */
interface Unfinished {
  /** Their numbers. */
  seqs: number[];
  /** Resolves once all are durable; rejects if any failed. */
  durable: Promise<void>;
  /** All durable. */
  done: boolean;
}

/** A reply between actors of this region, with the writes it reflects when they are unfinished. */
type Reply = Result<unknown> & { unfinished?: Unfinished };

function unfinished(seqs: number[], durable: Promise<void>): Unfinished {
  const u: Unfinished = { seqs, durable, done: false };
  durable.then(() => { u.done = true; }, () => undefined);
  return u;
}

/**
 * An actor's writes not yet known to be durable: its last one, and those of the answers it
 * was given while handling the current command; the writes of its asker the current
 * command depends on (`upstream`); and whether one of its writes failed (`failed`: this
 * life of the actor writes nothing more, and is stopped once).
 */
interface Pipeline {
  tail: Unfinished | null; given: Unfinished[] | null; upstream: number[] | undefined; failed: boolean;
  /** This life has written every row it projects once: later writes carry only the rows that changed. */
  projected: boolean;
}

/** The numbers of an actor's writes still unfinished (what its next write, and what it asks, depend on), or undefined. */
function pendingSeqs(p: Pipeline): number[] | undefined {
  let seqs = p.tail && !p.tail.done ? p.tail.seqs : undefined;
  for (const u of p.given ?? []) if (!u.done) seqs = seqs ? [...seqs, ...u.seqs] : u.seqs;
  return seqs;
}

/** What of an actor's writes is still unfinished, as one (what its answer waits for). */
function pendingOf(p: Pipeline): Unfinished | undefined {
  let first = p.tail && !p.tail.done ? p.tail : undefined;
  let rest: Unfinished[] | undefined;
  for (const u of p.given ?? []) {
    if (u.done) continue;
    if (!first) first = u; else (rest ??= []).push(u);
  }
  if (!first || !rest) return first;
  const every = [first, ...rest];
  return unfinished(every.flatMap((u) => u.seqs), Promise.all(every.map((u) => u.durable)).then(() => undefined));
}

/**
 * The in-process region. `P` is the protocol map of the kinds it hosts: the world's
 * `Protocols` unless a test hosts kinds of its own.
 */
export class Region<P = Protocols> implements Entities<P> {
  private readonly system;
  private readonly parents = new Map<string, Ref<unknown>>();
  private readonly kinds = new Map<string, EntityKind<any, any, any>>();
  private readonly refs = new Map<string, Ref<any>>();
  /** Per actor, the asks sent to it that it has not begun: answered NOT_SERVED if it stops first, not left to time out. */
  private readonly unbegun = new Map<Ref<any>, Set<Envelope<unknown>>>();
  /** Actors the region let go (stopWhere, stop): an ask they did not begin is not sent to a next life here. */
  private readonly released = new WeakSet<Ref<any>>();
  private readonly askTimeoutMs: number;
  private readonly idleMs: number;
  private readonly snapshotEvery: number;
  private readonly log: (line: string) => void;
  private readonly route: () => Entities<any>;
  private readonly metrics: Metrics;

  constructor(engine: StoreEngine, readonly read: ReadModel, kinds: EntityKind<any, any, any>[], opts: RegionOptions = {}) {
    // The store's engine is nact's PersistenceEngine, with persist taking the writes along.
    this.system = start(configurePersistence(engine as unknown as PersistenceEngine));
    this.askTimeoutMs = opts.askTimeoutMs ?? 30_000;
    this.idleMs = opts.idleMs ?? 10 * 60_000;
    this.snapshotEvery = opts.snapshotEvery ?? 50;
    this.log = opts.log ?? ((line) => console.error(line));
    this.route = opts.route ?? (() => this as unknown as Entities<any>);
    this.metrics = opts.metrics ?? NO_METRICS;
    for (const k of kinds) {
      this.kinds.set(k.kind, k);
      this.parents.set(k.kind, spawn(this.system, (s: unknown) => s, k.kind));
    }
  }

  /** Ask from outside every actor (the HTTP layer, the clock's fan-out): any kind may be asked. */
  ask<T = unknown, K extends keyof P & string = never>(kind: K, id: string | number, command: P[K], timeoutMs?: number, options?: CommandOptions): Promise<Result<T>> {
    const later = options?.durableLater;
    return this.askRaw<T>(kind, id, command, timeoutMs ?? this.askTimeoutMs, true, options?.commandId, later && ((u) => later(u.durable)));
  }

  tell<K extends keyof P & string>(kind: K, id: string | number, command: P[K], options?: CommandOptions): void {
    const refused = this.unhandled(kind, command) ?? this.badCommandId(options?.commandId);
    if (refused) {
      this.log(`tell ${kind}:${id} dropped: ${refused.refusal.detail}`);
      return;
    }
    dispatch(this.ref(kind, id), { command, replyTo: null, commandId: options?.commandId } satisfies Envelope<unknown>);
  }

  private badCommandId(commandId: string | undefined): { ok: false; refusal: { status: 422; detail: string } } | null {
    if (commandId === undefined || (typeof commandId === 'string' && commandId.length > 0 && commandId.length <= MAX_COMMAND_ID)) return null;
    return { ok: false, refusal: { status: 422, detail: `a command id must be a string of 1 to ${MAX_COMMAND_ID} characters` } };
  }

  /** The refusal of a command type the kind does not declare (a misspelt or foreign command), or null. */
  private unhandled(kind: string, command: unknown): { ok: false; refusal: { status: 422; detail: string } } | null {
    const entity = this.kinds.get(kind);
    if (!entity) return null; // an unknown kind fails when its actor is looked up, as it always has
    const type = (command as { type?: unknown } | null | undefined)?.type;
    if (typeof type === 'string' && Object.prototype.hasOwnProperty.call(entity.commands, type)) return null;
    const named = typeof type === 'string' ? `"${type}"` : `without a type (${JSON.stringify(type) ?? 'undefined'})`;
    return { ok: false, refusal: { status: 422, detail: `the ${kind} entity does not handle the command ${named}` } };
  }

  private async askRaw<T>(kind: string, id: string | number, command: unknown, timeoutMs: number, retry: boolean, commandId?: string, inner?: (u: Unfinished) => void, after?: number[]): Promise<Result<T>> {
    const refused = this.unhandled(kind, command) ?? this.badCommandId(commandId);
    if (refused) {
      this.log(`ask ${kind}:${id} refused: ${refused.refusal.detail}`);
      return refused;
    }
    const ref = this.ref(kind, id);
    const started = performance.now();
    const unbegun = this.unbegun.get(ref);
    let sent: Envelope<unknown> | undefined;
    try {
      const reply = await query(ref, (replyTo: unknown) => {
        sent = { command, replyTo, commandId, after } satisfies Envelope<unknown>;
        unbegun?.add(sent);
        return sent;
      }, timeoutMs) as Reply;
      if (isNotServed(reply)) {
        // Its actor stopped before taking it up: its next life here, unless the region let it go.
        if (retry && !this.released.has(ref)) return this.askRaw(kind, id, command, timeoutMs, false, commandId, inner, after);
        this.metrics.asked(kind, 'unavailable', secondsSince(started));
        return reply as Result<T>;
      }
      let r = reply as Result<T>;
      if (reply.unfinished) {
        const { unfinished: u, ...answer } = reply;
        r = answer as Result<T>;
        if (inner) inner(u);
        else {
          // The answer leaves the actors: only once what it reflects is durable (within the ask's time).
          let timer: NodeJS.Timeout | undefined;
          try {
            const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), timeoutMs); });
            if (await Promise.race([u.durable, late]) === 'late') {
              this.log(`ask ${kind}:${id}: its writes were not durable within ${timeoutMs} ms`);
              r = { ok: false, refusal: INTERNAL };
            }
          } catch {
            r = { ok: false, refusal: INTERNAL };
          } finally {
            clearTimeout(timer);
          }
        }
      }
      this.metrics.asked(kind, r.ok ? 'ok' : r.refusal.status >= 500 ? 'unavailable' : 'refused', secondsSince(started));
      return r;
    } catch (e) {
      // The actor was passivated between lookup and ask: spawn it again once.
      if (retry && String((e as Error)?.message).includes('stopped')) {
        if (this.refs.get(this.key(kind, id)) === ref) this.refs.delete(this.key(kind, id));
        return this.askRaw(kind, id, command, timeoutMs, false, commandId, inner, after);
      }
      this.log(`ask ${kind}:${id} failed: ${(e as Error)?.message}`);
      this.metrics.asked(kind, 'unavailable', secondsSince(started));
      return { ok: false, refusal: INTERNAL };
    } finally {
      if (sent) unbegun?.delete(sent);
    }
  }

  private key(kind: string, id: string | number): string {
    return `${kind}:${id}`;
  }

  private ref(kind: string, id: string | number): Ref<any> {
    const key = this.key(kind, id);
    const existing = this.refs.get(key);
    if (existing) return existing;
    const entity = this.kinds.get(kind);
    const parent = this.parents.get(kind);
    if (!entity || !parent) throw new Error(`unknown entity kind ${kind}`);
    const log = this.log;
    const metrics = this.metrics;
    // This actor's last write not yet known to be durable (a store that numbers its writes),
    // and the unfinished writes of the answers it was given while handling the current command.
    const pipe: Pipeline = { tail: null, given: null, upstream: undefined, failed: false, projected: false };
    const unbegun = new Set<Envelope<unknown>>();
    const io = this.ioFor(entity, undefined, pipe);
    const f = async (shell: ShellState<unknown>, msg: any, ctx: any): Promise<ShellState<unknown>> => {
      if (ctx.recovering) {
        const record = msg as PersistedRecord<unknown>;
        const state = sharedShape(record.events.reduce((s, e) => entity.evolve(s, e), shell.state));
        return { state, applied: record.command_id === undefined ? shell.applied : remember(shell.applied, record.command_id, record.answer) };
      }
      unbegun.delete(msg as Envelope<unknown>);
      const { command, replyTo, commandId, after: upstream } = msg as Envelope<unknown>;
      pipe.given = null;
      pipe.upstream = upstream;
      const reply = (r: Result<unknown>) => {
        if (!replyTo) return;
        const u = pendingOf(pipe);
        dispatch(replyTo as Ref<unknown>, u ? { ...r, unfinished: u } satisfies Reply : r);
      };
      // A write of this life failed: it answers nothing more from a state that is not on disk.
      if (pipe.failed) {
        reply({ ok: false, refusal: INTERNAL });
        return shell;
      }
      if (commandId !== undefined) {
        // A command id applied before: nothing is decided or persisted again; the first answer is given.
        const seen = shell.applied.find(([id]) => id === commandId);
        if (seen) {
          reply({ ok: true, value: seen[1] });
          return shell;
        }
      }
      let outcome: Outcome<unknown, unknown>;
      let next = shell.state;
      const applied = shell.applied;
      try {
        outcome = await entity.handle(next, command, commandId === undefined ? io : this.ioFor(entity, commandId, pipe));
      } catch (e) {
        log(`${key} failed to handle ${JSON.stringify((command as any)?.type)}: ${(e as Error)?.stack}`);
        reply({ ok: false, refusal: INTERNAL });
        return shell;
      }
      // An action that spans actors persists its intent, then goes on (`andThen`) from the durable state.
      let kept: { answer: unknown } | null = null;
      let wrote = false;
      for (;;) {
        const events = outcome.events ?? [];
        const writes: Required<Pick<Writes, 'rows' | 'history' | 'credentials'>> = { rows: [], history: [], credentials: [] };
        const eventRows = [];
        let after = next;
        for (const event of events) {
          const before = after;
          after = sharedShape(entity.evolve(after, event));
          // What the world does for an organization without an agent (WORLD_ACTOR) is caused by no agent.
          writes.history.push(...entity.chronicle(event, after, before).map((h) => (h.agent_id === WORLD_ACTOR ? { ...h, agent_id: null } : h)));
          writes.credentials.push(...(entity.credentials?.(event) ?? []));
          eventRows.push(...(entity.eventRows?.(event, after) ?? []));
        }
        // The last record of a command with an id keeps its answer, so the id is known (and its
        // answer given again) after a restart too. The answer is a pure function of the new state.
        // A command whose last step records nothing more (a check after its writes) still
        // writes a record without events for it, once it wrote anything at all.
        const last = !('refusal' in outcome) && !outcome.andThen;
        const keep = last && commandId !== undefined && (events.length > 0 || wrote);
        const answer = keep && !('refusal' in outcome) ? (outcome.reply ? outcome.reply(after) : entity.view(after)) : undefined;
        if (events.length > 0 || keep) {
          wrote = true;
          // The first write of a life carries every row (so rows of an older version, or that a
          // failed write left behind, are brought up to date); later ones the rows that changed.
          writes.rows = [...entity.project(after, pipe.projected ? next : undefined), ...eventRows];
          pipe.projected = true;
          const record: PersistedRecord<unknown> = keep ? { events, command_id: commandId, answer } : { events };
          const persisting = performance.now();
          if (pipe.failed) {
            // An earlier write of this command failed while it went on: nothing more is written.
            reply({ ok: false, refusal: INTERNAL });
            return { state: next, applied };
          }
          const ticket: { seq?: number } = {};
          const dependsOn = pendingSeqs(pipe);
          const dependencies = pipe.upstream ? [...(dependsOn ?? []), ...pipe.upstream] : dependsOn;
          const written: Promise<void> = ctx.persist(record, [], { ...writes, ticket, after: dependencies });
          if (ticket.seq !== undefined) {
            // Numbered: the actor goes on; its answers wait for this write (see Unfinished).
            const self = ctx.self;
            const u: Unfinished = { seqs: [ticket.seq], durable: written, done: false };
            u.durable = written.then(
              () => {
                u.done = true;
                if (pipe.tail === u) pipe.tail = null;
                metrics.persisted(kind, true, secondsSince(persisting));
              },
              (e) => {
                metrics.persisted(kind, false, secondsSince(persisting));
                log(`${key} could not persist: ${(e as Error)?.message}`);
                // Its state holds events that are not on disk: the next message recovers afresh.
                // Stopped once: a later failure of this life must not stop the next one (nact finds actors by path).
                if (!pipe.failed) {
                  pipe.failed = true;
                  stop(self);
                }
                throw e;
              });
            u.durable.catch(() => undefined);
            pipe.tail = u;
          } else {
            try {
              await written;
              metrics.persisted(kind, true, secondsSince(persisting));
            } catch (e) {
              metrics.persisted(kind, false, secondsSince(persisting));
              log(`${key} could not persist: ${(e as Error)?.message}`);
              reply({ ok: false, refusal: INTERNAL });
              // The write may still land (a timeout): whatever this life writes before it stops carries every row.
              pipe.projected = false;
              // The actor's sequence number moved on; stop it so the next message recovers afresh.
              setImmediate(() => stop(ctx.self));
              return { state: next, applied };
            }
          }
        }
        next = after;
        if (keep) kept = { answer };
        if ('refusal' in outcome) {
          reply({ ok: false, refusal: outcome.refusal });
          return { state: next, applied };
        }
        if (!outcome.andThen) break;
        try {
          outcome = await outcome.andThen(next);
        } catch (e) {
          log(`${key} failed to go on with ${JSON.stringify((command as any)?.type)}: ${(e as Error)?.stack}`);
          reply({ ok: false, refusal: INTERNAL });
          return { state: next, applied };
        }
      }
      if (outcome.after) {
        try {
          // What follows a write (the clock's daily fan-out) starts once it is durable.
          const u = pendingOf(pipe);
          if (u) await u.durable;
        } catch {
          reply({ ok: false, refusal: INTERNAL });
          return { state: next, applied };
        }
        try {
          await outcome.after(next);
        } catch (e) {
          log(`${key} follow-up failed: ${(e as Error)?.stack}`);
        }
      }
      reply({ ok: true, value: kept ? kept.answer : outcome.reply ? outcome.reply(next) : entity.view(next) });
      return { state: next, applied: kept ? remember(applied, commandId!, kept.answer) : applied };
    };
    const ref = spawnPersistent(parent, f, key, String(id), {
      initialState: { state: entity.initialState, applied: [] } satisfies ShellState<unknown>,
      snapshotEncoder: encodeSnapshot,
      snapshotDecoder: decodeSnapshot,
      snapshotEvery: this.snapshotEvery,
      shutdownAfter: this.idleMs,
      afterStop: () => {
        if (this.refs.get(key) === ref) this.refs.delete(key);
        this.notServed(ref);
      },
    } as any);
    this.refs.set(key, ref);
    this.unbegun.set(ref, unbegun);
    return ref;
  }

  private ioFor(entity: EntityKind<any, any, any>, parent: string | undefined, pipe: Pipeline): EntityIO {
    return new ActorIO(this as unknown as Region<any>, entity, parent, pipe);
  }

  /** An actor's ask (ActorIO): only downward in the order of kinds; see ActorIO for the rest. */
  actorAsk(entity: EntityKind<any, any, any>, pipe: Pipeline, kind: string, id: string | number, command: unknown, timeoutMs: number | undefined, commandId: string | undefined): Promise<Result<unknown>> {
    const target = this.kinds.get(kind);
    if (!target || target.rank >= entity.rank) {
      throw new Error(`ask order violated: ${entity.kind} (rank ${entity.rank}) may not ask ${kind}`);
    }
    const routed = this.route();
    // In this region the answer's unfinished writes come along (the asker's next write depends on them).
    // What the asked actor writes depends on the asker's unfinished writes (it fails if they fail).
    if (routed === (this as unknown)) return this.askRaw(kind, id, command, timeoutMs ?? this.askTimeoutMs, true, commandId, (u) => { (pipe.given ??= []).push(u); }, pendingSeqs(pipe));
    return routed.ask(kind, id, command, timeoutMs ?? this.askTimeoutMs, { commandId });
  }

  /** An actor's tell (ActorIO). */
  actorTell(kind: string, id: string | number, command: unknown, commandId: string | undefined): void {
    this.route().tell(kind, id, command, { commandId });
  }

  /**
   * The read model as an actor handling a command sees it: a read first waits for the
   * writes the actor's state and answers reflect, so it sees every change that led to it.
   */
  readAfter(pipe: Pipeline): ReadModel {
    const read = this.read;
    return new Proxy(read, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const u = pendingOf(pipe);
          if (!u) return value.apply(target, args);
          return u.durable.catch(() => undefined).then(() => value.apply(target, args));
        };
      },
    });
  }

  /** Number of entity actors currently awake. */
  get awake(): number {
    return this.refs.size;
  }

  /** What a stopped actor had not begun is dropped with it: each asker hears so now rather than at its timeout. */
  private notServed(ref: Ref<any>): void {
    const unbegun = this.unbegun.get(ref);
    this.unbegun.delete(ref);
    for (const envelope of unbegun ?? []) if (envelope.replyTo) dispatch(envelope.replyTo as Ref<unknown>, { ok: false, refusal: NOT_SERVED });
  }

  /**
   * Stops the actors whose key (`<kind>:<id>`) matches: a node that no longer hosts a shard
   * lets its actors go (the next owner recovers them from the store).
   */
  stopWhere(matches: (kind: string, id: string) => boolean): number {
    let stopped = 0;
    for (const [key, ref] of [...this.refs]) {
      const at = key.indexOf(':');
      if (!matches(key.slice(0, at), key.slice(at + 1))) continue;
      this.refs.delete(key);
      this.released.add(ref);
      stop(ref);
      stopped++;
    }
    return stopped;
  }

  stop(): void {
    // nact's system stop does not reach grandchildren (it looks them up as references), so
    // every entity is stopped by its reference: its idle timer would keep the process alive.
    for (const ref of [...this.refs.values()]) {
      this.released.add(ref);
      stop(ref);
      // Now: once the system stops, no answer reaches an asker.
      this.notServed(ref);
    }
    for (const ref of this.parents.values()) stop(ref);
    stop(this.system);
  }
}

/**
 * What an actor may use while handling one command. Under a command id (`parent`), each
 * ask it makes carries an id derived from it, the target and the command type, counted
 * per target and type: a command decided again (a retry after a crash part-way) sends
 * its asks under the same ids, so the actors below apply each of them once. An id given
 * explicitly wins. A class, not an object literal with a getter: every actor keeps one,
 * and instances of a class share one hidden class where literals with their own getter
 * closures would each carry their own (about 700 bytes an actor).
 */
class ActorIO implements EntityIO {
  /** Asks made so far under the command id, by target and type; null without one (an actor's own io, made once). */
  private readonly counts: Map<string, number> | null;
  /** The read model that waits for the actor's unfinished writes, made when first needed. */
  private waiting: ReadModel | null = null;

  constructor(private readonly region: Region<any>, private readonly entity: EntityKind<any, any, any>, private readonly parent: string | undefined, private readonly pipe: Pipeline) {
    this.counts = parent === undefined ? null : new Map<string, number>();
  }

  /** The read model as is while nothing the actor reflects is unfinished (the usual case). */
  get read(): ReadModel {
    return pendingSeqs(this.pipe) ? (this.waiting ??= this.region.readAfter(this.pipe)) : this.region.read;
  }

  ask<T = unknown, K extends keyof Protocols & string = never>(kind: K, id: string | number, command: Protocols[K], timeoutMs?: number, options?: CommandOptions): Promise<Result<T>> {
    return this.region.actorAsk(this.entity, this.pipe, kind, id, command, timeoutMs, options?.commandId ?? this.derive(kind, id, command)) as Promise<Result<T>>;
  }

  tell<K extends keyof Protocols & string>(kind: K, id: string | number, command: Protocols[K], options?: CommandOptions): void {
    this.region.actorTell(kind, id, command, options?.commandId ?? this.derive(kind, id, command));
  }

  private derive(kind: string, id: string | number, command: unknown): string | undefined {
    if (this.counts === null) return undefined;
    const target = `${kind}:${id}:${String((command as { type?: unknown } | null)?.type)}`;
    const n = (this.counts.get(target) ?? 0) + 1;
    this.counts.set(target, n);
    return `${this.parent}>${target}#${n}`;
  }
}
