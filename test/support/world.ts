// Test support: a real world on a temporary data folder, served on a loopback port, and
// a small JSON client for it.
import crypto from 'crypto';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { Kafka, logLevel } from 'kafkajs';
import { startWorld, type World } from '../../infra/app';
import { DEFAULT_CASSANDRA, DEFAULT_KAFKA, type BusKind, type Config, type StoreKind } from '../../infra/config';
import { settledDays } from '../../infra/cluster/shard-settlements';
import { openCassandraStore } from '../../infra/store/cassandra-store';
import { assertConforms } from './conformance';
import { CASSANDRA_START_TIMEOUT_MS, ensureCassandra, sharedKeyspace, trackKeyspace } from './cassandra';

export interface Answer<T = any> {
  status: number;
  body: T;
  text: string;
}

export interface TestWorld extends World {
  dataDir: string;
  /** Every node of the world (one unless WORLD_TEST_NODES says more); `call` sends to them in turn. */
  nodes: World[];
  /**
   * On many nodes: node `index` leaves for good (`afterLeaving` runs once it is gone); the
   * others take its shards over, settle what it left unsettled and finish or undo the
   * actions it left unfinished there. Resolves once every shard is hosted again and every
   * node has caught up. `services` and the rest follow the live nodes.
   */
  loseNode(index: number, afterLeaving?: () => void): Promise<void>;
  /** Sends a request; `body` may be a string to send raw text. */
  call<T = any>(method: string, url: string, opts?: { body?: unknown; key?: string; admin?: string; spectator?: string; headers?: Record<string, string> }): Promise<Answer<T>>;
  get<T = any>(url: string, key?: string): Promise<Answer<T>>;
  post<T = any>(url: string, body?: unknown, key?: string): Promise<Answer<T>>;
  tick(): Promise<number>;
  /** Registers an agent; returns its record and key. */
  register(name?: string): Promise<{ id: number; key: string }>;
  /** The last lines the world's nodes logged, but for the log of answered requests (those of 5xx answers are kept). */
  recentLog(): string[];
}

/** How many log lines a test world keeps for when a test fails. */
const LOG_TAIL = 200;

/** Keeps a world's last lines of log, so that a failing test shows what the world said before. */
class LogTail {
  private readonly lines: string[] = [];

  add(line: string): void {
    // A request answered below 500 says nothing a failing test's own message does not.
    if (line.includes('"msg":"request"') && line.includes('"level":"info"')) return;
    this.lines.push(line);
    if (this.lines.length > LOG_TAIL) this.lines.splice(0, this.lines.length - LOG_TAIL);
  }

  get(): string[] {
    return [...this.lines];
  }
}

/** The test worlds open now: a failing test prints what they logged last. */
const openWorlds = new Set<TestWorld>();

const logOf = (w: TestWorld): string => {
  const lines = w.recentLog();
  return lines.length ? `what the world logged last (${w.dataDir}):\n  ${lines.join('\n  ')}` : `the world logged nothing (${w.dataDir})`;
};

if (typeof afterEach === 'function') {
  afterEach(function printLogsOfFailure() {
    if (this.currentTest?.state !== 'failed') return;
    for (const w of openWorlds) console.log(logOf(w));
  });
}

/** A helper's request answered with a status it did not expect; a 5xx carries what the world logged. */
const unexpected = (w: TestWorld, what: string, r: Answer): Error =>
  new Error(`${what} failed: ${r.status} ${r.text}${r.status >= 500 ? `\n${logOf(w)}` : ''}`);

export const tempDir = (prefix = 'worldsim-test-') => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/**
 * The store the tests' worlds run on: the embedded SQLite store, or with
 * WORLD_TEST_STORE=cassandra a real Cassandra (started once per run through
 * infra/servers): one keyspace for the whole run (created by the first world, dropped at
 * the end), a world of its own in it for each test world. `npm test` runs the HTTP suite
 * both ways.
 */
/**
 * With WORLD_TEST_NODES=n (n > 1) every test world is n nodes in this process, on Cassandra
 * and Kafka (docs/operations.md), and the requests of a test go to the nodes in turn.
 * `npm test` runs the HTTP suite so with three nodes. A test that reaches inside one
 * process (fault injection, a fake clock) asks for `nodes: 1`.
 */
export const TEST_NODES = Math.max(1, Math.floor(Number(process.env.WORLD_TEST_NODES ?? '1')) || 1);

export const TEST_STORE: StoreKind = process.env.WORLD_TEST_STORE === 'cassandra' || TEST_NODES > 1 ? 'cassandra' : 'sqlite';

/** A world's name follows its data folder, so a restart on the same folder finds the same world. */
const worldName = (dataDir: string) => crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 24);
export const worldFor = (dataDir: string) => `w${worldName(dataDir)}`;
/** The client id of a test world on Kafka; its topics are `<name>.days` and `<name>.history`. */
export const kafkaNameFor = (dataDir: string) => `t-${worldName(dataDir)}`;

if (TEST_STORE === 'cassandra' && typeof before === 'function') {
  // Up front, with the time a first start needs: every world of the run uses it.
  before(async function startCassandra() {
    this.timeout(CASSANDRA_START_TIMEOUT_MS + 60_000);
    const server = await ensureCassandra();
    // The run's keyspace and its schema, once: every world after it opens without DDL.
    const keyspace = sharedKeyspace();
    const store = await openCassandraStore({ contactPoints: server.contactPoints, localDataCenter: server.localDataCenter, keyspace });
    await store.close();
  });
}

async function storeConfig(dataDir: string, overrides: Partial<Config>): Promise<Pick<Config, 'store' | 'cassandra'>> {
  if ((overrides.store ?? TEST_STORE) === 'sqlite') return { store: 'sqlite', cassandra: DEFAULT_CASSANDRA };
  const server = await ensureCassandra();
  const keyspace = overrides.cassandra?.keyspace ?? sharedKeyspace();
  trackKeyspace(keyspace);
  const world = overrides.cassandra?.world ?? worldFor(dataDir);
  return { store: 'cassandra', cassandra: { ...DEFAULT_CASSANDRA, contactPoints: server.contactPoints, localDataCenter: server.localDataCenter, keyspace, world } };
}

/**
 * The bus the tests' worlds run on: in-process, or with WORLD_TEST_BUS=kafka the Kafka at
 * KAFKA_BROKERS (started by test/run.ts), with topics and consumer groups of each world's
 * own, named after its data folder (a restart on the same folder finds them again).
 */
export const TEST_BUS: BusKind = process.env.WORLD_TEST_BUS === 'kafka' || TEST_NODES > 1 ? 'kafka' : 'local';

function busConfig(dataDir: string, overrides: Partial<Config>): Pick<Config, 'bus' | 'kafka'> {
  if ((overrides.bus ?? TEST_BUS) === 'local') return { bus: 'local', kafka: overrides.kafka ?? DEFAULT_KAFKA };
  const name = kafkaNameFor(dataDir);
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
  return { bus: 'kafka', kafka: { ...DEFAULT_KAFKA, brokers, clientId: name, tickTopic: `${name}.days`, historyTopic: `${name}.history`, commandTopic: `${name}.commands`, historyPartitions: 3, ...overrides.kafka } };
}

/**
 * A test world's topics and consumer groups are deleted once its data folder is gone (the
 * tests remove it when they are done with the world; a restart on the same folder finds
 * them): a run starts some thousands of worlds, and a broker that kept every one of their
 * partitions spent most of a core on them and slowed every later world down.
 */
const kafkaWorlds = new Map<string, { dataDir: string; brokers: string[]; open: number }>();

async function deleteGoneWorldsTopics(): Promise<void> {
  const gone = [...kafkaWorlds].filter(([, w]) => w.open === 0 && !fs.existsSync(w.dataDir));
  if (gone.length === 0) return;
  for (const [name] of gone) kafkaWorlds.delete(name);
  const kafka = new Kafka({ clientId: 'test-cleanup', brokers: gone[0][1].brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  try {
    await admin.connect();
    const prefixes = gone.map(([name]) => `${name}.`);
    const mine = (n: string) => prefixes.some((p) => n.startsWith(p));
    const topics = (await admin.listTopics()).filter(mine);
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter(mine);
    if (groups.length) await admin.deleteGroups(groups).catch(() => undefined);
    if (topics.length) await admin.deleteTopics({ topics, timeout: 10_000 });
  } catch {
    // Cleaning up is a kindness to the broker, not part of any test.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

if (typeof afterEach === 'function') {
  afterEach(deleteGoneWorldsTopics);
  after(deleteGoneWorldsTopics);
}

/**
 * On many nodes a world answers before every shard has found its node and settled the
 * current day; a test begins once they have, so that nothing it did not cause happens
 * while it runs.
 */
async function allShardsSettled(nodes: World[], shards: number, timeoutMs = 60_000): Promise<void> {
  const store = nodes[0].services.store;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hosted = new Set(nodes.flatMap((n) => (n.node?.status().shards ?? []) as number[]));
    const day = await nodes[0].services.day();
    const days = await settledDays(store, shards);
    if (hosted.size === shards && days.every((d) => d >= day)) return;
    if (Date.now() > deadline) throw new Error(`the world's shards did not all settle day ${day}: hosted ${[...hosted].join(',')}, settled ${days.join(',')} (-1: none yet)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The rate limits of the tests' worlds: every test sends its requests from 127.0.0.1 as
 * fast as it can, so they are limited far above what a test sends (the limiter still runs
 * on every request). test/http/rate-limit.test.ts runs a world with the real defaults.
 */
export const TEST_RATE_LIMITS = {
  address: { perSecond: 1_000_000, burst: 1_000_000 },
  key: { perSecond: 1_000_000, burst: 1_000_000 },
  registration: { perSecond: 1_000_000, burst: 1_000_000 },
};

export async function startTestWorld(options: Partial<Config> & { nodes?: number } = {}): Promise<TestWorld> {
  const { nodes: wanted, ...overrides } = options;
  const dataDir = overrides.dataDir ?? tempDir();
  const config: Config = {
    port: 0, host: '127.0.0.1', dataDir, adminKey: 'test-admin-key', spectatorKey: 'test-spectator-key',
    daySeconds: 0, seed: 'test-seed', nodeId: '1', shards: 8, rateLimits: TEST_RATE_LIMITS, ...overrides, ...await storeConfig(dataDir, overrides), ...busConfig(dataDir, overrides),
  };
  const count = config.store === 'cassandra' && config.bus === 'kafka' ? (wanted ?? TEST_NODES) : 1;
  let kept: { open: number } | undefined;
  if (config.bus === 'kafka' && config.kafka.clientId === kafkaNameFor(dataDir)) {
    const known = kafkaWorlds.get(config.kafka.clientId) ?? { dataDir, brokers: config.kafka.brokers, open: 0 };
    known.open += 1;
    kafkaWorlds.set(config.kafka.clientId, known);
    kept = known;
  }
  const logTail = new LogTail();
  const nodes = await Promise.all(Array.from({ length: count }, (_, i) => startWorld({ ...config, nodeId: String(i + 1) }, (line) => logTail.add(line))));
  if (config.store === 'cassandra' && config.bus === 'kafka') await allShardsSettled(nodes, config.shards);

  let turn = 0;
  let agentCount = 0;
  const call: TestWorld['call'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.key) headers['x-agent-key'] = opts.key;
    if (opts.admin) headers['x-admin-key'] = opts.admin;
    if (opts.spectator) headers['x-spectator-key'] = opts.spectator;
    const at = nodes[turn++ % nodes.length];
    const res = await fetch(at.url + url, {
      method, headers,
      body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: any = text;
    try { body = JSON.parse(text); } catch { /* keep the text */ }
    const answer = { status: res.status, body, text };
    assertConforms(method, url, answer);
    return answer;
  };
  const first = () => nodes[0];
  const tw: TestWorld = {
    get url() { return first().url; },
    get port() { return first().port; },
    get keys() { return first().keys; },
    get generatedKeys() { return first().generatedKeys; },
    get services() { return first().services; },
    get region() { return first().region; },
    get node() { return first().node; },
    get logger() { return first().logger; },
    get metrics() { return first().metrics; },
    nodes,
    close: async () => {
      openWorlds.delete(tw);
      await Promise.all(nodes.map((n) => n.close()));
      if (kept && kept.open > 0) kept.open -= 1;
      kept = undefined;
    },
    async caughtUp() {
      for (const n of nodes) await n.caughtUp();
    },
    async loseNode(index, afterLeaving) {
      if (nodes.length < 2) throw new Error('loseNode needs a world on two nodes or more');
      const [leaving] = nodes.splice(index, 1);
      await leaving.close();
      afterLeaving?.();
      await allShardsSettled(nodes, config.shards);
      for (const n of nodes) await n.caughtUp();
    },
    dataDir,
    call,
    get: (url, key) => call('GET', url, { key }),
    post: (url, body, key) => call('POST', url, { body, key }),
    async tick() {
      const r = await call('POST', '/api/tick', { admin: first().keys.admin });
      if (r.status !== 200) throw unexpected(tw, 'tick', r);
      return r.body.day;
    },
    async register(name) {
      agentCount += 1;
      const r = await call('POST', '/api/agents', { body: { name: name ?? `Agent ${agentCount}`, model: 'test-model' } });
      if (r.status !== 201) throw unexpected(tw, 'register', r);
      return { id: r.body.id, key: r.body.api_key };
    },
    recentLog: () => logTail.get(),
  };
  openWorlds.add(tw);
  return tw;
}
