// The days on many nodes. Each shard is a settler: the node that hosts it settles the day
// for the shard's entities and records `settled_day:shard:<n>` in the store's settings; the
// clock waits until every shard has settled the day. A node settles when the days topic
// announces a day and again whenever it takes a shard over (a shard that moved from a node
// that died mid-day catches up the days it missed, in order). The world's initiative
// (seeded quests, newcomers, the world's organizations' turns) is taken by the node that
// hosts the clock, once per day, after every shard has settled its part of the day.
import type { DaySettlements } from '../../actors/ports/bus';
import type { Store } from '../../actors/ports/store';
import { FIRST_DAY } from '../../actors/clock/rules';
import { INITIATIVE_ONLY } from '../../actors/clock/daily';
import { shardOf } from './shards';

/** How long a node waits for the other shards at a step of the day (their places settled; the whole day, before the initiative). */
export const STEP_WAIT_MS = 60_000;
/**
 * How often a waiting node (or the clock) reads the other shards' days. A day passes
 * three such waits on many nodes (places, the initiative, the clock), so the interval is
 * short; each read is one request for the settings of the shards still awaited.
 */
export const SHARD_POLL_MS = 20;
/** How long an announced day the world's row does not show yet is read again for. */
export const ANNOUNCED_DAY_WAIT_MS = 5_000;

export const shardSetting = (shard: number) => `settled_day:shard:${shard}`;
/** The last day whose places the shard has settled (its organizations wait for every shard's). */
export const PLACES_SETTLED = (shard: number) => `places_day:shard:${shard}`;

async function readDay(store: Store, name: string): Promise<number | null> {
  const v = await store.setting(name);
  return v === undefined ? null : Number(v);
}

/** The days several shards reached (each by the settings `names` gives it, the highest of them; -1 for none), in one read. */
async function readDays(store: Store, shards: readonly number[], names: (shard: number) => string[]): Promise<number[]> {
  const found = await store.settings([...new Set(shards.flatMap(names))]);
  return shards.map((s) => Math.max(-1, ...names(s).map((n) => (found.has(n) ? Number(found.get(n)) : -1))));
}

/** The day each of the world's shards last settled, in shard order (-1: none yet). */
export function settledDays(store: Store, shards: number): Promise<number[]> {
  return readDays(store, Array.from({ length: shards }, (_, s) => s), (s) => [shardSetting(s)]);
}

/** What the clock waits for: every shard's settlement. (The node's own settling is `ShardSettler`.) */
export class ShardSettlements implements DaySettlements {
  constructor(private readonly store: Store, private readonly shards: number) {}

  async lastSettled(): Promise<number | null> {
    const days = await settledDays(this.store, this.shards);
    return days.some((d) => d < 0) ? null : Math.min(...days);
  }

  /** Shards record their own days (ShardSettler); nothing is recorded for the world as a whole. */
  async record(): Promise<void> { /* see ShardSettler */ }

  lastInitiative(): Promise<number | null> {
    return readDay(this.store, 'initiative_day');
  }

  async recordInitiative(day: number): Promise<void> {
    await this.store.setSetting('initiative_day', String(day));
  }

  async waitFor(day: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let waiting = Array.from({ length: this.shards }, (_, s) => s);
    for (;;) {
      const days = await readDays(this.store, waiting, (s) => [shardSetting(s)]);
      waiting = waiting.filter((_, i) => days[i] < day);
      if (waiting.length === 0) return;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`day ${day} was not settled within ${Math.round(timeoutMs / 1000)} s (shards ${waiting.join(', ')} have not settled it)`);
      await new Promise((r) => setTimeout(r, Math.min(SHARD_POLL_MS, left)));
    }
  }
}

export interface HostedShards {
  /** Whether this node hosts the shard now. */
  hosts(shard: number): boolean;
}

/**
 * Settles the days for the shards this node hosts, one run at a time. `tick` is the daily
 * fan-out (actors/clock/daily.ts) given the entities to settle.
 */
export class ShardSettler {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly node: HostedShards,
    private readonly shards: number,
    private readonly tick: (day: number, initiative: boolean, hosts: (kind: string, id: string | number) => boolean, placesSettled?: () => Promise<void>) => Promise<void>,
    private readonly today: () => Promise<number>,
    private readonly clockShard: number,
    private readonly log: (line: string) => void = () => undefined,
    /** The time this node took to settle a day, its steps and waits included (once per day). */
    private readonly observe: (seconds: number) => void = () => undefined,
  ) {}

  /** The subscriber of the days topic (and the catch-up after a shard was taken over). */
  settle(day: number): Promise<void> {
    const run = this.queue.then(() => this.settleNow(day));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Catches up the hosted shards to the current day. */
  catchUp(): Promise<void> {
    return this.settle(Number.POSITIVE_INFINITY);
  }

  private async settleNow(announced: number): Promise<void> {
    let current = await this.today();
    // The clock announces a day once it is recorded, but this node may read the world's
    // row a moment before it shows the day: it reads again for a while before it decides
    // the day is not this world's (a day ignored here would stay unsettled until a rebalance).
    for (const deadline = Date.now() + ANNOUNCED_DAY_WAIT_MS; announced !== Number.POSITIVE_INFINITY && announced > current && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, SHARD_POLL_MS));
      current = await this.today();
    }
    if (announced !== Number.POSITIVE_INFINITY && announced > current) {
      this.log(`day ${announced} was announced, but this world's clock is at day ${current}: ignored (is another world using the same topics?)`);
      return;
    }
    // A world that has not begun (its clock not yet at the first day) has no day to settle:
    // settling "day 0" would make the first day look like a following one and take its initiative.
    if (current < FIRST_DAY) return;
    const day = Math.min(announced, current);
    const hosted = Array.from({ length: this.shards }, (_, s) => s).filter((s) => this.node.hosts(s));
    if (hosted.length === 0) return;
    const settled = await readDays(this.store, hosted, (s) => [shardSetting(s)]);
    const last = new Map<number, number | null>(hosted.map((s, i) => [s, settled[i] < 0 ? null : settled[i]]));
    // A shard that has never settled a day (a new world) settles only the day it is given.
    let from = day;
    for (const l of last.values()) if (l !== null) from = Math.min(from, l + 1);
    for (let d = from; d <= day; d++) {
      const scope = new Set(hosted.filter((s) => { const l = last.get(s)!; return l === null ? d === day : l < d; }));
      if (scope.size === 0) continue;
      const started = performance.now();
      const clockHere = scope.has(this.clockShard);
      const taken = await readDay(this.store, 'initiative_day');
      const initiative = clockHere && last.get(this.clockShard) !== null && (taken === null || taken < d);
      // Organizations everywhere meet the places as this day left them; the initiative comes
      // after every shard's part of the day: a day unfolds in one order on any number of
      // nodes, as on one.
      await this.tick(d, false, this.within(scope), () => this.waitForShards(d, scope, PLACES_SETTLED));
      if (initiative) {
        await this.record([...scope].filter((s) => s !== this.clockShard), d);
        await this.waitForShards(d, scope, shardSetting);
        await this.tick(d, true, INITIATIVE_ONLY);
      }
      if (clockHere && (initiative || taken === null)) await this.store.setSetting('initiative_day', String(d));
      await this.record([...scope], d);
      this.observe((performance.now() - started) / 1000);
    }
  }

  /**
   * Records that the shards this node still hosts reached `day` (settled it, or the step
   * `step` names); one that moved away meanwhile is settled by its new host.
   */
  private async record(shards: number[], day: number, step: (shard: number) => string = shardSetting): Promise<void> {
    await Promise.all(shards.filter((s) => this.node.hosts(s)).map((s) => this.store.setSetting(step(s), String(day))));
  }

  private within(shards: Set<number>): (kind: string, id: string | number) => boolean {
    return (kind, id) => shards.has(shardOf(kind, id, this.shards));
  }

  /**
   * Records that the shards of `scope` reached a step of `day` (`step` names the setting),
   * then waits until every other shard has too (a shard that settled the whole day has
   * passed every step). A shard this node takes over meanwhile is settled here (its own
   * catch-up waits in the queue behind this run). After STEP_WAIT_MS the day goes on without
   * the missing shards, which it logs: a rebalance that takes long delays the day rather
   * than stopping it.
   */
  private async waitForShards(day: number, scope: Set<number>, step: (shard: number) => string): Promise<void> {
    if (step !== shardSetting) await this.record([...scope], day, step);
    const deadline = Date.now() + STEP_WAIT_MS;
    let waiting = Array.from({ length: this.shards }, (_, s) => s).filter((s) => !scope.has(s));
    for (;;) {
      const days = await readDays(this.store, waiting, (s) => [step(s), shardSetting(s)]);
      waiting = waiting.filter((_, i) => days[i] < day);
      if (waiting.length === 0) return;
      const taken = new Set(waiting.filter((s) => this.node.hosts(s)));
      if (taken.size) {
        // Their places settle and pass this step here; the rest of their day follows at once.
        await this.tick(day, false, this.within(taken), () => this.record([...taken], day, PLACES_SETTLED));
        await this.record([...taken], day);
        continue;
      }
      if (Date.now() >= deadline) {
        this.log(`day ${day}: shards ${waiting.join(', ')} had not reached ${step(waiting[0]).replace(/:shard:.*/, '')} after ${STEP_WAIT_MS / 1000} s; the day goes on without waiting for them`);
        return;
      }
      await new Promise((r) => setTimeout(r, SHARD_POLL_MS));
    }
  }
}
