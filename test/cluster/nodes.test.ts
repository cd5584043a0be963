// Many nodes (docs/operations.md): node processes on loopback, one world in the real
// Cassandra, joined through the real Kafka. Any node answers any request; a node killed
// with SIGKILL while clients act loses no acknowledged change and its shards answer on the
// survivors; a node that joins takes its share; a node paused past its session timeout
// comes back without hosting what it lost.
import assert from 'assert';
import { spawn, type ChildProcess } from 'child_process';
import crypto from 'crypto';
import net from 'net';
import path from 'path';
import { Client } from 'cassandra-driver';
import { shardOf } from '../../infra/cluster/shards';
import { NODE_FLAGS } from '../../infra/heap';
import { sharedKeyspace, useCassandra } from '../support/cassandra';
import { tempDir } from '../support/world';

const SHARDS = 8;
const MAIN = path.resolve(__dirname, '..', '..', 'infra', 'main.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as net.AddressInfo).port; s.close(() => resolve(p)); });
  });
}

interface Node { id: string; port: number; url: string; proc: ChildProcess; log: string[] }

type Answer = { status: number; body: any };

async function call(url: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const res = await fetch(url + route, {
      method, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(40_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* text */ }
    return { status: res.status, body: parsed };
  } catch (e) {
    return { status: 0, body: String((e as Error)?.message ?? e) };
  }
}

describe('Many nodes: three node processes, one world (real Cassandra and Kafka)', function () {
  this.timeout(240_000);
  const cassandra = useCassandra();
  const nodes: Node[] = [];
  const name = `nodes${crypto.randomBytes(4).toString('hex')}`;
  let keyspace: string;

  function startNode(id: string): Promise<Node> {
    return (async () => {
      const port = await freePort();
      const env = {
        ...process.env,
        WORLD_STORE: 'cassandra', WORLD_BUS: 'kafka', NODE_ID: id, PORT: String(port), HOST: '127.0.0.1', WORLD_SHARDS: String(SHARDS),
        CASSANDRA_CONTACT_POINTS: cassandra.server().contactPoints.join(','), CASSANDRA_KEYSPACE: keyspace, CASSANDRA_WORLD: name,
        KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092', KAFKA_CLIENT_ID: name,
        WORLD_TICK_TOPIC: `${name}.days`, WORLD_HISTORY_TOPIC: `${name}.history`, WORLD_COMMAND_TOPIC: `${name}.commands`,
        WORLD_DAY_SECONDS: '0', WORLD_ADMIN_KEY: 'admin', WORLD_SPECTATOR_KEY: 'spectator', WORLD_DATA_DIR: tempDir('worldsim-node-'),
        // 32 clients on one address register as fast as they can: no rate limit.
        WORLD_RATE_ADDRESS_PER_SECOND: '0', WORLD_RATE_KEY_PER_SECOND: '0', WORLD_RATE_REGISTRATION_PER_MINUTE: '0',
      };
      const proc = spawn(process.execPath, ['--no-deprecation', ...NODE_FLAGS, MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const node: Node = { id, port, url: `http://127.0.0.1:${port}`, proc, log: [] };
      const keep = (b: Buffer) => { node.log.push(...String(b).split('\n').filter(Boolean)); if (node.log.length > 400) node.log.splice(0, node.log.length - 400); };
      proc.stdout!.on('data', keep);
      proc.stderr!.on('data', keep);
      nodes.push(node);
      return node;
    })();
  }

  async function healthy(node: Node, timeoutMs = 90_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const h = await call(node.url, 'GET', '/healthz');
      if (h.status === 200 && h.body.node?.joined) return h.body;
      if (Date.now() > deadline) throw new Error(`node ${node.id} did not become healthy: ${JSON.stringify(h.body)}\n${node.log.slice(-30).join('\n')}`);
      await sleep(250);
    }
  }

  const killed = new Set<Node>();
  const alive = () => nodes.filter((n) => !killed.has(n) && n.proc.exitCode === null && n.proc.signalCode === null);
  const shardsOf = async (n: Node): Promise<number[]> => (await call(n.url, 'GET', '/healthz')).body?.node?.shards ?? [];

  /** Until the shards the given nodes host cover them all, each once. */
  async function covered(among: Node[], timeoutMs: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const all = (await Promise.all(among.map(shardsOf))).flat().sort((a, b) => a - b);
      if (all.length === SHARDS && all.every((s, i) => s === i)) return Date.now() - started;
      if (Date.now() - started > timeoutMs) throw new Error(`the shards are not covered once: ${JSON.stringify(all)}`);
      await sleep(200);
    }
  }

  before(async () => {
    keyspace = sharedKeyspace();
    await Promise.all(['1', '2', '3'].map(startNode));
    await Promise.all(nodes.map((n) => healthy(n)));
    await covered(nodes, 60_000);
  });

  after(async () => {
    for (const n of nodes) {
      n.proc.kill('SIGCONT');
      n.proc.kill('SIGTERM');
    }
    await sleep(500);
    for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill('SIGKILL');
  });

  it('any node answers any request, with the same answers as one node would give', async () => {
    const [a, b, c] = nodes;
    const agent = await call(a.url, 'POST', '/api/agents', { name: 'Wanderer of Many Nodes', model: 'test-model' });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const key = { 'x-agent-key': agent.body.api_key };
    const org = await call(b.url, 'POST', '/api/organizations', { name: 'Three Node Traders', kind: 'merchant company', description: 'Trade across nodes' }, key);
    assert.equal(org.status, 201, JSON.stringify(org.body));
    const day = (await call(c.url, 'GET', '/api/world')).body.day;
    const tick = await call(c.url, 'POST', '/api/tick', undefined, { 'x-admin-key': 'admin' });
    assert.deepEqual(tick.body, { day: day + 1 });
    for (const n of nodes) {
      const seen = await call(n.url, 'GET', `/api/organizations/${org.body.id}`);
      assert.equal(seen.status, 200);
      assert.equal(seen.body.name, 'Three Node Traders');
      assert.equal((await call(n.url, 'GET', '/api/agents/me', undefined, key)).body.id, agent.body.id);
      assert.equal((await call(n.url, 'GET', '/api/world')).body.day, day + 1);
    }
    const crossNode = (await Promise.all(nodes.map(async (n) => (await call(n.url, 'GET', '/healthz')).body.node.cross_node_asks.served_for_others))).reduce((x, y) => x + y, 0);
    assert.ok(crossNode > 0, 'some asks travelled between nodes');
  });

  it('SIGKILL of a node while 32 clients act: every acknowledged change is there, its shards answer elsewhere within 30 s, one day per tick', async () => {
    const victim = nodes[1];
    const founded: Array<{ id: number; treasury: number; agent: number }> = [];
    let stop = false;
    let killedAt = 0;
    const client = async (i: number) => {
      for (let round = 0; !stop; round++) {
        const targets = alive();
        const at = targets[(i + round) % targets.length];
        const agent = await call(at.url, 'POST', '/api/agents', { name: `Client ${i}-${round}`, model: 'test-model' });
        if (agent.status !== 201) { await sleep(100); continue; }
        const org = await call(alive()[(i + round + 1) % alive().length].url, 'POST', '/api/organizations',
          { name: `Company ${i}-${round}`, kind: 'merchant company', description: 'Acts while a node dies' }, { 'x-agent-key': agent.body.api_key });
        if (org.status === 201) founded.push({ id: org.body.id, treasury: org.body.treasury, agent: agent.body.id });
        else assert.ok([0, 503].includes(org.status), `a refusal other than "could not finish": ${org.status} ${JSON.stringify(org.body)}`);
      }
    };
    const clients = Array.from({ length: 32 }, (_, i) => client(i));
    await sleep(3_000);
    killedAt = Date.now();
    victim.proc.kill('SIGKILL');
    killed.add(victim);
    const survivors = alive().filter((n) => n !== victim);
    const takeover = await covered(survivors, 30_000);
    await sleep(3_000);
    stop = true;
    await Promise.all(clients);
    assert.ok(founded.length > 20, `clients acted (${founded.length} organizations)`);
    assert.ok(Date.now() - killedAt > takeover);
    // Every acknowledged founding is there, on every survivor, with the treasury it was founded with.
    for (const n of survivors) {
      for (const f of founded) {
        const o = await call(n.url, 'GET', `/api/organizations/${f.id}`);
        assert.equal(o.status, 200, `organization ${f.id} on node ${n.id}`);
        assert.equal(o.body.treasury, f.treasury, `organization ${f.id}'s gold is what its founding granted`);
      }
    }
    // The day advances once per tick, and each day begins once in the history.
    const day = (await call(survivors[0].url, 'GET', '/api/world')).body.day;
    for (let i = 1; i <= 2; i++) {
      const t = await call(survivors[i % survivors.length].url, 'POST', '/api/tick', undefined, { 'x-admin-key': 'admin' });
      assert.deepEqual(t.body, { day: day + i }, JSON.stringify(t.body));
    }
    const events = (await call(survivors[0].url, 'GET', '/api/events?category=world&limit=100')).body as Array<{ summary: string }>;
    const began = events.filter((e) => /^Day \d+ began/.test(e.summary)).map((e) => e.summary);
    assert.equal(new Set(began).size, began.length, `each day began once: ${began.join('; ')}`);
    console.log(`      (${founded.length} organizations founded by 32 clients; shards of the dead node answered elsewhere ${Math.round(takeover / 100) / 10} s after SIGKILL)`);
  });

  it('a fourth node joins: shards move to it and its actors answer', async () => {
    const fourth = await startNode('4');
    await healthy(fourth);
    const deadline = Date.now() + 60_000;
    while ((await shardsOf(fourth)).length === 0 && Date.now() < deadline) await sleep(250);
    const mine = await shardsOf(fourth);
    assert.ok(mine.length > 0, 'the fourth node hosts shards');
    await covered(alive(), 30_000);
    // Agents registered through another node until one lands on a shard of the fourth node.
    const other = alive().find((n) => n !== fourth)!;
    let landed = false;
    for (let i = 0; i < 60 && !landed; i++) {
      const a = await call(other.url, 'POST', '/api/agents', { name: `Newcomer ${i}`, model: 'test-model' });
      assert.equal(a.status, 201, JSON.stringify(a.body));
      landed = mine.includes(shardOf('agent', a.body.id, SHARDS));
    }
    assert.ok(landed);
    const served = (await call(fourth.url, 'GET', '/healthz')).body.node.cross_node_asks.served_for_others;
    assert.ok(served > 0, 'the fourth node answered asks for its shards');
    // The node that sent them measured them (issue 11, item 7).
    const metrics = await call(other.url, 'GET', '/metrics', undefined, { 'x-spectator-key': 'spectator' });
    assert.equal(metrics.status, 200);
    assert.match(String(metrics.body), /^worldsim_cross_node_ask_duration_seconds_count\{result="ok"\} [1-9]\d*$/m, 'asks sent to other nodes are in the metrics');
  });

  it('a node paused past its session timeout (SIGSTOP, then SIGCONT) no longer hosts what it lost, and no shard has two hosts', async () => {
    const paused = alive()[0];
    const before = await shardsOf(paused);
    assert.ok(before.length > 0);
    paused.proc.kill('SIGSTOP');
    const others = alive().filter((n) => n !== paused);
    await covered(others, 40_000);
    paused.proc.kill('SIGCONT');
    await sleep(2_000);
    // The store's leases say who may write; no node believes it hosts a shard whose lease names another.
    const client = new Client({ contactPoints: cassandra.server().contactPoints, localDataCenter: cassandra.server().localDataCenter });
    await client.connect();
    try {
      for (let attempt = 0; ; attempt++) {
        const rows = (await client.execute(`SELECT shard, epoch, node FROM ${keyspace}.shard_leases WHERE world = ? AND shard IN ?`, [name, Array.from({ length: SHARDS }, (_, s) => s)], { prepare: true })).rows;
        const holder = new Map(rows.map((r) => [Number(r.get('shard')), String(r.get('node'))]));
        const claims = await Promise.all(alive().map(async (n) => ({ n, shards: await shardsOf(n) })));
        const flat = claims.flatMap((c) => c.shards);
        const disjoint = new Set(flat).size === flat.length;
        const agree = claims.every((c) => c.shards.every((s) => holder.get(s)?.startsWith(`node-${c.n.id}/`)));
        if (disjoint && agree) break;
        if (attempt > 100) assert.fail(`shards claimed twice or against the leases: ${JSON.stringify(claims.map((c) => [c.n.id, c.shards]))} ${JSON.stringify([...holder])}`);
        await sleep(200);
      }
    } finally {
      await client.shutdown();
    }
    const after = await call(paused.url, 'GET', '/api/world');
    assert.equal(after.status, 200, 'the paused node serves again');
  });
});
