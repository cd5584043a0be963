// The service as the benchmarks run it (run.ts, mix-steps.ts): started in its own process,
// waited for, and seeded with a world that has something in every listing.
import { spawn, type ChildProcess } from 'child_process';
import path from 'path';
import { NODE_FLAGS } from '../infra/heap';
import { request } from './client';
import type { MixWorld } from './mix';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The headers of every measured request: JSON, as agents ask (restify answers 406 to a
 * request that accepts nothing it offers), and gzip, as their HTTP clients take it unasked
 * (Python's requests and httpx, fetch; bare restify ignores it).
 */
export const ASKS = { accept: 'application/json', 'accept-encoding': 'gzip, deflate' };

/** The node flags of the service's process as `npm start` gives them (BENCH_V8_DEFAULTS=1: V8's own, to compare). */
export const serviceFlags = (): readonly string[] => (process.env.BENCH_V8_DEFAULTS === '1' ? [] : NODE_FLAGS);

/** The service in its own process on loopback, on a fresh data folder, with no rate limit (BENCH_PROF: under `--cpu-prof`; BENCH_LOG: its log on this process's output). */
export function startService(port: number, dataDir: string): ChildProcess {
  return spawn(process.execPath, ['--no-deprecation', ...serviceFlags(), ...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []), path.join(__dirname, '../infra/main.js')], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', WORLD_DATA_DIR: dataDir, WORLD_DAY_SECONDS: '0', WORLD_ADMIN_KEY: 'bench-admin', WORLD_SPECTATOR_KEY: 'bench-spectator',
      // The benchmark is one client at full speed: no rate limit.
      WORLD_RATE_ADDRESS_PER_SECOND: '0', WORLD_RATE_KEY_PER_SECOND: '0', WORLD_RATE_REGISTRATION_PER_MINUTE: '0',
      CASSANDRA_KEYSPACE: process.env.CASSANDRA_KEYSPACE ?? `bench_run_${Date.now()}` },
    stdio: process.env.BENCH_LOG ? 'inherit' : 'ignore',
  });
}

/** Resolves once `url` answers 200 on `port` (a minute at most). */
export async function waitFor(port: number, url: string): Promise<void> {
  for (let i = 0; ; i++) {
    const r = await request(port, 'GET', url).catch(() => ({ status: 0, body: null }));
    if (r.status === 200) return;
    if (i > 600) throw new Error(`nothing answered ${url} on port ${port}`);
    await sleep(100);
  }
}

/** The answer's body, or an error naming the request when it is not a 2xx. */
export async function must(port: number, method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<any> {
  const r = await request(port, method, url, body, headers);
  if (r.status >= 300) throw new Error(`${method} ${url} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** What `seed` made, by id and key, for the cases to name. */
export type BenchWorld = MixWorld & { key: string; agentId: number; orgId: number; questId: number; contractId: number; eventId: number; adventurerId: number; keys: string[]; orgs: number[] };

/** A world with something in every listing: an agent and organization a connection, a contract, quests, messages, a trade. */
export async function seed(port: number, connections: number): Promise<BenchWorld> {
  const world = await must(port, 'GET', '/api/world');
  const markets: string[] = world.places.filter((l: any) => l.population > 0).map((l: any) => l.id);
  const keys: string[] = [];
  const orgs: number[] = [];
  const agents: number[] = [];
  // One agent and organization a connection, all at the first market: the quests' requesters.
  for (let i = 0; i < connections; i++) {
    const a = await must(port, 'POST', '/api/agents', { name: `Bench ${i}`, model: 'bench' });
    const o = await must(port, 'POST', '/api/organizations', { name: `Bench Co ${i}`, kind: 'merchant company', location_id: markets[0] }, { 'x-agent-key': a.api_key });
    keys.push(a.api_key); orgs.push(o.id); agents.push(a.id);
  }
  const h = { 'x-agent-key': keys[0] };
  const quest = await must(port, 'POST', '/api/quests', { title: 'Clear the road', description: 'Bandits on the east road.', requester_id: orgs[0], location_id: markets[0], reward: 50, deadline_days: 30 }, h);
  const quests: number[] = [];
  for (let i = 1; i < connections; i++) {
    quests.push((await must(port, 'POST', '/api/quests', { title: 'Guard the caravan', description: 'A caravan needs guards.', requester_id: orgs[i], location_id: markets[0], reward: 5, deadline_days: 30 }, { 'x-agent-key': keys[i] })).id);
  }
  const contract = await must(port, 'POST', '/api/contracts', { proposer_id: orgs[0], counterparty_id: orgs[1], title: 'Grain supply', terms: 'Ten units of food a week.', value: 10, resource: null, quantity: 0 }, h);
  await must(port, 'POST', '/api/messages', { sender_id: orgs[0], recipient_id: null, body: 'Grain for sale at fair prices.' }, h);
  await must(port, 'POST', '/api/messages', { sender_id: orgs[1], recipient_id: orgs[0], body: 'How much for ten units?' }, { 'x-agent-key': keys[1] });
  await must(port, 'POST', '/api/trade', { organization_id: orgs[0], resource: 'food', side: 'buy', quantity: 1 }, h);
  const adventurers: any[] = await must(port, 'GET', '/api/adventurers?limit=100');
  const available = adventurers.filter((a) => a.status === 'available');
  const events: any[] = await must(port, 'GET', '/api/events?limit=1');
  return { key: keys[0], agentId: agents[0], orgId: orgs[0], questId: quest.id, contractId: contract.id, eventId: events[0].id, adventurerId: adventurers[0].id,
    keys, orgs, markets, openQuests: quests, adventurers: available.map((a) => a.id) };
}
