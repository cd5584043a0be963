// gzip for kept answers (http/compression.ts): a read asked for again in the same generation
// of the read model goes gzipped to a client that takes gzip, with Vary and a Content-Length
// of the bytes sent, and so does the rulebook, which never changes, from its first request;
// small answers, answers computed for one request, clients that refuse gzip and stores that
// keep nothing get the JSON as it is.
import assert from 'assert/strict';
import http from 'http';
import zlib from 'zlib';
import { GZIP_MIN_BYTES, acceptsGzip, gzipFor } from '../../http/compression';
import { startTestWorld, type TestWorld } from '../support/world';

interface Raw { status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }

describe('compression: which clients take gzip, and which answers are worth it', () => {
  const asking = (value?: string) => ({ headers: value === undefined ? {} : { 'accept-encoding': value } }) as http.IncomingMessage;

  it('reads Accept-Encoding as HTTP means it: gzip or * with a q above 0', () => {
    for (const yes of ['gzip', 'GZIP', 'gzip, deflate, br', '*', 'deflate, gzip;q=0.5']) assert.equal(acceptsGzip(asking(yes)), true, yes);
    for (const no of [undefined, '', 'br', 'identity', 'gzip;q=0', '*;q=0', 'deflate']) assert.equal(acceptsGzip(asking(no)), false, String(no));
  });

  it('leaves an answer under the bound as it is, and gzips a larger one so that it comes back whole', () => {
    assert.equal(gzipFor(asking('gzip'), {}, 'x'.repeat(GZIP_MIN_BYTES - 1)), null);
    const text = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: i, name: `Adventurer ${i}`, status: 'available' })));
    const packed = gzipFor(asking('gzip'), {}, text);
    assert.ok(packed && packed.length < text.length / 4, 'JSON shrinks');
    assert.equal(zlib.gunzipSync(packed!).toString('utf8'), text);
  });
});

describe('compression over HTTP', function () {
  this.timeout(120_000);
  let w: TestWorld;
  before(async () => { w = await startTestWorld({ nodes: 1 }); });
  after(async () => { await w.close(); });

  const raw = (path: string, headers: Record<string, string> = {}, method = 'GET') => new Promise<Raw>((resolve, reject) => {
    const req = http.request(`${w.url}${path}`, { method, headers: { accept: 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
  const gzip = { 'accept-encoding': 'gzip, deflate' };
  const keeps = () => w.services.store.readGeneration !== undefined;

  it('sends a large answer gzipped when it is asked for again, the same JSON, its length in bytes sent, and Vary', async () => {
    const first = await raw('/api/adventurers', gzip);
    assert.equal(first.status, 200);
    assert.equal(first.headers['content-encoding'], undefined, 'an answer computed for this request goes as it is');
    const json = first.bytes.toString('utf8');
    assert.ok(json.length >= GZIP_MIN_BYTES);
    const again = await raw('/api/adventurers', gzip);
    assert.equal(again.status, 200);
    if (!keeps()) {
      assert.equal(again.headers['content-encoding'], undefined, 'a store whose read model other processes change keeps nothing, so nothing is gzipped');
      return;
    }
    assert.equal(again.headers['content-encoding'], 'gzip');
    assert.match(String(again.headers['content-type']), /^application\/json/);
    assert.match(String(again.headers.vary), /accept-encoding/i);
    assert.equal(Number(again.headers['content-length']), again.bytes.length);
    assert.ok(again.bytes.length < json.length / 2);
    assert.equal(zlib.gunzipSync(again.bytes).toString('utf8'), json);
  });

  it('sends the rulebook, which never changes, gzipped at the best level from its first request and after every write, the same JSON as without gzip', async () => {
    const plain = await raw('/api/rules');
    assert.equal(plain.headers['content-encoding'], undefined);
    const json = plain.bytes.toString('utf8');
    for (let i = 0; i < 3; i++) {
      // A write makes every kept answer stale; the rulebook is not one of them.
      await w.register(`Rule Reader ${i}`);
      const packed = await raw('/api/rules', gzip);
      assert.equal(packed.status, 200);
      assert.equal(packed.headers['content-encoding'], 'gzip', 'the first request after a write');
      assert.match(String(packed.headers.vary), /accept-encoding/i);
      assert.equal(Number(packed.headers['content-length']), packed.bytes.length);
      assert.equal(zlib.gunzipSync(packed.bytes).toString('utf8'), json);
      // Compressed once for the life of the process, so at the best level: fewer bytes for every reader.
      assert.equal(packed.bytes.length, zlib.gzipSync(json, { level: zlib.constants.Z_BEST_COMPRESSION }).length);
    }
  });

  it('answers HEAD with the headers GET would have, and no body', async () => {
    await raw('/api/rules', gzip);
    const got = await raw('/api/rules', gzip);
    const head = await raw('/api/rules', gzip, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.bytes.length, 0);
    assert.equal(head.headers['content-encoding'], got.headers['content-encoding']);
    if (keeps()) assert.equal(head.headers['content-length'], got.headers['content-length']);
  });

  it('sends JSON as it is to a client that does not take gzip, and a small answer always', async () => {
    for (const headers of [{}, { 'accept-encoding': 'gzip;q=0, br' }, { 'accept-encoding': 'identity' }] as Array<Record<string, string>>) {
      await raw('/api/rules', headers);
      const again = await raw('/api/rules', headers);
      assert.equal(again.headers['content-encoding'], undefined, JSON.stringify(headers));
      assert.ok(JSON.parse(again.bytes.toString('utf8')).api, 'the rulebook, readable');
    }
    await raw('/api/world', gzip);
    const small = await raw('/api/world', gzip);
    assert.ok(small.bytes.length < GZIP_MIN_BYTES);
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(small.bytes.toString('utf8')).day, (await w.get('/api/world')).body.day);
  });

  it('sends the API description and the reference page gzipped from the first time, the same bytes as without gzip', async () => {
    for (const path of ['/openapi.json', '/docs/swagger-ui-bundle.js']) {
      const plain = await raw(path);
      const packed = await raw(path, gzip);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers['content-encoding'], undefined, path);
      assert.equal(packed.headers['content-encoding'], 'gzip', path);
      assert.match(String(packed.headers.vary), /accept-encoding/i);
      assert.equal(packed.headers['content-type'], plain.headers['content-type']);
      assert.equal(Number(packed.headers['content-length']), packed.bytes.length);
      assert.ok(packed.bytes.length < plain.bytes.length / 3, `${path} shrinks`);
      assert.ok(zlib.gunzipSync(packed.bytes).equals(plain.bytes), path);
    }
  });

  it('never sends a gzipped answer from before a write that was acknowledged', async () => {
    for (let i = 0; i < 30; i++) await w.register(`Gzip Agent ${i}`);
    const listed = async () => {
      await raw('/api/agents', gzip);
      const again = await raw('/api/agents', gzip);
      const text = again.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(again.bytes).toString('utf8') : again.bytes.toString('utf8');
      return { encoding: again.headers['content-encoding'], agents: JSON.parse(text) as Array<{ name: string }> };
    };
    const before = await listed();
    if (keeps()) assert.equal(before.encoding, 'gzip');
    assert.ok(!before.agents.some((a) => a.name === 'Late Gzip Agent'));
    await w.register('Late Gzip Agent');
    const after = await listed();
    assert.ok(after.agents.some((a) => a.name === 'Late Gzip Agent'), 'the registration that was answered 201 is listed');
  });
});
