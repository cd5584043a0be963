// The world's public reads over HTTP on a real server: GET /api/world, the rulebook with
// its API surface, locations and adventurers (spec parts 2, 4 and 9; core rule 12;
// api-conventions records).
import assert from 'assert/strict';
import fs from 'fs';
import { routes } from '../../http/routes';
import { expect422At, expectStatus } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

/** Every endpoint of part 4 of the specification. */
const SPEC_ENDPOINTS: Array<[string, string]> = [
  ['GET', '/api/agents'], ['GET', '/api/agents/me'], ['GET', '/api/agents/{agent_id}'], ['GET', '/api/agent-departures'],
  ['GET', '/api/suggestions'], ['GET', '/api/rules'], ['GET', '/api/world'], ['GET', '/api/world-events'], ['GET', '/api/events'],
  ['GET', '/api/events/{event_id}/investigation'], ['GET', '/api/organizations'], ['GET', '/api/organizations/{organization_id}'],
  ['GET', '/api/locations'], ['GET', '/api/locations/{location_id}'], ['GET', '/api/locations/{location_id}/gaps'],
  ['GET', '/api/adventurers'], ['GET', '/api/adventurers/{adventurer_id}'], ['GET', '/api/quests'], ['GET', '/api/quests/{quest_id}'],
  ['GET', '/api/messages'], ['GET', '/api/messages/inbox'], ['GET', '/api/messages/investigation'], ['GET', '/api/projects'],
  ['GET', '/api/production'], ['GET', '/api/establishments'], ['GET', '/api/contracts'], ['GET', '/api/contracts/{contract_id}'],
  ['GET', '/api/alliances'], ['GET', '/api/relationships'], ['GET', '/api/parties'], ['GET', '/api/market'], ['GET', '/api/market/{resource}'],
  ['POST', '/api/agents'], ['POST', '/api/agents/retire'], ['POST', '/api/suggestions'], ['PATCH', '/api/suggestions/{suggestion_id}'],
  ['POST', '/api/world-events'], ['POST', '/api/world-events/{event_id}/end'], ['POST', '/api/tick'], ['POST', '/api/organizations'],
  ['PATCH', '/api/organizations/{organization_id}'], ['POST', '/api/organizations/{organization_id}/dissolve'], ['POST', '/api/quests'],
  ['POST', '/api/quests/{quest_id}/sponsors'], ['POST', '/api/quests/{quest_id}/accept'], ['POST', '/api/quests/{quest_id}/cancel'],
  ['POST', '/api/quests/{quest_id}/complete'], ['POST', '/api/messages'], ['POST', '/api/parties'], ['POST', '/api/parties/{party_id}/members'],
  ['POST', '/api/parties/{party_id}/dispatch'], ['POST', '/api/projects'], ['POST', '/api/projects/{project_id}/cancel'], ['POST', '/api/trade'],
  ['POST', '/api/travel'], ['POST', '/api/adventurers/hire'], ['POST', '/api/adventurers/release'], ['POST', '/api/workers/hire'],
  ['POST', '/api/workers/release'], ['POST', '/api/contracts'], ['POST', '/api/contracts/{contract_id}/accept'],
  ['POST', '/api/contracts/{contract_id}/reject'], ['POST', '/api/contracts/{contract_id}/fulfill'], ['POST', '/api/alliances'],
  ['POST', '/api/alliances/{alliance_id}/accept'], ['POST', '/api/alliances/{alliance_id}/end'],
];

const TRAITS = ['brave', 'reckless', 'cautious', 'patient', 'loyal', 'curious'];

describe('world over HTTP: GET /api/world and GET /api/rules', () => {
  let w: TestWorld;
  let agent: { id: number; key: string };

  before(async () => {
    w = await startTestWorld();
    agent = await w.register('Wanda Watcher');
    assert.equal((await w.post('/api/organizations', { name: 'Wanda Lookouts', kind: 'guard' }, agent.key)).status, 201);
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('GET /api/world carries day, locations, organizations, quests and public counts', async () => {
    const r = await w.get('/api/world');
    assert.equal(r.status, 200, r.text);
    for (const f of ['day', 'locations', 'organizations', 'quests', 'counts']) assert.ok(f in r.body, `${f} in ${r.text}`);
    assert.ok(Number.isInteger(r.body.day) && r.body.day >= 1, r.text);
    assert.equal(typeof r.body.counts, 'object');
    assert.ok(Number.isInteger(r.body.counts.history_events), r.text);
    const locations = (await w.get('/api/locations')).body as any[];
    const size = (v: unknown) => (Array.isArray(v) ? v.length : v);
    assert.equal(size(r.body.locations), locations.length, 'locations: the places of the world');
    const organizations = (await w.get('/api/organizations')).body as any[];
    assert.equal(size(r.body.organizations), organizations.length, 'organizations: the active ones');
  });

  it('GET /api/world follows the clock and the history', async () => {
    const before = (await w.get('/api/world')).body;
    const day = await w.tick();
    const after = (await w.get('/api/world')).body;
    assert.equal(day, before.day + 1);
    assert.equal(after.day, day);
    assert.ok(after.counts.history_events > before.counts.history_events, 'the day added history');
  });

  it('GET /api/rules has the core rules and an api list with every endpoint of the specification', async () => {
    const r = await w.get('/api/rules');
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body.core_rules) && r.body.core_rules.length >= 20, 'the core rules');
    assert.ok(r.body.core_rules.every((rule: unknown) => typeof rule === 'string' && rule.length > 0));
    assert.ok(Array.isArray(r.body.api), r.text);
    const listed = new Set((r.body.api as any[]).map((e) => `${e.method} ${e.path}`));
    const missing = SPEC_ENDPOINTS.map(([m, p]) => `${m} ${p}`).filter((e) => !listed.has(e));
    assert.deepEqual(missing, [], 'every endpoint of the specification is listed');
  });

  it('GET /api/rules says what the route table does not: retries with Idempotency-Key, the live feed, where the API is described, and how listings page', async () => {
    const c = (await w.get('/api/rules')).body.api_conventions as Record<string, string>;
    assert.match(c.retries, /Idempotency-Key/);
    assert.match(c.retries, /24 hours/);
    assert.match(c.live_feed, /GET \/api\/events\/stream/);
    assert.match(c.documents, /\/openapi\.json/);
    assert.match(c.paging, /after_id/);
    // What it points to answers.
    for (const path of ['/openapi.json', '/docs']) assert.equal((await w.call('GET', path)).status, 200, path);
  });

  it('GET /api/rules lists exactly the routes the server answers', async () => {
    const api = (await w.get('/api/rules')).body.api as any[];
    assert.deepEqual(api.map((e) => `${e.method} ${e.path}`).sort(), routes.map((r) => `${r.method} ${r.path}`).sort());
    for (const e of api) assert.ok(e.success === 200 || e.success === 201, JSON.stringify(e));
  });

  it('GET /api/rules shows the bounds that validation enforces', async () => {
    const api = (await w.get('/api/rules')).body.api as any[];
    const find = (method: string, path: string) => {
      const e = api.find((x) => x.method === method && x.path === path);
      assert.ok(e, `${method} ${path}`);
      return e;
    };
    const agentCreate = find('POST', '/api/agents').body;
    assert.equal(agentCreate.name, 'AgentCreate');
    assert.equal(agentCreate.properties.name.min_length, 3);
    assert.equal(agentCreate.properties.name.max_length, 80);
    assert.equal(agentCreate.properties.model.min_length, 2);
    assert.equal(agentCreate.properties.model.max_length, 80);
    assert.equal(find('POST', '/api/agents').success, 201);
    const retire = find('POST', '/api/agents/retire').body.properties.reason;
    assert.equal(retire.min_length, 10);
    assert.equal(retire.max_length, 2000);
    const org = find('POST', '/api/organizations').body.properties;
    assert.equal(org.location_id.default, 'emberfall');
    assert.equal(org.motto.max_length, 200);
    assert.ok(!('treasury' in org), 'the caller never supplies a treasury');
    const events = find('GET', '/api/events').query;
    assert.equal(events.limit.minimum, 1);
    assert.equal(events.limit.maximum, 100);
    assert.equal(events.limit.default, 30);
    const investigation = find('GET', '/api/events/{event_id}/investigation').query.window_days;
    assert.equal(investigation.minimum, 0);
    assert.equal(investigation.maximum, 30);
    assert.equal(investigation.default, 3);
    assert.match(String(find('POST', '/api/tick').auth), /X-Admin-Key/);
    assert.match(String(find('GET', '/api/agent-departures').auth), /X-Admin-Key/);
    assert.match(String(find('POST', '/api/organizations').auth), /X-Agent-Key/);
    assert.equal(find('GET', '/api/agents').auth, null);
  });

  it('the bounds GET /api/rules shows are the ones enforced', async () => {
    const name = (await w.get('/api/rules')).body.api.find((x: any) => x.method === 'POST' && x.path === '/api/agents').body.properties.name;
    expect422At(await w.post('/api/agents', { name: 'n'.repeat(name.min_length - 1), model: 'mm' }), ['body', 'name']);
    assert.equal((await w.post('/api/agents', { name: 'n'.repeat(name.min_length), model: 'mm' })).status, 201);
    expect422At(await w.post('/api/agents', { name: 'n'.repeat(name.max_length + 1), model: 'mm' }), ['body', 'name']);
  });
});

describe('world over HTTP: locations and adventurers', () => {
  let w: TestWorld;

  before(async () => { w = await startTestWorld(); });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('GET /api/locations lists the places with their danger, population, monsters and routes', async () => {
    const r = await w.get('/api/locations');
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body) && r.body.length >= 2, r.text);
    const ids = new Set((r.body as any[]).map((l) => l.id));
    assert.ok(ids.has('emberfall'), 'emberfall exists');
    for (const l of r.body) {
      for (const f of ['id', 'name', 'kind', 'description', 'danger', 'population', 'monster_population', 'routes']) assert.ok(f in l, `${f} in ${JSON.stringify(l)}`);
      assert.equal(typeof l.id, 'string');
      assert.ok(l.danger >= 0 && l.danger <= 100, JSON.stringify(l));
      assert.ok(Array.isArray(l.routes));
      for (const route of l.routes) {
        assert.ok(ids.has(route.destination_id), `route to a known place: ${JSON.stringify(route)}`);
        assert.ok(route.distance_days >= 1 && route.distance_days <= 30, JSON.stringify(route));
        assert.ok(route.danger >= 0 && route.danger <= 100, JSON.stringify(route));
      }
    }
  });

  it('GET /api/locations/emberfall has its organizations, open quests, active projects and establishments, and how many of each', async () => {
    const r = await w.get('/api/locations/emberfall');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.id, 'emberfall');
    for (const f of ['organizations', 'quests', 'projects', 'establishments']) assert.ok(Array.isArray(r.body[f]), `${f}: ${r.text}`);
    const seeded = (await w.get('/api/organizations')).body.filter((o: any) => o.location_id === 'emberfall');
    assert.deepEqual(r.body.organizations.map((o: any) => o.id).sort(), seeded.map((o: any) => o.id).sort());
    // Whole records, as the listings give them; the place's own fields as GET /api/locations has them.
    const byId = (a: any, b: any) => a.id - b.id;
    assert.deepEqual([...r.body.organizations].sort(byId), [...seeded].sort(byId));
    // How many of each there are in all, and the listings that go on from lists cut short (none here).
    const { organizations: _o, quests: _q, projects: _p, establishments: _e, organization_count, quest_count, project_count, establishment_count, more, ...place } = r.body;
    assert.deepEqual({ organization_count, quest_count, project_count, establishment_count, more },
      { organization_count: seeded.length, quest_count: r.body.quests.length, project_count: r.body.projects.length, establishment_count: r.body.establishments.length, more: {} });
    assert.deepEqual(place, (await w.get('/api/locations')).body.find((l: any) => l.id === 'emberfall'));
  });

  it('GET /api/locations/{id} answers 404 with a detail for an unknown place', async () => {
    expectStatus(await w.get('/api/locations/atlantis'), 404);
    expectStatus(await w.get('/api/locations/EMBERFALL'), 404);
  });

  it('GET /api/adventurers lists the seeded pool with traits from the six trait words', async () => {
    const r = await w.get('/api/adventurers');
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body) && r.body.length >= 10, `a seeded pool: ${r.body.length}`);
    for (const a of r.body) {
      for (const f of ['id', 'name', 'strength', 'level', 'experience', 'traits', 'status', 'organization_id']) assert.ok(f in a, `${f} in ${JSON.stringify(a)}`);
      assert.ok(Number.isInteger(a.id));
      assert.ok(['available', 'employed'].includes(a.status), JSON.stringify(a));
      assert.ok(Array.isArray(a.traits) && a.traits.length >= 1, JSON.stringify(a));
      assert.ok(a.traits.every((t: string) => TRAITS.includes(t)), JSON.stringify(a.traits));
      assert.ok(a.strength > 0 && a.level >= 1 && a.experience >= 0, JSON.stringify(a));
    }
    assert.ok(r.body.some((a: any) => a.status === 'available'), 'some are available for hire');
  });

  it('GET /api/adventurers/{id} answers the profile, 404 for an unknown id and 422 for a non-integer id', async () => {
    const first = (await w.get('/api/adventurers')).body[0];
    const r = await w.get(`/api/adventurers/${first.id}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.id, first.id);
    assert.equal(r.body.name, first.name);
    assert.deepEqual(r.body.traits, first.traits);
    expectStatus(await w.get('/api/adventurers/999999'), 404);
    expect422At(await w.get('/api/adventurers/abc'), ['path', 'adventurer_id']);
  });

  it('two fresh worlds with the same seed start alike', async () => {
    const other = await startTestWorld();
    try {
      const mine = (await w.get('/api/adventurers')).body.map((a: any) => [a.id, a.name, a.traits, a.strength]);
      const theirs = (await other.get('/api/adventurers')).body.map((a: any) => [a.id, a.name, a.traits, a.strength]);
      assert.deepEqual(theirs, mine);
      assert.deepEqual((await other.get('/api/locations')).body.map((l: any) => l.id), (await w.get('/api/locations')).body.map((l: any) => l.id));
    } finally {
      await other.close();
      fs.rmSync(other.dataDir, { recursive: true, force: true });
    }
  });
});
