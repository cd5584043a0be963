// Composition root: wires the store, bus and clock adapters to the actors and the HTTP
// server. The embedded default needs no external server.
import type { AddressInfo } from 'net';
import { adventurerKind } from '../actors/adventurer/actor';
import { agentKind } from '../actors/agent/actor';
import { CLOCK_ID, clockKind } from '../actors/clock/actor';
import { dailySettler, dailyTick } from '../actors/clock/daily';
import { locationKind } from '../actors/location/actor';
import { organizationKind } from '../actors/organization/actor';
import { questKind } from '../actors/quest/actor';
import { contractKind } from '../actors/contract/actor';
import { allianceKind } from '../actors/alliance/actor';
import { relationshipKind } from '../actors/relationship/actor';
import { suggestionKind } from '../actors/suggestion/actor';
import { worldEventKind } from '../actors/world-event/actor';
import { Region } from '../actors/region';
import { seedWorld } from '../actors/world/seed';
import { resumeIntents } from '../actors/intents';
import { tellAgentsOfEarlierEnds } from '../actors/agent/ended-before';
import { writeTrustRowsOnce } from '../actors/organization/trust-rows';
import { writeCareerDueDaysOnce } from '../actors/adventurer/career-due-days';
import { writeLiveContractRowsOnce } from '../actors/contract/live-rows';
import { routes } from '../http/routes';
import { buildServer } from '../http/server';
import { WorldMetrics, serveMetrics } from '../http/metrics';
import { unrecognisableOperatorKey } from '../http/key-in-text';
import { observeRequests, requestLogger } from '../http/request-log';
import { DEFAULT_RATE_LIMITS, RateLimiter, rateLimitHandler } from '../http/rate-limit';
import { jsonLogger, lineLog, type Logger } from './log';
import { currentDay, type OperatorKeyHashes, type Services } from '../http/services';
import { operatorKeys, type OperatorRole } from './operator-keys';
import { EmbeddedBus } from './bus/embedded-bus';
import { KafkaBus } from './bus/kafka-bus';
import { HistoryRelay } from './history/relay';
import { TOPICS, type Bus, type DaySettlements } from '../actors/ports/bus';
import { StoreSettlements } from './clock/store-settlements';
import { IntervalTicker } from './clock/interval-ticker';
import { DEFAULT_SEED, actorIdleSecondsFor, isCluster, type Config } from './config';
import { ClusterNode } from './cluster/node';
import { ShardLeases } from './cluster/shard-leases';
import { ShardSettlements, ShardSettler } from './cluster/shard-settlements';
import { shardOf, shardOfKey } from './cluster/shards';
import type { Entities } from '../actors/ports/entities';
import { NO_METRICS, secondsSince, type Metrics } from '../actors/ports/metrics';
import type { CassandraStore } from './store/cassandra-store';
import { StoreUnavailableError, type Store } from '../actors/ports/store';
import { openCassandraStore } from './store/cassandra-store';
import { SqliteStore } from './store/sqlite-store';

export interface World {
  url: string;
  port: number;
  /** The operator keys in plain text where this start knows them (configured, or generated now); a kept key is known only by its hash. */
  keys: Partial<Record<OperatorRole, string>>;
  /** The operator keys this start generated: shown once (`npm start` prints them), then known only by their hashes. */
  generatedKeys: Partial<Record<OperatorRole, string>>;
  services: Services;
  /** The in-process region behind services.entities (the benchmark reports the actors awake). */
  region: Region;
  /** On many nodes: this node of the cluster (services.entities). */
  node: ClusterNode | null;
  /**
   * Resolves once the work begun when this node took shards (the days they missed, the
   * actions left unfinished there) is done; at once on one node, where start-up does it.
   */
  caughtUp(): Promise<void>;
  /** The service's JSON log (infra/log.ts). */
  logger: Logger;
  /** What GET /metrics serves. */
  metrics: WorldMetrics;
  close(): Promise<void>;
}

/** The name of a node (`node-<NODE_ID>`): its settler, its consumer groups, its reply topic. */
export const nodeName = (config: Pick<Config, 'nodeId'>) => `node-${config.nodeId}`;
/** The name of the one node of a world that runs on one process. */
export const NODE = nodeName({ nodeId: '1' });

/** How long an actor of this world stays awake without a message. */
const idleMsOf = (config: Pick<Config, 'actorIdleSeconds' | 'daySeconds'>) => (config.actorIdleSeconds ?? actorIdleSecondsFor(config.daySeconds)) * 1000;

/**
 * The world's actors on a store and a bus: every entity kind in its region, and the
 * daily settler subscribed to the days topic. (The service, the benchmarks and the tests
 * that run a world without HTTP all build it here.)
 */
export async function worldRegion(store: Store, bus: Bus, settlements: DaySettlements, seed: string, log: (line: string) => void, metrics: Metrics = NO_METRICS, idleMs?: number): Promise<Region> {
  const region = regionOf(store, bus, settlements, log, metrics, undefined, idleMs);
  await bus.subscribe(TOPICS.days, dailySettler(settlements, timed(dailyTick(region, store, seed, (sequence) => store.nextId(sequence), log), metrics), () => currentDay(store), log));
  return region;
}

/** The daily tick, its duration reported to the metrics. */
function timed<A extends unknown[]>(tick: (...args: A) => Promise<void>, metrics: Metrics): (...args: A) => Promise<void> {
  return async (...args) => {
    const started = performance.now();
    try {
      await tick(...args);
    } finally {
      metrics.daySettled(secondsSince(started));
    }
  };
}

function regionOf(store: Store, bus: Bus, settlements: DaySettlements, log: (line: string) => void, metrics: Metrics, route?: () => Entities<any>, idleMs?: number): Region {
  return new Region(store.engine, store, [
    clockKind(bus, settlements, log), agentKind, worldEventKind, contractKind, relationshipKind, allianceKind, questKind, locationKind, adventurerKind, organizationKind, suggestionKind,
  ], { log, route, metrics, idleMs });
}

/**
 * The world's actors on one node of many: the region hosts the shards Kafka gives this
 * node (asks for the others travel through Kafka), the days are settled per shard.
 */
async function clusterRegion(config: Config, store: CassandraStore, bus: Bus, seed: string, log: (line: string) => void, metrics: Metrics) {
  const settlements = new ShardSettlements(store, config.shards);
  let node!: ClusterNode;
  const region = regionOf(store, bus, settlements, log, metrics, () => node as unknown as Entities<any>, idleMsOf(config));
  const leases = new ShardLeases(store.cassandra, nodeName(config), { log, onLost: (s) => node.leaseLost(s) });
  node = new ClusterNode({
    brokers: config.kafka.brokers, clientId: config.kafka.clientId, node: nodeName(config), shards: config.shards,
    commandTopic: config.kafka.commandTopic, replicationFactor: config.kafka.replicationFactor, log, metrics,
  }, region, leases);
  const clockShard = shardOf('clock', CLOCK_ID, config.shards);
  // Timed per day by the settler: a day's part, the waits and the initiative are one day settled.
  const settler = new ShardSettler(store, node, config.shards, dailyTick(node as unknown as Entities, store, seed, (sequence) => store.nextId(sequence), log), () => currentDay(store), clockShard, log, (seconds) => metrics.daySettled(seconds));
  await bus.subscribe<{ day: number }>(TOPICS.days, ({ day }) => settler.settle(day));
  return { region, node, leases, settler, clockShard };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const STORE_RETRY_MAX_MS = 10_000;
export const STORE_PING_MS = 2_000;
/** How long start-up waits for the bus before it serves without it. */
export const BUS_START_WAIT_MS = 10_000;

/** Where the configured store lives, for the log. */
const storeName = (config: Config) => (config.store === 'sqlite'
  ? `SQLite in ${config.dataDir}`
  : `Cassandra at ${config.cassandra.contactPoints.join(', ')} (keyspace ${config.cassandra.keyspace}${config.cassandra.world === 'main' ? '' : `, world ${config.cassandra.world}`})`);

/** The bus the configuration names, and (on Kafka) the relay of the history to its topic. */
function openBus(config: Config, store: Store, log: (line: string) => void): { bus: Bus; relay: HistoryRelay | null } {
  if (config.bus === 'local') return { bus: new EmbeddedBus(log), relay: null };
  const k = config.kafka;
  const bus = new KafkaBus({
    brokers: k.brokers, clientId: k.clientId, groupPrefix: `${k.clientId}.${nodeName(config)}`, log,
    topics: [
      { topic: k.tickTopic, numPartitions: k.tickPartitions, replicationFactor: k.replicationFactor },
      { topic: k.historyTopic, numPartitions: k.historyPartitions, replicationFactor: k.replicationFactor },
    ],
    rename: { [TOPICS.days]: k.tickTopic },
  });
  return { bus, relay: new HistoryRelay(store, (records) => bus.send(k.historyTopic, records), log) };
}

function openStore(config: Config, metrics: Metrics, fence?: (persistenceKey: string) => string | null): Promise<SqliteStore | CassandraStore> {
  if (config.store === 'sqlite') return Promise.resolve(new SqliteStore(config.dataDir, { metrics }));
  const c = config.cassandra;
  // On many nodes ids are reserved exactly as they are taken, so that they increase with time on every node;
  // on one node this process is the only writer of its world, and reads may keep their answers.
  return openCassandraStore({ contactPoints: c.contactPoints, keyspace: c.keyspace, world: c.world, localDataCenter: c.localDataCenter, consistency: c.consistency, fence, exactIds: fence !== undefined, soleWriter: fence === undefined, metrics });
}

/**
 * Runs a step of the start-up until it succeeds, for as long as the store cannot be
 * reached: the HTTP API answers 503 with the reason meanwhile, the log says why, and
 * the wait between attempts grows to STORE_RETRY_MAX_MS. Any other failure is thrown.
 */
async function untilReachable<T>(what: string, step: () => Promise<T>, unavailable: (reason: string | null) => void, log: (line: string) => void): Promise<T> {
  for (let wait = 500; ; wait = Math.min(wait * 2, STORE_RETRY_MAX_MS)) {
    try {
      const value = await step();
      unavailable(null);
      return value;
    } catch (e) {
      if (!(e instanceof StoreUnavailableError)) throw e;
      const reason = `the world's store cannot be reached (${what}): ${e.message}`;
      unavailable(reason);
      log(`worldsim: ${reason}; trying again in ${wait / 1000} s`);
      await sleep(wait);
    }
  }
}

/** A refusal of the world during start-up: a store that failed under an actor is worth another try, anything else is not. */
const startupStep = (what: string) => (r: { ok: boolean; refusal?: { status: number; detail: string } }) => {
  if (r.ok) return;
  if (r.refusal?.status === 503) throw new StoreUnavailableError(`${what}: ${r.refusal.detail}`);
  throw new Error(`${what} failed: ${r.refusal?.detail}`);
};

/**
 * Starts the world and serves it. The log goes to `output`: a logger, or a function that
 * takes each JSON line (tests, benchmarks); stdout by default.
 */
/**
 * `onGeneratedKeys`: told the operator keys this start generated as soon as they are kept
 * (as hashes), before the rest of the start, which may wait long for a store or a bus: a
 * caller stopped meanwhile can still show them (infra/main.ts).
 */
export async function startWorld(config: Config, output?: ((line: string) => void) | Logger, onGeneratedKeys?: (keys: Partial<Record<OperatorRole, string>>) => void): Promise<World> {
  const logger = typeof output === 'object' ? output : jsonLogger(output, isCluster(config) ? { node: nodeName(config) } : {});
  const log = lineLog(logger);
  const metrics = new WorldMetrics();
  let operatorHashes: OperatorKeyHashes | null = null;
  const { server, relayToken, setReady, setUnavailable, setDegraded, setHealthFacts, streams, close: closeServer } = buildServer(routes, log, { streams: config.streams });
  // Every request is logged and measured, the refused ones too. The rate limits run once
  // the route is known (so a 429 is counted under its route), before its handler reads anything.
  server.pre(observeRequests([requestLogger(logger), (r) => metrics.request(r)]));
  const rateLimits = config.rateLimits ?? DEFAULT_RATE_LIMITS;
  // With every limit off there is nothing to count.
  if (rateLimits.address || rateLimits.key || rateLimits.registration) server.use(rateLimitHandler(new RateLimiter(rateLimits), (limit) => metrics.rateLimited(limit), relayToken));
  serveMetrics(server, metrics, () => operatorHashes);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const patiently = <T>(what: string, step: () => Promise<T>) => untilReachable(what, step, setUnavailable, log);
  const cluster = isCluster(config);
  // On many nodes the store refuses a write for an entity whose shard this node's lease does not cover.
  let fence: ((persistenceKey: string) => string | null) | undefined;
  const store = await patiently(`opening ${storeName(config)}`, () => openStore(config, metrics, cluster ? (key) => (fence ? fence(key) : 'this node has not joined the cluster yet') : undefined));
  const operator = await patiently('reading the operator keys', () => operatorKeys(store, config));
  onGeneratedKeys?.(operator.generated);
  for (const role of operator.rehashed) log(`worldsim: the kept ${role} key is now kept as its hash only`);
  for (const [variable, key] of [['WORLD_ADMIN_KEY', config.adminKey], ['WORLD_SPECTATOR_KEY', config.spectatorKey]] as const) {
    const weak = key === null ? null : unrecognisableOperatorKey(key);
    if (weak) log(`worldsim: ${variable} is weak: ${weak}, so public text holding it is not recognised and refused; choose a long random key (README.md)`);
  }
  operatorHashes = operator.hashes;
  // The world's seed is fixed when it is first created; a restart keeps it.
  const seed = await patiently('reading the world seed', async () => {
    const kept = await store.setting('world_seed') ?? config.seed;
    await store.setSetting('world_seed', kept);
    return kept;
  });
  // Every draw is a pure function of the seed: a known seed foretells quest dangers, casualties and harvests.
  if (seed === DEFAULT_SEED) log(`worldsim: this world runs on the default seed ("${DEFAULT_SEED}"), which anyone can read in the source and use to foretell its draws (quest dangers, casualties, harvests); a world open to agents should be created with a secret WORLD_SEED`);

  // What a world of an older version lacks, made good once by the actors it concerns
  // (actors/once-per-world.ts): agents told their organization ended
  // (actors/agent/ended-before.ts), organizations' trust rows
  // (actors/organization/trust-rows.ts), employed adventurers' due days
  // (actors/adventurer/career-due-days.ts).
  const catchUpOnce = async () => {
    const passes = [
      [tellAgentsOfEarlierEnds, (n: number) => `told ${n} agents that their organization had ended (a world older than that step)`],
      [writeTrustRowsOnce, (n: number) => `${n} organizations wrote their trust as rows of their own (a world of an older version)`],
      [writeCareerDueDaysOnce, (n: number) => `${n} employed adventurers wrote the due day of their career's end (a world of an older version)`],
      [writeLiveContractRowsOnce, (n: number) => `${n} live contracts wrote their rows again (a world of an older version)`],
    ] as const;
    for (const [pass, done] of passes) {
      await currentDay(store).then((day) => pass(entities, store, day)).then(
        (n) => { if (n > 0) log(`worldsim: ${done(n)}`); },
        (e: unknown) => log(`worldsim: ${(e as Error)?.message ?? e}; tried again at the next start`),
      );
    }
  };
  const { bus, relay } = openBus(config, store, log);
  let closing = false;
  let region: Region;
  let entities: Entities;
  let node: ClusterNode | null = null;
  let leases: ShardLeases | null = null;
  let hostsClock = () => true;
  let resuming: Promise<void> = Promise.resolve();
  const catchingUp = new Set<Promise<void>>();
  const resume = () => entities.ask('clock', CLOCK_ID, { type: 'resume' }, 30 * 60_000).then(startupStep('settling the current day'));

  if (cluster) {
    let seedingDone!: () => void;
    const seeded = new Promise<void>((resolve) => { seedingDone = resolve; });
    const c = await clusterRegion(config, store as CassandraStore, bus, seed, log, metrics);
    ({ region, node, leases } = c);
    entities = c.node as unknown as Entities;
    const clusterNode = c.node;
    const clusterLeases = c.leases;
    fence = (key) => clusterLeases.refusal(shardOfKey(key, config.shards));
    hostsClock = () => clusterNode.hosts(c.clockShard);
    // A shard taken over settles the days it missed; the node that takes the clock announces
    // the current day again (a day its last host left unsettled is settled) and relays the history.
    clusterNode.on({
      served: (shard) => {
        const work: Promise<void> = c.settler.catchUp()
          .then(() => resumeIntents(entities, store, log, (kind, id) => clusterNode.shardOf(kind, id) === shard && clusterNode.hosts(shard)))
          .then(() => undefined, (e: unknown) => log(`cluster: shard ${shard} could not catch up: ${(e as Error)?.message ?? e}`))
          .finally(() => catchingUp.delete(work));
        catchingUp.add(work);
        if (shard === c.clockShard && !closing) {
          // The day is announced once the world is seeded (a new world's clock begins there).
          resuming = seeded.then(() => resume()).catch((e: unknown) => log(`worldsim: the current day could not be settled: ${(e as Error)?.message ?? e}`));
          relay?.start();
        }
      },
      revoked: (shard) => { if (shard === c.clockShard) void relay?.stop(); },
    });
    await patiently('joining the other nodes through Kafka', () => clusterNode.start().catch((e: unknown) => {
      throw new StoreUnavailableError(`Kafka at ${config.kafka.brokers.join(', ')}: ${(e as Error)?.message ?? e}`);
    }));
    await patiently('seeding the world', () => seedWorld(entities, store, seed, Date.now()));
    seedingDone();
    // The leases of a node that died may take a few seconds to run out.
    await clusterNode.whenHostingAssigned(20_000);
    // Finish every action a crash cut short between its actors (actors/intents.ts); what
    // cannot be finished now is tried again on every tick.
    // Finished by the node that hosts each: now for the shards it already hosts, and for
    // each shard it takes later once it takes it.
    const hostedHere = (kind: string, id: string | number) => clusterNode.hosts(clusterNode.shardOf(kind, id));
    await patiently('finishing unfinished actions', () => resumeIntents(entities, store, log, hostedHere));
    await catchUpOnce();
  } else {
    const settlements = new StoreSettlements(store, NODE);
    region = await worldRegion(store, bus, settlements, seed, log, metrics, idleMsOf(config));
    entities = region;
    await patiently('seeding the world', () => seedWorld(region, store, seed, Date.now()));
    // Finish every action a crash cut short between its actors (actors/intents.ts); what
    // cannot be finished now is tried again on every tick.
    await patiently('finishing unfinished actions', () => resumeIntents(region, store, log));
    await catchUpOnce();
    // Settle the current day again in case the last run stopped halfway through it. A bus
    // that cannot be reached does not keep the world from serving: the day is settled in
    // the background once the bus answers (the clock does not advance meanwhile).
    const busAnswers = async (waitMs: number) => {
      for (const end = Date.now() + waitMs; ; await sleep(250)) {
        if (await bus.ready().then(() => true, () => false)) return true;
        if (Date.now() >= end || closing) return false;
      }
    };
    if (await busAnswers(BUS_START_WAIT_MS)) {
      await patiently('settling the current day', resume);
    } else {
      log('worldsim: the message bus cannot be reached; serving now, and settling the current day once it answers');
      resuming = (async () => {
        while (!closing && !(await busAnswers(STORE_PING_MS))) { /* keep waiting */ }
        if (!closing) await resume().catch((e: unknown) => log(`worldsim: the current day could not be settled: ${(e as Error)?.message ?? e}`));
      })();
    }
  }

  const services: Services = { entities, read: store, store, operatorKeyHashes: operator.hashes, seed, day: () => currentDay(store), daySeconds: config.daySeconds, now: () => Date.now() };
  const awake = region;
  metrics.measure({ actorsAwake: () => awake.awake, storeQueueDepth: () => store.queueDepth });
  const ticker = new IntervalTicker();
  // Only the node that hosts the clock advances it.
  ticker.start(config.daySeconds * 1000, {
    hostsClock,
    current: async () => {
      const world = await store.row<{ day: number; began_at?: number | null }>('world', CLOCK_ID);
      return world ? { day: world.day, began_at: world.began_at ?? null } : null;
    },
    advance: (at, fromDay) => entities.ask('clock', CLOCK_ID, { type: 'advance', at, from_day: fromDay }, 30 * 60_000),
  });
  if (!cluster) relay?.start();
  setHealthFacts(() => ({ store: config.store, bus: config.bus, streams: streams.open(), ...(node ? { node: node.status() } : {}), ...(relay ? { history_relay: relay.status() } : {}) }));
  setReady(services);

  // While the world runs, the store and the bus are watched. A store that cannot be
  // reached makes every /api request and /healthz answer 503 with the reason until it
  // answers again; a bus that cannot be reached leaves the API serving, stops the days
  // (the clock refuses to advance) and shows in /healthz as "degraded".
  let down: string | null = null;
  let busDown: string | null = null;
  const health = setInterval(() => {
    store.ping().then(() => {
      if (down) log(`worldsim: ${storeName(config)} answers again`);
      down = null;
      setUnavailable(null);
    }, (e: unknown) => {
      const reason = `the world's store cannot be reached: ${(e as Error)?.message ?? e}`;
      if (!down) log(`worldsim: ${reason}`);
      down = reason;
      setUnavailable(reason);
    });
    bus.ready().then(() => {
      if (busDown) log('worldsim: the message bus answers again; days advance');
      busDown = null;
      setDegraded(null);
    }, (e: unknown) => {
      const reason = `the message bus cannot be reached (${(e as Error)?.message ?? e}); the API serves, but days do not advance until it is back`;
      if (!busDown) log(`worldsim: ${reason}`);
      busDown = reason;
      setDegraded(reason);
    });
  }, STORE_PING_MS);
  health.unref();

  return {
    url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
    port,
    keys: operator.known,
    generatedKeys: operator.generated,
    services,
    region,
    node,
    async caughtUp() {
      while (catchingUp.size) await Promise.all([...catchingUp]);
    },
    logger,
    metrics,
    async close() {
      closing = true;
      clearInterval(health);
      ticker.stop();
      streams.close();
      await closeServer();
      await relay?.stop();
      // A node that leaves hands its shards over (and releases their leases) before it goes.
      await node?.close();
      await leases?.close();
      await bus.close();
      // On many nodes the clock's resume waits for every shard, which this node no longer settles: it is not waited for.
      if (!cluster) await resuming;
      await store.close();
      region.stop();
    },
  };
}
