// An organization's answer (GET /api/organizations/{id}) lists what it has now: its living
// members, active projects, live contracts and alliances, parties and establishments, each
// cut to `limit` items (default 100), with how many there are in all and, for a list cut
// short, the listing that goes on from it (docs/decisions.md, "An organization answers what
// it has now"). What has ended is in the listings, which filter by organization.
import assert from 'assert/strict';
import fs from 'fs';
import { LIVE_CONTRACT_ROWS_WRITTEN } from '../../actors/contract/live-rows';
import type { PersistedEvent } from '../../actors/ports/store';
import { expect422At, expectStatus, foundOrg, walkPages } from '../support/http';
import { startTestWorld, tempDir, type TestWorld } from '../support/world';

interface Listed { id: number; status?: string }
interface OrganizationAnswer {
  id: number;
  members: Array<Listed & { moments?: unknown }>; projects: Listed[]; contracts: Listed[]; alliances: Listed[]; parties: Listed[]; establishments: Listed[];
  member_count: number; project_count: number; contract_count: number; alliance_count: number; party_count: number; establishment_count: number;
  more: Record<string, string>;
}

const ids = (xs: Listed[]) => xs.map((x) => x.id);

describe('an organization lists what it has now, in bounded lists', () => {
  let w: TestWorld;
  let a: Awaited<ReturnType<typeof foundOrg>>;
  let b: Awaited<ReturnType<typeof foundOrg>>;
  let c: Awaited<ReturnType<typeof foundOrg>>;
  const view = async (org: number, query = ''): Promise<OrganizationAnswer> => {
    const r = await w.get<OrganizationAnswer>(`/api/organizations/${org}${query}`);
    expectStatus(r, 200);
    return r.body;
  };
  const contract = (proposer: number, counterparty: number, title: string) => ({
    proposer_id: proposer, counterparty_id: counterparty, title, terms: 'Ten gold for a promise kept.', value: 10, resource: null,
  });

  before(async () => {
    w = await startTestWorld();
    a = await foundOrg(w, 'Amber Holders');
    b = await foundOrg(w, 'Birch Holders');
    c = await foundOrg(w, 'Cedar Holders');
  });
  after(async () => { await w.close(); });

  it('lists live contracts of either side only, counts them, and links the listing of the live ones that goes on', async () => {
    const made: number[] = [];
    for (const [from, to, title] of [[a, b, 'Timber for Birch'], [b, a, 'Tools for Amber'], [a, c, 'Grain for Cedar'], [c, a, 'Salt for Amber']] as const) {
      const r = await w.post<{ id: number }>('/api/contracts', contract(from.org.id, to.org.id, title), from.key);
      expectStatus(r, 201);
      made.push(r.body.id);
    }
    expectStatus(await w.post(`/api/contracts/${made[1]}/accept`, { organization_id: a.org.id }, a.key), 200);
    expectStatus(await w.post(`/api/contracts/${made[2]}/reject`, { organization_id: c.org.id }, c.key), 200);
    const live = [made[0], made[1], made[3]];

    const whole = await view(a.org.id);
    assert.deepEqual(ids(whole.contracts), live, 'proposed and accepted ones, proposed by it or offered to it, in id order; the rejected one is not');
    assert.equal(whole.contract_count, 3);
    assert.equal(whole.more.contracts, undefined, 'nothing more to read');
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/contracts?organization_id=${a.org.id}`)), made, 'the listing has every one, the rejected one too');
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/contracts?organization_id=${a.org.id}&status=rejected`)), [made[2]]);

    const cut = await view(a.org.id, '?limit=2');
    assert.deepEqual(ids(cut.contracts), live.slice(0, 2));
    assert.equal(cut.contract_count, 3, 'the count is of them all, not of the list');
    assert.equal(cut.more.contracts, `/api/contracts?organization_id=${a.org.id}&status=proposed%2Caccepted&after_id=${live[1]}&limit=2`);
    assert.deepEqual([...ids(cut.contracts), ...ids(await walkPages<Listed>(w, cut.more.contracts))], live, 'the listing goes on where the answer stopped, none twice, none missed');
  });

  it('lists live alliances only: an ended one leaves it (and stays in GET /api/alliances)', async () => {
    const ab = await w.post<{ id: number }>('/api/alliances', { proposer_id: a.org.id, counterparty_id: b.org.id, terms: 'Shared roads and shared watch.' }, a.key);
    expectStatus(ab, 201);
    const ca = await w.post<{ id: number }>('/api/alliances', { proposer_id: c.org.id, counterparty_id: a.org.id, terms: 'Shared wells and shared walls.' }, c.key);
    expectStatus(ca, 201);
    expectStatus(await w.post(`/api/alliances/${ab.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
    assert.deepEqual(ids((await view(a.org.id)).alliances), [ab.body.id, ca.body.id]);
    expectStatus(await w.post(`/api/alliances/${ab.body.id}/end`, { organization_id: a.org.id }, a.key), 200);
    const now = await view(a.org.id);
    assert.deepEqual(ids(now.alliances), [ca.body.id]);
    assert.equal(now.alliance_count, 1);
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/alliances?organization_id=${a.org.id}&status=ended`)), [ab.body.id]);
    const cut = await view(a.org.id, '?limit=1');
    assert.deepEqual([cut.alliance_count, cut.more.alliances], [1, undefined], 'one live alliance fits a list of one');
  });

  it('lists living members and active projects, each with its listing; members=brief still applies', async () => {
    const available = (await w.get<Listed[]>('/api/adventurers?status=available&limit=3')).body;
    assert.equal(available.length, 3);
    for (const adventurer of available) expectStatus(await w.post('/api/adventurers/hire', { organization_id: b.org.id, adventurer_id: adventurer.id }, b.key), 200);
    const members = await view(b.org.id, '?limit=2');
    assert.deepEqual(ids(members.members), ids(available).slice(0, 2));
    assert.equal(members.member_count, 3);
    assert.equal(members.more.members, `/api/adventurers?organization_id=${b.org.id}&status=employed&after_id=${available[1].id}&limit=2`);
    assert.deepEqual(ids(await walkPages<Listed>(w, members.more.members)), [available[2].id]);
    const brief = await view(b.org.id, '?limit=2&members=brief');
    assert.ok(brief.members.length === 2 && brief.members.every((m) => m.moments === undefined), 'brief members leave out their moments');
    assert.ok(members.members.every((m) => Array.isArray(m.moments)), 'full members carry them');

    const started: number[] = [];
    for (const title of ['The long barn', 'The deep well', 'The high wall']) {
      const r = await w.post<{ id: number }>('/api/projects', {
        owner_id: b.org.id, title, kind: 'construction', description: 'Something to last the winter.', location_id: b.org.location_id, budget: 20, duration_days: 30,
      }, b.key);
      expectStatus(r, 201);
      started.push(r.body.id);
    }
    expectStatus(await w.post(`/api/projects/${started[0]}/cancel`, undefined, b.key), 200);
    const now = await view(b.org.id, '?limit=1');
    assert.deepEqual(ids(now.projects), [started[1]]);
    assert.equal(now.project_count, 2);
    assert.equal(now.more.projects, `/api/projects?organization_id=${b.org.id}&status=active&after_id=${started[1]}&limit=1`);
    assert.deepEqual(ids(await walkPages<Listed>(w, now.more.projects)), [started[2]]);
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/projects?organization_id=${b.org.id}`)), started, 'the listing of its projects, any status');
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/projects?organization_id=${b.org.id}&status=cancelled`)), [started[0]]);
    assert.deepEqual(await walkPages<Listed>(w, `/api/projects?organization_id=${a.org.id}`), [], 'none of another organization');
  });

  it('lists its parties and establishments, and the listings filter by organization', async () => {
    const formed: number[] = [];
    for (const name of ['First Watch', 'Second Watch']) {
      const r = await w.post<{ id: number }>('/api/parties', { organization_id: c.org.id, name }, c.key);
      expectStatus(r, 201);
      formed.push(r.body.id);
    }
    const cut = await view(c.org.id, '?limit=1');
    assert.deepEqual([ids(cut.parties), cut.party_count], [[formed[0]], 2]);
    assert.equal(cut.more.parties, `/api/parties?organization_id=${c.org.id}&after_id=${formed[0]}&limit=1`);
    assert.deepEqual(ids(await walkPages<Listed>(w, cut.more.parties)), [formed[1]]);
    assert.deepEqual(await walkPages<Listed>(w, `/api/parties?organization_id=${a.org.id}`), [], 'none of another organization');

    // Two projects of a day each open two establishments at the next tick.
    for (const [title, kind] of [['The Cedar Inn', 'inn'], ['The Cedar Watchtower', 'watchtower']]) {
      expectStatus(await w.post('/api/projects', {
        owner_id: c.org.id, title, kind: 'construction', description: 'Built to stand for a hundred years.', location_id: c.org.location_id,
        budget: 100, duration_days: 1, establishment_kind: kind,
      }, c.key), 201);
    }
    await w.tick();
    const everywhere = await walkPages<Listed>(w, '/api/establishments') as Array<Listed & { organization_id: number | null }>;
    const theirs = everywhere.filter((e) => e.organization_id === c.org.id);
    assert.equal(theirs.length, 2, JSON.stringify(everywhere));
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/establishments?organization_id=${c.org.id}`)), ids(theirs));
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/establishments?organization_id=${c.org.id}&location_id=${c.org.location_id}&kind=inn`)), [theirs[0].id], 'with the other filters');
    const held = await view(c.org.id, '?limit=1');
    assert.deepEqual([ids(held.establishments), held.establishment_count], [[theirs[0].id], 2]);
    assert.equal(held.more.establishments, `/api/establishments?organization_id=${c.org.id}&after_id=${theirs[0].id}&limit=1`);
    assert.deepEqual(ids(await walkPages<Listed>(w, held.more.establishments)), [theirs[1].id]);
    assert.deepEqual(await walkPages<Listed>(w, `/api/establishments?organization_id=${a.org.id}`), [], 'none of another organization');
  });

  it('answers the same lists when dissolved: nothing live is left', async () => {
    const d = await foundOrg(w, 'Dogwood Holders');
    expectStatus(await w.post('/api/contracts', contract(d.org.id, a.org.id, 'Rope for Amber'), d.key), 201);
    const r = await w.post<OrganizationAnswer & { status: string }>(`/api/organizations/${d.org.id}/dissolve`, undefined, d.key);
    expectStatus(r, 200);
    assert.equal(r.body.status, 'dissolved');
    assert.deepEqual([r.body.members, r.body.projects, r.body.parties, r.body.more], [[], [], [], {}]);
  });

  it('refuses a limit out of 1-500 and an unknown status word (422); 404 for an unknown organization', async () => {
    for (const bad of ['0', '501', 'many', '-1', '2.5']) expect422At(await w.get(`/api/organizations/${a.org.id}?limit=${bad}`), ['query', 'limit']);
    expectStatus(await w.get('/api/organizations/999999?limit=5'), 404);
    for (const bad of ['proposed,', 'proposed,friendly', ',accepted', 'PROPOSED']) expect422At(await w.get(`/api/contracts?status=${bad}`), ['query', 'status']);
    expect422At(await w.get('/api/alliances?status=active,friendly'), ['query', 'status']);
    expect422At(await w.get('/api/parties?organization_id=zero'), ['query', 'organization_id']);
    expect422At(await w.get('/api/establishments?organization_id=0'), ['query', 'organization_id']);
    expect422At(await w.get('/api/projects?organization_id=-3'), ['query', 'organization_id']);
    const either = (await w.get<Listed[]>('/api/contracts?status=rejected,proposed')).body;
    assert.ok(either.length > 0 && either.every((x) => x.status === 'rejected' || x.status === 'proposed'), 'several statuses, in any order');
  });
});

describe('live contracts in a world of an older version (their rows carry no status to select the live ones by)', function () {
  this.timeout(120_000);

  it('has every live contract write its row again at the next start, once, so the organizations list it again', async () => {
    const dataDir = tempDir('worldsim-live-contracts-');
    // One node: the older version's row is written straight through its store.
    let w = await startTestWorld({ dataDir, nodes: 1 });
    try {
      const a = await foundOrg(w, 'Older Amber Holders');
      const b = await foundOrg(w, 'Older Birch Holders');
      const made: number[] = [];
      for (const title of ['Timber for Birch', 'Rope for Birch', 'Nails for Birch']) {
        const r = await w.post<{ id: number }>('/api/contracts', { proposer_id: a.org.id, counterparty_id: b.org.id, title, terms: 'Ten gold for a promise kept.', value: 10, resource: null }, a.key);
        expectStatus(r, 201);
        made.push(r.body.id);
      }
      expectStatus(await w.post(`/api/contracts/${made[1]}/accept`, { organization_id: b.org.id }, b.key), 200);
      expectStatus(await w.post(`/api/contracts/${made[2]}/reject`, { organization_id: b.org.id }, b.key), 200);
      const listed = async (org: number) => {
        const body = (await w.get<OrganizationAnswer>(`/api/organizations/${org}`)).body;
        return [ids(body.contracts), body.contract_count];
      };
      assert.deepEqual(await listed(a.org.id), [made.slice(0, 2), 2]);
      // As an older version's Cassandra keyspace left them: the rows without the status column, and no mark.
      const event = { key: 'test:older-rows', sequenceNumber: 1, createdAt: Date.now(), data: { events: [] }, tags: [], isDeleted: false } as unknown as PersistedEvent;
      const rows = await Promise.all(made.map(async (id) => ({ kind: 'contract', id, organization_id: a.org.id, agent_id: b.org.id, doc: (await w.services.store.row<Record<string, unknown>>('contract', id))! })));
      await w.services.store.engine.persist(event, { rows });
      await w.services.store.setSetting(LIVE_CONTRACT_ROWS_WRITTEN, '');
      assert.deepEqual(await listed(b.org.id), [[], 0], 'the live ones are missed without their status');
      await w.close();

      w = await startTestWorld({ dataDir, nodes: 1 });
      assert.deepEqual(await listed(a.org.id), [made.slice(0, 2), 2], 'written again at the start: the proposed and the accepted one');
      assert.deepEqual(await listed(b.org.id), [made.slice(0, 2), 2], 'on the other side too');
      assert.ok(await w.services.store.setting(LIVE_CONTRACT_ROWS_WRITTEN), 'marked written: the next start asks nobody again');
      assert.deepEqual(ids(await walkPages<Listed>(w, `/api/contracts?organization_id=${a.org.id}&status=rejected`)), [made[2]], 'the ended one is read by its document');
      const history = (await w.get<Array<{ summary: string }>>(`/api/events?organization_id=${a.org.id}&limit=100`)).body;
      assert.equal(history.filter((e) => /Timber for Birch/.test(e.summary)).length, 1, 'writing a row again tells the history nothing');
    } finally {
      await w.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
