// Issue 12, for operators: GET /metrics in Prometheus's text format after real traffic on
// a real world: requests by route and status with their latencies, asks, persists and
// commits, the tick, the actors awake, the store's queue and the event loop's lag; and
// only for an operator key.
import assert from 'assert';
import { startTestWorld, type TestWorld } from '../support/world';

/** The samples of a scrape: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** The sum of the samples named `name` whose labels include every one of `labels`. */
function total(s: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of s) {
    const brace = key.indexOf('{');
    if ((brace === -1 ? key : key.slice(0, brace)) !== name) continue;
    if (Object.entries(labels).every(([k, v]) => key.includes(`${k}="${v}"`))) sum += value;
  }
  return sum;
}

describe('GET /metrics (issue 12: metrics for operators)', function () {
  this.timeout(120_000);
  let w: TestWorld;
  // One node: each node serves the metrics of what it did.
  before(async () => { w = await startTestWorld({ nodes: 1 }); });
  after(async () => { await w.close(); });

  const scrape = async (headers: Record<string, string> = { 'x-spectator-key': w.keys.spectator! }) => {
    const res = await fetch(`${w.url}/metrics`, { headers });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
  };

  it('counts requests by route and status with latency histograms, asks, persists, commits, the tick, actors awake, the store queue and event-loop lag', async () => {
    const before = samples((await scrape()).text);
    const agent = await w.register('Metered Agent');
    for (let i = 0; i < 3; i++) assert.equal((await w.get('/api/agents/me', agent.key)).status, 200);
    assert.equal((await w.get('/api/organizations/999999')).status, 404);
    assert.equal((await w.post('/api/organizations', { name: 'X' }, agent.key)).status, 422);
    assert.equal((await w.get('/api/no-such-endpoint')).status, 404);
    const founded = await w.post('/api/organizations', { name: 'Metered Company', kind: 'merchant company' }, agent.key);
    assert.equal(founded.status, 201, founded.text);
    await w.tick();

    const scraped = await scrape();
    assert.equal(scraped.status, 200);
    assert.match(scraped.type, /^text\/plain; version=0\.0\.4/);
    const s = samples(scraped.text);
    const requests = (labels: Record<string, string>) => total(s, 'worldsim_http_request_duration_seconds_count', labels) - total(before, 'worldsim_http_request_duration_seconds_count', labels);
    assert.equal(requests({ method: 'GET', route: '/api/agents/me', status: '200' }), 3);
    assert.equal(requests({ method: 'POST', route: '/api/agents', status: '201' }), 1);
    assert.equal(requests({ method: 'GET', route: '/api/organizations/{organization_id}', status: '404' }), 1);
    assert.equal(requests({ method: 'POST', route: '/api/organizations', status: '422' }), 1);
    assert.equal(requests({ method: 'POST', route: '/api/organizations', status: '201' }), 1);
    assert.equal(requests({ method: 'POST', route: '/api/tick', status: '200' }), 1);
    assert.equal(requests({ route: 'unmatched', status: '404' }), 1, 'a path no route serves is counted under one label, not its own');
    // The latency histogram: cumulative buckets up to +Inf, which holds every request.
    const inf = total(s, 'worldsim_http_request_duration_seconds_bucket', { route: '/api/agents/me', status: '200', le: '+Inf' });
    assert.equal(inf, total(s, 'worldsim_http_request_duration_seconds_count', { route: '/api/agents/me', status: '200' }));
    assert.ok(total(s, 'worldsim_http_request_duration_seconds_sum', { route: '/api/agents/me' }) > 0);

    const grew = (name: string, labels: Record<string, string> = {}) => total(s, name, labels) - total(before, name, labels);
    assert.ok(grew('worldsim_ask_duration_seconds_count', { kind: 'agent', result: 'ok' }) >= 2, 'the registration and the founding asked the agent');
    assert.ok(grew('worldsim_ask_duration_seconds_count', { kind: 'organization', result: 'ok' }) >= 1, 'the founding asked the organization');
    assert.ok(grew('worldsim_ask_duration_seconds_count', { kind: 'clock', result: 'ok' }) >= 1, 'the tick asked the clock');
    assert.ok(grew('worldsim_persist_duration_seconds_count', { kind: 'agent', result: 'ok' }) >= 2);
    assert.ok(grew('worldsim_persist_duration_seconds_count', { kind: 'organization', result: 'ok' }) >= 1);
    assert.ok(grew('worldsim_store_commit_duration_seconds_count', { result: 'ok' }) >= 1);
    assert.ok(grew('worldsim_store_committed_writes_total', { result: 'ok' }) >= grew('worldsim_persist_duration_seconds_count', { result: 'ok' }),
      'every persist acknowledged was carried by a commit');
    assert.equal(grew('worldsim_day_settle_duration_seconds_count'), 1, 'one tick, one day settled');
    assert.ok(s.get('worldsim_actors_awake')! >= 3, 'the clock, the agent and its organization are awake');
    assert.ok(s.has('worldsim_store_queue_depth') && s.get('worldsim_store_queue_depth')! >= 0);
    assert.ok(s.has('nodejs_eventloop_lag_seconds'), 'the event loop lag');
    assert.ok(s.has('nodejs_eventloop_lag_p99_seconds'));
    assert.ok(!scraped.text.includes(agent.key) && !scraped.text.includes(w.keys.admin!) && !scraped.text.includes(w.keys.spectator!), 'no key in the metrics');
  });

  it('answers only an operator key: the spectator or admin key, as a header or a bearer token; 401 {"detail"} otherwise', async () => {
    const agent = await w.register('Curious Agent');
    for (const headers of [{}, { 'x-spectator-key': 'wrong' }, { 'x-agent-key': agent.key }, { authorization: `Bearer ${agent.key}` }, { authorization: 'Basic abc' }] as Array<Record<string, string>>) {
      const r = await scrape(headers);
      assert.equal(r.status, 401, JSON.stringify(headers));
      assert.equal(typeof JSON.parse(r.text).detail, 'string');
      assert.ok(!r.text.includes('worldsim_'), 'no metric leaks into a refusal');
    }
    for (const headers of [{ 'x-spectator-key': w.keys.spectator }, { 'x-admin-key': w.keys.admin }, { authorization: `Bearer ${w.keys.spectator}` }, { authorization: `Bearer ${w.keys.admin}` }] as Array<Record<string, string>>) {
      const r = await scrape(headers);
      assert.equal(r.status, 200, JSON.stringify(headers));
      assert.match(r.text, /^# HELP worldsim_/m);
    }
  });
});
