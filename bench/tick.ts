// Benchmark: a day's tick over a large world. Builds a world of ORGS agent-owned
// organizations and ADVENTURERS available adventurers through the real actors and store,
// then times advances of the clock (what POST /api/tick does), with the writes and
// commits each day took, memory, the number of actors awake, and the CPU time spent.
//   node dist/bench/tick.js [orgs=10000] [adventurers=100000] [days=3]
import fs from 'fs';
import inspector from 'inspector';
import { Client } from 'cassandra-driver';
import os from 'os';
import path from 'path';
import { CLOCK_ID } from '../actors/clock/actor';
import { forEachLimited } from '../actors/concurrency';
import { startWorld } from '../infra/app';
import { readConfig } from '../infra/config';
import { generateAdventurer } from '../actors/world/generate';

/** CPU time of the whole process (the main thread and the writer thread). */
const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;

/** CPU seconds used so far by another process of this machine (BENCH_SERVER_PID: the Cassandra server), or null. */
function serverCpu(): number | null {
  const pid = process.env.BENCH_SERVER_PID;
  if (!pid) return null;
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
}

async function main() {
  const [orgs = 10_000, adventurers = 100_000, days = 3] = process.argv.slice(2).map(Number);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worldsim-bench-'));
  // WORLD_STORE=cassandra (with the CASSANDRA_* settings) times the tick on Cassandra, in a fresh
  // keyspace dropped at the end (BENCH_KEEP=1 keeps it).
  const env = readConfig();
  const cassandra = { ...env.cassandra, keyspace: env.store === 'cassandra' ? `bench_${Date.now()}` : env.cassandra.keyspace };
  const world = await startWorld({ ...env, port: 0, host: '127.0.0.1', dataDir, cassandra, adminKey: 'a', spectatorKey: 's', daySeconds: 0, seed: 'bench' }, (line) => { if (process.env.BENCH_LOG) console.error(line); });
  console.log(`store: ${env.store}${env.store === 'cassandra' ? ` (keyspace ${cassandra.keyspace})` : ''}`);
  const { store } = world.services;
  const { region } = world;
  const t0 = Date.now();
  const orgIds: number[] = [];
  await forEachLimited(Array.from({ length: orgs }, (_, i) => i), 256, async (i) => {
    const id = await store.nextId('organization');
    orgIds.push(id);
    const r = await region.ask('organization', id, {
      // Owned by agents (ids far above any real one), as agents' organizations are: seeded ones post quests daily.
      type: 'found', id, agent_id: 1_000_000 + i, name: `Bench Org ${i}`, kind: 'trading company', location_id: i % 3 === 0 ? 'greenhollow' : 'emberfall',
      description: '', goals: '', motto: '', day: 1, 
    });
    if (!r.ok) throw new Error(r.refusal.detail);
  });
  const t1 = Date.now();
  await forEachLimited(Array.from({ length: adventurers }, (_, i) => i), 256, async () => {
    const id = await store.nextId('adventurer');
    const r = await region.ask('adventurer', id, { type: 'seed', adventurer: generateAdventurer('bench', id), day: 1 });
    if (!r.ok) throw new Error(r.refusal.detail);
  });
  const t2 = Date.now();
  console.log(`built ${orgs} organizations in ${((t1 - t0) / 1000).toFixed(1)} s, ${adventurers} adventurers in ${((t2 - t1) / 1000).toFixed(1)} s`);
  // BENCH_SETTLE=s: wait that long before the first tick (the server's compactions after the build), saying what the server spent meanwhile.
  if (process.env.BENCH_SETTLE) {
    const server = serverCpu();
    await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE) * 1000));
    console.log(`settled ${process.env.BENCH_SETTLE} s${server === null ? '' : `; server cpu ${(serverCpu()! - server).toFixed(2)} s`}`);
  }
  const stats = store as unknown as { writeStats?: { batches: number; writes: number; statements?: number } };
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
  // BENCH_CPU_PROFILE=file.cpuprofile: a CPU profile of this process over the ticks only.
  const profile = process.env.BENCH_CPU_PROFILE ? new inspector.Session() : null;
  if (profile) {
    profile.connect();
    await new Promise((r) => profile.post('Profiler.enable', () => profile.post('Profiler.start', r)));
  }
  for (let d = 0; d < days; d++) {
    const start = Date.now();
    const cpu = process.cpuUsage();
    const server = serverCpu();
    const before = stats.writeStats && { ...stats.writeStats };
    const r = await region.ask<{ day: number }, 'clock'>('clock', CLOCK_ID, { type: 'advance' }, 30 * 60_000);
    if (!r.ok) throw new Error(r.refusal.detail);
    // With node --expose-gc, the memory figures are after a full collection (what the world retains).
    (globalThis as { gc?: () => void }).gc?.();
    const mem = process.memoryUsage();
    const after = stats.writeStats;
    const statements = before?.statements !== undefined && after?.statements !== undefined ? ` (${after.statements - before.statements} statements)` : '';
    const batches = before && after ? `; ${after.writes - before.writes} writes in ${after.batches - before.batches} commits${statements}` : '';
    console.log(`day ${r.value.day}: tick ${((Date.now() - start) / 1000).toFixed(2)} s${batches}; rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB, heap ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB; ${region.awake} actors awake; cpu ${(cpuSeconds(process.cpuUsage(cpu))).toFixed(2)} s${server === null ? '' : `, server cpu ${(serverCpu()! - server).toFixed(2)} s`}`);
  }
  if (profile) {
    const written = await new Promise<unknown>((r) => profile.post('Profiler.stop', (_e, result) => r(result.profile)));
    fs.writeFileSync(process.env.BENCH_CPU_PROFILE!, JSON.stringify(written));
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

main().catch((e) => { console.error(e); process.exit(1); });
