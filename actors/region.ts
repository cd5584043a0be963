// Routing to entity actors, in the manner of a shard region: an entity's actor is spawned
// on its first message, recovers from the store, and is passivated after a quiet spell.
// The region is the only place that knows how a (kind, id) pair becomes an actor. It
// implements the entities port in this process, and refuses a command its kind does not
// handle before any actor sees it.
import { dispatch, query, spawn, spawnPersistent, start, stop, configurePersistence, type Ref } from 'nact';
import type { PersistenceEngine } from 'nact';
import type { Entities, Protocols } from './ports/entities';
import type { ReadModel, StoreEngine, Writes } from './ports/store';
import type { EntityIO, EntityKind, Envelope, Outcome, PersistedRecord } from './entity';
import type { Result } from './result';

export interface RegionOptions {
  askTimeoutMs?: number;
  idleMs?: number;
  snapshotEvery?: number;
  log?: (line: string) => void;
}

const INTERNAL = { status: 503 as const, detail: 'the world could not finish this action in time; read the current state before trying again' };

/**
 * The in-process region. `P` is the protocol map of the kinds it hosts: the world's
 * `Protocols` unless a test hosts kinds of its own.
 */
export class Region<P = Protocols> implements Entities<P> {
  private readonly system;
  private readonly parents = new Map<string, Ref<unknown>>();
  private readonly kinds = new Map<string, EntityKind<any, any, any>>();
  private readonly refs = new Map<string, Ref<any>>();
  private readonly askTimeoutMs: number;
  private readonly idleMs: number;
  private readonly snapshotEvery: number;
  private readonly log: (line: string) => void;

  constructor(engine: StoreEngine, readonly read: ReadModel, kinds: EntityKind<any, any, any>[], opts: RegionOptions = {}) {
    // The store's engine is nact's PersistenceEngine, with persist taking the writes along.
    this.system = start(configurePersistence(engine as unknown as PersistenceEngine));
    this.askTimeoutMs = opts.askTimeoutMs ?? 30_000;
    this.idleMs = opts.idleMs ?? 10 * 60_000;
    this.snapshotEvery = opts.snapshotEvery ?? 50;
    this.log = opts.log ?? ((line) => console.error(line));
    for (const k of kinds) {
      this.kinds.set(k.kind, k);
      this.parents.set(k.kind, spawn(this.system, (s: unknown) => s, k.kind));
    }
  }

  /** Ask from outside every actor (the HTTP layer, the clock's fan-out): any kind may be asked. */
  ask<T = unknown, K extends keyof P & string = never>(kind: K, id: string | number, command: P[K], timeoutMs?: number): Promise<Result<T>> {
    return this.askRaw<T>(kind, id, command, timeoutMs ?? this.askTimeoutMs, true);
  }

  tell<K extends keyof P & string>(kind: K, id: string | number, command: P[K]): void {
    const refused = this.unhandled(kind, command);
    if (refused) {
      this.log(`tell ${kind}:${id} dropped: ${refused.refusal.detail}`);
      return;
    }
    dispatch(this.ref(kind, id), { command, replyTo: null });
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

  private async askRaw<T>(kind: string, id: string | number, command: unknown, timeoutMs: number, retry: boolean): Promise<Result<T>> {
    const refused = this.unhandled(kind, command);
    if (refused) {
      this.log(`ask ${kind}:${id} refused: ${refused.refusal.detail}`);
      return refused;
    }
    const ref = this.ref(kind, id);
    try {
      return await query(ref, (replyTo: unknown) => ({ command, replyTo }), timeoutMs) as Result<T>;
    } catch (e) {
      // The actor was passivated between lookup and ask: spawn it again once.
      if (retry && String((e as Error)?.message).includes('stopped')) {
        if (this.refs.get(this.key(kind, id)) === ref) this.refs.delete(this.key(kind, id));
        return this.askRaw(kind, id, command, timeoutMs, false);
      }
      this.log(`ask ${kind}:${id} failed: ${(e as Error)?.message}`);
      return { ok: false, refusal: INTERNAL };
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
    const io = this.ioFor(entity);
    const log = this.log;
    const f = async (state: unknown, msg: any, ctx: any) => {
      if (ctx.recovering) {
        return (msg as PersistedRecord<unknown>).events.reduce((s, e) => entity.evolve(s, e), state);
      }
      const { command, replyTo } = msg as Envelope<unknown>;
      const reply = (r: Result<unknown>) => { if (replyTo) dispatch(replyTo as Ref<unknown>, r); };
      let outcome: Outcome<unknown, unknown>;
      let next = state;
      try {
        outcome = await entity.handle(state, command, io);
      } catch (e) {
        log(`${key} failed to handle ${JSON.stringify((command as any)?.type)}: ${(e as Error)?.stack}`);
        reply({ ok: false, refusal: INTERNAL });
        return state;
      }
      // An action that spans actors persists its intent, then goes on (`andThen`) from the durable state.
      for (;;) {
        const events = outcome.events ?? [];
        const writes: Required<Writes> = { rows: [], history: [], credentials: [] };
        const eventRows = [];
        let after = next;
        for (const event of events) {
          const before = after;
          after = entity.evolve(after, event);
          writes.history.push(...entity.chronicle(event, after, before));
          writes.credentials.push(...(entity.credentials?.(event) ?? []));
          eventRows.push(...(entity.eventRows?.(event, after) ?? []));
        }
        if (events.length > 0) {
          writes.rows = [...entity.project(after), ...eventRows];
          try {
            await ctx.persist({ events } satisfies PersistedRecord<unknown>, [], writes);
          } catch (e) {
            log(`${key} could not persist: ${(e as Error)?.message}`);
            reply({ ok: false, refusal: INTERNAL });
            // The actor's sequence number moved on; stop it so the next message recovers afresh.
            setImmediate(() => stop(ctx.self));
            return next;
          }
        }
        next = after;
        if ('refusal' in outcome) {
          reply({ ok: false, refusal: outcome.refusal });
          return next;
        }
        if (!outcome.andThen) break;
        try {
          outcome = await outcome.andThen(next);
        } catch (e) {
          log(`${key} failed to go on with ${JSON.stringify((command as any)?.type)}: ${(e as Error)?.stack}`);
          reply({ ok: false, refusal: INTERNAL });
          return next;
        }
      }
      if (outcome.after) {
        try {
          await outcome.after(next);
        } catch (e) {
          log(`${key} follow-up failed: ${(e as Error)?.stack}`);
        }
      }
      reply({ ok: true, value: outcome.reply ? outcome.reply(next) : entity.view(next) });
      return next;
    };
    const ref = spawnPersistent(parent, f, key, String(id), {
      initialState: entity.initialState,
      snapshotEvery: this.snapshotEvery,
      shutdownAfter: this.idleMs,
      afterStop: () => { if (this.refs.get(key) === ref) this.refs.delete(key); },
    } as any);
    this.refs.set(key, ref);
    return ref;
  }

  private ioFor(entity: EntityKind<any, any, any>): EntityIO {
    const ask = (kind: string, id: string | number, command: unknown, timeoutMs?: number) => {
      const target = this.kinds.get(kind);
      if (!target || target.rank >= entity.rank) {
        throw new Error(`ask order violated: ${entity.kind} (rank ${entity.rank}) may not ask ${kind}`);
      }
      return this.askRaw(kind, id, command, timeoutMs ?? this.askTimeoutMs, true);
    };
    const tell = (kind: string, id: string | number, command: unknown) => this.tell(kind as keyof P & string, id, command as P[keyof P & string]);
    return { read: this.read, ask: ask as EntityIO['ask'], tell: tell as EntityIO['tell'] };
  }

  /** Number of entity actors currently awake. */
  get awake(): number {
    return this.refs.size;
  }

  stop(): void {
    // nact's system stop does not reach grandchildren (it looks them up as references), so
    // every entity is stopped by its reference: its idle timer would keep the process alive.
    for (const ref of [...this.refs.values()]) stop(ref);
    for (const ref of this.parents.values()) stop(ref);
    stop(this.system);
  }
}
