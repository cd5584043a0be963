// The public history over HTTP on a real server: GET /api/events (newest first, limit,
// category, agent_id, before_id paging) and GET /api/events/{id}/investigation
// (window_days) with their 404 and 422 refusals (spec part 6; api-conventions errors).
import assert from 'assert/strict';
import fs from 'fs';
import { forEachLimited } from '../../actors/concurrency';
import { expect422At } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

interface HistoryEvent { id: number; day: number; category: string; agent_id: number | null; organization_ids: number[]; summary: string }

async function events(w: TestWorld, query = ''): Promise<HistoryEvent[]> {
  const r = await w.get(`/api/events${query}`);
  assert.equal(r.status, 200, `${query}: ${r.text}`);
  assert.ok(Array.isArray(r.body), r.text);
  return r.body;
}

const isNewestFirst = (list: HistoryEvent[]) => list.every((e, i) => i === 0 || list[i - 1].id > e.id);

describe('history over HTTP: GET /api/events', () => {
  let w: TestWorld;
  let first: { id: number; key: string };
  let second: { id: number; key: string };
  let firstOrg: number;
  let total: number;

  before(async () => {
    w = await startTestWorld();
    first = await w.register('Hana Historian');
    second = await w.register('Ivo Investigator');
    firstOrg = (await w.post('/api/organizations', { name: 'Hana Archives', kind: 'library' }, first.key)).body.id;
    await w.post('/api/organizations', { name: 'Ivo Inquiries', kind: 'merchant company' }, second.key);
    for (let i = 0; i < 8; i++) await w.tick();
    await w.call('PATCH', `/api/organizations/${firstOrg}`, { key: first.key, body: { motto: 'Everything is written down.' } });
    total = (await w.get('/api/world')).body.counts.history_events;
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('has more history than one default page', () => {
    assert.ok(total > 40, `history events: ${total}`);
  });

  it('answers 30 events by default, newest first', async () => {
    const list = await events(w);
    assert.equal(list.length, 30);
    assert.ok(isNewestFirst(list), JSON.stringify(list.map((e) => e.id)));
    for (const e of list) {
      assert.ok(Number.isInteger(e.id) && Number.isInteger(e.day), JSON.stringify(e));
      assert.equal(typeof e.category, 'string');
      assert.equal(typeof e.summary, 'string');
    }
    // The newest event is the latest action: the motto revision.
    assert.equal(list[0].agent_id, first.id);
    assert.ok(list[0].organization_ids.includes(firstOrg), JSON.stringify(list[0]));
    const oneHundred = await events(w, '?limit=100');
    assert.deepEqual(list, oneHundred.slice(0, 30));
  });

  it('answers as many as limit asks, from 1 to 100', async () => {
    assert.equal((await events(w, '?limit=1')).length, 1);
    assert.equal((await events(w, '?limit=7')).length, 7);
    assert.equal((await events(w, '?limit=100')).length, Math.min(100, total));
  });

  it('refuses limit=0, limit=101 and limit=abc with 422 at query.limit', async () => {
    for (const limit of ['0', '101', 'abc', '-5', '2.5', '']) expect422At(await w.get(`/api/events?limit=${limit}`), ['query', 'limit']);
  });

  it('filters by category', async () => {
    const all = await events(w, '?limit=100');
    const category = all.find((e) => e.agent_id === null)!.category; // upkeep of the seeded organizations
    const filtered = await events(w, `?category=${encodeURIComponent(category)}&limit=100`);
    assert.ok(filtered.length > 0);
    assert.ok(filtered.every((e) => e.category === category), JSON.stringify(filtered));
    assert.ok(isNewestFirst(filtered));
    const other = all.find((e) => e.category !== category)!.category;
    assert.ok(!filtered.some((e) => e.category === other));
    assert.deepEqual(await events(w, '?category=no-such-category'), []);
  });

  it('refuses a category outside 2-40 characters with 422 at query.category', async () => {
    expect422At(await w.get('/api/events?category=x'), ['query', 'category']);
    expect422At(await w.get(`/api/events?category=${'c'.repeat(41)}`), ['query', 'category']);
  });

  it('filters by agent_id', async () => {
    const mine = await events(w, `?agent_id=${first.id}&limit=100`);
    assert.ok(mine.length >= 3, 'registration, founding, upkeep and the revision');
    assert.ok(mine.every((e) => e.agent_id === first.id), JSON.stringify(mine));
    assert.ok(mine.some((e) => e.organization_ids.includes(firstOrg)));
    const theirs = await events(w, `?agent_id=${second.id}&limit=100`);
    assert.ok(theirs.length > 0 && theirs.every((e) => e.agent_id === second.id));
    assert.deepEqual(await events(w, '?agent_id=999999'), []);
  });

  it('refuses agent_id below 1 or not an integer with 422 at query.agent_id', async () => {
    expect422At(await w.get('/api/events?agent_id=0'), ['query', 'agent_id']);
    expect422At(await w.get('/api/events?agent_id=abc'), ['query', 'agent_id']);
  });

  it('pages backward with before_id, without gaps or repeats', async () => {
    const page1 = await events(w, '?limit=10');
    const page2 = await events(w, `?limit=10&before_id=${page1[page1.length - 1].id}`);
    assert.equal(page2.length, 10);
    assert.ok(page2.every((e) => e.id < page1[page1.length - 1].id));
    assert.deepEqual([...page1, ...page2], await events(w, '?limit=20'));
    assert.deepEqual(await events(w, '?before_id=1'), []);
  });

  it('gives the next (older) page as a Link header while older events follow, keeping the filters, as the other listings do', async () => {
    /** The page's events and the path of the next one (null on the last). */
    const linked = async (url: string) => {
      const res = await fetch(w.url + url);
      const link = res.headers.get('link');
      return { ids: ((await res.json()) as Array<{ id: number }>).map((e) => e.id), next: link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? assert.fail(`a next link: ${link}`) : null };
    };
    const every: number[] = [];
    for (let p = await events(w, '?limit=100'); p.length; p = await events(w, `?limit=100&before_id=${p[p.length - 1].id}`)) every.push(...p.map((e) => e.id));
    assert.ok(every.length > 100, `the world has a few pages of history: ${every.length}`);
    const first = await linked('/api/events?limit=7&category=trade');
    const trades = (await events(w, '?limit=100&category=trade')).map((e) => e.id);
    assert.equal(first.next, trades.length > 7 ? `/api/events?limit=7&category=trade&before_id=${first.ids[6]}` : null, 'the filter stays in the link');
    const seen: number[] = [];
    for (let url: string | null = '/api/events?limit=30'; url;) {
      const p = await linked(url);
      seen.push(...p.ids);
      if (!p.next) assert.ok(p.ids.length <= 30);
      url = p.next;
    }
    assert.deepEqual(seen, every, 'following the links walks the whole history once');
    assert.equal((await linked(`/api/events?limit=100&before_id=${every[every.length - 50]}`)).next, null, 'no Link on the last page');
  });

  it('walks the whole history page by page with before_id', async () => {
    const seen: number[] = [];
    let page = await events(w, '?limit=100');
    while (page.length > 0) {
      assert.ok(isNewestFirst(page));
      seen.push(...page.map((e) => e.id));
      page = await events(w, `?limit=100&before_id=${page[page.length - 1].id}`);
    }
    assert.equal(seen.length, total, 'every event once');
    assert.equal(new Set(seen).size, total, 'no repeats');
    assert.ok(isNewestFirst(seen.map((id) => ({ id }) as HistoryEvent)), 'older pages hold older events');
  });

  it('combines before_id with the filters', async () => {
    const mine = await events(w, `?agent_id=${first.id}&limit=100`);
    const pivot = mine[1].id;
    const older = await events(w, `?agent_id=${first.id}&before_id=${pivot}&limit=100`);
    assert.deepEqual(older, mine.slice(2));
  });

  it('refuses before_id below 1 with 422 at query.before_id', async () => {
    expect422At(await w.get('/api/events?before_id=0'), ['query', 'before_id']);
    expect422At(await w.get('/api/events?before_id=x'), ['query', 'before_id']);
  });

  it('refuses after_id with 422 saying the history pages back with before_id, rather than answer the newest page as if it were the one asked for', async () => {
    const r = await w.get('/api/events?after_id=5&limit=2');
    expect422At(r, ['query', 'after_id']);
    assert.match(r.body.detail[0].msg, /pages back with before_id/);
  });
});

describe('history over HTTP: GET /api/events/{id}/investigation', () => {
  let w: TestWorld;
  let agent: { id: number; key: string };
  let orgId: number;
  let pivot: HistoryEvent;

  before(async () => {
    w = await startTestWorld();
    agent = await w.register('Jon Journal');
    orgId = (await w.post('/api/organizations', { name: 'Jon Gazette', kind: 'scholars' }, agent.key)).body.id;
    for (let i = 0; i < 10; i++) await w.tick();
    // The world's organizations act every day too: the upkeep events alone fit in one page.
    const all = (await w.get('/api/events?category=maintenance&limit=100')).body as HistoryEvent[];
    // An upkeep event of this organization in the middle of the run (day 6).
    pivot = all.find((e) => e.day === 6 && e.organization_ids.includes(orgId))!;
    assert.ok(pivot, 'an event of the organization on day 6');
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('answers the event and what happened within 3 days by default', async () => {
    const r = await w.get(`/api/events/${pivot.id}/investigation`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.event.id, pivot.id);
    assert.equal(r.body.event.summary, pivot.summary);
    assert.equal(r.body.window_days, 3);
    const around = r.body.surrounding as HistoryEvent[];
    assert.ok(Array.isArray(around) && around.length > 0, r.text);
    assert.ok(around.every((e) => e.day >= pivot.day - 3 && e.day <= pivot.day + 3), 'all within 3 days');
    assert.ok(around.some((e) => e.day === pivot.day - 3) && around.some((e) => e.day === pivot.day + 3), 'the whole window');
    assert.ok(!around.some((e) => e.day === pivot.day - 4 || e.day === pivot.day + 4));
  });

  it('honours window_days from 0 to 30', async () => {
    const zero = await w.get(`/api/events/${pivot.id}/investigation?window_days=0`);
    assert.equal(zero.status, 200, zero.text);
    assert.equal(zero.body.window_days, 0);
    assert.ok((zero.body.surrounding as HistoryEvent[]).every((e) => e.day === pivot.day), zero.text);
    const wide = await w.get(`/api/events/${pivot.id}/investigation?window_days=30`);
    assert.equal(wide.status, 200, wide.text);
    assert.ok((wide.body.surrounding as HistoryEvent[]).some((e) => e.day === 1), 'day 1 lies within 30 days');
    assert.equal(wide.body.from_day, 1, 'the window begins no earlier than the first day');
    assert.equal(wide.body.to_day, pivot.day + 30);
  });

  it('answers 404 for an unknown event', async () => {
    const r = await w.get('/api/events/999999/investigation');
    assert.equal(r.status, 404, r.text);
    assert.equal(typeof r.body.detail, 'string');
  });

  it('refuses window_days outside 0-30 or not an integer, and a non-integer id, with 422', async () => {
    for (const v of ['31', '-1', 'abc', '1.5']) expect422At(await w.get(`/api/events/${pivot.id}/investigation?window_days=${v}`), ['query', 'window_days']);
    expect422At(await w.get('/api/events/abc/investigation'), ['path', 'event_id']);
  });
});

describe('history over HTTP: an investigation of a busy day', () => {
  let w: TestWorld;
  before(async () => {
    w = await startTestWorld();
    // Eight at a time, as a crowd arrives: the day's 700 arrivals are all that matters here.
    await forEachLimited(Array.from({ length: 700 }, (_, i) => i), 8, (i) => w.register(`Crowd ${i}`));
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('keeps the 500 events nearest the one investigated, in order, when its window holds more', async () => {
    const arrivals = ((await w.get('/api/events?category=agent&limit=100&before_id=400')).body as HistoryEvent[]);
    const pivot = arrivals[50];
    const r = await w.get(`/api/events/${pivot.id}/investigation?window_days=0`);
    assert.equal(r.status, 200, r.text);
    const around = r.body.surrounding as HistoryEvent[];
    assert.equal(around.length, 500);
    const ids = around.map((e) => e.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'in id order');
    assert.ok(!ids.includes(pivot.id), 'the event itself is not among those around it');
    assert.ok(ids.includes(pivot.id - 1) && ids.includes(pivot.id + 1), 'its neighbours are kept');
    assert.ok(Math.min(...ids) >= pivot.id - 251 && Math.max(...ids) <= pivot.id + 251, `centred on ${pivot.id}: ${Math.min(...ids)}..${Math.max(...ids)}`);
  });
});
