// Configuration from the environment (api-conventions.md, "Running the service").
import { DEFAULT_RATE_LIMITS, type Rate, type RateLimits } from '../http/rate-limit';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from '../http/stream';

export type StoreKind = 'sqlite' | 'cassandra';
export const CONSISTENCY_LEVELS = ['ONE', 'TWO', 'THREE', 'QUORUM', 'ALL', 'LOCAL_QUORUM', 'EACH_QUORUM', 'LOCAL_ONE'] as const;
export type Consistency = (typeof CONSISTENCY_LEVELS)[number];

export interface CassandraConfig {
  contactPoints: string[];
  keyspace: string;
  /** The world within the keyspace: the service runs one ('main'); tests and benchmarks run many in one keyspace. */
  world: string;
  localDataCenter: string;
  consistency: Consistency;
}

export type BusKind = 'local' | 'kafka';

export interface KafkaConfig {
  brokers: string[];
  clientId: string;
  /** The daily tick: {day}. */
  tickTopic: string;
  /** The world's history for analysts (docs/history-topic.md). */
  historyTopic: string;
  /** Commands between nodes (many nodes): one partition per shard. */
  commandTopic: string;
  /** Partitions and replication of the topics when the service creates them. */
  tickPartitions: number;
  historyPartitions: number;
  replicationFactor: number;
}

export const DEFAULT_KAFKA: KafkaConfig = {
  brokers: ['127.0.0.1:9092'], clientId: 'worldsim', tickTopic: 'world.days', historyTopic: 'world.history', commandTopic: 'world.commands',
  tickPartitions: 1, historyPartitions: 6, replicationFactor: 1,
};

export interface Config {
  port: number;
  host: string;
  /** Where the world's state lives: the embedded SQLite file (default) or Apache Cassandra. */
  store: StoreKind;
  dataDir: string;
  cassandra: CassandraConfig;
  /** How the daily tick travels and whether the history goes to Kafka: in-process (default) or Apache Kafka. */
  bus: BusKind;
  kafka: KafkaConfig;
  adminKey: string | null;
  spectatorKey: string | null;
  daySeconds: number;
  /**
   * How long an actor stays awake without a message (WORLD_ACTOR_IDLE_SECONDS); by default
   * two days of the world and at least ten minutes (actorIdleSecondsFor), so the actors a
   * day settles are still awake the next day. Absent: that default.
   */
  actorIdleSeconds?: number;
  seed: string;
  /** This node's id among the nodes of a world (NODE_ID); its name is `node-<id>`. */
  nodeId: string;
  /** Shards the entities are spread over on many nodes (WORLD_SHARDS); fixed for the life of a world. */
  shards: number;
  /** Token buckets per client address, per agent key and for registration (docs/operations.md); DEFAULT_RATE_LIMITS when absent. */
  rateLimits?: RateLimits;
  /** The live feed's limits (WORLD_STREAMS_MAX, WORLD_STREAM_HEARTBEAT_SECONDS, WORLD_STREAM_SLOW_SECONDS); defaults when absent. */
  streams?: StreamLimits;
}

/** Many nodes: the world's state in Cassandra and its nodes joined through Kafka. */
export const isCluster = (config: Pick<Config, 'store' | 'bus'>) => config.store === 'cassandra' && config.bus === 'kafka';

export const DEFAULT_SEED = 'emberfall';

/**
 * The default idle time of an actor: two days of the world, at least ten minutes. Every
 * active organization is settled once a day; asleep by the next day, each would be
 * recovered from the store for every day (docs/performance.md, "Awake between days").
 */
export const actorIdleSecondsFor = (daySeconds: number) => Math.max(600, 2 * daySeconds);

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return n;
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const n = number(env, name, fallback, min);
  if (!Number.isInteger(n)) throw new Error(`${name} must be a whole number >= ${min}, got "${env[name]}"`);
  return n;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim();
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return value as T;
}

export const DEFAULT_CASSANDRA: CassandraConfig = {
  contactPoints: ['127.0.0.1:9042'], keyspace: 'worldsim', world: 'main', localDataCenter: 'datacenter1', consistency: 'QUORUM',
};

function cassandra(env: NodeJS.ProcessEnv): CassandraConfig {
  const points = (env.CASSANDRA_CONTACT_POINTS ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const keyspace = env.CASSANDRA_KEYSPACE?.trim() || DEFAULT_CASSANDRA.keyspace;
  if (!/^[A-Za-z][A-Za-z0-9_]{0,47}$/.test(keyspace)) throw new Error(`CASSANDRA_KEYSPACE must be letters, digits and _ (starting with a letter, at most 48), got "${keyspace}"`);
  const world = env.CASSANDRA_WORLD?.trim() || DEFAULT_CASSANDRA.world;
  if (!/^[A-Za-z0-9_-]{1,48}$/.test(world)) throw new Error(`CASSANDRA_WORLD must be letters, digits, _ and - (at most 48), got "${world}"`);
  return {
    contactPoints: points.length ? points : DEFAULT_CASSANDRA.contactPoints,
    keyspace,
    world,
    localDataCenter: env.CASSANDRA_LOCAL_DC?.trim() || DEFAULT_CASSANDRA.localDataCenter,
    consistency: oneOf(env, 'CASSANDRA_CONSISTENCY', CONSISTENCY_LEVELS, DEFAULT_CASSANDRA.consistency),
  };
}

const TOPIC = /^[A-Za-z0-9._-]{1,200}$/;

function kafka(env: NodeJS.ProcessEnv): KafkaConfig {
  const brokers = (env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean);
  const topic = (name: string, fallback: string) => {
    const v = env[name]?.trim() || fallback;
    if (!TOPIC.test(v)) throw new Error(`${name} must be a Kafka topic name (letters, digits, '.', '_', '-'), got "${v}"`);
    return v;
  };
  const whole = (name: string, fallback: number) => {
    const n = number(env, name, fallback, 1);
    if (!Number.isInteger(n)) throw new Error(`${name} must be a whole number >= 1, got "${env[name]}"`);
    return n;
  };
  return {
    brokers: brokers.length ? brokers : DEFAULT_KAFKA.brokers,
    clientId: env.KAFKA_CLIENT_ID?.trim() || DEFAULT_KAFKA.clientId,
    tickTopic: topic('WORLD_TICK_TOPIC', DEFAULT_KAFKA.tickTopic),
    historyTopic: topic('WORLD_HISTORY_TOPIC', DEFAULT_KAFKA.historyTopic),
    commandTopic: topic('WORLD_COMMAND_TOPIC', DEFAULT_KAFKA.commandTopic),
    tickPartitions: whole('WORLD_TICK_PARTITIONS', DEFAULT_KAFKA.tickPartitions),
    historyPartitions: whole('WORLD_HISTORY_PARTITIONS', DEFAULT_KAFKA.historyPartitions),
    replicationFactor: whole('KAFKA_REPLICATION_FACTOR', DEFAULT_KAFKA.replicationFactor),
  };
}

function nodeId(env: NodeJS.ProcessEnv): string {
  const v = env.NODE_ID?.trim() || '1';
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(v)) throw new Error(`NODE_ID must be letters, digits, _ and - (at most 40), got "${v}"`);
  return v;
}

function shards(env: NodeJS.ProcessEnv): number {
  const n = number(env, 'WORLD_SHARDS', 32, 1);
  if (!Number.isInteger(n) || n > 1024) throw new Error(`WORLD_SHARDS must be a whole number from 1 to 1024, got "${env.WORLD_SHARDS}"`);
  return n;
}

/** A rate from two variables; a rate of 0 turns the limit off. */
function rate(env: NodeJS.ProcessEnv, perName: string, burstName: string, fallback: Rate | null, perMinute = false): Rate | null {
  const per = number(env, perName, fallback ? fallback.perSecond * (perMinute ? 60 : 1) : 0, 0);
  if (per === 0) return null;
  const burst = number(env, burstName, fallback?.burst ?? Math.max(1, Math.ceil(per)), 1);
  return { perSecond: perMinute ? per / 60 : per, burst };
}

function rateLimits(env: NodeJS.ProcessEnv): RateLimits {
  return {
    address: rate(env, 'WORLD_RATE_ADDRESS_PER_SECOND', 'WORLD_RATE_ADDRESS_BURST', DEFAULT_RATE_LIMITS.address),
    key: rate(env, 'WORLD_RATE_KEY_PER_SECOND', 'WORLD_RATE_KEY_BURST', DEFAULT_RATE_LIMITS.key),
    registration: rate(env, 'WORLD_RATE_REGISTRATION_PER_MINUTE', 'WORLD_RATE_REGISTRATION_BURST', DEFAULT_RATE_LIMITS.registration, true),
  };
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nonEmpty = (v: string | undefined) => (v && v.length > 0 ? v : null);
  return {
    port: number(env, 'PORT', 8080, 0),
    host: env.HOST || '0.0.0.0',
    store: oneOf(env, 'WORLD_STORE', ['sqlite', 'cassandra'] as const, 'sqlite'),
    dataDir: env.WORLD_DATA_DIR || './data',
    cassandra: cassandra(env),
    bus: oneOf(env, 'WORLD_BUS', ['local', 'kafka'] as const, 'local'),
    kafka: kafka(env),
    adminKey: nonEmpty(env.WORLD_ADMIN_KEY),
    spectatorKey: nonEmpty(env.WORLD_SPECTATOR_KEY),
    daySeconds: number(env, 'WORLD_DAY_SECONDS', 3600, 0),
    actorIdleSeconds: number(env, 'WORLD_ACTOR_IDLE_SECONDS', actorIdleSecondsFor(number(env, 'WORLD_DAY_SECONDS', 3600, 0)), 1),
    seed: env.WORLD_SEED || DEFAULT_SEED,
    nodeId: nodeId(env),
    shards: shards(env),
    rateLimits: rateLimits(env),
    streams: {
      maxStreams: whole(env, 'WORLD_STREAMS_MAX', DEFAULT_STREAM_LIMITS.maxStreams, 0),
      heartbeatMs: number(env, 'WORLD_STREAM_HEARTBEAT_SECONDS', DEFAULT_STREAM_LIMITS.heartbeatMs / 1000, 0.1) * 1000,
      slowClientMs: number(env, 'WORLD_STREAM_SLOW_SECONDS', DEFAULT_STREAM_LIMITS.slowClientMs / 1000, 0.1) * 1000,
    },
  };
}
