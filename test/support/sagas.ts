// Test support for actions that span actors (actors/intents.ts): crashes injected between
// their steps, and the books checked after recovery.
import assert from 'assert/strict';
import fs from 'fs';
import sinon from 'sinon';
import type { HistoryEvent, PersistedEvent } from '../../actors/ports/store';
import { FLOWS, type LedgerLine } from '../../actors/ledger';
import type { Result } from '../../actors/result';
import type { World } from '../../infra/app';
import { startTestWorld, tempDir, type TestWorld } from './world';

export const CRASH: Result<never> = { ok: false, refusal: { status: 503, detail: 'the process died here (injected)' } };

/** A world on this data folder (the same folder continues the same world). */
// One node: these tests inject faults into this process's entities port.
export const worldOn = (dataDir: string) => startTestWorld({ dataDir, seed: 'sagas', nodes: 1 });

/** The faults injected into each node's store, so that a restart on many nodes can lift the survivors' first. */
const faults = new Map<World, sinon.SinonStub[]>();

/** Replaces the store's persist on every node of the world (the write happens on whichever node hosts its actor). */
function stubPersist(w: TestWorld, fake: (original: (event: PersistedEvent, writes: any) => Promise<void>, event: PersistedEvent, writes: any) => Promise<void>): { restore(): void } {
  const stubs = w.nodes.map((node) => {
    const engine = node.services.store.engine;
    const original = engine.persist.bind(engine);
    const stub = sinon.stub(engine, 'persist').callsFake((event: PersistedEvent, writes) => fake(original, event, writes));
    faults.set(node, [...(faults.get(node) ?? []), stub]);
    return stub;
  });
  return { restore: () => { for (const stub of stubs) stub.restore(); } };
}

/** On many nodes, the index of the node that hosts an entity. */
const hostOf = (w: TestWorld, kind: string, id: string | number) =>
  w.nodes.findIndex((n) => n.node !== null && n.node.hosts(n.node.shardOf(kind, id)));

/**
 * A restart on many nodes: the node that hosts the action's initiating actor (the first
 * pending intent's; else the second node) dies, and the survivors finish or undo what it
 * left behind when they take its shards over. The world goes on with one node fewer (on
 * the last one, a restart starts the world again on all of them).
 */
async function replaceHost(w: TestWorld, faultsLast: boolean): Promise<TestWorld> {
  const pending = await pendingIntents(w);
  const found = pending.length ? hostOf(w, pending[0].kind, pending[0].id) : -1;
  const index = found >= 0 ? found : 1 % w.nodes.length;
  const leaving = w.nodes[index];
  if (faultsLast) {
    // The dying node keeps its faults until it is gone; the survivors' go now.
    for (const [node, stubs] of faults) if (node !== leaving) { for (const stub of stubs) stub.restore(); faults.delete(node); }
  } else {
    sinon.restore();
    faults.clear();
  }
  await w.loseNode(index, () => { sinon.restore(); faults.clear(); });
  return w;
}

/**
 * For a describe block: `fresh()` starts a world on a new folder, `restart(w)` closes one
 * (lifting any injected fault first, or after closing it when `faultsLast`: the process
 * dies with its faults in place) and starts it again on its folder; every world is closed
 * after each test and the folders are removed at the end.
 */
export function useSagaWorlds(prefix: string, options: { oneNode?: boolean } = {}): { fresh: () => Promise<TestWorld>; restart: (w: TestWorld, faultsLast?: boolean) => Promise<TestWorld> } {
  const dirs: string[] = [];
  let worlds: TestWorld[] = [];
  // On many nodes (WORLD_TEST_NODES) the world is a cluster and a restart is the death of
  // the node that hosted the action; `oneNode` keeps one node for tests that inject faults
  // into one process's asks.
  const open = (dataDir: string) => startTestWorld({ dataDir, seed: 'sagas', ...(options.oneNode ? { nodes: 1 } : {}) });
  afterEach(async () => {
    sinon.restore();
    faults.clear();
    for (const w of worlds) await w.close();
    worlds = [];
  });
  after(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });
  return {
    async fresh() {
      const dir = tempDir(prefix);
      dirs.push(dir);
      const w = await open(dir);
      worlds.push(w);
      return w;
    },
    async restart(w, faultsLast = false) {
      if (w.nodes.length > 1) return replaceHost(w, faultsLast);
      if (!faultsLast) sinon.restore();
      await w.close();
      sinon.restore();
      worlds = worlds.filter((x) => x !== w);
      const again = await open(w.dataDir);
      worlds.push(again);
      return again;
    },
  };
}

/** Every history event, oldest first. */
export async function allEvents(w: TestWorld): Promise<HistoryEvent[]> {
  const out: HistoryEvent[] = [];
  let before: number | undefined;
  for (;;) {
    const r = await w.get<HistoryEvent[]>(`/api/events?limit=100${before ? `&before_id=${before}` : ''}`);
    assert.equal(r.status, 200, r.text);
    out.push(...r.body);
    if (r.body.length < 100) break;
    before = r.body[r.body.length - 1].id;
  }
  return out.sort((x, y) => x.id - y.id);
}

const linesOf = (events: HistoryEvent[]): LedgerLine[] => events.flatMap((e) => ((e.data as { ledger?: LedgerLine[] })?.ledger ?? []));

/**
 * The world's gold: every organization's treasury and the gold the live quests hold in
 * trust for organizations (their reward, unless the world funds it).
 */
export async function worldGold(w: TestWorld): Promise<number> {
  const orgs = await w.services.read.list<{ treasury: number }>('organizations');
  const quests = await w.services.read.list<{ reward: number; world_funded: boolean }>('liveQuests');
  return orgs.reduce((n, o) => n + o.treasury, 0) + quests.reduce((n, q) => n + (q.world_funded ? 0 : q.reward), 0);
}

/** A mark to check the books from: the world's gold and the newest event. */
export async function mark(w: TestWorld): Promise<{ gold: number; lastEvent: number }> {
  return { gold: await worldGold(w), lastEvent: await w.services.read.lastHistoryId() };
}

/**
 * No gold from nothing: since the mark, the world's gold changed by exactly the external
 * flows of the new events' ledgers; and every organization's treasury is what its
 * history's ledger says.
 */
export async function assertBooks(w: TestWorld, since: { gold: number; lastEvent: number }): Promise<void> {
  const events = await allEvents(w);
  const external = linesOf(events.filter((e) => e.id > since.lastEvent)).filter((l) => FLOWS[l.flow].kind !== 'internal').reduce((n, l) => n + (l.gold ?? 0), 0);
  assert.equal(await worldGold(w) - since.gold, external, 'the world\'s gold changed by the external flows alone');
  const lines = linesOf(events);
  for (const o of await w.services.read.list<{ id: number; treasury: number }>('organizations')) {
    const replayed = lines.filter((l) => l.organization_id === o.id).reduce((n, l) => n + (l.gold ?? 0), 0);
    assert.equal(replayed, o.treasury, `organization ${o.id}: its history's ledger gives its treasury`);
  }
}

/** The pending intents of the read model. */
export const pendingIntents = (w: TestWorld) => w.services.read.list<{ kind: string; id: number; intent: string }>('pendingIntents');

/**
 * Makes the store refuse the writes of `key` whose first event is of type `eventType`,
 * after the first `skip` of them (the process dies before that write reaches the disk);
 * every other write goes through.
 */
export function failWrite(w: TestWorld, key: string, eventType: string, skip = 0): { restore(): void } {
  let seen = 0;
  return stubPersist(w, (original, event, writes) => {
    const first = (event.data as { events?: Array<{ type: string }> })?.events?.[0]?.type;
    // The first `skip` such writes go through.
    if (event.key === key && first === eventType && seen++ >= skip) return Promise.reject(new Error(`injected crash before ${key} wrote ${eventType}`));
    return original(event, writes);
  });
}

/**
 * The process dies at a write: the first write (after `skip` of them) for which `at`
 * holds is refused, and so is every write after it, as nothing reaches the disk any more.
 * Answers whether it has died yet.
 */
export function dieAtWrite(w: TestWorld, at: (key: string, eventType: string | undefined) => boolean, skip = 0): () => boolean {
  let seen = 0;
  let dead = false;
  stubPersist(w, (original, event, writes) => {
    const first = (event.data as { events?: Array<{ type: string }> })?.events?.[0]?.type;
    if (!dead && at(event.key, first) && seen++ >= skip) dead = true;
    return dead ? Promise.reject(new Error(`injected crash before ${event.key} wrote ${first}`)) : original(event, writes);
  });
  return () => dead;
}

/**
 * Holds back the first write of `key` whose events include one of type `eventType` (the
 * actor that makes it waits, and the read model does not show it) until `release()`;
 * `holding` resolves once that write was reached. Every other write goes through.
 */
export function holdWrite(w: TestWorld, key: string | ((key: string) => boolean), eventType: string): { holding: Promise<void>; release(): void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  let reached!: () => void;
  const holding = new Promise<void>((resolve) => { reached = resolve; });
  let once = false;
  stubPersist(w, async (original, event, writes) => {
    const types = ((event.data as { events?: Array<{ type: string }> })?.events ?? []).map((e) => e.type);
    if (!once && (typeof key === 'string' ? event.key === key : key(event.key)) && types.includes(eventType)) {
      once = true;
      reached();
      await held;
    }
    return original(event, writes);
  });
  return { holding, release };
}

/**
 * Sends `request` and holds back its write of `eventType` (holdWrite) while `ending`
 * dissolves, then lets the write go: the request's answer, the dissolution having come
 * between the request's checks and its record.
 */
export async function dissolvedMeanwhile<T>(
  w: TestWorld, key: string | ((key: string) => boolean), eventType: string, request: () => Promise<T>, ending: { org: { id: number }; key: string },
): Promise<T> {
  const { holding, release } = holdWrite(w, key, eventType);
  const answer = request();
  await holding;
  const dissolved = await w.post(`/api/organizations/${ending.org.id}/dissolve`, undefined, ending.key);
  assert.equal(dissolved.status, 200, dissolved.text);
  release();
  return answer;
}
