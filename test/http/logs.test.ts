// Issue 12: structured JSON logs. The log lines of a real world during real requests that
// carry keys (in headers, in bodies, in the path and the query) and bodies: one JSON line
// per request with its request id, route, status and latency, and no line with a key or
// anything a body held.
import assert from 'assert';
import { spawn } from 'child_process';
import path from 'path';
import { startWorld, type World } from '../../infra/app';
import { jsonLogger } from '../../infra/log';
import { requestLogger } from '../../http/request-log';
import { DEFAULT_CASSANDRA, DEFAULT_KAFKA } from '../../infra/config';
import { TEST_RATE_LIMITS, tempDir } from '../support/world';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the JSON log (issue 12)', function () {
  this.timeout(120_000);
  const lines: string[] = [];
  let w: World;
  before(async () => {
    w = await startWorld({
      port: 0, host: '127.0.0.1', store: 'sqlite', dataDir: tempDir('worldsim-logs-'), cassandra: DEFAULT_CASSANDRA, bus: 'local', kafka: DEFAULT_KAFKA,
      adminKey: 'log-test-admin-key-4f9a2c', spectatorKey: 'log-test-spectator-key-7d1e8b', daySeconds: 0, seed: 'log-seed', nodeId: '1', shards: 8,
      rateLimits: TEST_RATE_LIMITS,
    }, (line) => lines.push(line));
  });
  after(async () => { await w.close(); });

  it('writes one JSON line per request (request id, method, route, status, latency, client) and never a key or a body', async () => {
    const sent: Array<{ requestId: string | null; status: number }> = [];
    const call = async (method: string, path: string, opts: { headers?: Record<string, string>; body?: string } = {}) => {
      const res = await fetch(w.url + path, { method, headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers }, body: opts.body });
      const text = await res.text();
      sent.push({ requestId: res.headers.get('x-request-id'), status: res.status });
      return { status: res.status, text, body: (() => { try { return JSON.parse(text); } catch { return text; } })() };
    };
    const first = lines.length;

    const a = await call('POST', '/api/agents', { body: JSON.stringify({ name: 'Body Marker Alpha', model: 'model-marker-alpha' }) });
    const b = await call('POST', '/api/agents', { body: JSON.stringify({ name: 'Body Marker Beta', model: 'model-marker-beta' }) });
    assert.equal(a.status, 201);
    const keyA: string = a.body.api_key;
    const keyB: string = b.body.api_key;
    const unknownKey = 'wsk_not-a-known-key-marker-93jd';
    assert.equal((await call('GET', '/api/agents/me', { headers: { 'x-agent-key': keyA } })).status, 200);
    assert.equal((await call('POST', '/api/organizations', { headers: { 'x-agent-key': keyA }, body: JSON.stringify({ name: 'Marker Company', kind: 'merchant company', description: 'body-marker-description-5521' }) })).status, 201);
    assert.equal((await call('POST', '/api/organizations', { headers: { 'x-agent-key': keyB }, body: JSON.stringify({ name: 'Leaky Company', kind: 'merchant company', motto: `my key is ${keyB}` }) })).status, 422);
    assert.equal((await call('POST', '/api/organizations', { headers: { 'x-agent-key': keyB }, body: '{"name": "body-marker-broken-json' })).status, 422);
    assert.equal((await call('GET', '/api/agents/me', { headers: { 'x-agent-key': unknownKey } })).status, 401);
    assert.equal((await call('POST', '/api/tick', { headers: { 'x-admin-key': 'log-test-admin-key-4f9a2c' } })).status, 200);
    assert.equal((await call('POST', '/api/tick', { headers: { 'x-admin-key': 'log-test-wrong-admin-key-x1' } })).status, 401);
    assert.equal((await call('GET', '/api/messages/investigation', { headers: { 'x-spectator-key': 'log-test-spectator-key-7d1e8b' } })).status, 200);
    assert.equal((await call('GET', '/metrics', { headers: { authorization: 'Bearer log-test-spectator-key-7d1e8b' } })).status, 200);
    const inQuery = await call('GET', `/api/world?api_key=${keyA}`);
    const inPath = await call('GET', `/api/no-such-endpoint/${keyA}`);
    assert.equal(inPath.status, 404);
    assert.equal((await call('GET', '/api/world', { headers: { 'x-request-id': 'trace-from-proxy-42' } })).status, 200);

    // A request's line is written once its answer has gone.
    for (let i = 0; i < 100 && lines.slice(first).filter((l) => l.includes('"msg":"request"')).length < sent.length; i++) await sleep(20);
    const records = lines.slice(first).map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = records.filter((r) => r.msg === 'request');
    assert.equal(requests.length, sent.length, 'one line per request');
    for (const r of records) {
      assert.equal(typeof r.level, 'string');
      assert.equal(typeof r.time, 'string');
      assert.equal(r.service, 'worldsim');
    }
    for (const [i, r] of requests.entries()) {
      assert.deepEqual(Object.keys(r).filter((k) => !['level', 'time', 'service', 'pid', 'hostname', 'msg'].includes(k)).sort(),
        ['client', 'latency_ms', 'method', 'request_id', 'route', 'status'], JSON.stringify(r));
      assert.equal(r.client, '127.0.0.1');
      assert.ok(typeof r.latency_ms === 'number' && r.latency_ms >= 0);
      // Lines come in the order the answers went; every answer's X-Request-Id is in the log with its status.
      const answer = sent.find((s) => s.requestId === r.request_id);
      assert.ok(answer, `line ${i}: ${JSON.stringify(r)}`);
      assert.equal(r.status, answer!.status);
    }
    assert.equal(new Set(requests.map((r) => r.request_id)).size, requests.length, 'request ids are unique');
    const routes = requests.map((r) => `${r.method} ${r.route} ${r.status}`);
    assert.ok(routes.includes('GET /api/agents/me 200') && routes.includes('POST /api/organizations 422') && routes.includes('GET /api/agents/me 401'), routes.join('\n'));
    assert.ok(routes.includes('GET null 404'), 'a path no route serves has no route');
    assert.ok(routes.includes(`GET /api/world ${inQuery.status}`));
    assert.ok(requests.some((r) => r.request_id === 'trace-from-proxy-42'), 'an id given by a proxy is kept');

    const secrets = [keyA, keyB, unknownKey, 'log-test-admin-key-4f9a2c', 'log-test-wrong-admin-key-x1', 'log-test-spectator-key-7d1e8b',
      'Body Marker', 'model-marker', 'body-marker', 'Marker Company', 'Leaky Company'];
    for (const line of lines) {
      for (const secret of secrets) assert.ok(!line.includes(secret), `a log line carries "${secret}": ${line}`);
    }
  });

  it('logs a 5xx at error, but a health probe answered 503 (not ready) at warn', () => {
    const written: Array<Record<string, unknown>> = [];
    const log = requestLogger(jsonLogger((line) => written.push(JSON.parse(line))));
    const record = { requestId: 'r', method: 'GET', seconds: 0.001, client: '127.0.0.1' };
    log({ ...record, route: '/healthz', status: 503 });
    log({ ...record, route: '/api/world', status: 503 });
    log({ ...record, route: '/healthz', status: 500 });
    log({ ...record, route: '/healthz', status: 200 });
    assert.deepEqual(written.map((l) => [l.route, l.status, l.level]), [
      ['/healthz', 503, 'warn'], ['/api/world', 503, 'error'], ['/healthz', 500, 'error'], ['/healthz', 200, 'info'],
    ]);
  });

  it('logs a live stream its client left with the status it was sent (200), not restify\'s 444 for a client gone', async () => {
    const first = lines.length;
    const controller = new AbortController();
    const res = await fetch(`${w.url}/api/events/stream`, { signal: controller.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read(); // the stream's first bytes
    controller.abort();
    await reader.read().catch(() => undefined);
    const streamLine = () => lines.slice(first).map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.msg === 'request' && r.route === '/api/events/stream');
    for (let i = 0; i < 100 && !streamLine(); i++) await sleep(20);
    assert.equal(streamLine()?.status, 200, lines.slice(first).join('\n'));
  });

  it('npm start logs JSON lines on stdout, prints no operator key it was given, and warns of a world on the default seed', async function () {
    const admin = 'start-admin-key-c81f0e';
    const spectator = 'start-spectator-key-2b7d94';
    const child = spawn(process.execPath, ['--no-deprecation', path.resolve(__dirname, '../../infra/main.js')], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', WORLD_DATA_DIR: tempDir('worldsim-start-log-'), WORLD_DAY_SECONDS: '0', WORLD_ADMIN_KEY: admin, WORLD_SPECTATOR_KEY: spectator, WORLD_SEED: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => { out += String(d); });
    child.stderr!.on('data', (d) => { err += String(d); });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      for (const end = Date.now() + 30_000; !/listening on 127\.0\.0\.1:\d+/.test(out) && child.exitCode === null && Date.now() < end;) await sleep(50);
      const base = `http://127.0.0.1:${/listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1]}`;
      const agent = await (await fetch(`${base}/api/agents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Started Agent', model: 'test-model' }) })).json() as { api_key: string };
      assert.equal((await fetch(`${base}/api/agents/me`, { headers: { 'x-agent-key': agent.api_key } })).status, 200);
      assert.equal((await fetch(`${base}/api/tick`, { method: 'POST', headers: { 'x-admin-key': admin } })).status, 200);
      assert.equal((await fetch(`${base}/metrics`, { headers: { 'x-spectator-key': spectator } })).status, 200);
      for (const end = Date.now() + 5_000; out.split('"msg":"request"').length - 1 < 4 && Date.now() < end;) await sleep(20);
      const lines = out.trim().split('\n');
      assert.ok(lines.length >= 5, out);
      for (const line of lines) assert.equal(typeof JSON.parse(line).msg, 'string', line);
      // Anyone can read the default seed in the source and foretell the world's draws with it.
      assert.match(out, /runs on the default seed \(\\"emberfall\\"\).*a world open to agents should be created with a secret WORLD_SEED/, out);
      for (const secret of [admin, spectator, agent.api_key]) {
        assert.ok(!out.includes(secret) && !err.includes(secret), `the output carries a key: ${out}${err}`);
      }
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
