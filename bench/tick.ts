// Benchmark: a day's tick over a large world. Builds a world of ORGS agent-owned
// organizations and ADVENTURERS available adventurers through the real actors and store,
// makes it busy as agents would (employees, projects, production plans, open quests,
// parties on quests; BENCH_BUSY=0 leaves it quiet), then times advances of the clock (what
// POST /api/tick does), with the writes and commits each day took, memory, the number of
// actors awake, and the CPU time spent.
//   node dist/bench/tick.js [orgs=10000] [adventurers=100000] [days=5]
// BENCH_COLD=1 puts every actor to sleep before each day, as the first day after a restart
// has them (or a world whose days outlast WORLD_ACTOR_IDLE_SECONDS): the day recovers each
// actor it settles from the store.
import { spawnSync } from 'child_process';
import fs from 'fs';
import inspector from 'inspector';
import { Client } from 'cassandra-driver';
import os from 'os';
import path from 'path';
import v8 from 'v8';
import vm from 'vm';
import { CLOCK_ID } from '../actors/clock/actor';
import { forEachLimited } from '../actors/concurrency';
import { startWorld } from '../infra/app';
import { readConfig } from '../infra/config';
import { limitHeapGrowth, missingNodeFlags } from '../infra/heap';
import { generateAdventurer } from '../actors/world/generate';
import { cpuSecondsOf } from './proc-cpu';
import { serviceFlags } from './service';

/** CPU time of the whole process (the main thread and the writer thread). */
const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;

/** CPU seconds used so far by another process of this machine (BENCH_SERVER_PID: the Cassandra server), or null. */
function serverCpu(): number | null {
  const pid = process.env.BENCH_SERVER_PID;
  if (!pid) return null;
  return cpuSecondsOf(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** Where organization i stands: five in a row share a place (a quest's party comes from its neighbour). */
const placeOf = (i: number) => (Math.floor(i / 5) % 3 === 0 ? 'greenhollow' : 'emberfall');

/**
 * The world as agents make it busy (BENCH_BUSY=0 leaves it quiet): every organization hires
 * two adventurers; every second one starts a project, every fourth (from the second) a
 * production plan; every fifth posts a quest, which its neighbour accepts and sends a party
 * of its two adventurers on. Answers what was done, and what was refused, by kind.
 */
async function busyWorld(world: Awaited<ReturnType<typeof startWorld>>, orgIds: number[], adventurerIds: number[]): Promise<Record<string, number>> {
  const { store } = world.services;
  const { region } = world;
  const done: Record<string, number> = {};
  const count = (what: string, r: { ok: boolean; refusal?: { detail: string } }) => {
    const key = r.ok ? what : `refused ${what} (${r.refusal!.detail.slice(0, 60)})`;
    done[key] = (done[key] ?? 0) + 1;
    return r.ok;
  };
  const food = new Map<string, number>();
  for (const place of ['greenhollow', 'emberfall']) food.set(place, (await store.row<{ price: number }>('market', `${place}/food`))!.price);
  const quests: number[] = [];
  const step = async (i: number, phase: 'own' | 'party') => {
    const id = orgIds[i];
    const agent_id = 1_000_000 + i;
    const place = placeOf(i);
    const team = [adventurerIds[2 * i], adventurerIds[2 * i + 1]].filter((a) => a !== undefined);
    if (phase === 'own') {
      for (const a of team) count('employees', await region.ask('adventurer', a, { type: 'hire', organization_id: id, organization_name: `Bench Org ${i}`, agent_id, day: 1 }));
      if (i % 2 === 0 || i % 4 === 1) {
        const production = i % 4 === 1;
        const project = {
          id: await store.nextId('project'), title: production ? 'Bench farm' : 'Bench works', kind: production ? 'production' : 'construction',
          description: 'Work that runs for weeks.', location_id: place, budget: production ? 200 : 40, duration_days: production ? 30 : 60,
          output_resource: production ? 'food' : null, output_quantity: production ? 1 : 0, establishment_kind: null,
        };
        count(production ? 'production plans' : 'projects', await region.ask('organization', id, { type: 'start-project', agent_id, day: 1, project, unit_price: production ? food.get(place)! : null }));
      }
      if (i % 5 === 0) {
        const quest = {
          id: await store.nextId('quest'), title: 'Clear the road', description: 'Bandits hold the road.', requester_id: id, location_id: place,
          reward: 20, deadline_days: 60, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: -100,
        };
        if (count('open quests', await region.ask('quest', quest.id, { type: 'post', quest, agent_id, day: 1 }))) quests[i] = quest.id;
      }
      return;
    }
    // A neighbour of a quest's requester forms a party of its two and sends it on the quest.
    const quest = quests[i - 1];
    if (i % 5 !== 1 || quest === undefined) return;
    const party_id = await store.nextId('party');
    if (!count('parties', await region.ask('organization', id, { type: 'form-party', agent_id, day: 1, party_id, name: `Bench Party ${i}` }))) return;
    for (const a of team) count('party members', await region.ask('adventurer', a, { type: 'join-party', party_id, party_name: `Bench Party ${i}`, organization_id: id, agent_id, day: 1 }));
    if (!count('accepted quests', await region.ask('quest', quest, { type: 'accept', organization_id: id, agent_id, day: 1, seed: 'bench' }))) return;
    count('parties on quests', await region.ask('quest', quest, { type: 'dispatch', party_id, organization_id: id, agent_id, day: 1, seed: 'bench' }));
  };
  const all = Array.from({ length: orgIds.length }, (_, i) => i);
  await forEachLimited(all, 256, (i) => step(i, 'own'));
  await forEachLimited(all, 256, (i) => step(i, 'party'));
  return done;
}

async function main() {
  // As the service does (infra/main.ts); BENCH_HEAP_GROWTH=v8 leaves V8's own factor, to compare.
  if (process.env.BENCH_HEAP_GROWTH !== 'v8') limitHeapGrowth();
  const [orgs = 10_000, adventurers = 100_000, days = 5] = process.argv.slice(2).map(Number);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worldsim-bench-'));
  // WORLD_STORE=cassandra (with the CASSANDRA_* settings) times the tick on Cassandra, in a fresh
  // keyspace dropped at the end (BENCH_KEEP=1 keeps it).
  const env = readConfig();
  const cassandra = { ...env.cassandra, keyspace: env.store === 'cassandra' ? `bench_${Date.now()}` : env.cassandra.keyspace };
  const world = await startWorld({ ...env, port: 0, host: '127.0.0.1', dataDir, cassandra, adminKey: 'a', spectatorKey: 's', daySeconds: 0, seed: 'bench' }, (line) => { if (process.env.BENCH_LOG) console.error(line); });
  console.log(`store: ${env.store}${env.store === 'cassandra' ? ` (keyspace ${cassandra.keyspace})` : ''}; node flags: ${process.execArgv.join(' ') || 'none'}`);
  const { store } = world.services;
  const { region } = world;
  const t0 = Date.now();
  const orgIds: number[] = [];
  await forEachLimited(Array.from({ length: orgs }, (_, i) => i), 256, async (i) => {
    const id = await store.nextId('organization');
    orgIds[i] = id;
    const r = await region.ask('organization', id, {
      // Owned by agents (ids far above any real one), as agents' organizations are: seeded ones post quests daily.
      type: 'found', id, agent_id: 1_000_000 + i, name: `Bench Org ${i}`, kind: 'trading company', location_id: placeOf(i),
      description: '', goals: '', motto: '', day: 1, 
    });
    if (!r.ok) throw new Error(r.refusal.detail);
  });
  const t1 = Date.now();
  const adventurerIds: number[] = [];
  await forEachLimited(Array.from({ length: adventurers }, (_, i) => i), 256, async (i) => {
    const id = await store.nextId('adventurer');
    adventurerIds[i] = id;
    const r = await region.ask('adventurer', id, { type: 'seed', adventurer: generateAdventurer('bench', id), day: 1 });
    if (!r.ok) throw new Error(r.refusal.detail);
  });
  const t2 = Date.now();
  console.log(`built ${orgs} organizations in ${((t1 - t0) / 1000).toFixed(1)} s, ${adventurers} adventurers in ${((t2 - t1) / 1000).toFixed(1)} s`);
  if (process.env.BENCH_BUSY !== '0') {
    const busy = await busyWorld(world, orgIds, adventurerIds);
    console.log(`made it busy in ${((Date.now() - t2) / 1000).toFixed(1)} s: ${Object.entries(busy).map(([what, n]) => `${n} ${what}`).join(', ')}`);
  }
  // BENCH_SETTLE=s: wait that long before the first tick (the server's compactions after the build), saying what the server spent meanwhile.
  if (process.env.BENCH_SETTLE) {
    const server = serverCpu();
    await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE) * 1000));
    console.log(`settled ${process.env.BENCH_SETTLE} s${server === null ? '' : `; server cpu ${(serverCpu()! - server).toFixed(2)} s`}`);
  }
  const stats = store as unknown as { writeStats?: { batches: number; writes: number; statements?: number; seconds?: number } };
  // BENCH_READS=1: the reads of the tick that took 20 ms or more.
  if (process.env.BENCH_READS) {
    const target = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of ['list', 'ids', 'count', 'row', 'history']) {
      const original = target[name].bind(store);
      target[name] = async (...args: unknown[]) => {
        const t = Date.now();
        try { return await original(...args); } finally {
          if (Date.now() - t >= 20) console.log(`  ${name}(${args.map((a) => JSON.stringify(a)).join(', ')}) ${Date.now() - t} ms`);
        }
      };
    }
  }
  // BENCH_CPU_PROFILE=file.cpuprofile: a CPU profile of this process over the ticks only, one
  // file a day (file.day<N>.cpuprofile), since the first day after the build differs.
  const profile = process.env.BENCH_CPU_PROFILE ? new inspector.Session() : null;
  if (profile) {
    profile.connect();
    await new Promise((r) => profile.post('Profiler.enable', r));
  }
  /** Runs a day under the profiler, if asked for, and writes its profile named by `name` of the day's answer. */
  const profiled = async <T>(day: () => Promise<T>, name: (answer: T) => string): Promise<T> => {
    if (!profile) return day();
    await new Promise((r) => profile.post('Profiler.start', r));
    const answer = await day();
    const written = await new Promise<unknown>((r) => profile.post('Profiler.stop', (_e, result) => r(result.profile)));
    fs.writeFileSync(process.env.BENCH_CPU_PROFILE!.replace(/(\.cpuprofile)?$/, `.${name(answer)}.cpuprofile`), JSON.stringify(written));
    return answer;
  };
  // BENCH_HEAP_PROFILE=file.heapprofile: what the ticks allocate, sampled (by the function that allocated); with
  // BENCH_HEAP_SURVIVORS=1 only what lived through a scavenge (what the young generation's collections copy).
  const heapProfile = process.env.BENCH_HEAP_PROFILE ? new inspector.Session() : null;
  if (heapProfile) {
    heapProfile.connect();
    await new Promise((r) => heapProfile.post('HeapProfiler.enable', () => heapProfile.post('HeapProfiler.startSampling', { samplingInterval: 32_768, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: process.env.BENCH_HEAP_SURVIVORS !== '1' }, r)));
  }
  const cold = process.env.BENCH_COLD === '1';
  // The build's garbage (100,000 adventurers and the busy world made through the actors) is
  // collected before the first day, once: a running world's day does not follow such a
  // build, and without this the first day alone paid for collecting it (0.3-0.7 s). The
  // days themselves collect their own garbage; none is collected for them between days
  // (unless node --expose-gc asks for the memory after a full collection, below).
  collectGarbage();
  for (let d = 0; d < days; d++) {
    if (cold) {
      region.stopWhere(() => true);
      // Let the stopped actors go before the day is timed, as they would have gone long before it.
      await new Promise((r) => setTimeout(r, 200));
      (globalThis as { gc?: () => void }).gc?.();
    }
    const start = Date.now();
    const cpu = process.cpuUsage();
    const server = serverCpu();
    const before = stats.writeStats && { ...stats.writeStats };
    const r = await profiled(() => region.ask<{ day: number }, 'clock'>('clock', CLOCK_ID, { type: 'advance' }, 30 * 60_000), (a) => `day${a.ok ? a.value.day : 'refused'}`);
    if (!r.ok) throw new Error(r.refusal.detail);
    // With node --expose-gc, the memory figures are after a full collection (what the world retains).
    (globalThis as { gc?: () => void }).gc?.();
    const mem = process.memoryUsage();
    const after = stats.writeStats;
    const statements = before?.statements !== undefined && after?.statements !== undefined ? ` (${after.statements - before.statements} statements)` : '';
    const busy = before?.seconds !== undefined && after?.seconds !== undefined ? ` taking ${(after.seconds - before.seconds).toFixed(2)} s` : '';
    const batches = before && after ? `; ${after.writes - before.writes} writes in ${after.batches - before.batches} commits${busy}${statements}` : '';
    console.log(`day ${r.value.day}: tick ${((Date.now() - start) / 1000).toFixed(2)} s${batches}; rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB, heap ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB; ${region.awake} actors awake; cpu ${(cpuSeconds(process.cpuUsage(cpu))).toFixed(2)} s${server === null ? '' : `, server cpu ${(serverCpu()! - server).toFixed(2)} s`}`);
  }
  if (heapProfile) {
    const written = await new Promise<unknown>((r) => heapProfile.post('HeapProfiler.stopSampling', (_e, result) => r(result.profile)));
    fs.writeFileSync(process.env.BENCH_HEAP_PROFILE!, JSON.stringify(written));
  }
  await world.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (env.store === 'cassandra' && !process.env.BENCH_KEEP) {
    const admin = new Client({ contactPoints: cassandra.contactPoints, localDataCenter: cassandra.localDataCenter });
    await admin.connect();
    await admin.execute(`DROP KEYSPACE IF EXISTS ${cassandra.keyspace}`);
    await admin.shutdown();
  }
  process.exit(0); // idle actors keep their passivation timers; nothing else is left to do
}

// The world runs in this process, so it takes the node flags the service starts with
// (infra/heap.ts): started without them, the benchmark runs itself again with them
// (BENCH_V8_DEFAULTS=1: V8's own, to compare).
const missing = missingNodeFlags().filter((flag) => serviceFlags().includes(flag));
if (missing.length > 0) {
  const again = spawnSync(process.execPath, [...missing, ...process.execArgv, __filename, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
} else {
  main().catch((e) => { console.error(e); process.exit(1); });
}

/** A full garbage collection now, also without node --expose-gc (V8's flag set for this one call). */
function collectGarbage(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed();
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  v8.setFlagsFromString('--no-expose-gc');
}
