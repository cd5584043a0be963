// Issue 12, security: every listing that grows without bound answers in pages. Id-ordered
// listings take `limit` (1-1000, default 500) and `after_id`; messages, newest first, take
// `limit` and `offset`. The answer stays an array; a `Link: <...>; rel="next"` header names
// the next page while there is one, and following it walks the whole listing once.
import assert from 'assert/strict';
import fs from 'fs';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../codecs/requests';
import { expect422At, foundOrg } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

describe('security: listings come in pages', function () {
  this.timeout(60_000);
  let w: TestWorld;
  let founder: Awaited<ReturnType<typeof foundOrg>>;

  before(async () => {
    w = await startTestWorld();
    founder = await foundOrg(w, 'Paging Partners');
    const pagers = [];
    for (let i = 0; i < 6; i++) pagers.push(await w.register(`Pager ${i}`));
    const made = (r: { status: number; text: string }) => assert.ok(r.status === 201 || r.status === 200, r.text);
    for (let i = 0; i < 5; i++) made(await w.post('/api/messages', { sender_id: founder.org.id, recipient_id: null, body: `notice number ${i}` }, founder.key));
    // Partners run by agents: the world's own organizations answer no proposals.
    const partners = [0, 1, 2, 3];
    for (let i = 1; i <= 3; i++) partners[i] = (await foundOrg(w, `Paging Partner ${i}`)).org.id;
    // A few of everything else that is listed, so that each listing has pages to walk.
    for (let i = 1; i <= 3; i++) {
      made(await w.post('/api/contracts', { proposer_id: founder.org.id, counterparty_id: partners[i], title: `Deal ${i}`, terms: 'gold for goodwill, paid on acceptance', value: 5, resource: null }, founder.key));
      made(await w.post('/api/alliances', { proposer_id: founder.org.id, counterparty_id: partners[i], terms: 'mutual defence of the roads' }, founder.key));
      made(await w.post('/api/parties', { organization_id: founder.org.id, name: `Party ${i}` }, founder.key));
      made(await w.post('/api/suggestions', { title: `Idea ${i}`, body: 'more roads between the towns, please' }, pagers[i - 1].key));
      made(await w.post('/api/agents/retire', { reason: 'enough paging for one lifetime' }, pagers[i + 2].key));
    }
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  /** GET with the page's Link header; the path of the next page, or null. */
  async function page(url: string, opts: { admin?: string; key?: string } = {}) {
    const headers: Record<string, string> = {};
    if (opts.admin) headers['x-admin-key'] = opts.admin;
    if (opts.key) headers['x-agent-key'] = opts.key;
    const res = await fetch(w.url + url, { headers });
    const body = await res.json() as any;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.ok(Array.isArray(body), `${url} answers an array`);
    const link = res.headers.get('link');
    const next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? assert.fail(`a next link: ${link}`) : null;
    // A departure is listed under its agent's id.
    return { items: (body as Array<{ id?: number | string; agent_id?: number }>).map((i) => ({ ...i, id: i.id ?? i.agent_id! })), next };
  }

  async function walk(url: string, opts: { admin?: string; key?: string } = {}) {
    const seen: Array<number | string> = [];
    let pages = 0;
    for (let at: string | null = url; at; pages++) {
      const p = await page(at, opts);
      seen.push(...p.items.map((i) => i.id));
      at = p.next;
      assert.ok(pages < 1000);
    }
    return { seen, pages };
  }

  it('GET /api/agents pages by limit and after_id; following Link walks every agent once, in id order', async () => {
    const all = (await page('/api/agents')).items.map((a) => a.id);
    assert.ok(all.length >= 7);
    const first = await page('/api/agents?limit=3');
    assert.deepEqual(first.items.map((a) => a.id), all.slice(0, 3));
    assert.ok(first.next, 'a next page');
    const { seen, pages } = await walk('/api/agents?limit=3');
    assert.deepEqual(seen, all);
    assert.equal(pages, Math.ceil(all.length / 3));
    assert.deepEqual((await page(`/api/agents?after_id=${all[4]}`)).items.map((a) => a.id), all.slice(5), 'after_id starts after the id given');
    const last = await page(`/api/agents?after_id=${all[all.length - 1]}`);
    assert.deepEqual(last, { items: [], next: null }, 'past the end: empty, no next');
  });

  it(`a small world's listing fits the default page (${PAGE_LIMIT_DEFAULT}), with no Link`, async () => {
    const adventurers = await page('/api/adventurers');
    const counts = (await w.get('/api/world')).body.counts;
    assert.equal(adventurers.items.length, counts.adventurers_available + counts.adventurers_employed);
    assert.equal(adventurers.next, null);
  });

  it('refuses a limit out of 1..1000 or not a number, and an empty after_id, with 422 at query', async () => {
    for (const bad of ['0', String(PAGE_LIMIT_MAX + 1), 'ten', '-1']) expect422At(await w.get(`/api/agents?limit=${bad}`), ['query', 'limit']);
    expect422At(await w.get('/api/quests?after_id='), ['query', 'after_id']);
    expect422At(await w.get('/api/messages?offset=-1'), ['query', 'offset']);
    assert.equal((await w.get(`/api/agents?limit=${PAGE_LIMIT_MAX}`)).status, 200);
  });

  const listings = [
    '/api/agents', '/api/organizations', '/api/adventurers', '/api/quests', '/api/parties', '/api/contracts', '/api/alliances',
    '/api/projects', '/api/production', '/api/establishments', '/api/world-events', '/api/world-events?status=active',
    '/api/agent-departures', '/api/suggestions',
  ];
  for (const url of listings) {
    it(`${url} takes limit and after_id, and walking it with limit=2 gives the whole listing`, async () => {
      const opts = url === '/api/agent-departures' || url === '/api/suggestions' ? { admin: w.keys.admin } : {};
      const all = (await page(url, opts)).items.map((i) => i.id);
      const join = url.includes('?') ? '&' : '?';
      expect422At(await w.call('GET', `${url}${join}limit=0`, opts), ['query', 'limit']);
      // A cursor that is not an id is refused, not read as "from the start" (a broken cursor would loop on the first page).
      for (const bad of ['abc', '-1', '1.5', '3-4']) expect422At(await w.call('GET', `${url}${join}after_id=${bad}`, opts), ['query', 'after_id']);
      const { seen } = await walk(`${url}${join}limit=2`, opts);
      assert.deepEqual(seen, all);
      if (['/api/agents', '/api/organizations', '/api/adventurers', '/api/parties', '/api/contracts', '/api/alliances', '/api/agent-departures', '/api/suggestions'].includes(url)) {
        assert.ok(all.length >= 3, `${url} has items to page through: ${all.length}`);
      }
      const one = await page(`${url}${join}limit=1`, opts);
      assert.ok(one.items.length <= 1);
      assert.equal(one.next !== null, all.length > 1, 'a next link exactly when more follows');
    });
  }

  it('/api/relationships pages by limit and after_id (a pair\'s id, "<organization_id>-<other_organization_id>"); walking it with limit=2 gives every pair once', async () => {
    // Three organizations in alliance with one another: three pairs that trust each other.
    const trio = [await foundOrg(w, 'Pair House One'), await foundOrg(w, 'Pair House Two'), await foundOrg(w, 'Pair House Three')];
    for (const [i, j] of [[0, 1], [0, 2], [1, 2]]) {
      const proposal = await w.post('/api/alliances', { proposer_id: trio[i].org.id, counterparty_id: trio[j].org.id, terms: 'shared roads and shared watches' }, trio[i].key);
      assert.equal(proposal.status, 201, proposal.text);
      const accepted = await w.call('POST', `/api/alliances/${proposal.body.id}/accept`, { key: trio[j].key, body: { organization_id: trio[j].org.id } });
      assert.equal(accepted.status, 200, accepted.text);
    }
    const all = (await page('/api/relationships')).items.map((i) => i.id);
    assert.ok(all.length >= 3, `pairs to page through: ${all.join(', ')}`);
    assert.equal(new Set(all).size, all.length, 'each pair once');
    expect422At(await w.call('GET', '/api/relationships?limit=0'), ['query', 'limit']);
    for (const bad of ['abc', '5', '5-', '-5', '5-x']) expect422At(await w.call('GET', `/api/relationships?after_id=${bad}`), ['query', 'after_id']);
    const { seen, pages } = await walk('/api/relationships?limit=2');
    assert.deepEqual(seen, all);
    assert.ok(pages >= 2);
  });

  it('/api/adventurers?status= pages through the adventurers of that status only, each once, in id order', async () => {
    const every = (await page('/api/adventurers?limit=100')).items as unknown as Array<{ id: number; status: string }>;
    const available = every.filter((a) => a.status === 'available').map((a) => a.id);
    assert.ok(available.length >= 5, 'adventurers for hire to page through');
    const { seen, pages } = await walk('/api/adventurers?status=available&limit=2');
    // The first page of the whole listing bounds the ids compared (a bigger world has more).
    const bound = every[every.length - 1].id;
    assert.deepEqual(seen.filter((id) => Number(id) <= bound), available);
    assert.ok(pages >= 3);
    assert.deepEqual([...seen].sort((a, b) => Number(a) - Number(b)), seen, 'in id order');
    const employed = (await walk('/api/adventurers?status=employed&limit=2')).seen;
    assert.ok(employed.every((id) => !available.includes(Number(id))), 'no adventurer for hire among the employed');
    assert.deepEqual((await page('/api/adventurers?status=dead')).items, []);
  });

  it('the next link keeps the other query fields (a filter stays applied)', async () => {
    const first = await page('/api/adventurers?limit=5');
    assert.match(first.next!, /^\/api\/adventurers\?limit=5&after_id=\d+$/);
    const filtered = await page('/api/world-events?status=expired&limit=1');
    if (filtered.next) assert.match(filtered.next, /status=expired/);
  });

  for (const [url, opts] of [['/api/messages', {}], ['/api/messages/inbox', 'key'], ['/api/messages/investigation', 'spectator']] as const) {
    it(`${url} pages newest first by limit and offset; following Link walks every message once`, async () => {
      const headers: Record<string, string> = opts === 'key' ? { 'x-agent-key': founder.key } : opts === 'spectator' ? { 'x-spectator-key': w.keys.spectator! } : {};
      const get = async (u: string) => {
        const res = await fetch(w.url + u, { headers });
        const link = res.headers.get('link');
        return { items: await res.json() as Array<{ id: number | string }>, next: link ? /^<([^>]+)>/.exec(link)![1] : null };
      };
      const all = (await get(url)).items.map((m) => m.id);
      assert.ok(all.length >= 5);
      const seen: Array<number | string> = [];
      for (let at: string | null = `${url}?limit=2`; at;) {
        const p = await get(at);
        seen.push(...p.items.map((m) => m.id));
        at = p.next;
      }
      assert.deepEqual(seen, all);
      assert.deepEqual((await get(`${url}?offset=2&limit=2`)).items.map((m) => m.id), all.slice(2, 4));
    });
  }

  it('GET /api/rules publishes the paging fields of each listing with their bounds and defaults', async () => {
    const api = (await w.get('/api/rules')).body.api as Array<{ method: string; path: string; query: Record<string, any> }>;
    for (const path of listings.filter((l) => !l.includes('?'))) {
      const r = api.find((e) => e.method === 'GET' && e.path === path)!;
      assert.ok(r.query.limit && r.query.after_id, `${path}: ${JSON.stringify(r.query)}`);
      assert.equal(r.query.after_id.pattern, '^[0-9]+$', `${path}: the cursor is an id: ${JSON.stringify(r.query.after_id)}`);
    }
    for (const path of ['/api/messages', '/api/messages/inbox', '/api/messages/investigation']) {
      const r = api.find((e) => e.method === 'GET' && e.path === path)!;
      assert.ok(r.query.limit && r.query.offset, `${path}: ${JSON.stringify(r.query)}`);
    }
  });
});
