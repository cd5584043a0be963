// Benchmark: a day's tick over a large world. Builds a world of ORGS agent-owned
// organizations and ADVENTURERS available adventurers through the real actors and store,
// then times advances of the clock (what POST /api/tick does), with the writes and
// commits each day took, memory, the number of actors awake, and the CPU time spent.
//   node dist/bench/tick.js [orgs=10000] [adventurers=100000] [days=3]
import fs from 'fs';
import os from 'os';
import path from 'path';
import { CLOCK_ID } from '../actors/clock/actor';
import { forEachLimited } from '../actors/concurrency';
import { startWorld } from '../infra/app';
import { readConfig } from '../infra/config';
import { generateAdventurer } from '../actors/world/generate';

/** CPU time of the whole process (the main thread and the writer thread). */
const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;

async function main() {
  const [orgs = 10_000, adventurers = 100_000, days = 3] = process.argv.slice(2).map(Number);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worldsim-bench-'));
  // WORLD_STORE=cassandra (with the CASSANDRA_* settings) times the tick on Cassandra, in a fresh keyspace.
  const env = readConfig();
  const cassandra = { ...env.cassandra, keyspace: env.store === 'cassandra' ? `bench_${Date.now()}` : env.cassandra.keyspace };
  const world = await startWorld({ ...env, port: 0, host: '127.0.0.1', dataDir, cassandra, adminKey: 'a', spectatorKey: 's', daySeconds: 0, seed: 'bench' }, () => undefined);
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
  const sqlite = store as unknown as { writeStats?: { batches: number; writes: number } };
  for (let d = 0; d < days; d++) {
    const start = Date.now();
    const cpu = process.cpuUsage();
    const before = sqlite.writeStats;
    const r = await region.ask<{ day: number }, 'clock'>('clock', CLOCK_ID, { type: 'advance' }, 30 * 60_000);
    if (!r.ok) throw new Error(r.refusal.detail);
    const mem = process.memoryUsage();
    const after = sqlite.writeStats;
    const batches = before && after ? `; ${after.writes - before.writes} writes in ${after.batches - before.batches} commits` : '';
    console.log(`day ${r.value.day}: tick ${((Date.now() - start) / 1000).toFixed(2)} s${batches}; rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB, heap ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB; ${region.awake} actors awake; cpu ${(cpuSeconds(process.cpuUsage(cpu))).toFixed(2)} s`);
  }
  await world.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0); // idle actors keep their passivation timers; nothing else is left to do
}

main().catch((e) => { console.error(e); process.exit(1); });
