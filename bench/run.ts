// The benchmark that compares in one run (`npm run bench`): a bare restify server and the
// service, each in its own process on loopback, driven by autocannon over keep-alive
// connections. Every case runs back to back with a fresh measurement of bare restify, the
// whole list is repeated ROUNDS times, and the table gives the median of the rounds with
// their spread, the share of bare restify (from the same round), p50 and p99; each read is
// measured again paced at half the rate it reached, for its p99 there.
//   node dist/bench/run.js [seconds per case=3] [connections=32] [rounds=2]
// Environment: BENCH_ONLY=regex runs only the cases whose name matches; BENCH_TICK=0 skips
// the tick benchmark (BENCH_TICK_ARGS="orgs adventurers days" sizes it); WORLD_STORE=cassandra
// with the CASSANDRA_* settings measures the service on Cassandra, in a fresh keyspace (start
// Cassandra first: infra/servers; the benchmark never starts it).
import autocannon from 'autocannon';
import { fork, spawnSync, type ChildProcess } from 'child_process';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { mixRequests, MIX_DESCRIPTION } from './mix';
import { rawRequest, request } from './client';
import { ASKS, must, seed, startService, waitFor, type BenchWorld } from './service';
import { cpuSecondsOf } from './proc-cpu';

const [SECONDS = 3, CONNECTIONS = 32, ROUNDS = 2] = process.argv.slice(2).map(Number);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
const BARE_PORT = 18_000 + Math.floor(Math.random() * 500);
const PORT = BARE_PORT + 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sample {
  rps: number; ok: number; refused: number; p50: number; p99: number; writes?: string; /** Reads: p99 when paced at half of the rate just measured. */ p99Half?: number;
  /** CPU µs the server's main thread spent a request (every answer counted): steadier than the rate on a shared machine. */
  cpuUs?: number;
  /** CPU seconds the server's main thread and its other threads spent during the case, and the case's seconds. */
  cpu?: { main: number; others: number; seconds: number };
}
/** A case; `bare` ones are answered by the bare restify server, whose CPU is then the one measured. */
interface Case { name: string; group: string; run: (overallRate?: number) => Promise<Sample>; prepare?: () => Promise<void>; server?: 'bare' }

/**
 * CPU seconds a process's threads have used so far (Linux /proc): its main thread (the event
 * loop: its id is the process's) and the others together (the embedded store's writer, libuv,
 * V8's collector); null elsewhere.
 */
function threadCpu(pid: number): { main: number; others: number } | null {
  try {
    let main = 0;
    let others = 0;
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const seconds = cpuSecondsOf(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      if (Number(tid) === pid) main += seconds; else others += seconds;
    }
    return { main, others };
  } catch {
    return null;
  }
}

/** How busy the server (the service, or bare restify) was over a case: its main thread and its other threads, in shares of one core. */
function describeCpu(cpu: Sample['cpu'], server = 'the service'): string {
  if (!cpu) return '';
  return `${server}'s main thread busy ${(100 * cpu.main / cpu.seconds).toFixed(0)}%, its other threads ${(100 * cpu.others / cpu.seconds).toFixed(0)}% of a core`;
}

/** Whether a case's rate counts its 2xx answers only: writes, where a refusal writes nothing. */
const counted = (group: string) => group === 'trade' || group === 'write';

/** One autocannon run; `ok` counts the 2xx answers per second (a refused trade is not a trade). */
async function cannon(port: number, opts: Record<string, unknown>): Promise<Sample> {
  // autocannon takes the path from the URL (a `path` option is not read).
  const r = await autocannon({ url: `http://127.0.0.1:${port}${(opts.path as string | undefined) ?? ''}`, connections: CONNECTIONS, duration: SECONDS, pipelining: 1, ...opts, headers: { ...ASKS, ...(opts.headers as object) } });
  const total = r.requests.total;
  return { rps: total / SECONDS, ok: r['2xx'] / SECONDS, refused: r.non2xx + r.errors + r.timeouts, p50: r.latency.p50, p99: r.latency.p99 };
}

/** `run`, with the CPU the threads of process `pid` spent meanwhile, and its main thread's a request. */
async function measured(pid: number | undefined, run: () => Promise<Sample>): Promise<Sample> {
  const before = pid === undefined ? null : threadCpu(pid);
  const started = performance.now();
  const s = await run();
  const after = pid === undefined ? null : threadCpu(pid);
  if (before && after) {
    s.cpu = { main: after.main - before.main, others: after.others - before.others, seconds: (performance.now() - started) / 1000 };
    if (s.rps > 0) s.cpuUs = (1e6 * s.cpu.main) / (s.rps * SECONDS);
  }
  return s;
}

/** An agent's key and its organization's id. */
interface Acting { key: string; org: number }

/** How many organizations a write or trade case acts with: each connection takes the next in turn. */
const ACTING_PER_RUN = 2 * CONNECTIONS;
let founded = 0;

/**
 * Organizations founded afresh, at the given markets in turn, for one run of a write or
 * trade case. Each trade's buy and sell cost an organization a gold piece net, and each
 * message one: a merchant company's 800 gold last about 1,600 trades, so organizations used
 * for a whole run (or two rounds) run dry, and the case would count refusals, not writes.
 */
async function freshOrganizations(markets: string[]): Promise<Acting[]> {
  const acting: Acting[] = [];
  for (let i = 0; i < ACTING_PER_RUN; i++, founded++) {
    const a = await must(PORT, 'POST', '/api/agents', { name: `Bench Trader ${founded}`, model: 'bench' });
    const o = await must(PORT, 'POST', '/api/organizations', { name: `Bench Trading Co ${founded}`, kind: 'merchant company', location_id: markets[i % markets.length] }, { 'x-agent-key': a.api_key });
    acting.push({ key: a.api_key, org: o.id });
  }
  return acting;
}

/** A write or trade case whose organizations are founded afresh before each run, outside the timing. */
function acting(name: string, group: string, markets: string[], act: (who: Acting[]) => Promise<Sample>): Case {
  let who: Acting[] = [];
  return { name, group, prepare: async () => { who = await freshOrganizations(markets); }, run: () => act(who) };
}

/**
 * The rulebook's bytes, as the service sends them, handed to the bare restify server to
 * answer at GET /bytes: the load generator's ceiling for an answer of that size. (autocannon
 * turns every answer's body into a string; for the rulebook's 12 KB that costs it more than
 * the service's whole answer costs the service.) Its name gives the size.
 */
async function rulebookBytes(bare: ChildProcess): Promise<string> {
  const answer = await rawRequest(PORT, 'GET', '/api/rules', undefined, ASKS);
  if (answer.status !== 200) throw new Error(`GET /api/rules answered ${answer.status}`);
  const headers: Record<string, string> = { 'content-type': answer.headers['content-type'] ?? 'application/json' };
  if (answer.headers['content-encoding']) headers['content-encoding'] = answer.headers['content-encoding'];
  await new Promise<void>((resolve) => {
    const taken = (m: unknown) => { if (m === 'bytes') { bare.off('message', taken); resolve(); } };
    bare.on('message', taken);
    bare.send({ bytes: { base64: answer.body.toString('base64'), headers } });
  });
  return `${(answer.body.length / 1024).toFixed(1)} KB${headers['content-encoding'] ? ` ${headers['content-encoding']}ped` : ''}`;
}

function cases(w: BenchWorld, rulebookSize: string): Case[] {
  const admin = { 'x-admin-key': 'bench-admin' };
  const reads: [string, Record<string, string>?][] = [
    ['/api/world'], ['/api/rules'], ['/api/agents'], ['/api/agents/me', { 'x-agent-key': w.key }], [`/api/agents/${w.agentId}`],
    ['/api/agent-departures', admin], ['/api/suggestions', admin], ['/api/world-events'], ['/api/events?limit=30'],
    [`/api/events/${w.eventId}/investigation`], ['/api/organizations'], [`/api/organizations/${w.orgId}`], ['/api/locations'],
    [`/api/locations/${w.markets[0]}`], [`/api/locations/${w.markets[0]}/gaps`], ['/api/adventurers'], [`/api/adventurers/${w.adventurerId}`],
    ['/api/quests'], [`/api/quests/${w.questId}`], ['/api/messages'], ['/api/messages/inbox', { 'x-agent-key': w.key }],
    ['/api/messages/investigation', { 'x-spectator-key': 'bench-spectator' }], ['/api/projects'], ['/api/production'], ['/api/establishments'],
    ['/api/contracts'], [`/api/contracts/${w.contractId}`], ['/api/alliances'], ['/api/relationships'], ['/api/parties'],
    ['/api/market'], [`/api/market?location_id=${w.markets[0]}`], ['/api/market/food'],
  ];
  const trade = (who: { key: string; org: number }[]) => {
    // A buy then a sell of one unit of food by one organization, the organizations in turn
    // (autocannon starts each pass over the sequence with a fresh context).
    let next = 0;
    return cannon(PORT, {
      requests: [
        { method: 'POST', setupRequest: (req: any, ctx: any) => { ctx.me ??= who[next++ % who.length]; return { ...req, path: '/api/trade', headers: { 'content-type': 'application/json', 'x-agent-key': ctx.me.key }, body: JSON.stringify({ organization_id: ctx.me.org, resource: 'food', side: 'buy', quantity: 1 }) }; } },
        { method: 'POST', setupRequest: (req: any, ctx: any) => ({ ...req, path: '/api/trade', headers: { 'content-type': 'application/json', 'x-agent-key': ctx.me.key }, body: JSON.stringify({ organization_id: ctx.me.org, resource: 'food', side: 'sell', quantity: 1 }) }) },
      ],
    } as any);
  };
  return [
    ...reads.map(([url, headers]): Case => ({ name: `GET ${url}`, group: 'read', run: (overallRate) => cannon(PORT, { path: url, headers, ...(overallRate ? { overallRate } : {}) }) })),
    { name: `bare restify 11, the same bytes as GET /api/rules (${rulebookSize})`, group: 'ceiling', server: 'bare', run: () => cannon(BARE_PORT, { path: '/bytes' }) },
    acting('POST /api/trade, one market', 'trade', [w.markets[0]], trade),
    acting(`POST /api/trade, ${Math.min(w.markets.length, CONNECTIONS)} markets`, 'trade', w.markets.slice(0, CONNECTIONS), trade),
    // One write, a public message, of the organizations in turn: what a trade's three writes compare with.
    acting('POST /api/messages (one write)', 'write', [w.markets[0]], (who) => {
      let next = 0;
      return cannon(PORT, { requests: [{ method: 'POST', setupRequest: (req: any) => { const me = who[next++ % who.length]; return { ...req, path: '/api/messages', headers: { 'content-type': 'application/json', 'x-agent-key': me.key }, body: JSON.stringify({ sender_id: me.org, recipient_id: null, body: 'Fair prices today.' }) }; } }] });
    }),
    { name: 'mixed agent workload', group: 'mix', run: () => cannon(PORT, { requests: mixRequests(w) } as any) },
  ];
}

/** The service's sums and counts of persist and commit times (GET /metrics), by series. */
async function writeMetrics(): Promise<Map<string, number>> {
  const r = await request(PORT, 'GET', '/metrics', undefined, { 'x-admin-key': 'bench-admin' });
  const m = new Map<string, number>();
  for (const line of String(r.body).split('\n')) {
    const hit = /^(worldsim_(?:persist|store_commit)_duration_seconds_(?:sum|count)(?:\{[^}]*\})?) ([\d.e+-]+)$/.exec(line);
    if (hit) m.set(hit[1].replace(/,?result="ok"/, ''), Number(hit[2]));
  }
  return m;
}

/** Where a write case's time went: each kind's mean wait for its persist to be durable, and the commits (writes per commit, mean commit time). */
function describeWrites(before: Map<string, number>, after: Map<string, number>): string {
  const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
  const parts: string[] = [];
  for (const k of after.keys()) {
    const kind = /^worldsim_persist_duration_seconds_count\{kind="([^"]+)"/.exec(k)?.[1];
    if (!kind || delta(k) === 0) continue;
    const sum = delta(`worldsim_persist_duration_seconds_sum{kind="${kind}"}`);
    parts.push(`${kind} ${fmt(delta(k))} persists, ${(1000 * sum / delta(k)).toFixed(1)} ms each`);
  }
  const commits = delta('worldsim_store_commit_duration_seconds_count{}') || delta('worldsim_store_commit_duration_seconds_count');
  const commitSum = delta('worldsim_store_commit_duration_seconds_sum{}') || delta('worldsim_store_commit_duration_seconds_sum');
  if (commits) parts.push(`${fmt(commits)} commits, ${(1000 * commitSum / commits).toFixed(1)} ms each`);
  return parts.join('; ');
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
/** The median CPU µs a request of the samples, where /proc told it. */
const cpuOf = (samples: Sample[]) => { const us = samples.flatMap((s) => (s.cpuUs === undefined ? [] : [s.cpuUs])); return us.length ? fmt(median(us)) : ''; };

async function main() {
  console.log(`worldsim benchmark, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), node ${process.version}`);
  console.log(`store ${process.env.WORLD_STORE || 'sqlite'}, ${CONNECTIONS} connections, ${SECONDS} s a case, ${ROUNDS} rounds; bare restify is measured again before each case`);
  const bare = fork(path.join(__dirname, 'bare-restify.js'), [String(BARE_PORT)], { stdio: 'ignore' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worldsim-bench-run-'));
  const service = startService(PORT, dataDir);
  const results = new Map<string, { group: string; samples: Sample[]; shares: number[] }>();
  try {
    await Promise.all([waitFor(BARE_PORT, '/json'), waitFor(PORT, '/healthz')]);
    const w = await seed(PORT, CONNECTIONS);
    const list = cases(w, await rulebookBytes(bare)).filter((c) => !ONLY || ONLY.test(c.name));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const c of list) {
        await c.prepare?.();
        const base = await measured(bare.pid, () => cannon(BARE_PORT, { path: '/json' }));
        const metricsBefore = c.group === 'read' || c.server === 'bare' ? null : await writeMetrics();
        const s = await measured(c.server === 'bare' ? bare.pid : service.pid, () => c.run());
        if (metricsBefore) s.writes = [describeWrites(metricsBefore, await writeMetrics()), describeCpu(s.cpu)].filter(Boolean).join('; ');
        // Whether bare restify itself was the bound, or the load generator.
        if (c.server === 'bare') s.writes = describeCpu(s.cpu, 'bare restify');
        // The latency a read keeps at half the load it can take (the issue's p99 target).
        if (c.group === 'read') s.p99Half = (await c.run(Math.max(1, Math.round(s.rps / 2)))).p99;
        const entry = results.get(c.name) ?? { group: c.group, samples: [], shares: [] };
        entry.samples.push(s);
        entry.shares.push((counted(c.group) ? s.ok : s.rps) / base.rps);
        results.set(c.name, entry);
        entry.samples.length === 1 && process.stderr.write('.');
        const bareEntry = results.get('bare restify 11, fixed 1 KB JSON') ?? { group: 'bare', samples: [], shares: [] };
        bareEntry.samples.push(base); bareEntry.shares.push(1);
        results.set('bare restify 11, fixed 1 KB JSON', bareEntry);
      }
    }
    process.stderr.write('\n');
  } finally {
    service.kill('SIGTERM');
    bare.kill('SIGTERM');
    await sleep(1000);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  // Writes (one write, trades) count the successful ones (2xx) a second: a refused one writes
  // nothing. Everything else counts every answer.
  console.log('');
  console.log('| endpoint | req/s (median; min-max) | share of bare restify | p50 ms | p99 ms | p99 ms at half the rate | refused | main thread µs a request |');
  console.log('|---|---|---|---|---|---|---|---|');
  const order = ['bare', 'ceiling', 'read', 'write', 'trade', 'mix'];
  for (const [name, e] of [...results.entries()].sort((a, b) => order.indexOf(a[1].group) - order.indexOf(b[1].group))) {
    const rate = e.samples.map((s) => (counted(e.group) ? s.ok : s.rps));
    const share = median(e.shares);
    console.log(`| ${name}${counted(e.group) ? ' (successful)' : ''} | ${fmt(median(rate))} (${fmt(Math.min(...rate))}-${fmt(Math.max(...rate))}) | ${(share * 100).toFixed(0)}% | ${median(e.samples.map((s) => s.p50))} | ${median(e.samples.map((s) => s.p99))} | ${e.group === 'read' ? median(e.samples.map((s) => s.p99Half ?? 0)) : ''} | ${e.samples.reduce((n, s) => n + s.refused, 0)} | ${cpuOf(e.samples)} |`);
  }
  const rules = results.get('GET /api/rules');
  const ceiling = [...results.values()].find((e) => e.group === 'ceiling');
  if (rules && ceiling) {
    const rate = (e: typeof rules) => median(e.samples.map((s) => s.rps));
    console.log(`\nGET /api/rules reached ${(100 * rate(rules) / rate(ceiling)).toFixed(0)}% of bare restify answering the same bytes (medians of the rounds).`);
  }
  console.log('');
  console.log(`The mix: ${MIX_DESCRIPTION}`);
  console.log('\nWhere the writes waited (the last round; a persist waits from the actor\'s write until its commit is durable), and how busy the server was:');
  for (const [name, e] of results) if (e.samples[e.samples.length - 1].writes) console.log(`- ${name}: ${e.samples[e.samples.length - 1].writes}`);
  if (process.env.BENCH_TICK !== '0') {
    console.log('\nThe tick (bench/tick.ts):');
    const args = (process.env.BENCH_TICK_ARGS ?? '').split(' ').filter(Boolean);
    spawnSync(process.execPath, ['--no-deprecation', path.join(__dirname, 'tick.js'), ...args], { stdio: 'inherit', env: process.env });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
