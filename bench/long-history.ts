// Benchmark: the listings that grow with a world's history, in a world that has a long one.
// Seeds a world through the API (two organizations, a message, quests, a project, an
// alliance, a contract), stops it, gives it HISTORY more of each (public messages over a
// year, resolved quests, cancelled projects, ended alliances, fulfilled contracts, dissolved
// organizations with a trust score each, and their trust rows, retired agents and dead
// adventurers, which the world's counts count) through the store port, as years of agents
// would leave them, starts it again and times each listing's request after a write: a write
// makes every kept answer stale, as a busy world's writes do, so the answer is read afresh.
// The messages are the seeding organization's: its inbox holds them all, and so are the
// quests, projects, alliances and contracts (its own answer reads what of them is live).
// The write is a letter: a page the store keeps of another kind (docs/architecture.md,
// "Kept pages") outlives it, as it outlives a busy world's writes of other rows.
//   node dist/bench/long-history.js [history=20000] [rounds=30]
// Prints, for each listing, the median and the slowest of `rounds` such requests.
import fs from 'fs';
import os from 'os';
import path from 'path';
import { SqliteStore } from '../infra/store/sqlite-store';
import { trustRowId } from '../actors/relationship/rules';
import type { PersistedEvent, ProjectionRow } from '../actors/ports/store';
import { rawRequest } from './client';
import { must, startService, waitFor } from './service';

const HISTORY = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 30);
const PORT = 18_650;
const SPECTATOR = { 'x-spectator-key': 'bench-spectator' };

const stopped = (p: ReturnType<typeof startService>) => new Promise<void>((resolve) => { p.on('exit', () => resolve()); p.kill('SIGTERM'); });

/** The row of `kind` and `id` as the store holds it (every column), read back from the world just seeded. */
function storedRow(dir: string, kind: string, id: number): ProjectionRow {
  // Read through better-sqlite3 directly: the columns are not part of the read port.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const Database = require('better-sqlite3');
  const db = new Database(path.join(dir, 'world.sqlite'), { readonly: true });
  const r = db.prepare('SELECT * FROM entities WHERE kind = ? AND id = ?').get(kind, String(id));
  db.close();
  if (!r) throw new Error(`no ${kind} ${id} in the seeded world`);
  return { kind, id, status: r.status, location_id: r.location_id, organization_id: r.organization_id, agent_id: r.agent_id, due_day: r.due_day, doc: JSON.parse(r.doc) };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worldsim-history-'));
  let service = startService(PORT, dir);
  await waitFor(PORT, '/api/world');
  const agent = await must(PORT, 'POST', '/api/agents', { name: 'Bench Chronicler', model: 'bench' });
  const other = await must(PORT, 'POST', '/api/agents', { name: 'Bench Neighbour', model: 'bench' });
  const key = { 'x-agent-key': agent.api_key };
  const org = await must(PORT, 'POST', '/api/organizations', { name: 'Bench Chroniclers', kind: 'merchant company' }, key);
  const neighbour = await must(PORT, 'POST', '/api/organizations', { name: 'Bench Neighbours', kind: 'merchant company' }, { 'x-agent-key': other.api_key });
  const message = await must(PORT, 'POST', '/api/messages', { sender_id: org.id, recipient_id: null, body: 'Fair prices at the Chroniclers today.', kind: 'message' }, key);
  const quest = await must(PORT, 'POST', '/api/quests', { title: 'Clear the road', description: 'Bandits hold the road.', requester_id: org.id, location_id: 'emberfall', reward: 10, deadline_days: 30 }, key);
  const project = await must(PORT, 'POST', '/api/projects', { owner_id: org.id, title: 'Bench works', kind: 'construction', description: 'Work that runs for weeks.', location_id: 'emberfall', budget: 10, duration_days: 60 }, key);
  const alliance = await must(PORT, 'POST', '/api/alliances', { proposer_id: org.id, counterparty_id: neighbour.id, terms: 'Shared roads and shared watch.' }, key);
  const contract = await must(PORT, 'POST', '/api/contracts', { proposer_id: org.id, counterparty_id: neighbour.id, title: 'Bench salt', terms: 'Ten loads of salt, paid on delivery.', value: 10, resource: null }, key);
  // Accepted: the two trust each other, so the neighbour's row and the trust rows have a score to copy.
  await must(PORT, 'POST', `/api/alliances/${alliance.id}/accept`, { organization_id: neighbour.id }, { 'x-agent-key': other.api_key });
  await stopped(service);

  // The history, written as the actors would have written it: each row a copy of a real one, with its own id.
  const store = new SqliteStore(dir);
  // The writer thread does not hold the process open by itself (the service's server does).
  const open = setInterval(() => undefined, 1_000);
  const rows: ProjectionRow[] = [];
  const copies = (template: ProjectionRow, from: number, change: (doc: Record<string, unknown>, i: number) => Partial<ProjectionRow>) => {
    for (let i = 0; i < HISTORY; i++) {
      const id = from + i;
      const doc = { ...template.doc, id };
      rows.push({ ...template, id, ...change(doc, i), doc });
    }
  };
  copies(storedRow(dir, 'message', message.id), 1_000_000, (doc, i) => { doc.sent_day = 1 + Math.floor((i * 365) / HISTORY); return {}; });
  copies(storedRow(dir, 'quest', quest.id), 1_000_000, (doc) => { doc.status = 'resolved'; return { status: 'resolved', due_day: null }; });
  copies(storedRow(dir, 'project', project.id), 1_000_000, (doc) => { doc.status = 'cancelled'; return { status: 'cancelled' }; });
  copies(storedRow(dir, 'alliance', alliance.id), 1_000_000, (doc) => { doc.status = 'ended'; return { status: 'ended' }; });
  copies(storedRow(dir, 'contract', contract.id), 1_000_000, (doc) => { doc.status = 'fulfilled'; return { status: 'fulfilled' }; });
  // Dissolved organizations that each dealt with the next one: a trust score each, and its row.
  copies(storedRow(dir, 'organization', neighbour.id), 1_000_000, (doc) => {
    doc.status = 'dissolved'; doc.name = `Bench Neighbours ${String(doc.id)}`; doc.trust = { [String(Number(doc.id) + 1)]: 5 };
    return { status: 'dissolved' };
  });
  // Retired agents and dead adventurers: GET /api/world counts every agent and adventurer.
  copies(storedRow(dir, 'agent', agent.id), 1_000_000, (doc) => { doc.status = 'retired'; doc.name = `Bench Agent ${String(doc.id)}`; return { status: 'retired' }; });
  copies(storedRow(dir, 'adventurer', 1), 1_000_000, (doc) => { doc.status = 'dead'; doc.organization_id = null; return { status: 'dead', organization_id: null, due_day: null }; });
  for (let i = 0; i < HISTORY; i++) {
    const self = 1_000_000 + i;
    rows.push({ kind: 'trust', id: trustRowId(self, self + 1), organization_id: self, doc: { id: `${self}-${self + 1}`, organization_id: self, other_organization_id: self + 1, organization_ids: [self, self + 1], trust: 5 } });
  }
  for (let at = 0, n = 1; at < rows.length; at += 5_000, n++) {
    const event: PersistedEvent = { key: 'bench-history', sequenceNumber: n, createdAt: Date.now(), data: {}, tags: [], isDeleted: false } as unknown as PersistedEvent;
    await store.engine.persist(event, { rows: rows.slice(at, at + 5_000) });
  }
  await store.close();
  clearInterval(open);

  service = startService(PORT, dir);
  await waitFor(PORT, '/api/world');
  const cases: Array<[string, Record<string, string>]> = [
    ['/api/world', {}],
    ['/api/messages?limit=20', {}],
    ['/api/messages/investigation?limit=20', SPECTATOR],
    ['/api/messages/inbox?limit=20', key],
    ['/api/quests?status=open', {}],
    ['/api/quests?status=open&location_id=emberfall', {}],
    ['/api/projects?status=cancelled&limit=20', {}],
    ['/api/alliances?status=proposed,active', {}],
    ['/api/relationships?limit=20', {}],
    ['/api/contracts?status=proposed', {}],
    [`/api/organizations/${org.id}`, {}],
    [`/api/contracts?organization_id=${org.id}&status=proposed`, {}],
    [`/api/quests?requester_id=${org.id}&status=open`, {}],
    [`/api/quests?requester_id=${org.id}&limit=20`, {}],
    ['/api/quests?min_reward=5&limit=20', {}],
    // Filters that match none of the history: the whole listing passed over, once.
    ['/api/quests?min_reward=9000000&limit=20', {}],
    [`/api/contracts?organization_id=${org.id}&status=rejected`, {}],
    ['/api/quests?status=resolved&location_id=emberfall&limit=20', {}],
  ];
  console.log(`A world with ${HISTORY.toLocaleString('en')} each of public messages, resolved quests, cancelled projects, ended alliances, fulfilled contracts, dissolved organizations (each with a trust score), retired agents and dead adventurers; each read after a write, ${ROUNDS} times.`);
  console.log('| listing | median ms | slowest ms | items |');
  console.log('|---|---|---|---|');
  let written = 0;
  for (const [url, headers] of cases) {
    const times: number[] = [];
    let items = 0;
    for (let i = 0; i < ROUNDS + 3; i++) {
      // A letter each way in turn: a letter costs its sender gold, and neither could pay for them all.
      const [from, to, sender] = (written++) % 2 === 0 ? [org, neighbour, key] : [neighbour, org, { 'x-agent-key': other.api_key }];
      await must(PORT, 'POST', '/api/messages', { sender_id: from.id, recipient_id: to.id, body: `A letter, the ${written}th.`, kind: 'message' }, sender);
      const t = process.hrtime.bigint();
      const r = await rawRequest(PORT, 'GET', url, undefined, { accept: 'application/json', ...headers });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
      const body = JSON.parse(r.body.toString()) as unknown;
      items = Array.isArray(body) ? body.length : 1;
      if (i >= 3) times.push(ms); // the first three warm the code up
    }
    times.sort((a, b) => a - b);
    console.log(`| GET ${url} | ${times[Math.floor(times.length / 2)].toFixed(1)} | ${times[times.length - 1].toFixed(1)} | ${items} |`);
  }
  await stopped(service);
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
