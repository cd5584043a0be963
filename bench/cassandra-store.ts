// Benchmark of the Cassandra store against a running Cassandra (infra/servers up cassandra):
// persist latency one at a time, persist throughput with bounded concurrency, point reads,
// named queries, history pages and id blocks. Works in a keyspace of its own, dropped after.
//   node dist/bench/cassandra-store.js [persists=5000] [inFlight=256]
// (The daily tick on Cassandra: WORLD_STORE=cassandra node dist/bench/tick.js.)
// CASSANDRA_CONTACT_POINTS (default 127.0.0.1:9042) and CASSANDRA_LOCAL_DATACENTER (datacenter1).
import crypto from 'crypto';
import { Client } from 'cassandra-driver';
import type { PersistedEvent } from 'nact';
import type { HistoryEntry, ProjectionRow, Writes } from '../actors/ports/store';
import { forEachLimited } from '../actors/concurrency';
import { openCassandraStore, type CassandraStore } from '../infra/store/cassandra-store';

const contactPoints = (process.env.CASSANDRA_CONTACT_POINTS ?? '127.0.0.1:9042').split(',');
const localDataCenter = process.env.CASSANDRA_LOCAL_DATACENTER ?? 'datacenter1';

function pct(samples: number[], p: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function timed(times: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

function report(name: string, samples: number[]) {
  console.log(`${name.padEnd(52)} p50 ${ms(pct(samples, 50)).padStart(10)}  p99 ${ms(pct(samples, 99)).padStart(10)}  (n=${samples.length})`);
}

const seqs = new Map<string, number>();
function persist(store: CassandraStore, key: string, writes: Writes): Promise<void> {
  const n = (seqs.get(key) ?? 0) + 1;
  seqs.set(key, n);
  const event = { key, sequenceNumber: n, createdAt: Date.now(), data: { events: [{ type: 'bench', n, pad: 'x'.repeat(150) }] }, tags: [], isDeleted: false } as PersistedEvent;
  return (store.engine as unknown as { persist(e: PersistedEvent, w: Writes): Promise<void> }).persist(event, writes);
}

/** About the size of a real organization row (450 bytes) and its history entry. */
function orgWrites(id: number, day: number): Writes {
  const row: ProjectionRow = {
    kind: 'organization', id, status: id % 10 === 0 ? 'bankrupt' : 'active', location_id: ['emberfall', 'greenhollow', 'ironcrag'][id % 3], agent_id: id, organization_id: null,
    doc: { id, name: `Org ${id}`, kind: 'merchant company', treasury: 800 + id, reputation: 10, holdings: { grain: 10, iron: 3 }, motto: 'x'.repeat(200) },
  };
  const history: HistoryEntry[] = [{ day, category: ['trade', 'organization', 'quest'][id % 3], agent_id: id % 50, organization_ids: [id % 100, (id + 1) % 100], summary: `Org ${id} did something on day ${day}`, data: { ledger: [{ organization_id: id, flow: 'trade', gold: 5 }] } }];
  return { rows: [row], history };
}

async function dropKeyspace(keyspace: string) {
  const admin = new Client({ contactPoints, localDataCenter });
  await admin.connect();
  await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
  await admin.shutdown();
}

async function main() {
  const [total = 5000, inFlight = 256] = process.argv.slice(2).map(Number);
  const keyspace = `worldsim_bench_${crypto.randomBytes(4).toString('hex')}`;
  const store = await openCassandraStore({ contactPoints, localDataCenter, keyspace, maxInFlight: 256 });
  console.log(`keyspace ${keyspace}, layout ${JSON.stringify(store.layout)}`);
  try {
    // Warm up the prepared statements and the id blocks.
    for (let i = 0; i < 50; i++) await persist(store, `warm:${i}`, orgWrites(100_000 + i, 1));

    report('persist, one at a time (journal + row + history)', await timed(500, (i) => persist(store, `one:${i % 50}`, orgWrites(i + 1, 1))));

    const started = Date.now();
    await forEachLimited(Array.from({ length: total }, (_, i) => i), inFlight, (i) => persist(store, `many:${i}`, orgWrites(1000 + i, 2)));
    const seconds = (Date.now() - started) / 1000;
    console.log(`${`persist, ${total} with ${inFlight} in flight`.padEnd(52)} ${seconds.toFixed(2)} s  (${Math.round(total / seconds)}/s, peak ${store.peakInFlight} requests in flight)`);

    report('row (point read)', await timed(500, (i) => store.row('organization', 1000 + (i * 37) % total)));
    report('setting (point read)', await timed(200, () => store.setting('none')));
    report('agentForKeyHash', await timed(200, () => store.agentForKeyHash('none')));
    report('nextId (block of 64 in memory, LWT per block)', await timed(1000, () => store.nextId('organization')));

    const n = (await store.ids('organizations')).length;
    report(`list organizations (every bucket, ${n} rows)`, await timed(20, () => store.list('organizations')));
    const active = (await store.ids('activeOrganizations')).length;
    report(`list activeOrganizations (SAI on status, ${active} rows)`, await timed(20, () => store.list('activeOrganizations')));
    const at = (await store.ids('activeOrganizationsAt', 'ironcrag')).length;
    report(`list activeOrganizationsAt ironcrag (SAI x2, ${at} rows)`, await timed(20, () => store.list('activeOrganizationsAt', 'ironcrag')));
    report('list organizationsOfAgent (SAI, 1 row)', await timed(200, (i) => store.list('organizationsOfAgent', 1000 + i)));
    report('count bankruptOrganizations (SAI, COUNT(*))', await timed(50, () => store.count('bankruptOrganizations')));
    report(`count activeOrganizations (SAI, COUNT(*), ${active})`, await timed(20, () => store.count('activeOrganizations')));
    report(`count organizations (every bucket, COUNT(*), ${n})`, await timed(20, () => store.count('organizations')));

    report('history, newest 30', await timed(200, () => store.history({ limit: 30 })));
    report('history, 30 before an id half-way back', await timed(200, () => store.history({ limit: 30, before_id: Math.floor(total / 2) })));
    report('history, category trade, 30', await timed(200, () => store.history({ limit: 30, category: 'trade' })));
    report('history, organization 7, 30', await timed(200, () => store.history({ limit: 30, organization_id: 7 })));
    report('history, agent 7 and category trade (filtered), 30', await timed(100, () => store.history({ limit: 30, agent_id: 7, category: 'trade' })));
    report('historyCountOfAgent', await timed(100, () => store.historyCountOfAgent(7)));
    report('lastHistoryId', await timed(200, () => store.lastHistoryId()));
    report('historyEvent', await timed(200, (i) => store.historyEvent(1 + i * 13)));
    report('historyBetweenDays 0..3, 501 nearest', await timed(20, () => store.historyBetweenDays(0, 3, 501, Math.floor(total / 2))));
  } finally {
    await store.close();
    await dropKeyspace(keyspace);
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
