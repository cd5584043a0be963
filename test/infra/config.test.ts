// Configuration and start-up (api-conventions.md, "Running the service"): readConfig's
// defaults and validation, generated operator keys kept in the data folder, GET /healthz,
// a restart keeping the world's seed, the background clock, and `npm start`'s entry point
// (dist/infra/main.js) printing the keys.
import assert from 'assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'child_process';
import fs from 'fs';
import path from 'path';
import type { AddressInfo } from 'net';
import { startWorld, type World } from '../../infra/app';
import { DEFAULT_CASSANDRA, DEFAULT_KAFKA, DEFAULT_SEED, isCluster, readConfig, type Config } from '../../infra/config';
import { DEFAULT_RATE_LIMITS } from '../../http/rate-limit';
import { routes } from '../../http/routes';
import { buildServer } from '../../http/server';
import sinon from 'sinon';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { missingNodeFlags, NODE_FLAGS } from '../../infra/heap';
import { tempDir } from '../support/world';

const quiet = () => undefined;

const configFor = (over: Partial<Config>): Config => ({
  port: 0, host: '127.0.0.1', store: 'sqlite', dataDir: tempDir('worldsim-config-'), cassandra: DEFAULT_CASSANDRA, bus: 'local', kafka: DEFAULT_KAFKA, adminKey: null, spectatorKey: null, daySeconds: 0, seed: 'config-seed', nodeId: '1', shards: 32, ...over,
});

async function call(base: string, method: string, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + url, { method, headers });
  const text = await res.text();
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* keep the text */ }
  return { status: res.status, body, text };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('readConfig (api-conventions: running the service)', () => {
  it('defaults: PORT 8080, HOST 0.0.0.0, the embedded store in WORLD_DATA_DIR ./data, no operator keys, WORLD_DAY_SECONDS 3600, actors awake two days, the fixed default seed', () => {
    assert.deepEqual(readConfig({}), {
      port: 8080, host: '0.0.0.0', store: 'sqlite', dataDir: './data', adminKey: null, spectatorKey: null, daySeconds: 3600, actorIdleSeconds: 7200, seed: DEFAULT_SEED,
      cassandra: { contactPoints: ['127.0.0.1:9042'], keyspace: 'worldsim', world: 'main', localDataCenter: 'datacenter1', consistency: 'QUORUM' },
      bus: 'local',
      kafka: { brokers: ['127.0.0.1:9092'], clientId: 'worldsim', tickTopic: 'world.days', historyTopic: 'world.history', commandTopic: 'world.commands', tickPartitions: 1, historyPartitions: 6, replicationFactor: 1 },
      nodeId: '1', shards: 32,
      rateLimits: { address: { perSecond: 20, burst: 100 }, key: { perSecond: 5, burst: 30 }, registration: { perSecond: 3 / 60, burst: 5 } },
      streams: { maxStreams: 100, heartbeatMs: 15_000, slowClientMs: 30_000 },
    });
  });

  it('reads the many-nodes settings: NODE_ID, WORLD_SHARDS, WORLD_COMMAND_TOPIC; many nodes when the store is Cassandra and the bus Kafka', () => {
    const c = readConfig({ NODE_ID: '3', WORLD_SHARDS: '8', WORLD_COMMAND_TOPIC: 'a.commands', WORLD_STORE: 'cassandra', WORLD_BUS: 'kafka' });
    assert.equal(c.nodeId, '3');
    assert.equal(c.shards, 8);
    assert.equal(c.kafka.commandTopic, 'a.commands');
    assert.equal(isCluster(c), true);
    assert.equal(isCluster(readConfig({ WORLD_STORE: 'cassandra' })), false, 'Cassandra with the local bus is one node');
    assert.equal(isCluster(readConfig({ WORLD_BUS: 'kafka' })), false, 'SQLite with Kafka is one node');
    assert.throws(() => readConfig({ WORLD_SHARDS: '0' }), /WORLD_SHARDS/);
    assert.throws(() => readConfig({ WORLD_SHARDS: '2.5' }), /WORLD_SHARDS/);
    assert.throws(() => readConfig({ WORLD_SHARDS: '2000' }), /WORLD_SHARDS/);
    assert.throws(() => readConfig({ NODE_ID: 'a b' }), /NODE_ID/);
  });

  it('reads the Kafka bus settings: WORLD_BUS, KAFKA_BROKERS, KAFKA_CLIENT_ID, WORLD_TICK_TOPIC, WORLD_HISTORY_TOPIC, partitions and replication', () => {
    const c = readConfig({
      WORLD_BUS: 'kafka', KAFKA_BROKERS: 'k1:9092,k2:9092', KAFKA_CLIENT_ID: 'world-a', WORLD_TICK_TOPIC: 'a.days', WORLD_HISTORY_TOPIC: 'a.history',
      WORLD_TICK_PARTITIONS: '1', WORLD_HISTORY_PARTITIONS: '12', KAFKA_REPLICATION_FACTOR: '3',
    });
    assert.equal(c.bus, 'kafka');
    assert.deepEqual(c.kafka, { brokers: ['k1:9092', 'k2:9092'], clientId: 'world-a', tickTopic: 'a.days', historyTopic: 'a.history', commandTopic: 'world.commands', tickPartitions: 1, historyPartitions: 12, replicationFactor: 3 });
    assert.throws(() => readConfig({ WORLD_BUS: 'rabbit' }), /WORLD_BUS must be one of local, kafka/);
    assert.throws(() => readConfig({ WORLD_HISTORY_TOPIC: 'bad topic!' }), /WORLD_HISTORY_TOPIC/);
    assert.throws(() => readConfig({ WORLD_HISTORY_PARTITIONS: '0' }), /WORLD_HISTORY_PARTITIONS/);
    assert.throws(() => readConfig({ KAFKA_REPLICATION_FACTOR: '1.5' }), /KAFKA_REPLICATION_FACTOR/);
  });

  it('reads the Cassandra store settings: WORLD_STORE, CASSANDRA_CONTACT_POINTS, CASSANDRA_KEYSPACE, CASSANDRA_WORLD, CASSANDRA_LOCAL_DC, CASSANDRA_CONSISTENCY', () => {
    const c = readConfig({
      WORLD_STORE: 'cassandra', CASSANDRA_CONTACT_POINTS: '10.0.0.1:9042, 10.0.0.2', CASSANDRA_KEYSPACE: 'world_two', CASSANDRA_WORLD: 'bench-7',
      CASSANDRA_LOCAL_DC: 'dc1', CASSANDRA_CONSISTENCY: 'LOCAL_QUORUM',
    });
    assert.equal(c.store, 'cassandra');
    assert.deepEqual(c.cassandra, { contactPoints: ['10.0.0.1:9042', '10.0.0.2'], keyspace: 'world_two', world: 'bench-7', localDataCenter: 'dc1', consistency: 'LOCAL_QUORUM' });
    assert.equal(readConfig({ CASSANDRA_WORLD: ' ' }).cassandra.world, 'main', 'an empty CASSANDRA_WORLD reads as the one world of the keyspace');
    assert.equal(readConfig({ WORLD_STORE: '' }).store, 'sqlite', 'an empty WORLD_STORE reads as unset');
  });

  it('refuses an unknown store, consistency, keyspace or world, naming the variable', () => {
    assert.throws(() => readConfig({ WORLD_STORE: 'postgres' }), /WORLD_STORE must be one of sqlite, cassandra/);
    assert.throws(() => readConfig({ CASSANDRA_CONSISTENCY: 'SOMETIMES' }), /CASSANDRA_CONSISTENCY/);
    assert.throws(() => readConfig({ CASSANDRA_KEYSPACE: 'drop table;' }), /CASSANDRA_KEYSPACE/);
    assert.throws(() => readConfig({ CASSANDRA_WORLD: 'a|b' }), /CASSANDRA_WORLD/);
  });

  it('has a fixed, non-empty default seed, so two fresh worlds start alike', () => {
    assert.equal(typeof DEFAULT_SEED, 'string');
    assert.ok(DEFAULT_SEED.length > 0);
    assert.equal(readConfig({}).seed, readConfig({}).seed);
    assert.equal(readConfig({ WORLD_SEED: '' }).seed, DEFAULT_SEED, 'an empty WORLD_SEED reads as unset');
  });

  it('reads every value from the env object it is given', () => {
    const env = {
      PORT: '9091', HOST: '127.0.0.2', WORLD_DATA_DIR: '/tmp/somewhere-else', WORLD_ADMIN_KEY: 'admin-from-env',
      WORLD_SPECTATOR_KEY: 'spectator-from-env', WORLD_DAY_SECONDS: '0.5', WORLD_SEED: 'another-seed',
    };
    assert.deepEqual(readConfig(env), {
      port: 9091, host: '127.0.0.2', store: 'sqlite', dataDir: '/tmp/somewhere-else', adminKey: 'admin-from-env', spectatorKey: 'spectator-from-env',
      daySeconds: 0.5, actorIdleSeconds: 600, seed: 'another-seed', cassandra: DEFAULT_CASSANDRA, bus: 'local', kafka: DEFAULT_KAFKA, nodeId: '1', shards: 32,
      rateLimits: DEFAULT_RATE_LIMITS,
      streams: { maxStreams: 100, heartbeatMs: 15_000, slowClientMs: 30_000 },
    });
    assert.equal(readConfig({ WORLD_DAY_SECONDS: '0' }).daySeconds, 0, '0 turns the background clock off');
    assert.equal(readConfig({ WORLD_ADMIN_KEY: '', WORLD_SPECTATOR_KEY: '' }).adminKey, null, 'an empty key reads as unset');
    assert.equal(readConfig({ WORLD_ADMIN_KEY: '', WORLD_SPECTATOR_KEY: '' }).spectatorKey, null, 'an empty key reads as unset');
  });

  it('reads the given env object, not process.env; without one it reads process.env', () => {
    const saved = { PORT: process.env.PORT, WORLD_SEED: process.env.WORLD_SEED };
    try {
      process.env.PORT = '4321';
      process.env.WORLD_SEED = 'process-seed';
      assert.equal(readConfig({}).port, 8080);
      assert.equal(readConfig({}).seed, DEFAULT_SEED);
      assert.equal(readConfig().port, 4321);
      assert.equal(readConfig().seed, 'process-seed');
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('keeps an actor awake two days of the world and at least ten minutes, or WORLD_ACTOR_IDLE_SECONDS', () => {
    assert.equal(readConfig({ WORLD_DAY_SECONDS: '86400' }).actorIdleSeconds, 172_800, 'two days of a day');
    assert.equal(readConfig({ WORLD_DAY_SECONDS: '60' }).actorIdleSeconds, 600, 'ten minutes when two days are shorter');
    assert.equal(readConfig({ WORLD_DAY_SECONDS: '0' }).actorIdleSeconds, 600, 'ten minutes when the clock only moves when told');
    assert.equal(readConfig({ WORLD_DAY_SECONDS: '86400', WORLD_ACTOR_IDLE_SECONDS: '30' }).actorIdleSeconds, 30, 'the variable wins');
    for (const bad of ['abc', '0', '-5', 'Infinity']) {
      assert.throws(() => readConfig({ WORLD_ACTOR_IDLE_SECONDS: bad }), /WORLD_ACTOR_IDLE_SECONDS/, `WORLD_ACTOR_IDLE_SECONDS=${bad}`);
    }
  });

  it('refuses a bad WORLD_DAY_SECONDS, naming the variable', () => {
    for (const bad of ['abc', '-1', 'NaN', 'Infinity', '1h']) {
      assert.throws(() => readConfig({ WORLD_DAY_SECONDS: bad }), /WORLD_DAY_SECONDS/, `WORLD_DAY_SECONDS=${bad}`);
    }
  });
});

describe('startWorld: operator keys, health, seed and the background clock', function () {
  this.timeout(60_000);
  const open: World[] = [];
  const start = async (config: Config) => {
    const w = await startWorld(config, quiet);
    open.push(w);
    return w;
  };
  const stop = async (w: World) => {
    open.splice(open.indexOf(w), 1);
    await w.close();
  };
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });

  it('lets an actor sleep once it has had no message for actorIdleSeconds, and not before', async () => {
    const actorsOf = (w: World) => w.region.awake;
    const briefly = await start(configFor({ actorIdleSeconds: 1 }));
    const long = await start(configFor({ actorIdleSeconds: 600 }));
    for (const w of [long, briefly]) assert.equal((await call(w.url, 'POST', '/api/tick', { 'x-admin-key': w.keys.admin! })).status, 200);
    const tickedAt = Date.now();
    const awake = actorsOf(long);
    assert.ok(awake > 5, `the day woke the places and the seeded organizations: ${awake}`);
    // A busy machine may take its time: wait until the idle second has passed for every actor (at most 15 s).
    while (actorsOf(briefly) > 0 && Date.now() - tickedAt < 15_000) await sleep(100);
    assert.equal(actorsOf(briefly), 0, 'every actor of the world with one idle second is asleep');
    await sleep(Math.max(0, 2500 - (Date.now() - tickedAt)));
    assert.equal(actorsOf(long), awake, 'every actor of the world with ten idle minutes is still awake');
    const r = await call(briefly.url, 'GET', '/api/organizations');
    assert.equal(r.status, 200);
    const ticked = await call(briefly.url, 'POST', '/api/tick', { 'x-admin-key': briefly.keys.admin! });
    assert.equal(ticked.status, 200, 'a day recovers the actors it settles from the store');
  });

  it('tries seeding again when a write fails while the world is seeded, and starts', async () => {
    // Fault injection: the first write of one seeded place fails.
    const makeEngine = (SqliteStore.prototype as unknown as { makeEngine: () => { persist: (...a: unknown[]) => Promise<void> } }).makeEngine;
    let failed = 0;
    const stub = sinon.stub(SqliteStore.prototype as unknown as { makeEngine: () => unknown }, 'makeEngine').callsFake(function (this: unknown) {
      const engine = makeEngine.call(this);
      const persist = engine.persist.bind(engine);
      engine.persist = async (...args: unknown[]) => {
        if (failed === 0 && (args[0] as { key: string }).key === 'location:greenhollow') { failed += 1; throw new Error('injected: the write did not happen'); }
        return persist(...args);
      };
      return engine;
    });
    const lines: string[] = [];
    try {
      const w = await startWorld(configFor({}), (l) => lines.push(l));
      open.push(w);
      assert.equal(failed, 1);
      assert.ok(lines.some((l) => /seeding the world/.test(l) && /trying again/.test(l)), lines.join('\n'));
      const r = await call(w.url, 'GET', '/api/locations/greenhollow');
      assert.equal(r.status, 200, r.text);
    } finally {
      stub.restore();
    }
  });

  it('generates operator keys when none are configured, keeps only their hashes in the data folder, and the admin key ticks', async () => {
    const dataDir = tempDir('worldsim-keys-');
    const first = await start(configFor({ dataDir }));
    const { admin, spectator } = first.generatedKeys;
    assert.ok(admin && spectator, 'both keys are generated on the first start');
    assert.deepEqual(first.keys, { admin, spectator }, 'the first start knows the keys it generated');
    assert.ok(admin.length >= 16 && spectator.length >= 16, 'keys long enough to guess at no better than chance');
    assert.notEqual(admin, spectator);

    const day = (await call(first.url, 'GET', '/api/world')).body.day as number;
    const ticked = await call(first.url, 'POST', '/api/tick', { 'x-admin-key': admin });
    assert.equal(ticked.status, 200, ticked.text);
    assert.equal(ticked.body.day, day + 1);
    assert.equal((await call(first.url, 'POST', '/api/tick', { 'x-admin-key': spectator })).status, 401, 'the spectator key is not the admin key');
    assert.equal((await call(first.url, 'GET', '/api/messages/investigation', { 'x-spectator-key': spectator })).status, 200, 'the spectator key opens the investigation');
    await stop(first);

    const second = await start(configFor({ dataDir, seed: 'config-seed' }));
    assert.deepEqual(second.generatedKeys, {}, 'a restart generates no key');
    assert.deepEqual(second.keys, {}, 'a restart knows the kept keys only by their hashes');
    const again = await call(second.url, 'POST', '/api/tick', { 'x-admin-key': admin });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.day, day + 2, 'the same world continues');
    assert.equal((await call(second.url, 'GET', '/api/messages/investigation', { 'x-spectator-key': spectator })).status, 200, 'the kept spectator key still works');
    await stop(second);

    const elsewhere = await start(configFor({}));
    assert.notEqual(elsewhere.generatedKeys.admin, admin, 'another data folder generates another key');
  });

  it('uses a configured key instead of the kept one', async () => {
    const dataDir = tempDir('worldsim-keys-');
    const first = await start(configFor({ dataDir }));
    const generated = first.generatedKeys.admin!;
    await stop(first);
    const second = await start(configFor({ dataDir, adminKey: 'configured-admin-key' }));
    assert.equal(second.keys.admin, 'configured-admin-key');
    assert.equal(second.generatedKeys.admin, undefined, 'a configured key is not generated (and not printed)');
    assert.equal((await call(second.url, 'POST', '/api/tick', { 'x-admin-key': 'configured-admin-key' })).status, 200);
    assert.equal((await call(second.url, 'POST', '/api/tick', { 'x-admin-key': generated })).status, 401);
  });

  it('GET /healthz answers 200 once started', async () => {
    const w = await start(configFor({}));
    const r = await call(w.url, 'GET', '/healthz');
    assert.equal(r.status, 200, r.text);
  });

  it('GET /healthz answers 503 (and the API 503) before the service is ready', async () => {
    const { server, close } = buildServer(routes, quiet);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      assert.equal((await call(base, 'GET', '/healthz')).status, 503);
      const api = await call(base, 'GET', '/api/world');
      assert.equal(api.status, 503);
      assert.equal(typeof api.body.detail, 'string');
    } finally {
      await close();
    }
  });

  it('keeps the original world when restarted with a different seed (same adventurer names)', async () => {
    const names = async (w: World) => ((await call(w.url, 'GET', '/api/adventurers')).body as Array<{ id: number; name: string }>)
      .sort((x, y) => x.id - y.id).map((a) => a.name);
    const dataDir = tempDir('worldsim-seed-');
    const first = await start(configFor({ dataDir, seed: 'first-seed' }));
    const original = await names(first);
    assert.ok(original.length > 0);
    await stop(first);

    const restarted = await start(configFor({ dataDir, seed: 'second-seed' }));
    assert.deepEqual(await names(restarted), original, 'a restart keeps the world it had');
    assert.equal(restarted.services.seed, 'first-seed', 'the world keeps drawing from its original seed');
    await stop(restarted);

    // The seed does matter for a fresh world, so the comparison above means something.
    const fresh = await start(configFor({ seed: 'second-seed' }));
    assert.notDeepEqual(await names(fresh), original, 'a fresh world from the other seed differs');
  });

  it('keeps drawing from the original seed after a restart with another: later days match a world that kept its seed', async () => {
    // What the world does of its own accord (new adventurers, quests of the seeded organizations) follows the seed.
    const story = async (w: World) => {
      const admin = { 'x-admin-key': w.keys.admin! };
      for (let i = 0; i < 6; i++) assert.equal((await call(w.url, 'POST', '/api/tick', admin)).status, 200);
      const adventurers = ((await call(w.url, 'GET', '/api/adventurers')).body as Array<{ id: number; name: string; strength: number }>)
        .sort((x, y) => x.id - y.id).map((a) => `${a.id} ${a.name} ${a.strength}`);
      const quests = ((await call(w.url, 'GET', '/api/quests')).body as Array<{ id: number; title: string; reward: number; location_id: string }>)
        .sort((x, y) => x.id - y.id).map((q) => `${q.id} ${q.title} ${q.reward} ${q.location_id}`);
      return { adventurers, quests };
    };
    const changed = tempDir('worldsim-seed-');
    const kept = tempDir('worldsim-seed-');
    const adminKey = 'seed-admin-key';
    for (const dataDir of [changed, kept]) await stop(await start(configFor({ dataDir, seed: 'first-seed', adminKey })));
    const a = await start(configFor({ dataDir: changed, seed: 'second-seed', adminKey }));
    const b = await start(configFor({ dataDir: kept, seed: 'first-seed', adminKey }));
    const [withChange, withoutChange] = [await story(a), await story(b)];
    assert.ok(withoutChange.quests.length > 0 || withoutChange.adventurers.length > 60, 'the world acted on its own in those days');
    assert.deepEqual(withChange, withoutChange);
  });

  it('advances days by itself when daySeconds is small', async () => {
    const w = await start(configFor({ daySeconds: 0.2 }));
    const first = (await call(w.url, 'GET', '/api/world')).body.day as number;
    let day = first;
    for (const deadline = Date.now() + 3000; Date.now() < deadline && day < first + 2; await sleep(100)) {
      day = (await call(w.url, 'GET', '/api/world')).body.day as number;
    }
    assert.ok(day >= first + 2, `the clock moved from day ${first} to ${day} within 3 s`);
  });

  it('does not advance days by itself when daySeconds is 0', async () => {
    const w = await start(configFor({ daySeconds: 0 }));
    const first = (await call(w.url, 'GET', '/api/world')).body.day as number;
    await sleep(1200);
    assert.equal((await call(w.url, 'GET', '/api/world')).body.day, first);
  });
});

describe('the node flags the service starts with (infra/heap.ts)', () => {
  it('are given by npm start, before the program', () => {
    const start = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')).scripts.start as string;
    const program = start.indexOf('dist/infra/main.js');
    assert.ok(program > 0, start);
    for (const flag of NODE_FLAGS) {
      const at = start.indexOf(` ${flag} `);
      assert.ok(at > 0 && at < program, `npm start gives ${flag}: ${start}`);
    }
  });

  it('give node a young generation of two 32 MiB semi-spaces, where V8 stops at 16 MiB each', () => {
    // A program that keeps some of what it allocates, so V8 grows the young generation as far as it may.
    const churn = "const v8 = require('v8'); let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i, a: [i] }); if (keep.length > 200000) keep = []; }"
      + " process.stdout.write(String(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20));";
    const youngMiB = (flags: readonly string[]) => Number(execFileSync(process.execPath, [...flags, '-e', churn], { env: { ...process.env, NODE_OPTIONS: '' } }).toString());
    assert.equal(youngMiB(NODE_FLAGS), 64);
    assert.equal(youngMiB([]), 32);
  });

  it('are missing unless the command line or NODE_OPTIONS gives them (in either spelling)', () => {
    assert.deepEqual(missingNodeFlags([], ''), ['--max-semi-space-size=32']);
    assert.deepEqual(missingNodeFlags(['--no-deprecation'], '--max-old-space-size=4096'), ['--max-semi-space-size=32']);
    assert.deepEqual(missingNodeFlags(['--max-semi-space-size=16'], ''), ['--max-semi-space-size=32'], 'another size is not the one asked for');
    assert.deepEqual(missingNodeFlags(['--no-deprecation', '--max-semi-space-size=32'], ''), []);
    assert.deepEqual(missingNodeFlags([], ' --inspect  --max_semi_space_size=32 '), []);
  });
});

describe('npm start entry point (dist/infra/main.js)', function () {
  this.timeout(60_000);
  let child: ChildProcess | null = null;
  /** Stops the service the last test left running, if any. */
  const stopChild = async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  };
  after(stopChild);

  it('serves on the configured address and prints the keys it generates once, when it generates them', async () => {
    const dataDir = tempDir('worldsim-main-');
    const env: NodeJS.ProcessEnv = {
      ...process.env, PORT: '0', HOST: '127.0.0.1', WORLD_DATA_DIR: dataDir, WORLD_DAY_SECONDS: '0', WORLD_SEED: 'main-seed',
    };
    delete env.WORLD_ADMIN_KEY;
    delete env.WORLD_SPECTATOR_KEY;
    // Its stderr (the keys) and stdout (the log) in one pipe, in the order they were written,
    // as a terminal shows them: two pipes may be read in either order on a busy machine.
    child = spawn('/bin/sh', ['-c', 'exec "$0" --no-deprecation "$1" 2>&1', process.execPath, path.resolve(__dirname, '../../infra/main.js')], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout!.on('data', (d) => { out += String(d); });
    const deadline = Date.now() + 30_000;
    while (!/X-Spectator-Key \S+/.test(out) && child.exitCode === null && Date.now() < deadline) await sleep(50);
    const port = /listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
    const admin = /X-Admin-Key (\S+)/.exec(out)?.[1];
    const spectator = /X-Spectator-Key (\S+)/.exec(out)?.[1];
    assert.ok(port && admin && spectator, `start-up output names the port and both keys: ${out}`);
    const base = `http://127.0.0.1:${port}`;
    assert.equal((await call(base, 'GET', '/healthz')).status, 200);
    assert.equal((await call(base, 'POST', '/api/tick', { 'x-admin-key': admin })).status, 200, 'the printed admin key works');
    assert.equal((await call(base, 'GET', '/api/messages/investigation', { 'x-spectator-key': spectator })).status, 200, 'the printed spectator key works');
    assert.ok(out.indexOf('listening on') < out.indexOf('X-Admin-Key'), `the line that says where it listens comes before the keys: ${out}`);
    assert.ok(!out.includes('default seed'), `a world with a seed of its own is not warned about the default: ${out}`);
    assert.match(out, /"level":"warn"[^\n]*started without --max-semi-space-size=32 \(npm start gives --max-semi-space-size=32\)/, 'started without the node flags npm start gives, it says so');
    // The log goes out in chunks (infra/log.ts); a service that sits idle still writes what it holds, within a quarter of a second.
    const asked = Date.now();
    const tickLine = /"method":"POST","route":"\/api\/tick","status":200/;
    while (!tickLine.test(out) && Date.now() - asked < 1500) await sleep(25);
    assert.match(out, tickLine, 'the request log line of the tick is written while the service is idle');

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, 'stops cleanly on SIGTERM');

    // A second start on the same folder, with the node flags npm start gives, prints no key, and the printed ones still work.
    child = spawn(process.execPath, ['--no-deprecation', ...NODE_FLAGS, path.resolve(__dirname, '../../infra/main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    out = '';
    child.stdout!.on('data', (d) => { out += String(d); });
    child.stderr!.on('data', (d) => { out += String(d); });
    while (!/listening on/.test(out) && child.exitCode === null && Date.now() < deadline + 30_000) await sleep(50);
    const port2 = /listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
    assert.ok(port2, out);
    assert.ok(!out.includes(admin!) && !out.includes(spectator!) && !/X-(Admin|Spectator)-Key/.test(out), `a restart prints no key: ${out}`);
    assert.ok(!out.includes('started without'), `started with the node flags, it warns of none: ${out}`);
    assert.equal((await call(`http://127.0.0.1:${port2}`, 'POST', '/api/tick', { 'x-admin-key': admin! })).status, 200, 'the printed admin key still works');
  });

  it('prints the keys it generated even when SIGTERM comes before it showed them, then stops: no kept key goes unshown', async () => {
    const dataDir = tempDir('worldsim-interrupted-');
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', WORLD_DATA_DIR: dataDir, WORLD_DAY_SECONDS: '0' };
    delete env.WORLD_ADMIN_KEY;
    delete env.WORLD_SPECTATOR_KEY;
    delete env.WORLD_SEED; // the default seed's warning is the first line, written before the keys are shown
    const main = path.resolve(__dirname, '../../infra/main.js');
    const first = spawn(process.execPath, ['--no-deprecation', main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let atSignal = '';
    const exited = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    first.stdout!.on('data', (d) => {
      out += String(d);
      if (!atSignal) { atSignal = out; first.kill('SIGTERM'); }
    });
    first.stderr!.on('data', (d) => { out += String(d); });
    assert.equal(await exited, 0, `stops cleanly: ${out}`);
    assert.ok(!/X-Admin-Key/.test(atSignal), `the signal came before the keys were shown: ${atSignal}`);
    const admin = /X-Admin-Key (\S+)/.exec(out)?.[1];
    assert.ok(admin && /X-Spectator-Key \S+/.test(out), `both generated keys were printed before it stopped: ${out}`);

    // The next start generates none (the kept hashes are of the printed keys), and the printed admin key works.
    await stopChild();
    child = spawn(process.execPath, ['--no-deprecation', main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let again = '';
    child.stdout!.on('data', (d) => { again += String(d); });
    child.stderr!.on('data', (d) => { again += String(d); });
    const deadline = Date.now() + 30_000;
    while (!/listening on/.test(again) && child.exitCode === null && Date.now() < deadline) await sleep(50);
    const port = /listening on 127\.0\.0\.1:(\d+)/.exec(again)?.[1];
    assert.ok(port, again);
    assert.ok(!/X-(Admin|Spectator)-Key/.test(again), `a restart prints no key: ${again}`);
    assert.equal((await call(`http://127.0.0.1:${port}`, 'POST', '/api/tick', { 'x-admin-key': admin! })).status, 200, 'the printed admin key works');
  });

  it('stops when `npm start` is sent SIGTERM: the signal reaches the service, which lets its port go', async () => {
    // --ignore-scripts leaves out prestart (the build, already done): the start script itself runs as it does for an operator.
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', WORLD_DATA_DIR: tempDir('worldsim-npm-start-'), WORLD_DAY_SECONDS: '0', WORLD_ADMIN_KEY: 'npm-start-admin-key', WORLD_SPECTATOR_KEY: 'npm-start-spectator-key' };
    // The last test's service is stopped first: `after` stops only the last one started.
    await stopChild();
    child = spawn('npm', ['start', '--ignore-scripts'], { cwd: path.resolve(__dirname, '../../..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => { out += String(d); });
    child.stderr!.on('data', (d) => { out += String(d); });
    const deadline = Date.now() + 30_000;
    while (!/listening on 127\.0\.0\.1:\d+/.test(out) && child.exitCode === null && Date.now() < deadline) await sleep(50);
    const port = /listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1];
    assert.ok(port, `npm start serves: ${out}`);
    const base = `http://127.0.0.1:${port}`;
    assert.equal((await call(base, 'GET', '/healthz')).status, 200);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    await exited;
    // The service itself (npm's child) is gone too: nothing answers on its port any more.
    let answered = true;
    for (const end = Date.now() + 10_000; answered && Date.now() < end; await sleep(100)) {
      answered = await call(base, 'GET', '/healthz').then(() => true, () => false);
    }
    assert.equal(answered, false, `the service still answers on ${base} after npm start was sent SIGTERM`);
  });
});
