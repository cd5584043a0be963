// The daily fan-out: what a node does when the bus says a day began. It finds the
// entities that have work to do from the read model (never by asking every actor) and
// asks each of them to settle the day, with bounded concurrency. Each entity remembers
// the last day it settled, so a repeated day (after a restart) changes nothing; the node
// records the days it settled (the settlements port), which the clock waits for.
import { forEachLimited } from '../concurrency';
import type { Entities, Protocols } from '../ports/entities';
import type { DaySettlements } from '../ports/bus';
import type { HistoryEvent, ReadModel } from '../ports/store';
import { resumeIntents } from '../intents';
import { generateAdventurer } from '../world/generate';
import { arrivedToday, AVAILABLE_POOL_TARGET, postedToday, recruits, seededQuest } from '../world/quest-board';
import { recruitmentBonus, safetyCut, type EstablishmentLike } from '../organization/establishments';
import { locationModifiers, organizationModifiers, type Effect } from '../world-event/effects';
import { constructionShare } from '../location/market';
import { standsAtDayStart } from '../organization/travel';
import { worldFounds, worldOrganizationsTurn } from '../organization/turn';
import type { DayBegan } from './messages';
import { dayBeganSummary } from './actor';

export const TICK_CONCURRENCY = 256;
/**
 * Given as `hosts`, the tick takes the world's initiative alone, settling no entity (on
 * many nodes the initiative is taken apart, once every shard has settled the day).
 */
export const INITIATIVE_ONLY = (): boolean => false;
/** Attempts to settle an entity the world could not reach, and the pause between them. */
export const SETTLE_ATTEMPTS = 3;
export const SETTLE_RETRY_MS = 300;
/** How long an entity has to settle its day, and its writes to become durable. */
export const DAY_ASK_TIMEOUT_MS = 120_000;

/**
 * The subscriber of the days topic. A day arrives at least once (a clock that restarts
 * publishes the current day again; Kafka may deliver twice): a day this node has already
 * settled is ignored, and a day that follows a gap settles the missing days first, in
 * order. The world's initiative is taken once per day, also when a crash cut the day
 * short after the fan-out. A node that has never recorded a day (a new world) settles
 * only the day it is given, without the initiative: the world's first day begins quiet.
 */
export function dailySettler(settlements: DaySettlements, tick: (day: number, initiative: boolean) => Promise<void>, today: () => Promise<number>, log: (line: string) => void = () => undefined) {
  return async ({ day }: DayBegan): Promise<void> => {
    const last = await settlements.lastSettled();
    if (last !== null && day <= last) return;
    // A day this world's clock has not begun is not this world's (another world on the same topic).
    const current = await today();
    if (day > current) {
      log(`day ${day} was announced, but this world's clock is at day ${current}: ignored (is another world using the same topics?)`);
      return;
    }
    for (let d = last === null ? day : last + 1; d <= day; d++) {
      const taken = await settlements.lastInitiative();
      const initiative = last !== null && (taken === null || taken < d);
      await tick(d, initiative);
      if (initiative || taken === null) await settlements.recordInitiative(d);
      await settlements.record(d);
    }
  };
}

/** History events read at a time, newest first. */
const HISTORY_PAGE = 100;

/** Events of `category`, newest first, page by page, until `visit` says stop (true) or none are left. */
async function walkHistory(read: ReadModel, category: string, visit: (e: HistoryEvent) => Promise<boolean> | boolean): Promise<void> {
  for (let before: number | undefined; ;) {
    const page = await read.history({ limit: HISTORY_PAGE, category, before_id: before });
    for (const e of page) if (await visit(e)) return;
    if (page.length < HISTORY_PAGE) return;
    before = page[page.length - 1].id;
  }
}

/**
 * Whether today's newcomer already arrived (so that the day's initiative taken again brings
 * none twice), whatever became of it since (hired, away on a quest). Its arrival is an
 * event of the category 'adventurer', with no agent and no organization, written after
 * the line that began the day: those events are read newest first down to that line, and
 * the adventurers they name looked up until one joined today. (Not by their day: an event
 * may carry an earlier day than one written before it, a request that raced the tick or
 * an action resumed at start-up.) Without that line, every available adventurer is read.
 */
export async function newcomerArrivedToday(read: ReadModel, day: number): Promise<boolean> {
  const line = dayBeganSummary(day);
  let dayBegan: number | null = null;
  await walkHistory(read, 'world', (e) => {
    if (e.summary === line) dayBegan = e.id;
    return dayBegan !== null || e.day < day;
  });
  if (dayBegan === null) return arrivedToday(day, await read.list<{ joined_day: number }>('adventurersAvailable'));
  const since: number = dayBegan;
  let arrived = false;
  await walkHistory(read, 'adventurer', async (e) => {
    if (e.id <= since) return true;
    const id = (e.data as { adventurer_id?: unknown } | undefined)?.adventurer_id;
    if (e.agent_id !== null || e.organization_ids.length > 0 || typeof id !== 'number') return false;
    const adventurer = await read.row<{ joined_day: number }>('adventurer', id);
    arrived = adventurer !== undefined && arrivedToday(day, [adventurer]);
    return arrived;
  });
  return arrived;
}

export function dailyTick(entities: Entities, read: ReadModel, seed: string, nextId: (sequence: string) => Promise<number>, log: (line: string) => void = () => undefined) {
  /**
   * `hosts` says which entities this settler settles (on many nodes: those of the shards it
   * hosts, see infra/cluster); by default every one. `placesSettled` is awaited between the
   * places and the organizations (on many nodes: until every node's places have settled the
   * day, so that organizations everywhere meet the places as the day left them).
   */
  return async (day: number, initiative: boolean, hosts: (kind: string, id: string | number) => boolean = () => true, placesSettled: () => Promise<void> = async () => undefined): Promise<void> => {
    // An entity the world could not reach (503: a failed write, a timeout) is asked again a
    // few times; one that still fails catches the day up the next time it settles.
    const askSettling = async <T, K extends keyof Protocols>(kind: K, id: string | number, command: Protocols[K], durableLater?: (durable: Promise<void>) => void) => {
      for (let attempt = 1; ; attempt++) {
        const r = await entities.ask<T, K>(kind, id, command, DAY_ASK_TIMEOUT_MS, attempt === 1 && durableLater ? { durableLater } : undefined);
        if (r.ok || r.refusal.status !== 503 || attempt >= SETTLE_ATTEMPTS) {
          if (!r.ok) log(`day ${day}: ${kind} ${id} could not settle${r.refusal.status === 503 ? ' (it catches up when it next settles)' : ''}: ${r.refusal.detail}`);
          return r;
        }
        await new Promise((resolve) => setTimeout(resolve, SETTLE_RETRY_MS));
      }
    };
    /**
     * Settles each of `items`, pipelined: an entity answers once its writes are queued
     * (durableLater), so the next ones are asked while the disk catches up, and all their
     * writes are awaited together at the end. One whose writes failed, or were not durable in
     * time, is asked again the usual way (and catches up when it next settles if it still fails).
     */
    const settleAll = async <K extends keyof Protocols, I>(kind: K, items: readonly I[], idOf: (item: I) => string | number, command: (item: I) => Protocols[K]) => {
      const queued: Array<{ item: I; durable: Promise<void> }> = [];
      await forEachLimited(items, TICK_CONCURRENCY, (item) => askSettling(kind, idOf(item), command(item), (durable) => { queued.push({ item, durable }); }));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), DAY_ASK_TIMEOUT_MS); });
      const outcomes = await Promise.all(queued.map(({ durable }) => Promise.race([durable.then(() => 'durable' as const, () => 'failed' as const), late])));
      clearTimeout(timer);
      const again = queued.filter((_, i) => outcomes[i] !== 'durable');
      for (const { item } of again) log(`day ${day}: ${kind} ${idOf(item)} settled, but its writes did not become durable; asking again`);
      await forEachLimited(again, TICK_CONCURRENCY, ({ item }) => askSettling(kind, idOf(item), command(item)));
    };

    type Row = { id: number; agent_id: number | null; location_id: string; travel: { destination_id: string; arrives_day: number } | null };
    const rowOf = (o: Row): Row => ({ id: o.id, agent_id: o.agent_id, location_id: o.location_id, travel: o.travel });
    // Establishments do what their kind says: safety ones lower their place's danger, recruiting ones draw newcomers (organization/establishments.ts).
    const establishments = await read.list<EstablishmentLike>('establishments');
    let organizations: Row[];
    if (hosts === INITIATIVE_ONLY) {
      organizations = await read.list<Row>('activeOrganizations', undefined, rowOf);
    } else {
      // Active world events shape the day for places and organizations alike.
      const worldEvents = await read.list<{ id: number; effects: Effect[] }>('activeWorldEvents');
      const hosted = <R>(kind: string, id: (r: R) => string | number) => (r: R) => hosts(kind, id(r));
      const effects = worldEvents.flatMap((e) => e.effects);

      // Places first: markets and populations live through the day.
      const construction = new Map<string, number>();
      type Work = { location_id: string; production_plan: boolean; budget: number; duration_days: number };
      const workOf = (p: Work): Work => ({ location_id: p.location_id, production_plan: p.production_plan, budget: p.budget, duration_days: p.duration_days });
      for (const p of await read.list<Work>('activeProjects', undefined, workOf)) {
        if (!p.production_plan) construction.set(p.location_id, (construction.get(p.location_id) ?? 0) + constructionShare(p));
      }
      const places = await read.list<{ id: string; name: string; kind: string; danger: number; description: string }>('locations');
      const withSafety = (l: { id: string }, m: ReturnType<typeof locationModifiers>) => ({ ...m, danger: m.danger - safetyCut(establishments, l.id) });
      await settleAll('location', places.filter(hosted('location', (l) => l.id)), (l) => l.id, (l) => ({ type: 'day-began', day, seed, construction: construction.get(l.id) ?? 0, modifiers: withSafety(l, locationModifiers(effects, l)) }));
      await placesSettled();

      // Then organizations: arrivals, work, upkeep, at the places as this day left them.
      const facts = new Map((await read.list<{ id: string; kind: string; danger: number }>('locations')).map((l) => [l.id, { kind: l.kind, danger: l.danger }]));
      // An organization arriving today works where it arrives.
      const standsAt = (o: Row) => standsAtDayStart(o, day);
      organizations = await read.list<Row>('activeOrganizations', undefined, rowOf);
      await settleAll('organization', organizations.filter(hosted('organization', (o) => o.id)), (o) => o.id, (o) => ({
        type: 'day-began', day, seed, place: facts.get(standsAt(o)) ?? null, modifiers: organizationModifiers(effects, standsAt(o)),
      }));
      // Every action left unfinished: the follow-up of the organizations that just went
      // bankrupt, and any a crash cut short (actors/intents.ts).
      await resumeIntents(entities, read, (line) => log(`day ${day}: ${line}`), hosts);

      // Quests whose deadline has passed; adventurers whose wounds have healed.
      const itself = (id: string) => id;
      await settleAll('quest', (await read.ids('questsDue', day)).filter(hosted('quest', itself)), itself, () => ({ type: 'day-began', day, seed }));
      await settleAll('adventurer', (await read.ids('adventurersDue', day)).filter(hosted('adventurer', itself)), itself, () => ({ type: 'day-began', day }));

      // World events that have run their course end after shaping their last day.
      await settleAll('world-event', worldEvents.filter(hosted('world-event', (e) => e.id)), (e) => String(e.id), () => ({ type: 'day-began', day }));
    }
    if (!initiative) return;

    // The world's own initiative: seeded organizations post quests; new adventurers arrive
    // (once a day: the settler records it). Taken again after a crash cut it short (it is
    // recorded after it is taken), it does nothing twice: a seeded organization that posted
    // today posts nothing more, and a newcomer that arrived today is the day's newcomer.
    // (Each posting is a saga of its quest: once begun, it is finished by resumeIntents.)
    type Live = { requester_id: number; status: string; posted_day: number; world_funded: boolean };
    const liveQuests = await read.list<Live>('liveQuests', undefined, (q: Live) => ({ requester_id: q.requester_id, status: q.status, posted_day: q.posted_day, world_funded: q.world_funded }));
    const postings = await read.list<{ kind: string; intent: string; day: number; organization_id?: number }>('pendingIntents');
    // The seeded organizations among those that began the day, read again for today's treasury and status.
    type WorldOrganization = { id: number; treasury: number; status: string; daily_maintenance: number };
    const seeded: WorldOrganization[] = [];
    for (const o of organizations) {
      if (o.agent_id !== null) continue;
      const now = (await read.row<WorldOrganization>('organization', o.id))!;
      if (now.status === 'active' && !postedToday(o.id, day, liveQuests, postings)) seeded.push(now);
    }
    // The places as this day left them, the same however often the initiative is taken.
    const today = await read.list<{ id: string; name: string; kind: string; danger: number }>('locations');
    await forEachLimited(seeded, TICK_CONCURRENCY, async (o) => {
      const open = liveQuests.filter((q) => q.requester_id === o.id && q.status === 'open').length;
      const posting = seededQuest(seed, day, o, open, today);
      if (!posting) return;
      const spec = { id: await nextId('quest'), ...posting };
      const r = await entities.ask('quest', spec.id, { type: 'post', quest: spec, agent_id: null, day });
      if (!r.ok) log(`day ${day}: ${o.id} could not post a quest: ${r.refusal.detail}`);
    });
    // Organizations without an agent act by their policies; a prospering place may see a new one.
    await worldOrganizationsTurn(entities, read, seed, day, seeded.map((o) => o.id), nextId, log);
    await worldFounds(entities, read, seed, day, nextId, log);
    // Recruiting asks only whether the pool is below its target: a busy world's 80,000 are not counted each day.
    const available = await read.countAtMost('adventurersAvailable', AVAILABLE_POOL_TARGET);
    if (recruits(seed, day, available, recruitmentBonus(establishments)) && !(await newcomerArrivedToday(read, day))) {
      const newcomer = generateAdventurer(seed, await nextId('adventurer'));
      const r = await entities.ask('adventurer', newcomer.id, { type: 'seed', adventurer: newcomer, day });
      if (!r.ok) log(`day ${day}: the newcomer ${newcomer.id} could not arrive: ${r.refusal.detail}`);
    }
  };
}
