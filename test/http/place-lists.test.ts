// A place's answer (GET /api/locations/{id}) lists what is there now, each list cut to
// `limit` items (default 100), with how many there are in all and, for a list cut short,
// the listing that goes on from it (docs/decisions.md, "A place answers what is there now").
import assert from 'assert/strict';
import { expect422At, expectStatus, foundOrg } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

interface Place {
  id: string;
  organizations: Array<{ id: number; location_id: string; status: string }>;
  quests: Array<{ id: number; status: string; location_id: string }>;
  projects: Array<{ id: number; status: string; location_id: string }>;
  establishments: Array<{ id: number; location_id: string }>;
  organization_count: number; quest_count: number; project_count: number; establishment_count: number;
  more: Record<string, string>;
}

const PLACE = 'greenhollow';

/** Every item of a listing, walking its pages from `url` by their `Link: rel="next"` headers. */
async function walk(w: TestWorld, url: string): Promise<Array<{ id: number }>> {
  const items: Array<{ id: number }> = [];
  for (let next: string | undefined = url, pages = 0; next !== undefined; pages++) {
    const res: Response = await fetch(w.url + next);
    const body = await res.json() as Array<{ id: number }>;
    assert.equal(res.status, 200, JSON.stringify(body));
    items.push(...body);
    next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1];
    assert.ok(pages < 1000);
  }
  return items;
}

const ids = (xs: Array<{ id: number }>) => xs.map((x) => x.id);

describe('a place lists what is there now, in bounded lists', () => {
  let w: TestWorld;
  let orgs: Array<Awaited<ReturnType<typeof foundOrg>>>;
  const place = async (query = ''): Promise<Place> => {
    const r = await w.get<Place>(`/api/locations/${PLACE}${query}`);
    expectStatus(r, 200);
    return r.body;
  };
  const quest = (requester: number, title: string, reward = 10) => ({
    title, description: 'Clear the old mill of rats.', requester_id: requester, location_id: PLACE, reward, deadline_days: 30,
  });
  const project = (owner: number, title: string) => ({
    owner_id: owner, title, kind: 'construction', description: 'A new granary by the mill.', location_id: PLACE, budget: 50, duration_days: 30,
  });

  before(async () => {
    w = await startTestWorld();
    orgs = [];
    for (let i = 0; i < 3; i++) orgs.push(await foundOrg(w, `Hollow Traders ${i}`, 'merchant company', PLACE));
  });
  after(async () => { await w.close(); });

  it('lists the active organizations standing there, at most `limit`, counts them all, and links the listing that goes on', async () => {
    const everyone = ((await w.get<Array<{ id: number; location_id: string }>>('/api/organizations')).body).filter((o) => o.location_id === PLACE);
    assert.ok(everyone.length >= 3, 'the three founded here are listed');
    const whole = await place();
    assert.deepEqual(ids(whole.organizations), ids(everyone), 'under the default limit, the place lists every one, in id order');
    assert.equal(whole.organization_count, everyone.length);
    assert.equal(whole.more.organizations, undefined, 'nothing more to read');

    const cut = await place('?limit=2');
    assert.deepEqual(ids(cut.organizations), ids(everyone).slice(0, 2));
    assert.equal(cut.organization_count, everyone.length, 'the count is of them all, not of the list');
    assert.equal(cut.more.organizations, `/api/organizations?location_id=${PLACE}&after_id=${everyone[1].id}&limit=2`);
    const rest = await walk(w, cut.more.organizations);
    assert.deepEqual([...ids(cut.organizations), ...ids(rest)], ids(everyone), 'the listing goes on where the place stopped, none twice, none missed');
  });

  it('lists open quests only: an accepted or withdrawn one leaves the place (and stays in GET /api/quests)', async () => {
    const [a, b] = orgs;
    const posted: number[] = [];
    for (const title of ['Rats in the mill', 'Wolves at the fold', 'A lost lamb', 'A stuck cart']) {
      const r = await w.post<{ id: number }>('/api/quests', quest(a.org.id, title), a.key);
      expectStatus(r, 201);
      posted.push(r.body.id);
    }
    expectStatus(await w.post(`/api/quests/${posted[0]}/accept`, { organization_id: b.org.id }, b.key), 200);
    expectStatus(await w.post(`/api/quests/${posted[1]}/cancel`, undefined, a.key), 200);
    const here = await place();
    const open = ((await w.get<Array<{ id: number; status: string; location_id: string }>>(`/api/quests?location_id=${PLACE}&status=open`)).body);
    assert.ok(ids(here.quests).includes(posted[2]) && ids(here.quests).includes(posted[3]), 'the open quests are listed');
    assert.ok(!ids(here.quests).includes(posted[0]), 'the accepted quest is not');
    assert.ok(!ids(here.quests).includes(posted[1]), 'the withdrawn quest is not');
    assert.ok(here.quests.every((q) => q.status === 'open' && q.location_id === PLACE));
    assert.deepEqual(ids(here.quests), ids(open));
    assert.equal(here.quest_count, open.length);
    assert.equal((await w.get<{ status: string }>(`/api/quests/${posted[0]}`)).body.status, 'accepted', 'the accepted quest is still there to read');

    const cut = await place('?limit=1');
    assert.deepEqual(ids(cut.quests), [open[0].id]);
    assert.equal(cut.more.quests, `/api/quests?location_id=${PLACE}&status=open&after_id=${open[0].id}&limit=1`);
    assert.deepEqual([...ids(cut.quests), ...ids(await walk(w, cut.more.quests))], ids(open));
  });

  it('lists active projects only: a cancelled one leaves the place (GET /api/projects filters by place and status)', async () => {
    const [a] = orgs;
    const started: number[] = [];
    for (const title of ['The granary', 'The mill race', 'The bridge']) {
      const r = await w.post<{ id: number }>('/api/projects', project(a.org.id, title), a.key);
      expectStatus(r, 201);
      started.push(r.body.id);
    }
    expectStatus(await w.post(`/api/projects/${started[1]}/cancel`, undefined, a.key), 200);
    const here = await place();
    assert.deepEqual(ids(here.projects), [started[0], started[2]]);
    assert.equal(here.project_count, 2);
    assert.ok(here.projects.every((p) => p.status === 'active'));

    const cancelled = (await w.get<Array<{ id: number; status: string }>>(`/api/projects?location_id=${PLACE}&status=cancelled`)).body;
    assert.deepEqual(ids(cancelled), [started[1]]);
    assert.deepEqual(ids((await w.get<Array<{ id: number }>>(`/api/projects?location_id=${PLACE}`)).body), started, 'every project at the place, any status');
    assert.deepEqual(ids((await w.get<Array<{ id: number }>>('/api/projects?location_id=ironcrag')).body), [], 'none at another place');

    const cut = await place('?limit=1');
    assert.deepEqual(ids(cut.projects), [started[0]]);
    assert.equal(cut.project_count, 2);
    assert.equal(cut.more.projects, `/api/projects?location_id=${PLACE}&status=active&after_id=${started[0]}&limit=1`);
    assert.deepEqual(ids(await walk(w, cut.more.projects)), [started[2]]);
  });

  it('cuts a list at 100 by default', async () => {
    const [, , c] = orgs;
    const before = (await place()).quest_count;
    for (let i = before; i < 101; i++) expectStatus(await w.post('/api/quests', quest(c.org.id, `Errand number ${i}`, 1), c.key), 201);
    const here = await place();
    assert.equal(here.quests.length, 100);
    assert.equal(here.quest_count, 101);
    assert.ok(here.more.quests.endsWith(`&after_id=${here.quests[99].id}&limit=100`), here.more.quests);
    assert.equal((await walk(w, here.more.quests)).length, 1);
    assert.equal((await place('?limit=500')).quests.length, 101);
  });

  it('refuses a limit out of 1-500 (422), and answers 404 for an unknown place with or without one', async () => {
    for (const bad of ['0', '501', 'many', '-1', '2.5']) expect422At(await w.get(`/api/locations/${PLACE}?limit=${bad}`), ['query', 'limit']);
    expectStatus(await w.get('/api/locations/atlantis?limit=5'), 404);
    expect422At(await w.get('/api/projects?status=finished'), ['query', 'status']);
  });

  it('GET /api/organizations?location_id= lists the active organizations standing there, in pages', async () => {
    const everyone = ((await w.get<Array<{ id: number; location_id: string }>>('/api/organizations')).body);
    for (const where of [PLACE, 'emberfall']) {
      const there = everyone.filter((o) => o.location_id === where);
      assert.deepEqual(ids(await walk(w, `/api/organizations?location_id=${where}&limit=1`)), ids(there), where);
    }
    assert.deepEqual((await w.get('/api/organizations?location_id=nowhere-at-all')).body, []);
  });
});
