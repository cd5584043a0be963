// Benchmark: requests per second against a real server in its own process, over
// keep-alive connections on loopback. Reads (world summary, an organization, a market
// board, history) and writes (trades: a buy and a sell of one unit each time).
//   node dist/bench/http.js [seconds per case=5] [connections=32]
//   WORLD_STORE=cassandra CASSANDRA_CONTACT_POINTS=... node dist/bench/http.js   (the same on Cassandra)
import { spawn } from 'child_process';
import fs from 'fs';
import http from 'http';
import os from 'os';
import path from 'path';
import { serviceFlags } from './service';

const PORT = 18_000 + Math.floor(Math.random() * 1000);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function request(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port: PORT, method, path: url, agent, headers: { ...headers, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

async function measure(name: string, seconds: number, connections: number, call: (i: number) => Promise<{ status: number }>): Promise<void> {
  const end = Date.now() + seconds * 1000;
  let done = 0;
  let bad = 0;
  const latencies: number[] = [];
  await Promise.all(Array.from({ length: connections }, async (_, c) => {
    let i = c;
    while (Date.now() < end) {
      const t = process.hrtime.bigint();
      const r = await call(i);
      latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (r.status >= 400) bad += 1;
      done += 1;
      i += connections;
    }
  }));
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
  console.log(`${name.padEnd(28)} ${(done / seconds).toFixed(0).padStart(6)} req/s  p50 ${p(0.5)} ms  p99 ${p(0.99)} ms${bad ? `  (${bad} refused)` : ''}`);
}

async function main() {
  const [seconds = 5, connections = 32] = process.argv.slice(2).map(Number);
  console.log(`store ${process.env.WORLD_STORE || 'sqlite'}, bus ${process.env.WORLD_BUS || 'local'}, ${connections} connections, ${seconds} s a case`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'worldsim-http-bench-'));
  const server = spawn(process.execPath, ['--no-deprecation', ...serviceFlags(), path.join(__dirname, '../infra/main.js')], {
    // WORLD_STORE=cassandra (and WORLD_BUS=kafka) run it on the distributed adapters: a fresh keyspace unless one is named.
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', WORLD_DATA_DIR: dataDir, WORLD_DAY_SECONDS: '0', WORLD_ADMIN_KEY: 'bench-admin',
      // The benchmark is one client at full speed: no rate limit.
      WORLD_RATE_ADDRESS_PER_SECOND: '0', WORLD_RATE_KEY_PER_SECOND: '0', WORLD_RATE_REGISTRATION_PER_MINUTE: '0',
      CASSANDRA_KEYSPACE: process.env.CASSANDRA_KEYSPACE ?? `bench_http_${Date.now()}` },
    stdio: 'ignore',
  });
  try {
    for (let i = 0; ; i++) {
      const r = await request('GET', '/healthz').catch(() => ({ status: 0, text: '' }));
      if (r.status === 200) break;
      if (i > 300) throw new Error('server did not start');
      await new Promise((r2) => setTimeout(r2, 100));
    }
    const keys: string[] = [];
    const orgs: number[] = [];
    for (let i = 0; i < connections; i++) {
      const a = JSON.parse((await request('POST', '/api/agents', { name: `Bench ${i}`, model: 'bench' })).text);
      const o = JSON.parse((await request('POST', '/api/organizations', { name: `Bench Co ${i}`, kind: 'merchant company' }, { 'x-agent-key': a.api_key })).text);
      keys.push(a.api_key);
      orgs.push(o.id);
    }
    console.log(`${connections} connections, ${seconds} s per case`);
    await measure('GET /api/world', seconds, connections, () => request('GET', '/api/world'));
    await measure('GET /api/organizations/{id}', seconds, connections, (i) => request('GET', `/api/organizations/${orgs[i % orgs.length]}`));
    await measure('GET /api/market', seconds, connections, () => request('GET', '/api/market'));
    await measure('GET /api/events?limit=30', seconds, connections, () => request('GET', '/api/events?limit=30'));
    // One connection per organization, so no two trades of one organization race each other.
    await measure('POST /api/trade (buy, sell)', seconds, connections, (i) => {
      const c = i % connections;
      return request('POST', '/api/trade', { organization_id: orgs[c], resource: 'food', side: Math.floor(i / connections) % 2 ? 'sell' : 'buy', quantity: 1 }, { 'x-agent-key': keys[c] });
    });
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    fs.rmSync(dataDir, { recursive: true, force: true });
    agent.destroy();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
