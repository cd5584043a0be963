// Benchmark: a mixed agent workload on one node and on several (Cassandra and Kafka must be
// running: infra/servers up). Each node is its own process on loopback; clients send their
// requests to the nodes in turn. Reports requests per second, the latency of the mix, and
// each node's cross-node asks (p50, p99) from /healthz; then kills one node (SIGKILL) and
// times until its shards answer on the others.
//   node dist/bench/nodes.js [nodes=3] [seconds=60] [clients=32]
// The clients first act for BENCH_WARMUP seconds (default 10) that are not counted: a new
// world seeds itself with hundreds of asks at once, and the processes warm up. The nodes'
// cross-node figures are those of the last minute (/healthz), so a run of 60 s or more
// reports the measured part alone.
// The mix, per client round: register an agent (1), found an organization (1), read the
// world (2), read its organization (2), read the market (2), post a message (1), trade one
// unit of food and sell it back (2): 11 requests, 6 of them writes. Client c founds its
// organizations at the c-th settlement with a market (in turn), so the trades spread over
// the markets as agents spread over the world.
// BENCH_PROF=dir writes each node's CPU profile there (the killed node's is lost).
// BENCH_RATE=N paces the clients to N requests a second in all (each request waits for the
// next free slot of a shared schedule, as autocannon's overallRate does): the hop "under
// load" measured at a known share of what the nodes reach unpaced, rather than with every
// core saturated. 0 or unset: every client as fast as it is answered.
// A cross-node ask's round trip includes the work of the actor that answers it (its
// mailbox, its writes); its hop is the round trip less that work: what crossing costs.
// Beside them runs the hop's ceiling (bench/kafka-round-trip.ts): kafkajs alone asking and
// answering through the same broker, one ping at a time, for 5 s before the load and over
// the measured part. Under the load its p99 is what the broker and the shared cores give
// any round trip, whatever the nodes do.
import { fork, spawn, type ChildProcess } from 'child_process';
import crypto from 'crypto';
import fs from 'fs';
import http from 'http';
import os from 'os';
import path from 'path';
import type { RoundTrips } from './kafka-round-trip';
import { serviceFlags } from './service';

const NODES = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 60);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const CLIENTS = Number(process.argv[4] ?? 32);
const RATE = Number(process.env.BENCH_RATE ?? 0);
const SHARDS = 32;
const name = `bench${crypto.randomBytes(3).toString('hex')}`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function request(port: number, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method, path: url, agent, timeout: 60_000, headers: { ...headers, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try { parsed = JSON.parse(text); } catch { /* text */ }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    // No answer: what went wrong, as the failures' lines show it.
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, body: e.code ?? e.message }));
    req.on('timeout', () => { req.destroy(); resolve({ status: 0, body: 'no answer in 60 s' }); });
    if (data) req.write(data);
    req.end();
  });
}

interface Node { id: number; port: number; proc: ChildProcess }

/** The ceiling of a hop, in its own process: kafkajs alone pinging through the broker. */
async function startProbe(): Promise<{ proc: ChildProcess; sample: (ms: number) => Promise<RoundTrips>; reset: () => void; report: () => Promise<RoundTrips> }> {
  const proc = fork(path.join(__dirname, 'kafka-round-trip.js'), [], { env: { ...process.env, PROBE_TOPIC: `${name}.probe` }, stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    proc.on('message', (m) => { if (m === 'ready') resolve(); });
    proc.on('exit', (code) => reject(new Error(`the Kafka probe ended (${code}) before it was ready`)));
  });
  const report = () => new Promise<RoundTrips>((resolve) => {
    const answer = (m: any) => { if (m?.roundTrips) { proc.off('message', answer); resolve(m.roundTrips); } };
    proc.on('message', answer);
    proc.send('report');
  });
  const reset = () => { proc.send('reset'); };
  return { proc, reset, report, sample: async (ms) => { reset(); await sleep(ms); return report(); } };
}

const roundTrips = (r: RoundTrips) => (r.n === 0 ? 'none answered' : `p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms (${r.n} pings)`);

function startNode(id: number): Node {
  const port = 19_000 + id + Math.floor(Math.random() * 500) * 10;
  const env = {
    ...process.env, WORLD_STORE: 'cassandra', WORLD_BUS: 'kafka', NODE_ID: String(id), PORT: String(port), HOST: '127.0.0.1', WORLD_SHARDS: String(SHARDS),
    CASSANDRA_KEYSPACE: process.env.CASSANDRA_KEYSPACE ?? 'bench_nodes', CASSANDRA_WORLD: name, KAFKA_CLIENT_ID: name,
    WORLD_TICK_TOPIC: `${name}.days`, WORLD_HISTORY_TOPIC: `${name}.history`, WORLD_COMMAND_TOPIC: `${name}.commands`,
    WORLD_DAY_SECONDS: '0', WORLD_ADMIN_KEY: 'admin', WORLD_SPECTATOR_KEY: 'spectator', WORLD_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'bench-node-')),
    // The benchmark is one client at full speed: no rate limit.
    WORLD_RATE_ADDRESS_PER_SECOND: '0', WORLD_RATE_KEY_PER_SECOND: '0', WORLD_RATE_REGISTRATION_PER_MINUTE: '0',
  };
  // BENCH_PROF=dir: each node writes a CPU profile there when it stops (the survivors are stopped with SIGTERM at the end).
  const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const proc = spawn(process.execPath, ['--no-deprecation', ...serviceFlags(), ...prof, path.resolve(__dirname, '..', 'infra', 'main.js')], { env, stdio: 'ignore' });
  return { id, port, proc };
}

/** Stops the nodes still running with SIGTERM, so that they write their CPU profiles, waiting up to 30 s. */
async function stopGently(nodes: Node[]): Promise<void> {
  await Promise.all(nodes.filter((n) => n.proc.exitCode === null && n.proc.signalCode === null).map((n) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 30_000);
    n.proc.once('exit', () => { clearTimeout(timer); resolve(); });
    n.proc.kill('SIGTERM');
  })));
}

async function covered(nodes: Node[], timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const shards = (await Promise.all(nodes.map(async (n) => (await request(n.port, 'GET', '/healthz')).body?.node?.shards ?? []))).flat();
    if (new Set(shards).size === SHARDS && shards.length === SHARDS) return;
    if (Date.now() > end) throw new Error('the shards were not covered');
    await sleep(200);
  }
}

async function main() {
  const nodes = Array.from({ length: NODES }, (_, i) => startNode(i + 1));
  // However this process ends (an error, Ctrl-C, its output piped into `head`, which closes
  // the pipe), its node processes end with it: left running, they would load the next run.
  let probe: Awaited<ReturnType<typeof startProbe>> | null = null;
  const killAll = () => { for (const n of nodes) n.proc.kill('SIGKILL'); probe?.proc.kill('SIGKILL'); };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => process.exit(1));
  process.stdout.on('error', () => process.exit(1));
  try {
    await covered(nodes);
    // A node whose shards are all hosted may still be seeding the world (503 until then).
    let world = await request(nodes[0].port, 'GET', '/api/world');
    for (const end = Date.now() + 60_000; world.status !== 200 && Date.now() < end;) {
      await sleep(200);
      world = await request(nodes[0].port, 'GET', '/api/world');
    }
    if (world.status !== 200) throw new Error(`the world did not answer within 60 s (last: ${world.status} ${JSON.stringify(world.body).slice(0, 200)})`);
    const markets: string[] = (world.body?.places ?? []).filter((l: any) => l.population > 0).map((l: any) => l.id);
    if (markets.length === 0) throw new Error('the world has no settlement with a market');
    probe = await startProbe();
    const probeIdle = await probe.sample(5_000);
    let turn = 0;
    const next = () => nodes[turn++ % nodes.length].port;
    const measuredFrom = Date.now() + WARMUP * 1000;
    const end = measuredFrom + SECONDS * 1000;
    let done = 0;
    let bad = 0;
    let refused = 0;
    const latencies: number[] = [];
    const failures: string[] = [];
    // The paced schedule: one slot every 1/RATE s, taken in turn by whichever client is ready
    // (a slot nobody was ready for is lost: no burst to catch up).
    let slot = Date.now();
    const paced = async () => {
      if (RATE <= 0) return;
      slot = Math.max(slot + 1000 / RATE, Date.now());
      const wait = slot - Date.now();
      if (wait > 0) await sleep(wait);
    };
    const timed = async (method: string, url: string, body?: unknown, headers?: Record<string, string>) => {
      await paced();
      const t = performance.now();
      // Only requests sent within the measured part: a round that runs past its end finishes uncounted.
      const counted = Date.now() >= measuredFrom && Date.now() < end;
      const r = await request(next(), method, url, body, headers);
      // Failures count in the warm-up too; speed only after it.
      if (r.status === 0 || r.status >= 500) { bad++; if (failures.length < 5) failures.push(`${method} ${url} ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`); }
      else if (r.status >= 400) refused++;
      if (counted) { latencies.push(performance.now() - t); done++; }
      return r;
    };
    // The event loop's delay on each node over the measured part: a scrape resets prom-client's histogram.
    const lagOf = async (n: Node) => {
      const text = String((await request(n.port, 'GET', '/metrics', undefined, { 'x-spectator-key': 'spectator' })).body);
      // Node's monitor counts the 10 ms between its samples (http/metrics.ts) in each delay: an idle loop shows 10.1 ms.
      const value = (name: string) => Number(text.match(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm'))?.[1] ?? NaN) * 1000 - 10;
      return `event loop delay p50 ${value('nodejs_eventloop_lag_p50_seconds').toFixed(1)} ms, p99 ${value('nodejs_eventloop_lag_p99_seconds').toFixed(1)} ms`;
    };
    const lagReset = sleep(WARMUP * 1000).then(() => { probe!.reset(); return Promise.all(nodes.map(lagOf)); });
    await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
      for (let round = 0; Date.now() < end; round++) {
        const a = await timed('POST', '/api/agents', { name: `Bench ${c}-${round}`, model: 'bench-model' });
        if (a.status !== 201) continue;
        const key = { 'x-agent-key': a.body.api_key };
        const place = markets[c % markets.length];
        const o = await timed('POST', '/api/organizations', { name: `Bench Co ${c}-${round}`, kind: 'merchant company', description: 'benchmark', location_id: place }, key);
        await timed('GET', '/api/world');
        await timed('GET', `/api/market?location_id=${place}`);
        if (o.status !== 201) continue;
        await timed('GET', `/api/organizations/${o.body.id}`);
        await timed('POST', '/api/messages', { sender_id: o.body.id, recipient_id: null, body: 'Fair prices at Emberfall' }, key);
        await timed('POST', '/api/trade', { organization_id: o.body.id, resource: 'food', quantity: 1, side: 'buy' }, key);
        await timed('POST', '/api/trade', { organization_id: o.body.id, resource: 'food', quantity: 1, side: 'sell' }, key);
        await timed('GET', '/api/world');
        await timed('GET', `/api/organizations/${o.body.id}`);
        await timed('GET', `/api/market?location_id=${place}`);
      }
    }));
    await lagReset;
    const lags = await Promise.all(nodes.map(lagOf));
    const probeLoaded = await probe.report();
    latencies.sort((x, y) => x - y);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(1);
    console.log(`${NODES} node(s), ${CLIENTS} clients${RATE > 0 ? ` paced to ${RATE} req/s` : ''}, ${SECONDS} s after ${WARMUP} s of warm-up: ${(done / SECONDS).toFixed(0)} req/s, p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, ${bad} failed (5xx or no answer), ${refused} refused (4xx)`);
    for (const f of failures) console.log(`  failed: ${f}`);
    for (const [i, n] of nodes.entries()) {
      const h = (await request(n.port, 'GET', '/healthz')).body?.node;
      console.log(`  node-${n.id}: shards ${h?.shards?.length}; cross-node asks sent ${h?.cross_node_asks?.sent}; of the last minute: round trip p50 ${h?.cross_node_asks?.p50_ms} ms, p99 ${h?.cross_node_asks?.p99_ms} ms; hop p50 ${h?.cross_node_asks?.hop_p50_ms} ms, p99 ${h?.cross_node_asks?.hop_p99_ms} ms; failed ${h?.cross_node_asks?.failed}; ${lags[i]}`);
    }
    console.log(`  kafkajs alone, a ping answered through the broker (a hop's two legs, no node): before the load ${roundTrips(probeIdle)}; over the measured part ${roundTrips(probeLoaded)}`);
    probe.proc.send('stop');
    if (NODES > 1) {
      const victim = nodes[NODES - 1];
      const killed = Date.now();
      victim.proc.kill('SIGKILL');
      await covered(nodes.slice(0, -1));
      console.log(`  node-${victim.id} killed: its shards answered on the others after ${((Date.now() - killed) / 1000).toFixed(1)} s`);
    }
  } finally {
    if (process.env.BENCH_PROF) await stopGently(nodes);
    for (const n of nodes) n.proc.kill('SIGKILL');
    probe?.proc.kill('SIGKILL');
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
