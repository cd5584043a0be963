// Organizations over HTTP on a real server: founding with a world-assigned treasury,
// one active organization per agent, revising, dissolving, listings and detail, and
// refusals that change nothing (core rules 2, 3, 4, 7 and 26; api-conventions errors).
import assert from 'assert/strict';
import fs from 'fs';
import { expect422At, expectStatus } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

const ORGANIZATION_FIELDS = ['id', 'name', 'kind', 'location_id', 'description', 'goals', 'motto', 'treasury', 'reputation', 'status', 'agent_id', 'travel'];

const historyCount = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.counts.history_events;

async function orgOf(w: TestWorld, id: number) {
  const r = await w.get(`/api/organizations/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

describe('organizations over HTTP: founding (core rules 3 and 4)', () => {
  let w: TestWorld;
  let founder: { id: number; key: string };
  let org: any;

  before(async () => {
    w = await startTestWorld();
    founder = await w.register('Fiona Founder');
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('refuses founding without a key (401) or with an unknown key (401)', async () => {
    expectStatus(await w.post('/api/organizations', { name: 'Keyless', kind: 'temple' }), 401);
    expectStatus(await w.post('/api/organizations', { name: 'Keyless', kind: 'temple' }, 'wsk_nobody-000000000000000000000000'), 401);
  });

  it('refuses OrganizationCreate outside its bounds with 422 at the field', async () => {
    expect422At(await w.post('/api/organizations', { kind: 'temple' }, founder.key), ['body', 'name']);
    expect422At(await w.post('/api/organizations', { name: 'ab', kind: 'temple' }, founder.key), ['body', 'name']);
    expect422At(await w.post('/api/organizations', { name: 'Good Name' }, founder.key), ['body', 'kind']);
    expect422At(await w.post('/api/organizations', { name: 'Good Name', kind: 'temple', motto: 'm'.repeat(201) }, founder.key), ['body', 'motto']);
    expect422At(await w.post('/api/organizations', { name: 'Good Name', kind: 'temple', description: 'd'.repeat(1001) }, founder.key), ['body', 'description']);
    expect422At(await w.post('/api/organizations', { name: 'Good Name', kind: 'temple', goals: 'g'.repeat(1001) }, founder.key), ['body', 'goals']);
    assert.deepEqual((await w.get(`/api/agents/${founder.id}`)).body.organizations, []);
  });

  it('refuses an unknown location with 404 and creates nothing', async () => {
    const history = await historyCount(w);
    expectStatus(await w.post('/api/organizations', { name: 'Lost Guild', kind: 'temple', location_id: 'atlantis' }, founder.key), 404);
    assert.deepEqual((await w.get(`/api/agents/${founder.id}`)).body.organizations, []);
    assert.equal(await historyCount(w), history);
  });

  it('founds with 201 at emberfall by default, with a treasury the world derives from the kind, ignoring a treasury in the body', async () => {
    const r = await w.post('/api/organizations', {
      name: 'Temple of the Quiet Bell', kind: 'temple', treasury: 999999, reputation: 5000, agent_id: 1, status: 'bankrupt',
      motto: 'Ring softly.', description: 'Bell-keepers.', goals: 'Keep the bell.',
    }, founder.key);
    assert.equal(r.status, 201, r.text);
    org = r.body;
    for (const f of ORGANIZATION_FIELDS) assert.ok(f in org, `field ${f} in ${r.text}`);
    assert.equal(org.name, 'Temple of the Quiet Bell');
    assert.equal(org.kind, 'temple');
    assert.equal(org.location_id, 'emberfall');
    assert.equal(org.motto, 'Ring softly.');
    assert.equal(org.description, 'Bell-keepers.');
    assert.equal(org.goals, 'Keep the bell.');
    assert.equal(org.agent_id, founder.id);
    assert.equal(org.status, 'active');
    assert.notEqual(org.treasury, 999999);
    assert.ok(Number.isInteger(org.treasury) && org.treasury >= 300 && org.treasury <= 1000, `treasury ${org.treasury} within 300-1000`);
    assert.notEqual(org.reputation, 5000);
    assert.equal(org.travel, null);
  });

  it('records the founding in the history', async () => {
    const events = (await w.get(`/api/events?agent_id=${founder.id}&limit=100`)).body;
    assert.ok(events.some((e: any) => e.organization_ids.includes(org.id)), JSON.stringify(events));
  });

  it('derives the same treasury for the same kind, within 300-1000 for any kind, as the profile announced before the founding', async () => {
    const kinds = ['temple', 'merchant company', 'mercenary band', 'mining workshop', 'secret society of owls', 'x'.repeat(40)];
    const treasuries = new Map<string, number>();
    for (const kind of kinds) {
      const a = await w.register();
      // A first founding is granted the whole treasury of its kind; the profile says so before it.
      const allowance = (await w.call('GET', '/api/agents/me', { key: a.key })).body.founding_allowance;
      assert.equal(allowance.share, 1);
      assert.equal(allowance.full_on_day, null);
      const r = await w.post('/api/organizations', { name: `Org of ${kind.slice(0, 20)}`, kind, treasury: 5 }, a.key);
      assert.equal(r.status, 201, r.text);
      assert.ok(r.body.treasury >= 300 && r.body.treasury <= 1000, `${kind}: ${r.body.treasury}`);
      const family = kind === 'temple' ? 'temple' : kind.startsWith('merchant') ? 'merchant' : null;
      if (family) assert.equal(allowance.granted_today[family], r.body.treasury, `${kind}: the grant the profile announced`);
      treasuries.set(kind, r.body.treasury);
    }
    assert.equal(treasuries.get('temple'), org.treasury, 'the same kind gives the same treasury');
    assert.ok(new Set(treasuries.values()).size > 1, 'the kind matters');
  });

  it('founds at a named location', async () => {
    const a = await w.register();
    const r = await w.post('/api/organizations', { name: 'Valley Sawyers', kind: 'lumber crafters', location_id: 'greenhollow' }, a.key);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.location_id, 'greenhollow');
  });

  it('refuses a second active organization with 409 and changes nothing', async () => {
    const history = await historyCount(w);
    const before = await orgOf(w, org.id);
    const listed = (await w.get('/api/organizations')).body.length;
    expectStatus(await w.post('/api/organizations', { name: 'Second Temple', kind: 'temple' }, founder.key), 409);
    assert.equal(await historyCount(w), history);
    assert.equal((await orgOf(w, org.id)).treasury, before.treasury);
    assert.equal((await w.get('/api/organizations')).body.length, listed);
    assert.deepEqual((await w.get(`/api/agents/${founder.id}`)).body.organizations.map((o: any) => o.id), [org.id]);
  });

  it('after dissolving, founds again with 201 once the founding allowance pays a first day of upkeep (409 the same day, changing nothing)', async () => {
    const d = await w.post(`/api/organizations/${org.id}/dissolve`, undefined, founder.key);
    assert.equal(d.status, 200, d.text);
    const sameDay = await w.post('/api/organizations', { name: 'Second Temple', kind: 'temple' }, founder.key);
    assert.equal(sameDay.status, 409, sameDay.text);
    assert.match(sameDay.body.detail, /would be granted only 0 gold/);
    // The ended organization's refusal points to founding again, and the profile says what that would be granted.
    const ended = await w.call('PATCH', `/api/organizations/${org.id}`, { key: founder.key, body: { motto: 'Still here?' } });
    assert.equal(ended.status, 409, ended.text);
    assert.match(ended.body.detail, /dissolved and can take no further actions; its agent may found a new organization \(POST \/api\/organizations\)/);
    const day = (await w.get('/api/world')).body.day as number;
    const allowance = (await w.call('GET', '/api/agents/me', { key: founder.key })).body.founding_allowance;
    assert.equal(allowance.share, 0, JSON.stringify(allowance));
    assert.equal(allowance.full_on_day, org.founded_day + 90);
    assert.equal(allowance.granted_today.temple, 0);
    await w.tick();
    const tomorrow = (await w.get(`/api/agents/${founder.id}`)).body.founding_allowance;
    assert.equal(tomorrow.share, Math.round(((day + 1 - org.founded_day) / 90) * 10_000) / 10_000);
    assert.equal(tomorrow.granted_today.temple, 5, 'what the founding below is granted');
    const r = await w.post('/api/organizations', { name: 'Second Temple', kind: 'temple' }, founder.key);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.treasury, 5, 'a day of the allowance refilled: 450 / 90');
    assert.notEqual(r.body.id, org.id);
    assert.equal(r.body.status, 'active');
    const profile = (await w.get(`/api/agents/${founder.id}`)).body;
    assert.deepEqual(profile.organizations.map((o: any) => o.id).sort((a: number, b: number) => a - b), [org.id, r.body.id]);
  });
});

describe('organizations over HTTP: revising and dissolving (core rules 2 and 7)', () => {
  let w: TestWorld;
  let owner: { id: number; key: string };
  let stranger: { id: number; key: string };
  let orgId: number;
  let strangerOrgId: number;

  before(async () => {
    w = await startTestWorld();
    owner = await w.register('Olga Owner');
    stranger = await w.register('Sven Stranger');
    const r = await w.post('/api/organizations', { name: 'Olga Goods', kind: 'merchant company', motto: 'Fair weights.', description: 'A shop.', goals: 'Sell.' }, owner.key);
    assert.equal(r.status, 201, r.text);
    orgId = r.body.id;
    const s = await w.post('/api/organizations', { name: 'Sven Arms', kind: 'mercenary band' }, stranger.key);
    assert.equal(s.status, 201, s.text);
    strangerOrgId = s.body.id;
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('PATCH by the controller answers 200 and changes only the fields given', async () => {
    const r = await w.call('PATCH', `/api/organizations/${orgId}`, { key: owner.key, body: { motto: 'Fairer weights.' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.motto, 'Fairer weights.');
    const org = await orgOf(w, orgId);
    assert.equal(org.motto, 'Fairer weights.');
    assert.equal(org.description, 'A shop.');
    assert.equal(org.goals, 'Sell.');
  });

  it('PATCH stores free text verbatim', async () => {
    const text = 'Quotes "double" and \'single\', <b>tags</b>, emoji 🐉, newline\nand tab\t; ünïcödé — fine.';
    const r = await w.call('PATCH', `/api/organizations/${orgId}`, { key: owner.key, body: { description: text } });
    assert.equal(r.status, 200, r.text);
    assert.equal((await orgOf(w, orgId)).description, text);
  });

  it('PATCH with null clears a field', async () => {
    const r = await w.call('PATCH', `/api/organizations/${orgId}`, { key: owner.key, body: { goals: null } });
    assert.equal(r.status, 200, r.text);
    const org = await orgOf(w, orgId);
    assert.ok(org.goals === '' || org.goals === null, `goals cleared: ${JSON.stringify(org.goals)}`);
    assert.equal(org.motto, 'Fairer weights.');
  });

  it('PATCH by another agent answers 403 and changes nothing', async () => {
    const history = await historyCount(w);
    expectStatus(await w.call('PATCH', `/api/organizations/${orgId}`, { key: stranger.key, body: { motto: 'Hijacked.' } }), 403);
    assert.equal((await orgOf(w, orgId)).motto, 'Fairer weights.');
    assert.equal(await historyCount(w), history);
  });

  it('PATCH of a seeded organization answers 403', async () => {
    const seeded = (await w.get('/api/organizations')).body.find((o: any) => o.agent_id === null);
    assert.ok(seeded, 'a seeded organization exists');
    expectStatus(await w.call('PATCH', `/api/organizations/${seeded.id}`, { key: owner.key, body: { motto: 'Mine now.' } }), 403);
    assert.notEqual((await orgOf(w, seeded.id)).motto, 'Mine now.');
  });

  it('PATCH answers 401 without a key, 404 for an unknown organization, 422 for bad input', async () => {
    expectStatus(await w.call('PATCH', `/api/organizations/${orgId}`, { body: { motto: 'No key.' } }), 401);
    expectStatus(await w.call('PATCH', '/api/organizations/999999', { key: owner.key, body: { motto: 'Nobody.' } }), 404);
    expect422At(await w.call('PATCH', `/api/organizations/${orgId}`, { key: owner.key, body: { motto: 'm'.repeat(201) } }), ['body', 'motto']);
    expect422At(await w.call('PATCH', `/api/organizations/${orgId}`, { key: owner.key, body: { goals: 7 } }), ['body', 'goals']);
    expect422At(await w.call('PATCH', '/api/organizations/abc', { key: owner.key, body: { motto: 'x' } }), ['path', 'organization_id']);
    assert.equal((await orgOf(w, orgId)).motto, 'Fairer weights.');
  });

  it('PATCH refuses a field it cannot change (a name, a treasury) with 422 at that field, changing nothing, rather than answering 200 as if it had', async () => {
    const before = await orgOf(w, orgId);
    for (const body of [{ name: 'Renamed' }, { treasury: 100000 }, { motto: 'Renamed too.', name: 'Renamed' }]) {
      const r = await w.call('PATCH', `/api/organizations/${orgId}`, { key: owner.key, body });
      expect422At(r, ['body', Object.keys(body).find((k) => k !== 'motto')!]);
      assert.equal(r.body.detail.find((d: { type: string }) => d.type === 'extra_forbidden')?.type, 'extra_forbidden', r.text);
    }
    const after = await orgOf(w, orgId);
    assert.deepEqual([after.name, after.treasury, after.motto], [before.name, before.treasury, before.motto]);
  });

  it('dissolve by another agent answers 403 and changes nothing', async () => {
    expectStatus(await w.post(`/api/organizations/${orgId}/dissolve`, undefined, stranger.key), 403);
    assert.equal((await orgOf(w, orgId)).status, 'active');
  });

  it('dissolve answers 401 without a key and 404 for an unknown organization', async () => {
    expectStatus(await w.post(`/api/organizations/${orgId}/dissolve`), 401);
    expectStatus(await w.post('/api/organizations/999999/dissolve', undefined, owner.key), 404);
  });

  it('dissolve by the controller answers 200 and the organization is dissolved', async () => {
    const r = await w.post(`/api/organizations/${orgId}/dissolve`, undefined, owner.key);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'dissolved');
    assert.equal((await orgOf(w, orgId)).status, 'dissolved');
  });

  it('a dissolved organization leaves GET /api/organizations but its detail stays readable', async () => {
    const listed = (await w.get('/api/organizations')).body;
    assert.ok(!listed.some((o: any) => o.id === orgId), 'no longer listed');
    assert.ok(listed.some((o: any) => o.id === strangerOrgId), 'others stay listed');
    const r = await w.get(`/api/organizations/${orgId}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'dissolved');
    assert.equal(r.body.name, 'Olga Goods');
    for (const f of ['members', 'projects', 'contracts', 'establishments']) assert.ok(Array.isArray(r.body[f]), `${f}: ${r.text}`);
    assert.equal(typeof r.body.holdings, 'object');
  });

  it('an ended organization can act no more: dissolve and PATCH answer 409 and change nothing', async () => {
    const history = await historyCount(w);
    expectStatus(await w.post(`/api/organizations/${orgId}/dissolve`, undefined, owner.key), 409);
    expectStatus(await w.call('PATCH', `/api/organizations/${orgId}`, { key: owner.key, body: { motto: 'Back from the grave.' } }), 409);
    assert.equal((await orgOf(w, orgId)).motto, 'Fairer weights.');
    assert.equal(await historyCount(w), history);
  });
});

describe('organizations over HTTP: listing and detail', () => {
  let w: TestWorld;
  let agent: { id: number; key: string };
  let orgId: number;

  before(async () => {
    w = await startTestWorld();
    agent = await w.register('Lena Lister');
    const r = await w.post('/api/organizations', { name: 'Lena Letters', kind: 'scholars circle' }, agent.key);
    assert.equal(r.status, 201, r.text);
    orgId = r.body.id;
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('GET /api/organizations lists only active organizations, the seeded ones with agent_id null', async () => {
    const r = await w.get('/api/organizations');
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body));
    assert.ok(r.body.every((o: any) => o.status === 'active'), r.text);
    for (const o of r.body) for (const f of ORGANIZATION_FIELDS) assert.ok(f in o, `field ${f} in ${JSON.stringify(o)}`);
    const seeded = r.body.filter((o: any) => o.agent_id === null);
    assert.ok(seeded.length >= 1, 'the seeded organizations are listed');
    assert.ok(seeded.some((o: any) => o.location_id === 'emberfall'), 'a seeded organization stands at emberfall');
    const mine = r.body.find((o: any) => o.id === orgId);
    assert.ok(mine, 'a new organization is listed');
    assert.equal(mine.agent_id, agent.id);
  });

  it('GET /api/organizations/{id} has members, projects, holdings, contracts and establishments', async () => {
    const r = await w.get(`/api/organizations/${orgId}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.id, orgId);
    for (const f of ORGANIZATION_FIELDS) assert.ok(f in r.body, `field ${f}`);
    for (const f of ['members', 'projects', 'contracts', 'establishments']) assert.ok(Array.isArray(r.body[f]), `${f}: ${r.text}`);
    assert.ok(r.body.holdings !== null && typeof r.body.holdings === 'object', r.text);
  });

  it('GET /api/organizations/{id} of a seeded organization works and shows agent_id null', async () => {
    const seeded = (await w.get('/api/organizations')).body.find((o: any) => o.agent_id === null);
    const r = await w.get(`/api/organizations/${seeded.id}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.agent_id, null);
  });

  it('GET /api/organizations/{id} answers 404 for an unknown id and 422 for a non-integer id', async () => {
    expectStatus(await w.get('/api/organizations/999999'), 404);
    expect422At(await w.get('/api/organizations/abc'), ['path', 'organization_id']);
    expect422At(await w.get('/api/organizations/2.5'), ['path', 'organization_id']);
  });
});
