// Issue 12, security: what arrives below the application or half-way. A client that
// closes its connection mid-body is one quiet log line and no answer; the answers Node's
// parser gives (a header block over 16 KiB, an unknown method, a malformed request line)
// carry {"detail": ...}; HEAD is answered wherever GET is; a body that is not valid UTF-8,
// or a JSON string holding a lone surrogate, is refused with 422 and changes nothing.
import assert from 'assert/strict';
import net from 'net';
import { startWorld, type World } from '../../infra/app';
import { DEFAULT_CASSANDRA, DEFAULT_KAFKA } from '../../infra/config';
import { TEST_RATE_LIMITS, tempDir } from '../support/world';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends raw bytes on a fresh connection and collects everything until the server closes it (or `waitMs` passes). */
function rawExchange(w: World, bytes: string | Buffer, waitMs = 3000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(w.port, '127.0.0.1', () => socket.write(bytes));
    let out = '';
    socket.on('data', (d) => { out += d.toString('utf8'); });
    socket.on('error', reject);
    socket.on('close', () => resolve(out));
    setTimeout(() => socket.destroy(), waitMs).unref();
  });
}

/** Status, headers and JSON body of a raw HTTP/1.1 answer. */
function parseAnswer(text: string): { status: number; headers: Record<string, string>; body: any } {
  const [head, ...rest] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) { const i = l.indexOf(':'); headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim(); }
  const bodyText = rest.join('\r\n\r\n');
  let body: any;
  try { body = JSON.parse(bodyText); } catch { body = bodyText; }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

const post = async (w: World, url: string, body: string | Buffer, headers: Record<string, string> = {}) => {
  const res = await fetch(w.url + url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
};
const get = async (w: World, url: string) => (await fetch(w.url + url)).json() as Promise<any>;

describe('security: requests cut short and answers from below the application', function () {
  this.timeout(60_000);
  let w: World;
  const lines: string[] = [];

  before(async () => {
    w = await startWorld({
      port: 0, host: '127.0.0.1', store: 'sqlite', dataDir: tempDir('worldsim-security-transport-'), cassandra: DEFAULT_CASSANDRA, bus: 'local', kafka: DEFAULT_KAFKA,
      adminKey: 'security-admin-key', spectatorKey: 'security-spectator-key', daySeconds: 0, seed: 'security-seed', nodeId: '1', shards: 32,
      rateLimits: TEST_RATE_LIMITS,
    }, (l) => lines.push(l));
  });
  after(async () => { await w.close(); });

  it('a client that closes its connection mid-body is logged as one quiet line, without a stack, and nothing is answered or registered', async () => {
    const agentsBefore = (await get(w, '/api/world')).counts.agents;
    lines.length = 0;
    const cut = 3;
    for (let i = 0; i < cut; i++) {
      const socket = net.connect(w.port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      socket.write('POST /api/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name": "Half');
      await sleep(100);
      socket.destroy();
    }
    await sleep(300);
    const about = lines.filter((l) => /closed the connection/.test(l));
    assert.equal(about.length, cut, `one line per cut request: ${lines.join('\n')}`);
    assert.ok(lines.every((l) => !l.includes('\n') && !/\bat\s/.test(l) && !/error on/.test(l)), `no stack, no "error": ${lines.join('\n')}`);
    assert.equal((await get(w, '/api/world')).counts.agents, agentsBefore, 'nothing registered');
  });

  it('a header block over 16 KiB is 431 with a detail', async () => {
    const res = await fetch(`${w.url}/api/world`, { headers: { 'x-filler': 'a'.repeat(20_000) } });
    assert.equal(res.status, 431);
    assert.match((await res.json() as any).detail, /headers are too large/);
  });

  for (const [what, request, pattern] of [
    ['an unknown method', 'FROB /api/world HTTP/1.1\r\nHost: x\r\n\r\n', /not an HTTP method/],
    ['a malformed request line', 'GET /api/world HTTP/9.9\r\nHost: x\r\n\r\n', /HTTP version/],
    ['plain garbage', 'hello there\r\n\r\n', /./],
    ['a malformed header line', 'GET /api/world HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n', /./],
    ['both Content-Length and Transfer-Encoding', 'POST /api/agents HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello', /framed/],
  ] as const) {
    it(`${what} is 400 with a detail, and the connection closes`, async () => {
      const answer = parseAnswer(await rawExchange(w, request));
      assert.equal(answer.status, 400, JSON.stringify(answer));
      assert.equal(answer.headers['content-type'], 'application/json');
      assert.equal(typeof answer.body.detail, 'string');
      assert.match(answer.body.detail, pattern);
      assert.equal(answer.headers.connection, 'close');
    });
  }

  it('an expectation other than 100-continue is 417 with a detail', async () => {
    const answer = parseAnswer(await rawExchange(w, 'GET /api/world HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n'));
    assert.equal(answer.status, 417);
    assert.match(answer.body.detail ?? '', /expectation/);
  });

  it('HEAD is answered wherever GET is (status, no body); HEAD where only POST is allowed is 405 with Allow', async () => {
    const world = await fetch(`${w.url}/api/world`, { method: 'HEAD' });
    assert.equal(world.status, 200);
    assert.equal(await world.text(), '');
    const missing = await fetch(`${w.url}/api/agents/999999`, { method: 'HEAD' });
    assert.equal(missing.status, 404, 'HEAD of a missing thing is 404, like GET');
    const tick = await fetch(`${w.url}/api/tick`, { method: 'HEAD' });
    assert.equal(tick.status, 405);
    assert.equal(tick.headers.get('allow'), 'POST');
  });

  it('a body that is not valid UTF-8 is 422 (string_unicode at body), not stored with U+FFFD', async () => {
    const before = (await get(w, '/api/world')).counts;
    const body = Buffer.concat([Buffer.from('{"name": "Mira '), Buffer.from([0xff, 0xfe]), Buffer.from(' Ashvale", "model": "m-1"}')]);
    const r = await post(w, '/api/agents', body);
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(r.body.detail.map((d: any) => [d.loc, d.type]), [[['body'], 'string_unicode']]);
    assert.equal(r.body.detail[0].ctx.position, 15, 'the offset of the first bad byte');
    // An overlong encoding and an encoded surrogate are not UTF-8 either.
    for (const bad of [[0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const again = await post(w, '/api/agents', Buffer.concat([Buffer.from('{"name": "Mira'), Buffer.from(bad), Buffer.from('", "model": "m-1"}')]));
      assert.equal(again.status, 422, again.text);
    }
    assert.deepEqual((await get(w, '/api/world')).counts, before, 'nothing changed');
  });

  it('a JSON string holding a lone surrogate is 422 at its field; a proper surrogate pair is kept whole in the record and the history', async () => {
    const before = (await get(w, '/api/world')).counts;
    for (const name of ['Mira \\ud800 Ashvale', 'Mira Ashvale \\udfff', 'Mira \\ude00\\ud83d Ashvale']) {
      const r = await post(w, '/api/agents', `{"name": "${name}", "model": "m-1"}`);
      assert.equal(r.status, 422, r.text);
      assert.deepEqual(r.body.detail.map((d: any) => [d.loc, d.type]), [[['body', 'name'], 'string_unicode']], r.text);
    }
    const inKey = await post(w, '/api/agents', '{"name": "Mira Ashvale", "model": "m-1", "x\\ud800": 1}');
    assert.equal(inKey.status, 422, 'a lone surrogate in a field name too');
    assert.deepEqual((await get(w, '/api/world')).counts, before, 'nothing changed');

    const ok = await post(w, '/api/agents', '{"name": "Mira \\ud83d\\ude00 Ashvale", "model": "m-1"}');
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.name, 'Mira 😀 Ashvale');
    assert.equal((await get(w, `/api/agents/${ok.body.id}`)).name, 'Mira 😀 Ashvale');
    const events = await get(w, `/api/events?agent_id=${ok.body.id}`);
    assert.ok(events.some((e: any) => e.summary.includes('Mira 😀 Ashvale')), JSON.stringify(events));
  });
});
