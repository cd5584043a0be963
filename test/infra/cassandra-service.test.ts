// The service on Cassandra when Cassandra is out of reach (docs/cassandra.md):
// - pointed at a Cassandra that cannot be reached, it answers 503 on /healthz and on every
//   /api endpoint, says why in its log and keeps trying; once it can reach it, it starts;
// - a real Cassandra node stopped while 32 clients write: requests in flight get 503 (never
//   500), every write answered 2xx is there once the node is back, and the world answers
//   again.
import assert from 'assert/strict';
import { execFile } from 'child_process';
import path from 'path';
import { startWorld, type World } from '../../infra/app';
import { DEFAULT_CASSANDRA, DEFAULT_KAFKA, type Config } from '../../infra/config';
import { ensureCassandra, CASSANDRA_START_TIMEOUT_MS, parseSettings, trackKeyspace } from '../support/cassandra';
import { freePort, tcpProxy } from '../support/tcp-proxy';
import { TEST_RATE_LIMITS, tempDir } from '../support/world';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function get(base: string, url: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + url, { headers });
  const text = await res.text();
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* keep the text */ }
  return { status: res.status, body, text };
}

async function post(base: string, url: string, body: unknown, key?: string) {
  const res = await fetch(base + url, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'x-agent-key': key } : {}) }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: any = text;
  try { parsed = JSON.parse(text); } catch { /* keep the text */ }
  return { status: res.status, body: parsed, text };
}

const cassandraConfig = (port: number, contactPoint: string, keyspace: string): Config => ({
  port, host: '127.0.0.1', store: 'cassandra', dataDir: tempDir('worldsim-cassandra-service-'),
  cassandra: { ...DEFAULT_CASSANDRA, contactPoints: [contactPoint], keyspace }, bus: 'local', kafka: DEFAULT_KAFKA, nodeId: '1', shards: 32,
  adminKey: 'service-admin', spectatorKey: 'service-spectator', daySeconds: 0, seed: 'service-seed',
  // Its clients all come from 127.0.0.1, faster than an address may register.
  rateLimits: TEST_RATE_LIMITS,
});

describe('the service on Cassandra when Cassandra cannot be reached', function () {
  this.timeout(CASSANDRA_START_TIMEOUT_MS + 120_000);

  it('answers 503 on /healthz and every /api endpoint while Cassandra cannot be reached, says why, keeps trying, and starts once it can', async () => {
    const server = await ensureCassandra();
    const proxy = await tcpProxy(server.contactPoints[0]);
    const proxyPort = proxy.port;
    const port = await freePort();
    const lines: string[] = [];
    const keyspace = `worldsim_service_${Date.now()}`;
    trackKeyspace(keyspace);
    let world: World | null = null;
    const starting = startWorld(cassandraConfig(port, `127.0.0.1:${proxyPort}`, keyspace), (l) => lines.push(l)).then((w) => { world = w; return w; });
    try {
      const base = `http://127.0.0.1:${port}`;
      // Wait for two failed attempts: it keeps trying.
      for (let i = 0; i < 100 && lines.filter((l) => /cannot be reached/.test(l)).length < 2; i++) await sleep(100);
      assert.ok(lines.filter((l) => /cannot be reached/.test(l) && /trying again/.test(l)).length >= 2, `the log says why, twice: ${lines.join('\n')}`);
      assert.match(lines[0], new RegExp(`Cassandra at 127\\.0\\.0\\.1:${proxyPort}`));
      const health = await get(base, '/healthz');
      assert.equal(health.status, 503);
      assert.equal(health.body.status, 'starting');
      assert.match(health.body.detail, /cannot be reached/);
      for (const url of ['/api/world', '/api/organizations', '/api/events', '/api/rules']) {
        const r = await get(base, url);
        assert.equal(r.status, 503, `${url}: ${r.text}`);
        assert.match(r.body.detail, /cannot be reached/);
      }
      assert.equal((await post(base, '/api/agents', { name: 'Too Early', model: 'test-model' })).status, 503);
      assert.equal(world, null, 'not started');

      await proxy.start();
      await starting;
      assert.equal((await get(base, '/healthz')).status, 200);
      const r = await get(base, '/api/world');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.day, 1);
    } finally {
      await starting.catch(() => undefined);
      await (world as World | null)?.close();
      await proxy.stop();
    }
  });
});

// A Cassandra node of its own, on ports of its own, that the test stops and starts.
const OUTAGE_ENV = {
  WORLD_SERVERS_DIR: path.resolve(__dirname, '..', '..', '..', 'data', 'servers-outage'),
  CASSANDRA_PORT: '29042', CASSANDRA_STORAGE_PORT: '27000', CASSANDRA_JMX_PORT: '27199',
};

function outageServer(command: 'up' | 'down'): Promise<string> {
  const root = path.resolve(__dirname, '..', '..', '..');
  return new Promise((resolve, reject) => {
    execFile(path.join(root, 'infra', 'servers'), [command, 'cassandra'], { cwd: root, env: { ...process.env, ...OUTAGE_ENV }, timeout: CASSANDRA_START_TIMEOUT_MS },
      (error, stdout, stderr) => (error ? reject(new Error(`infra/servers ${command} cassandra (outage node) failed: ${stderr}`)) : resolve(String(stdout))));
  });
}

describe('the service on Cassandra when its node stops under load', function () {
  this.timeout(2 * CASSANDRA_START_TIMEOUT_MS + 180_000);
  let world: World | null = null;
  after(async function () {
    this.timeout(120_000);
    await world?.close().catch(() => undefined);
    await outageServer('down').catch(() => undefined);
  });

  it('answers 503 (never 500) while the node is down, and every write answered 2xx is there once it is back', async () => {
    const settings = parseSettings(await outageServer('up'));
    const contactPoint = settings.CASSANDRA_CONTACT_POINTS;
    assert.ok(contactPoint, 'the outage node prints where it listens');
    const port = await freePort();
    world = await startWorld(cassandraConfig(port, contactPoint, `outage_${Date.now()}`), () => undefined);
    const base = world.url;

    // 32 clients, each an agent with an organization, writing messages and hiring workers.
    const clients = await Promise.all(Array.from({ length: 32 }, async (_, i) => {
      const agent = await post(base, '/api/agents', { name: `Outage Agent ${i}`, model: 'test-model' });
      assert.equal(agent.status, 201, agent.text);
      const org = await post(base, '/api/organizations', { name: `Outage House ${i}`, kind: 'merchant company' }, agent.body.api_key);
      assert.equal(org.status, 201, org.text);
      return { key: agent.body.api_key as string, org: org.body.id as number, messages: [] as number[], workers: 0, answers: [] as number[] };
    }));

    let stop = false;
    const load = clients.map(async (c, i) => {
      for (let n = 0; !stop; n++) {
        // Actions of one actor (a message, workers) and of two (a trade: the organization, then the market).
        const r = n % 3 === 0
          ? await post(base, '/api/messages', { sender_id: c.org, recipient_id: null, body: `Still here ${n}` }, c.key)
          : n % 3 === 1 ? await post(base, '/api/workers/hire', { organization_id: c.org, quantity: 1 }, c.key)
            : await post(base, '/api/trade', { organization_id: c.org, resource: 'food', side: 'buy', quantity: 1 }, c.key);
        c.answers.push(r.status);
        if (r.status === 201) c.messages.push(r.body.id);
        if (r.status === 200 && n % 3 === 1) c.workers += 1;
        assert.ok([200, 201, 503].includes(r.status), `client ${i}: ${r.status} ${r.text}`);
        await sleep(150);
      }
    });

    await sleep(2_000);
    await outageServer('down');
    // Requests go on against a stopped node for a while.
    await sleep(4_000);
    const down = await get(base, '/healthz');
    assert.equal(down.status, 503, `healthz while the node is down: ${down.text}`);
    assert.match(down.body.detail, /cannot be reached/);
    await outageServer('up');
    // Back within a minute of the node answering.
    for (let i = 0; i < 120 && (await get(base, '/healthz')).status !== 200; i++) await sleep(500);
    assert.equal((await get(base, '/healthz')).status, 200, 'healthy again');
    await sleep(2_000);
    stop = true;
    await Promise.all(load);

    const answers = clients.flatMap((c) => c.answers);
    assert.ok(answers.includes(503), 'some requests met the stopped node');
    assert.ok(answers.filter((s) => s < 300).length > 32, 'and many were served');
    assert.ok(answers.slice(-32 * 2).some((s) => s < 300), 'writes succeed again after the node is back');

    // Every acknowledged write is there.
    for (const c of clients) {
      const inbox = await get(base, '/api/messages/inbox?limit=500', { 'x-agent-key': c.key });
      assert.equal(inbox.status, 200, inbox.text);
      const ids = new Set((inbox.body as Array<{ id: number }>).map((m) => m.id));
      for (const id of c.messages) assert.ok(ids.has(id), `message ${id} of organization ${c.org}, answered 201, is there`);
      const org = await get(base, `/api/organizations/${c.org}`);
      assert.ok(org.body.workers >= c.workers, `organization ${c.org}: ${c.workers} hires answered 200, ${org.body.workers} workers`);
      // And the books still balance, also for trades cut short: the organization's history gives its treasury.
      let gold = 0;
      let before = '';
      for (;;) {
        const page = await get(base, `/api/events?organization_id=${c.org}&limit=100${before}`);
        for (const e of page.body) for (const l of e.data.ledger ?? []) if (l.organization_id === c.org) gold += l.gold ?? 0;
        if (page.body.length < 100) break;
        before = `&before_id=${page.body[page.body.length - 1].id}`;
      }
      assert.equal(gold, org.body.treasury, `organization ${c.org}: its history gives its treasury`);
    }
  });
});
