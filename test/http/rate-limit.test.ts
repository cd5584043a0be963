// Issue 12: rate limits. Token buckets per client address, per agent key, and for
// registration per address; a refused request is 429 {"detail": ...} with Retry-After and
// changes nothing; the other clients are served. The worlds here run with the limits the
// service reads from an empty environment (its real defaults) unless a test says others;
// other clients come from other loopback addresses (127.0.0.2, ...).
import assert from 'assert';
import http from 'http';
import sinon from 'sinon';
import { readConfig } from '../../infra/config';
import { RateLimiter, refill, secondsUntilToken, type RateLimits } from '../../http/rate-limit';
import { startTestWorld, type TestWorld } from '../support/world';

const DEFAULTS = readConfig({}).rateLimits!;

interface Reply { status: number; body: any; retryAfter: string | undefined }

/** One request from a given loopback address, on keep-alive connections of that address. */
const agents = new Map<string, http.Agent>();
function send(base: string, method: string, path: string, opts: { from?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const from = opts.from ?? '127.0.0.1';
  let agent = agents.get(from);
  if (!agent) agents.set(from, agent = new http.Agent({ keepAlive: true, maxSockets: 64, localAddress: from }));
  const data = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, {
      method, agent, headers: { ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}), ...opts.headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => {
        let body: unknown = text;
        try { body = JSON.parse(text); } catch { /* text */ }
        resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers['retry-after'] as string | undefined });
      });
    });
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

function assertLimited(r: Reply, what: RegExp): void {
  assert.equal(r.status, 429, JSON.stringify(r.body));
  assert.match(String(r.retryAfter), /^[1-9]\d*$/, 'Retry-After in whole seconds');
  assert.deepEqual(Object.keys(r.body), ['detail']);
  assert.match(r.body.detail, what);
  assert.match(r.body.detail, new RegExp(`try again in ${r.retryAfter} s`));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rate limits (issue 12)', function () {
  this.timeout(120_000);
  let w: TestWorld | null = null;
  let clock: sinon.SinonFakeTimers | null = null;
  afterEach(async () => { clock?.restore(); clock = null; await w?.close(); w = null; agents.forEach((a) => a.destroy()); agents.clear(); });

  it('with the real defaults, a client hammering registration 5,000 times gets 429s with Retry-After; other clients are served meanwhile; refused registrations leave no agent', async () => {
    w = await startTestWorld({ nodes: 1, rateLimits: DEFAULTS });
    const base = w.url;
    const before = (await send(base, 'GET', '/api/world', { from: '127.0.0.2' })).body.counts.agents as number;

    let created = 0;
    let sent = 0;
    const limited: Reply[] = [];
    const hammer = Promise.all(Array.from({ length: 50 }, async () => {
      while (sent < 5000) {
        sent += 1;
        const r = await send(base, 'POST', '/api/agents', { body: { name: `Hammer ${sent}`, model: 'flood' } });
        if (r.status === 201) created += 1;
        else limited.push(r);
      }
    }));
    // Another client, meanwhile: it registers, acts with its key and reads the world.
    const other = (async () => {
      await sleep(200);
      const answers: Reply[] = [];
      const agent = await send(base, 'POST', '/api/agents', { from: '127.0.0.2', body: { name: 'Patient Agent', model: 'calm' } });
      answers.push(agent);
      for (let i = 0; i < 5; i++) {
        answers.push(await send(base, 'GET', '/api/agents/me', { from: '127.0.0.2', headers: { 'x-agent-key': agent.body.api_key } }));
        answers.push(await send(base, 'GET', '/api/world', { from: '127.0.0.3' }));
        await sleep(50);
      }
      return answers;
    })();
    const [, served] = await Promise.all([hammer, other]);

    assert.equal(created + limited.length, 5000);
    // A burst of 5, then 3 a minute: the whole flood takes seconds, so a handful at most.
    assert.ok(created >= 1 && created <= DEFAULTS.registration!.burst + 1, `registrations that got through: ${created}`);
    for (const r of limited) assertLimited(r, /too many (registrations|requests) from your address/);
    assert.ok(limited.some((r) => /registrations/.test(r.body.detail)), 'the registration limit refused some');
    assert.ok(limited.some((r) => Number(r.retryAfter) >= 10), 'a registration is possible again only after a while');
    assert.deepEqual(served.map((r) => r.status), [201, ...Array.from({ length: 5 }, () => [200, 200]).flat()], 'the other clients are served');
    // A refused registration changed nothing.
    const after = (await send(base, 'GET', '/api/world', { from: '127.0.0.2' })).body.counts.agents as number;
    assert.equal(after - before, created + 1);

    // The refusals are counted by the limit that refused them.
    const metrics = await send(base, 'GET', '/metrics', { headers: { 'x-spectator-key': w.keys.spectator! } });
    assert.equal(metrics.status, 200, 'the metrics are never limited');
    const counted = [...String(metrics.body).matchAll(/^worldsim_rate_limited_total\{limit="(\w+)"\} (\d+)$/gm)].reduce((n, m) => n + Number(m[2]), 0);
    assert.equal(counted, limited.length);
    assert.match(String(metrics.body), new RegExp(`^worldsim_http_request_duration_seconds_count\\{method="POST",route="/api/agents",status="429"\\} ${limited.length}$`, 'm'),
      'a refused request is counted under its route');
  });

  it('limits each agent key on its own: past its burst an agent gets 429 with Retry-After and nothing it asks happens; another agent is served; after Retry-After it is served again', async () => {
    w = await startTestWorld({ nodes: 1, rateLimits: DEFAULTS });
    const base = w.url;
    const register = async (name: string, from: string) => (await send(base, 'POST', '/api/agents', { from, body: { name, model: 'test-model' } })).body.api_key as string;
    const eager = await register('Eager Agent', '127.0.0.4');
    const calm = await register('Calm Agent', '127.0.0.5');
    // The limiter's clock stands still from here (only Date is faked: the world's timers and
    // sockets run on), so the key's bucket gains nothing between its refusal and the next
    // request: on a busy machine a token could otherwise come back in between.
    clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
    const statuses: number[] = [];
    let refused: Reply | null = null;
    // As fast as one client can: faster than the key's rate, so its bucket empties.
    for (let i = 0; i < 10 * DEFAULTS.key!.burst && !refused; i++) {
      const r = await send(base, 'GET', '/api/agents/me', { from: '127.0.0.4', headers: { 'x-agent-key': eager } });
      statuses.push(r.status);
      if (r.status === 429) refused = r;
    }
    assert.ok(statuses.slice(0, DEFAULTS.key!.burst).every((s) => s === 200), `the burst is served: ${statuses.join(',')}`);
    assert.ok(refused, `past the burst, refused: ${statuses.join(',')}`);
    assertLimited(refused!, /too many requests with this X-Agent-Key/);

    // A refused action changes nothing: no organization.
    const found = await send(base, 'POST', '/api/organizations', { from: '127.0.0.4', headers: { 'x-agent-key': eager }, body: { name: 'Hasty Company', kind: 'merchant company' } });
    assertLimited(found, /X-Agent-Key/);
    // The other agent, from another address, is served; so is the eager agent's address without its key.
    assert.equal((await send(base, 'GET', '/api/agents/me', { from: '127.0.0.5', headers: { 'x-agent-key': calm } })).status, 200);
    assert.equal((await send(base, 'GET', '/api/world', { from: '127.0.0.4' })).status, 200);

    clock.tick(Number(found.retryAfter) * 1000);
    const again = await send(base, 'POST', '/api/organizations', { from: '127.0.0.4', headers: { 'x-agent-key': eager }, body: { name: 'Hasty Company', kind: 'merchant company' } });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    const listed = (await send(base, 'GET', '/api/organizations', { from: '127.0.0.6' })).body as Array<{ name: string }>;
    assert.equal(listed.filter((o) => o.name === 'Hasty Company').length, 1, 'founded once: the refused attempt did nothing');
  });

  it('limits each client address, but never /healthz and /metrics (nor a path no route serves); a limit set to 0 is off', async () => {
    const limits: RateLimits = { address: { perSecond: 1, burst: 3 }, key: null, registration: null };
    w = await startTestWorld({ nodes: 1, rateLimits: limits });
    const base = w.url;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(base, 'GET', '/api/world', { from: '127.0.0.7' })).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assertLimited(await send(base, 'GET', '/api/rules', { from: '127.0.0.7' }), /too many requests from your address/);
    assert.equal((await send(base, 'GET', '/healthz', { from: '127.0.0.7' })).status, 200);
    assert.equal((await send(base, 'GET', '/api/no-such-endpoint', { from: '127.0.0.7' })).status, 404, 'a path no route serves never reaches the world');
    assert.equal((await send(base, 'GET', '/metrics', { from: '127.0.0.7', headers: { 'x-admin-key': w.keys.admin! } })).status, 200);
    assert.equal((await send(base, 'GET', '/api/world', { from: '127.0.0.8' })).status, 200, 'another address is served');
    // Registration is not limited on its own here (off), only by the address.
    for (let i = 0; i < 3; i++) assert.equal((await send(base, 'POST', '/api/agents', { from: `127.0.1.${i + 1}`, body: { name: `Unlimited ${i}`, model: 'test-model' } })).status, 201);
  });

  it('reads the limits from the environment: per second and burst, registrations per minute, 0 turns a limit off, a bad value names its variable', () => {
    assert.deepEqual(readConfig({
      WORLD_RATE_ADDRESS_PER_SECOND: '50', WORLD_RATE_ADDRESS_BURST: '200', WORLD_RATE_KEY_PER_SECOND: '0',
      WORLD_RATE_REGISTRATION_PER_MINUTE: '12', WORLD_RATE_REGISTRATION_BURST: '2',
    }).rateLimits, { address: { perSecond: 50, burst: 200 }, key: null, registration: { perSecond: 0.2, burst: 2 } });
    assert.throws(() => readConfig({ WORLD_RATE_KEY_PER_SECOND: 'fast' }), /WORLD_RATE_KEY_PER_SECOND/);
    assert.throws(() => readConfig({ WORLD_RATE_ADDRESS_BURST: '0' }), /WORLD_RATE_ADDRESS_BURST/);
    assert.throws(() => readConfig({ WORLD_RATE_REGISTRATION_PER_MINUTE: '-1' }), /WORLD_RATE_REGISTRATION_PER_MINUTE/);
  });
});

describe('token buckets (http/rate-limit.ts)', () => {
  const rate = { perSecond: 2, burst: 4 };

  it('a new bucket is full; it refills at the rate up to the burst; the wait for a token follows from what is missing', () => {
    assert.deepEqual(refill(undefined, rate, 1000), { tokens: 4, at: 1000 });
    assert.deepEqual(refill({ tokens: 0, at: 1000 }, rate, 1250), { tokens: 0.5, at: 1250 });
    assert.deepEqual(refill({ tokens: 3, at: 1000 }, rate, 10_000), { tokens: 4, at: 10_000 });
    assert.equal(secondsUntilToken({ tokens: 0.5, at: 0 }, rate), 0.25);
    assert.equal(secondsUntilToken({ tokens: 1, at: 0 }, rate), 0);
  });

  it('takes a token from every bucket a request belongs to, or from none when one is empty, and says which limit refused and for how long', () => {
    let now = 0;
    const limiter = new RateLimiter({ address: { perSecond: 10, burst: 10 }, key: rate, registration: null }, () => now);
    const claims = [{ limit: 'address' as const, id: 'a' }, { limit: 'key' as const, id: 'k' }];
    for (let i = 0; i < 4; i++) assert.deepEqual(limiter.take(claims), { ok: true });
    assert.deepEqual(limiter.take(claims), { ok: false, limit: 'key', retryAfterSeconds: 0.5 });
    // The refusal took nothing from the address: six more requests of the address alone pass.
    for (let i = 0; i < 6; i++) assert.deepEqual(limiter.take([{ limit: 'address', id: 'a' }]), { ok: true }, `request ${i}`);
    assert.equal(limiter.take([{ limit: 'address', id: 'a' }]).ok, false);
    assert.deepEqual(limiter.take([{ limit: 'registration', id: 'a' }, { limit: 'key', id: 'other' }]), { ok: true }, 'an off limit never refuses; another key has its own bucket');
    now = 500;
    assert.deepEqual(limiter.take(claims), { ok: true }, 'after the wait it was told, the key has a token again');
  });

  it('forgets buckets that have filled up again (a full bucket is a new one), and limits as before', () => {
    let now = 0;
    const limiter = new RateLimiter({ address: { perSecond: 1, burst: 1 }, key: null, registration: null }, () => now);
    const buckets = () => (limiter as unknown as { buckets: Map<string, unknown> }).buckets.size;
    for (let i = 0; i < 25_000; i++) limiter.take([{ limit: 'address', id: `early ${i}` }]);
    assert.equal(buckets(), 25_000, 'every bucket is empty: none is forgotten');
    now = 2_000;
    for (let i = 0; i < 20_000; i++) limiter.take([{ limit: 'address', id: `late ${i}` }]);
    assert.ok(buckets() < 25_000, `the early buckets, full again, were forgotten (${buckets()} kept)`);
    assert.equal(limiter.take([{ limit: 'address', id: 'late 19999' }]).ok, false, 'a client that just spent its token is still limited');
    assert.equal(limiter.take([{ limit: 'address', id: 'early 0' }]).ok, true);
  });
});
