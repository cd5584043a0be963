// Error answers over HTTP on a real server: malformed JSON, unknown paths, and hostile
// input of every kind. Whatever arrives, the answer is a JSON object with a detail, never
// a 500 and never a stack trace (spec part 7; api-conventions errors).
import assert from 'assert/strict';
import fs from 'fs';
import { startTestWorld, type TestWorld } from '../support/world';

interface Raw { status: number; text: string; body: any; contentType: string | null }

/** A request with full control over method, headers and raw body. */
async function raw(w: TestWorld, method: string, url: string, opts: { body?: string | FormData | URLSearchParams; headers?: Record<string, string> } = {}): Promise<Raw> {
  const res = await fetch(w.url + url, { method, headers: opts.headers, body: opts.body });
  const text = await res.text();
  let body: any;
  try { body = JSON.parse(text); } catch { body = undefined; }
  return { status: res.status, text, body, contentType: res.headers.get('content-type') };
}

const STACK_TRACE = [/\n\s+at\s/, /\bat\s+\S+\s+\(.*:\d+:\d+\)/, /node_modules/, /\.(js|ts):\d+/, /\/work\//, /internal error/i];

/** A well-formed refusal: the status, a JSON object with a detail, no stack trace, no 5xx. */
function assertClean(r: Raw, what: string) {
  assert.ok(r.status < 500, `${what}: status ${r.status}: ${r.text}`);
  assert.ok(r.body !== undefined && r.body !== null && typeof r.body === 'object' && !Array.isArray(r.body), `${what}: a JSON object: ${r.text.slice(0, 300)}`);
  for (const pattern of STACK_TRACE) assert.ok(!pattern.test(r.text), `${what}: looks like a stack trace (${pattern}): ${r.text.slice(0, 300)}`);
  if (r.status >= 400) {
    assert.ok('detail' in r.body, `${what}: a detail: ${r.text.slice(0, 300)}`);
    if (r.status === 422) {
      assert.ok(Array.isArray(r.body.detail) && r.body.detail.length > 0, `${what}: ${r.text.slice(0, 300)}`);
      for (const d of r.body.detail) {
        assert.ok(Array.isArray(d.loc) && ['body', 'query', 'path', 'header'].includes(d.loc[0]), `${what}: loc ${JSON.stringify(d.loc)}`);
        assert.equal(typeof d.msg, 'string');
        assert.equal(typeof d.type, 'string');
      }
    } else {
      assert.equal(typeof r.body.detail, 'string', `${what}: ${r.text.slice(0, 300)}`);
    }
  }
}

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('errors over HTTP: malformed JSON and unknown paths', () => {
  let w: TestWorld;
  let agent: { id: number; key: string };

  before(async () => {
    w = await startTestWorld();
    agent = await w.register('Erin Errant');
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  for (const [label, text] of [['a cut-off object', '{"name": "Broken'], ['a trailing comma', '{"name": "abc", "model": "xy",}'], ['single quotes', "{'name': 'abc'}"], ['plain words', 'hello there']]) {
    it(`answers ${label} with 422, type json_invalid, loc starting with body`, async () => {
      const r = await raw(w, 'POST', '/api/agents', { body: text, headers: JSON_HEADERS });
      assert.equal(r.status, 422, r.text);
      assertClean(r, label);
      assert.equal(r.body.detail[0].type, 'json_invalid', r.text);
      assert.equal(r.body.detail[0].loc[0], 'body', r.text);
    });
  }

  it('answers malformed JSON on an authenticated endpoint the same way, creating nothing', async () => {
    const r = await raw(w, 'POST', '/api/organizations', { body: '{"name": "Half', headers: { ...JSON_HEADERS, 'x-agent-key': agent.key } });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.body.detail[0].type, 'json_invalid');
    assert.equal(r.body.detail[0].loc[0], 'body');
    assert.deepEqual((await w.get(`/api/agents/${agent.id}`)).body.organizations, []);
  });

  it('refuses a letter whose recipient field is misspelt (422, "did you mean recipient_id?"): nothing is sent in public, nothing charged', async () => {
    const founded = await w.post('/api/organizations', { name: 'Careful Scribes', kind: 'merchant company' }, agent.key);
    assert.equal(founded.status, 201, founded.text);
    const messages = (await w.get('/api/messages')).body.length;
    const r = await w.post('/api/messages', { sender_id: founded.body.id, body: 'For your eyes only.', recipient: 1 }, agent.key);
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type]), [[['body', 'recipient'], 'extra_forbidden']]);
    assert.match(r.body.detail[0].msg, /did you mean recipient_id\?/);
    assert.equal((await w.get('/api/messages')).body.length, messages, 'nothing published');
    assert.equal((await w.get(`/api/organizations/${founded.body.id}`)).body.treasury, founded.body.treasury, 'nothing charged');
  });

  it('answers an unknown path with 404 and {detail}', async () => {
    for (const url of ['/api/nothing', '/api/agents/1/nothing', '/nothing', '/api', '/api/organizations/1/explode']) {
      const r = await raw(w, 'GET', url);
      assert.equal(r.status, 404, `${url}: ${r.text}`);
      assertClean(r, url);
      assert.equal(typeof r.body.detail, 'string');
    }
    const post = await raw(w, 'POST', '/api/nothing', { body: '{}', headers: JSON_HEADERS });
    assert.equal(post.status, 404, post.text);
    assertClean(post, 'POST /api/nothing');
  });

  it('answers a method the path does not take with a plain detail, not a 500', async () => {
    for (const method of ['DELETE', 'PUT']) {
      const r = await raw(w, method, '/api/agents', { body: '{}', headers: JSON_HEADERS });
      assert.ok(r.status === 404 || r.status === 405, `${method}: ${r.status} ${r.text}`);
      assertClean(r, method);
    }
  });
});

describe('errors over HTTP: hostile input never gives a 500 or a stack trace', () => {
  let w: TestWorld;
  let agent: { id: number; key: string };
  let orgId: number;

  before(async () => {
    w = await startTestWorld();
    agent = await w.register('Hector Hostile');
    const r = await w.post('/api/organizations', { name: 'Hector Holdings', kind: 'merchant company' }, agent.key);
    assert.equal(r.status, 201, r.text);
    orgId = r.body.id;
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('refuses bodies that are not objects (null, arrays, numbers, strings, booleans) with 422 at body', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      ['POST', '/api/agents', {}],
      ['POST', '/api/organizations', { 'x-agent-key': agent.key }],
      ['PATCH', `/api/organizations/${orgId}`, { 'x-agent-key': agent.key }],
      ['POST', '/api/agents/retire', { 'x-agent-key': agent.key }],
    ];
    for (const [method, url, headers] of cases) {
      for (const body of ['null', '[]', '[{"name": "abc", "model": "xy"}]', '42', '"a string"', 'true']) {
        const r = await raw(w, method, url, { body, headers: { ...JSON_HEADERS, ...headers } });
        assert.equal(r.status, 422, `${method} ${url} ${body}: ${r.text}`);
        assertClean(r, `${method} ${url} ${body}`);
        assert.deepEqual(r.body.detail[0].loc, ['body'], r.text);
      }
    }
    assert.equal((await w.get('/api/agents/me', agent.key)).body.status, 'active');
  });

  it('refuses a missing body where one is required with 422', async () => {
    const r = await raw(w, 'POST', '/api/agents');
    assert.equal(r.status, 422, r.text);
    assertClean(r, 'no body');
    assert.equal(r.body.detail[0].loc[0], 'body');
  });

  it('refuses huge and odd numbers with 422 at the field', async () => {
    const bodies = [
      '{"name": 1e308, "model": "xy"}',
      '{"name": 1e400, "model": "xy"}',
      '{"name": -0, "model": 99999999999999999999999999999}',
      '{"name": {"$gt": ""}, "model": ["xy"]}',
    ];
    for (const body of bodies) {
      const r = await raw(w, 'POST', '/api/agents', { body, headers: JSON_HEADERS });
      assert.equal(r.status, 422, `${body}: ${r.text}`);
      assertClean(r, body);
      assert.ok(r.body.detail.some((d: any) => d.loc[0] === 'body' && d.loc[1] === 'name'), r.text);
    }
  });

  it('refuses huge and odd path ids with 422 at the path parameter', async () => {
    for (const id of ['99999999999999999999999', '1e3', '0x10', '1.0', '%20', 'NaN', 'Infinity']) {
      for (const url of [`/api/agents/${id}`, `/api/organizations/${id}`, `/api/adventurers/${id}`, `/api/events/${id}/investigation`]) {
        const r = await raw(w, 'GET', url);
        assert.equal(r.status, 422, `${url}: ${r.text}`);
        assertClean(r, url);
        assert.equal(r.body.detail[0].loc[0], 'path');
      }
    }
  });

  it('answers negative and zero ids with 404, not a crash', async () => {
    for (const url of ['/api/agents/-1', '/api/organizations/0', '/api/adventurers/-99']) {
      const r = await raw(w, 'GET', url);
      assert.equal(r.status, 404, `${url}: ${r.text}`);
      assertClean(r, url);
    }
  });

  it('refuses odd query strings with 422 at the query parameter', async () => {
    for (const q of ['limit=1&limit=2', 'limit[a]=1', 'limit=99999999999999999999999', 'before_id=-1', 'agent_id[]=1', 'category[x]=ab']) {
      const r = await raw(w, 'GET', `/api/events?${q}`);
      assert.equal(r.status, 422, `${q}: ${r.text}`);
      assertClean(r, q);
      assert.equal(r.body.detail[0].loc[0], 'query');
    }
  });

  it('answers malformed percent-encoding, path tricks and overlong ids without a 500', async () => {
    for (const url of ['/api/locations/%E0%A4%A', '/api/locations/%ZZ', '/api/locations/..%2F..%2Fetc%2Fpasswd', `/api/locations/${'x'.repeat(500)}`, '/api/agents/%00', '/api//agents']) {
      const r = await raw(w, 'GET', url);
      assert.ok([404, 422].includes(r.status), `${url}: ${r.status} ${r.text}`);
      assertClean(r, url);
    }
  });

  it('reads JSON whatever the content type says, and refuses what is not JSON with 422', async () => {
    const text = await raw(w, 'POST', '/api/agents', { body: JSON.stringify({ name: 'Plain Text', model: 'xy' }), headers: { 'content-type': 'text/plain' } });
    assertClean(text, 'text/plain');
    const form = await raw(w, 'POST', '/api/agents', { body: new URLSearchParams({ name: 'Form Field', model: 'xy' }) });
    assert.equal(form.status, 422, form.text);
    assertClean(form, 'form');
    assert.equal(form.body.detail[0].type, 'json_invalid');
    const fd = new FormData();
    fd.append('name', 'Multi Part');
    fd.append('model', 'xy');
    const multipart = await raw(w, 'POST', '/api/agents', { body: fd });
    assert.equal(multipart.status, 422, multipart.text);
    assertClean(multipart, 'multipart');
    const xml = await raw(w, 'POST', '/api/agents', { body: '<agent><name>Xml</name></agent>', headers: { 'content-type': 'application/xml' } });
    assert.equal(xml.status, 422, xml.text);
    assertClean(xml, 'xml');
    const binary = await raw(w, 'POST', '/api/agents', { body: '\u0000\u0001\u0002\ufffd', headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(binary.status, 422, binary.text);
    assertClean(binary, 'binary');
  });

  it('answers JSON whatever the client accepts', async () => {
    for (const accept of ['text/html', 'text/plain', 'application/xml', 'image/png', 'nonsense']) {
      for (const url of [`/api/agents/${agent.id}`, '/api/agents/999999', '/api/events?limit=0']) {
        const r = await raw(w, 'GET', url, { headers: { accept } });
        assertClean(r, `${accept} ${url}`);
        assert.match(String(r.contentType), /json/, `${accept} ${url}`);
      }
    }
  });

  it('refuses deeply nested JSON with a proper 422 body', async () => {
    const deep = `${'['.repeat(50000)}${']'.repeat(50000)}`;
    const r = await raw(w, 'POST', '/api/agents', { body: deep, headers: JSON_HEADERS });
    assert.equal(r.status, 422, r.text.slice(0, 200));
    assertClean(r, 'deep array');
    const nested = `{"name": ${'['.repeat(5000)}${']'.repeat(5000)}, "model": "xy"}`;
    const n = await raw(w, 'PATCH', `/api/organizations/${orgId}`, { body: `{"motto": ${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`, headers: { ...JSON_HEADERS, 'x-agent-key': agent.key } });
    assert.equal(n.status, 422, n.text.slice(0, 200));
    assertClean(n, 'deep object');
    const m = await raw(w, 'POST', '/api/agents', { body: nested, headers: JSON_HEADERS });
    assert.equal(m.status, 422, m.text.slice(0, 200));
    assertClean(m, 'deep field');
    assert.deepEqual(m.body.detail[0].loc, ['body', 'name']);
  });

  it('answers an oversized body with 413 and a detail instead of dropping the connection', async () => {
    const r = await raw(w, 'POST', '/api/agents', { body: JSON.stringify({ name: 'n'.repeat(3 * 1024 * 1024), model: 'xy' }), headers: JSON_HEADERS });
    assert.equal(r.status, 413, r.text.slice(0, 200));
    assertClean(r, 'oversized');
    assert.equal((await w.get('/api/world')).status, 200, 'the server still answers');
  });

  it('refuses overlong key headers with 422 at the header', async () => {
    const agentKey = await raw(w, 'GET', '/api/agents/me', { headers: { 'x-agent-key': 'k'.repeat(5000) } });
    assert.equal(agentKey.status, 422, agentKey.text);
    assertClean(agentKey, 'long agent key');
    assert.equal(agentKey.body.detail[0].loc[0], 'header');
    const adminKey = await raw(w, 'POST', '/api/tick', { headers: { 'x-admin-key': 'k'.repeat(5000) } });
    assert.equal(adminKey.status, 422, adminKey.text);
    assertClean(adminKey, 'long admin key');
  });

  it('answers 401, not 500, for odd keys', async () => {
    for (const key of [' ', 'null', 'undefined', '[object Object]', "' OR 1=1 --", 'wsk_', agent.key.toUpperCase(), `${agent.key} `.slice(1)]) {
      const r = await raw(w, 'GET', '/api/agents/me', { headers: { 'x-agent-key': key } });
      assert.equal(r.status, 401, `${JSON.stringify(key)}: ${r.text}`);
      assertClean(r, key);
    }
  });

  it('still works normally after all of that', async () => {
    const r = await w.call('PATCH', `/api/organizations/${orgId}`, { key: agent.key, body: { motto: 'Unbroken.' } });
    assert.equal(r.status, 200, r.text);
    assert.equal((await w.get(`/api/organizations/${orgId}`)).body.motto, 'Unbroken.');
  });
});
