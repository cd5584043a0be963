// The economy over HTTP, end to end on a real server: workers, projects, establishments,
// production plans, and what bankruptcy and dissolution do to projects (core rules 5-7,
// 16 and 17). Markets, trade and travel are in economy.test.ts.
import assert from 'assert/strict';
import { expect422, expectStatus, foundOrg, historyCount, orgOf } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

async function projectOf(w: TestWorld, id: number) {
  const r = await w.get('/api/projects');
  assert.equal(r.status, 200, r.text);
  const p = (r.body as any[]).find((x) => x.id === id);
  assert.ok(p, `project ${id} is listed at GET /api/projects`);
  return p;
}

async function planOf(w: TestWorld, projectId: number) {
  const r = await w.get('/api/production');
  assert.equal(r.status, 200, r.text);
  const p = (r.body as any[]).find((x) => x.project_id === projectId);
  assert.ok(p, `plan ${projectId} is listed at GET /api/production`);
  return p;
}

async function snapshot(w: TestWorld, orgId: number) {
  const org = await orgOf(w, orgId);
  return {
    treasury: org.treasury, holdings: org.holdings, workers: org.workers, daily_maintenance: org.daily_maintenance,
    projects: org.projects.map((p: any) => ({ id: p.id, status: p.status, progress_days: p.progress_days })),
    all_projects: ((await w.get('/api/projects')).body as any[]).length,
    history: await historyCount(w),
  };
}

const project = (ownerId: number, over: Record<string, unknown> = {}) => ({
  owner_id: ownerId, title: 'The Ember Inn', kind: 'construction', description: 'an inn by the forge-temple gate',
  location_id: 'emberfall', budget: 100, duration_days: 5, ...over,
});

describe('economy over HTTP: workers (core rule 16)', () => {
  let w: TestWorld;
  let key: string;
  let orgId: number;
  let otherKey: string;

  before(async () => {
    w = await startTestWorld();
    const a = await foundOrg(w, 'Hired Hands', 'merchant company');
    key = a.key;
    orgId = a.org.id;
    otherKey = (await foundOrg(w, 'Nosy Neighbours', 'merchant guild')).key;
  });
  after(async () => { await w.close(); });

  const workers = (verb: 'hire' | 'release', body: Record<string, unknown>, k = key) => w.call('POST', `/api/workers/${verb}`, { key: k, body });

  it('hiring costs 25 gold each, at once', async () => {
    const before = await orgOf(w, orgId);
    assert.equal(before.workers, 0);
    assert.equal(before.daily_maintenance, 5);
    const r = await workers('hire', { organization_id: orgId, quantity: 3 });
    assert.equal(r.status, 200, r.text);
    const after = await orgOf(w, orgId);
    assert.equal(after.treasury, before.treasury - 75);
    assert.equal(after.workers, 3);
    assert.equal(after.daily_maintenance, 5 + 3);
    const hired = (await w.get('/api/events?category=workers')).body[0];
    assert.ok(hired.organization_ids.includes(orgId), JSON.stringify(hired));
  });

  it('upkeep is 1 gold a day each on top of the base 5', async () => {
    const before = await orgOf(w, orgId);
    const day = await w.tick();
    const after = await orgOf(w, orgId);
    assert.equal(after.treasury, before.treasury - 8);
    const paid = ((await w.get('/api/events?category=maintenance&limit=100')).body as any[])
      .find((e) => e.organization_ids.includes(orgId) && e.day === day);
    assert.ok(paid, "the day's upkeep is in the history");
    assert.equal(paid.data.cost, 8);
    assert.equal(paid.data.paid, 8);
  });

  it('refuses to release more workers than it has (409), changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await workers('release', { organization_id: orgId, quantity: 4 }), 409);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('releasing lowers the upkeep', async () => {
    const r = await workers('release', { organization_id: orgId, quantity: 1 });
    assert.equal(r.status, 200, r.text);
    const before = await orgOf(w, orgId);
    assert.equal(before.workers, 2);
    assert.equal(before.daily_maintenance, 7);
    await w.tick();
    assert.equal((await orgOf(w, orgId)).treasury, before.treasury - 7);
  });

  it('refuses to hire more than the treasury affords (409), changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    const quantity = Math.floor(snap.treasury / 25) + 1;
    expectStatus(await workers('hire', { organization_id: orgId, quantity }), 409);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('refuses a stranger (403), an unknown organization (404) and a bad quantity (422)', async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await workers('hire', { organization_id: orgId, quantity: 1 }, otherKey), 403);
    expectStatus(await workers('release', { organization_id: orgId, quantity: 1 }, otherKey), 403);
    expectStatus(await workers('hire', { organization_id: 999999, quantity: 1 }), 404);
    expect422(await workers('hire', { organization_id: orgId, quantity: 0 }), 'quantity');
    expect422(await workers('release', { organization_id: orgId, quantity: 10001 }), 'quantity');
    assert.deepEqual(await snapshot(w, orgId), snap);
  });
});

describe('economy over HTTP: projects and establishments (core rule 17)', () => {
  let w: TestWorld;
  let key: string;
  let orgId: number;
  let otherKey: string;
  let innId: number;
  let innDays: number;

  before(async () => {
    w = await startTestWorld();
    const a = await foundOrg(w, 'Hearth Builders', 'merchant company');
    key = a.key;
    orgId = a.org.id;
    otherKey = (await foundOrg(w, 'Jealous Rivals', 'merchant guild')).key;
  });
  after(async () => { await w.close(); });

  const start = (body: Record<string, unknown>, k = key) => w.call('POST', '/api/projects', { key: k, body });
  const cancel = (id: number, k = key) => w.call('POST', `/api/projects/${id}/cancel`, { key: k });

  it('reserves the whole budget at once', async () => {
    const before = await orgOf(w, orgId);
    const r = await start(project(orgId, { budget: 200, duration_days: 3, establishment_kind: 'inn' }));
    assert.equal(r.status, 201, r.text);
    innId = r.body.id;
    innDays = 3;
    assert.equal(typeof innId, 'number');
    assert.equal(r.body.status, 'active');
    assert.equal(r.body.owner_id, orgId);
    assert.equal(r.body.budget, 200);
    assert.equal(r.body.progress_days, 0);
    assert.equal((await orgOf(w, orgId)).treasury, before.treasury - 200);
    assert.equal((await projectOf(w, innId)).status, 'active');
    const detail = await orgOf(w, orgId);
    assert.ok(detail.projects.some((p: any) => p.id === innId), 'the organization detail lists its project');
    const here = (await w.get('/api/locations/emberfall')).body;
    assert.ok(here.projects.some((p: any) => p.id === innId), 'the location lists the project');
    const started = (await w.get('/api/events?category=project')).body[0];
    assert.ok(started.organization_ids.includes(orgId), JSON.stringify(started));
  });

  it('refuses a project elsewhere (409), beyond the treasury (409), a stranger (403), unknown ids (404), bad input (422)', async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await start(project(orgId, { location_id: 'greenhollow' })), 409);
    expectStatus(await start(project(orgId, { budget: snap.treasury + 1 })), 409);
    expectStatus(await start(project(orgId), otherKey), 403);
    expectStatus(await start(project(orgId, { location_id: 'atlantis' })), 404);
    expectStatus(await start(project(999999)), 404);
    expect422(await start(project(orgId, { duration_days: 0 })), 'duration_days');
    expect422(await start(project(orgId, { budget: 0 })), 'budget');
    expect422(await start(project(orgId, { output_quantity: 10001 })), 'output_quantity');
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('cancelling an active project returns half of its unused budget; a second cancel is refused', async () => {
    const r = await start(project(orgId, { title: 'Grand Granary', budget: 100, duration_days: 10 }));
    assert.equal(r.status, 201, r.text);
    const id = r.body.id;
    await w.tick(); // one day of work on both projects
    const p = await projectOf(w, id);
    assert.equal(p.progress_days, 1);
    assert.equal(p.spent, 10, 'a tenth of the budget is spent after one day of ten');
    const before = await orgOf(w, orgId);
    const c = await cancel(id);
    assert.equal(c.status, 200, c.text);
    assert.equal(c.body.status, 'cancelled');
    assert.equal((await orgOf(w, orgId)).treasury, before.treasury + 45, 'half of the 90 unused gold comes back');
    assert.equal((await projectOf(w, id)).status, 'cancelled');
    const snap = await snapshot(w, orgId);
    expectStatus(await cancel(id), 409);
    expectStatus(await cancel(999999), 404);
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('refuses another agent cancelling (403), changing nothing', async () => {
    const snap = await snapshot(w, orgId);
    expectStatus(await cancel(innId, otherKey), 403);
    assert.equal((await projectOf(w, innId)).status, 'active');
    assert.deepEqual(await snapshot(w, orgId), snap);
  });

  it('progresses once per day and completes after duration_days, opening an establishment', async () => {
    let p = await projectOf(w, innId);
    assert.equal(p.progress_days, 1, 'one day has passed since it started');
    while (p.progress_days < innDays - 1) {
      const was = p.progress_days;
      await w.tick();
      p = await projectOf(w, innId);
      assert.equal(p.progress_days, was + 1, 'one step per day');
      assert.equal(p.status, 'active');
    }
    assert.equal((await w.get('/api/establishments?location_id=emberfall&kind=inn')).body.length, 0, 'no inn before completion');
    await w.tick();
    p = await projectOf(w, innId);
    assert.equal(p.status, 'completed');
    assert.equal(p.progress_days, innDays);

    const listed = await w.get('/api/establishments?location_id=emberfall&kind=inn');
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.length, 1, listed.text);
    const inn = listed.body[0];
    assert.equal(inn.kind, 'inn');
    assert.equal(inn.location_id, 'emberfall');
    assert.equal(inn.name, 'The Ember Inn');
    assert.equal(inn.organization_id, orgId);
    assert.equal((await w.get('/api/establishments?location_id=emberfall&kind=smithy')).body.length, 0, 'the kind filter filters');
    assert.equal((await w.get('/api/establishments?location_id=greenhollow')).body.length, 0, 'the location filter filters');
    assert.ok((await w.get('/api/establishments')).body.some((e: any) => e.kind === 'inn'));
    const here = (await w.get('/api/locations/emberfall')).body;
    assert.ok(here.establishments.some((e: any) => e.kind === 'inn' && e.organization_id === orgId), JSON.stringify(here.establishments));
    const detail = await orgOf(w, orgId);
    assert.ok(detail.establishments.some((e: any) => e.kind === 'inn'), JSON.stringify(detail.establishments));
    const gaps = (await w.get('/api/locations/emberfall/gaps')).body;
    assert.ok(!gaps.observations.some((o: any) => o.kind === 'missing_service' && o.service === 'inn'), 'emberfall no longer lacks an inn');
    assert.ok(gaps.observations.some((o: any) => o.kind === 'missing_service' && o.service === 'smithy'), 'it still lacks a smithy');
    expectStatus(await cancel(innId), 409);
  });

  it("adds a non-production project's output to holdings on completion", async () => {
    const r = await start(project(orgId, { title: 'Clear the east wood', kind: 'clearing', budget: 120, duration_days: 2, output_resource: 'timber', output_quantity: 30 }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.production_plan, false);
    const before = (await orgOf(w, orgId)).holdings.timber ?? 0;
    await w.tick();
    assert.equal((await orgOf(w, orgId)).holdings.timber ?? 0, before, 'nothing before completion');
    await w.tick();
    assert.equal((await projectOf(w, r.body.id)).status, 'completed');
    assert.equal((await orgOf(w, orgId)).holdings.timber, before + 30);
  });
});

describe('economy over HTTP: production plans (core rule 16)', () => {
  let w: TestWorld;
  let key: string;
  let orgId: number;
  let planId: number;

  before(async () => {
    w = await startTestWorld();
    const a = await foundOrg(w, 'Valley Timber Co', 'merchant company');
    key = a.key;
    orgId = a.org.id;
  });
  after(async () => { await w.close(); });

  it('a production plan declares its workforce: one worker per 5 a day, rounded up', async () => {
    const r = await w.call('POST', '/api/projects', {
      key, body: project(orgId, { title: 'Timber yard', kind: 'production', budget: 200, duration_days: 10, output_resource: 'timber', output_quantity: 10 }),
    });
    assert.equal(r.status, 201, r.text);
    planId = r.body.id;
    assert.equal(r.body.production_plan, true);
    const plan = await planOf(w, planId);
    assert.equal(plan.workers_required, 2);
    assert.equal(plan.resource, 'timber');
    assert.equal(plan.quantity_per_day, 10);
    assert.equal(plan.owner_id, orgId);
    assert.equal(plan.status, 'active');
    assert.equal(plan.staffed, null, 'before its first day nothing says whether it is staffed');
  });

  it('understaffed, it stays active and produces nothing', async () => {
    assert.equal((await orgOf(w, orgId)).workers, 0);
    await w.tick();
    const plan = await planOf(w, planId);
    assert.equal(plan.status, 'active');
    assert.equal(plan.staffed, false);
    assert.equal(plan.produced_total, 0);
    assert.equal((await orgOf(w, orgId)).holdings.timber, undefined);
    assert.equal((await projectOf(w, planId)).progress_days, 1, 'the plan still runs its days');
  });

  it('staffed with 2 workers, it produces 10 timber a day', async () => {
    const h = await w.call('POST', '/api/workers/hire', { key, body: { organization_id: orgId, quantity: 2 } });
    assert.equal(h.status, 200, h.text);
    await w.tick();
    let plan = await planOf(w, planId);
    assert.equal(plan.staffed, true);
    assert.equal(plan.produced_total, 10);
    assert.equal((await orgOf(w, orgId)).holdings.timber, 10);
    await w.tick();
    plan = await planOf(w, planId);
    assert.equal(plan.produced_total, 20);
    assert.equal((await orgOf(w, orgId)).holdings.timber, 20);
    const made = ((await w.get('/api/events?category=production')).body as any[]).find((e) => e.organization_ids.includes(orgId));
    assert.ok(made, 'production is in the history');
  });

  it('losing a worker stops production again', async () => {
    const r = await w.call('POST', '/api/workers/release', { key, body: { organization_id: orgId, quantity: 1 } });
    assert.equal(r.status, 200, r.text);
    await w.tick();
    const plan = await planOf(w, planId);
    assert.equal(plan.staffed, false);
    assert.equal(plan.status, 'active');
    assert.equal((await orgOf(w, orgId)).holdings.timber, 20);
  });

  it('rounds the workforce up: 11 a day needs 3 workers', async () => {
    const b = await foundOrg(w, 'Ore Diggers', 'merchant company');
    const r = await w.call('POST', '/api/projects', {
      key: b.key, body: project(b.org.id, { title: 'Ore pit', kind: 'production', budget: 330, duration_days: 10, output_resource: 'ore', output_quantity: 11 }),
    });
    assert.equal(r.status, 201, r.text);
    assert.equal((await planOf(w, r.body.id)).workers_required, 3);
  });
});

describe('economy over HTTP: bankruptcy and dissolution cancel active projects (core rules 6 and 7)', () => {
  let w: TestWorld;
  before(async () => { w = await startTestWorld(); });
  after(async () => { await w.close(); });

  it('bankruptcy cancels active projects', async () => {
    const a = await foundOrg(w, 'Overreaching Scholars', 'scholars circle');
    const orgId = a.org.id;
    const treasury = a.org.treasury;
    const r = await w.call('POST', '/api/projects', {
      key: a.key, body: project(orgId, { title: 'Great Library', budget: treasury - 12, duration_days: 300 }),
    });
    assert.equal(r.status, 201, r.text);
    assert.equal((await orgOf(w, orgId)).treasury, 12);
    let org = await orgOf(w, orgId);
    for (let i = 0; i < 10 && org.status === 'active'; i++) {
      await w.tick();
      org = await orgOf(w, orgId);
    }
    assert.equal(org.status, 'bankrupt');
    assert.equal(org.treasury, 0);
    const p = await projectOf(w, r.body.id);
    assert.equal(p.status, 'cancelled');
    assert.ok(!org.projects.some((x: any) => x.id === r.body.id), 'a cancelled project leaves what the organization has now');
    const cancelled = (await w.get(`/api/projects?organization_id=${orgId}&status=cancelled`)).body as any[];
    assert.deepEqual(cancelled.map((x) => x.id), [r.body.id], 'the listing of its cancelled projects has it');
    assert.ok(!((await w.get('/api/organizations')).body as any[]).some((o) => o.id === orgId), 'it leaves the active listing');
    const progress = p.progress_days;
    await w.tick();
    assert.equal((await projectOf(w, r.body.id)).progress_days, progress, 'a cancelled project no longer progresses');
    expectStatus(await w.call('POST', `/api/projects/${r.body.id}/cancel`, { key: a.key }), 409);
    expectStatus(await w.call('POST', '/api/trade', { key: a.key, body: { organization_id: orgId, resource: 'food', side: 'buy', quantity: 1 } }), 409);
    expectStatus(await w.call('POST', '/api/workers/hire', { key: a.key, body: { organization_id: orgId, quantity: 1 } }), 409);
  });

  it('dissolution cancels active projects', async () => {
    const a = await foundOrg(w, 'Short-lived Guild', 'merchant guild');
    const orgId = a.org.id;
    const r = await w.call('POST', '/api/projects', { key: a.key, body: project(orgId, { title: 'Half-built Hall', budget: 100, duration_days: 20 }) });
    assert.equal(r.status, 201, r.text);
    const d = await w.call('POST', `/api/organizations/${orgId}/dissolve`, { key: a.key });
    assert.equal(d.status, 200, d.text);
    assert.equal((await orgOf(w, orgId)).status, 'dissolved');
    assert.equal((await projectOf(w, r.body.id)).status, 'cancelled');
    expectStatus(await w.call('POST', `/api/projects/${r.body.id}/cancel`, { key: a.key }), 409);
    expectStatus(await w.call('POST', '/api/projects', { key: a.key, body: project(orgId) }), 409);
  });
});
