// Reads keep their answers while the read model stays the same (http/read-cache.ts): the
// same text again until the next commit, never an answer from before a write that was
// acknowledged, one answer per caller, a page's Link with it; a listing's page, kept by the
// store across commits that do not change it (infra/store/page-cache.ts), seen to change
// at once when one does, and sent gzipped again without being made again; and nothing kept
// on a store whose read model other processes change (Cassandra on many nodes;
// test/infra/cassandra-read-cache.test.ts has one node on Cassandra).
import assert from 'assert/strict';
import http from 'http';
import zlib from 'zlib';
import sinon from 'sinon';
import { JsonText, ReadCache } from '../../http/read-cache';
import { startTestWorld, TEST_BUS, TEST_STORE, type TestWorld } from '../support/world';

describe('read cache: answers of one generation of the read model', () => {
  const answer = (text: string) => ({ body: new JsonText(text) });

  it('answers what was kept in the same generation, and forgets everything when the generation changes', () => {
    const c = new ReadCache();
    assert.equal(c.get(1, 'a'), undefined);
    c.put(1, 'a', answer('"one"'));
    assert.equal(c.get(1, 'a')?.body.text, '"one"');
    assert.equal(c.get(2, 'a'), undefined);
    assert.equal(c.size, 0);
  });

  it('drops an answer computed in a generation that has passed (a commit landed while it was computed)', () => {
    const c = new ReadCache();
    c.get(1, 'a');
    c.get(2, 'b');
    c.put(1, 'a', answer('"stale"'));
    assert.equal(c.get(2, 'a'), undefined);
  });

  it('keeps at most its bound, the oldest going first', () => {
    const c = new ReadCache(2);
    c.get(1, 'x');
    c.put(1, 'a', answer('1'));
    c.put(1, 'b', answer('2'));
    c.put(1, 'c', answer('3'));
    assert.equal(c.size, 2);
    assert.equal(c.get(1, 'a'), undefined);
    assert.equal(c.get(1, 'c')?.body.text, '3');
  });
});

describe('reads over HTTP on a kept read model', function () {
  this.timeout(120_000);
  let w: TestWorld;
  before(async () => { w = await startTestWorld({ nodes: 1 }); });
  after(async () => { await w.close(); });
  afterEach(() => sinon.restore());

  it('answer the same text again without reading the store until something is committed; a read after a 2xx sees the write', async () => {
    const first = await w.get('/api/world');
    const counted = sinon.spy(w.services.store, 'count');
    const again = await w.get('/api/world');
    assert.equal(again.text, first.text);
    // Cassandra and Kafka make a cluster (of one node here), whose store other processes may write: it keeps nothing.
    assert.equal(w.services.store.readGeneration === undefined, TEST_STORE === 'cassandra' && TEST_BUS === 'kafka', 'a generation unless other processes may write');
    if (w.services.store.readGeneration) assert.equal(counted.callCount, 0, 'answered from the kept answer');
    else assert.ok(counted.callCount > 0, 'a store without a generation is read every time');
    await w.register('Counted Agent');
    const after = await w.get('/api/world');
    assert.equal(after.body.counts.agents, first.body.counts.agents + 1);
  });

  it('give each caller its own answer from the same address', async () => {
    const a = await w.register('First Caller');
    const b = await w.register('Second Caller');
    for (let i = 0; i < 2; i++) {
      assert.equal((await w.get('/api/agents/me', a.key)).body.name, 'First Caller');
      assert.equal((await w.get('/api/agents/me', b.key)).body.name, 'Second Caller');
    }
    assert.equal((await w.get('/api/agents/me')).status, 401, 'no key: no kept answer of another caller');
  });

  it('send an answer with characters beyond ASCII whole, its Content-Length in bytes, when computed and when kept', async () => {
    const name = 'Agent d\u2019\u00c9t\u00e9 \u2694';
    const a = await w.register(name);
    const raw = (path: string) => new Promise<{ length: number; body: Buffer }>((resolve, reject) => {
      http.get(`${w.url}${path}`, { headers: { 'x-agent-key': a.key } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ length: Number(res.headers['content-length']), body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    for (let i = 0; i < 2; i++) {
      const { length, body } = await raw('/api/agents/me');
      assert.equal(length, body.length, 'the length counts bytes, not characters');
      assert.ok(body.length > body.toString('utf8').length, 'the answer holds characters of more than one byte');
      assert.equal(JSON.parse(body.toString('utf8')).name, name);
    }
  });

  it("keep a page's Link to the next page with its answer", async () => {
    await w.register('Paged One');
    await w.register('Paged Two');
    const links = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${w.url}/api/agents?limit=1`);
      assert.equal(res.status, 200);
      links.push(res.headers.get('link'));
    }
    assert.match(links[0] ?? '', /rel="next"/);
    assert.equal(links[1], links[0]);
  });

  it("show a listing's page changed by a write at once, its Link too, whatever the store keeps across other writes", async () => {
    const agent = await w.register('Board Keeper');
    const org = await w.post<{ id: number }>('/api/organizations', { name: 'Board Keepers', kind: 'merchant company', location_id: 'emberfall' }, agent.key);
    assert.equal(org.status, 201, org.text);
    const post = async (title: string) => {
      const q = await w.post<{ id: number }>('/api/quests', { title, description: 'An errand for the board.', requester_id: org.body.id, location_id: 'emberfall', reward: 5, deadline_days: 10 }, agent.key);
      assert.equal(q.status, 201, q.text);
      return q.body.id;
    };
    const cancel = async (id: number) => assert.equal((await w.post(`/api/quests/${id}/cancel`, undefined, agent.key)).status, 200);
    const page = async (afterId: number) => {
      const res = await fetch(`${w.url}/api/quests?after_id=${afterId}&limit=1`);
      assert.equal(res.status, 200);
      return { ids: ((await res.json()) as Array<{ id: number }>).map((q) => q.id), link: res.headers.get('link') };
    };
    const a = await post('First errand');
    const b = await post('Second errand');
    const first = await page(a - 1);
    assert.deepEqual(first.ids, [a]);
    assert.match(first.link ?? '', /rel="next"/);
    const c = await post('Third errand');
    assert.deepEqual(await page(a - 1), first, 'a quest posted beyond the page');
    assert.deepEqual((await page(b - 1)).ids, [b]);
    await cancel(c);
    assert.deepEqual(await page(b - 1), { ids: [b], link: null }, 'the quest beyond the page withdrawn: no next page, at once');
    assert.deepEqual(await page(a - 1), first);
    await cancel(a);
    assert.deepEqual(await page(a - 1), { ids: [b], link: null }, 'a quest of the page withdrawn: the read after the 2xx sees it');
  });

  it('send a page the store kept across a commit gzipped, made once', async () => {
    const gzipped = async () => {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get(`${w.url}/api/adventurers`, { headers: { 'accept-encoding': 'gzip' } }, resolve).on('error', reject);
      });
      res.resume();
      await new Promise((r) => res.on('end', r));
      return res.headers['content-encoding'] === 'gzip';
    };
    await gzipped();
    await w.register('Not An Adventurer'); // a commit that writes no adventurer
    const kept = w.services.store.readGeneration !== undefined;
    const packed = sinon.spy(zlib, 'gzipSync');
    assert.equal(await gzipped(), kept, 'the same page again: gzipped where the store keeps pages');
    await w.register('Nor This One');
    assert.equal(await gzipped(), kept);
    if (kept) assert.equal(packed.callCount, 1, 'compressed once');
  });
});
