// Agents over HTTP on a real server: registration (the key is shown once), listings and
// profiles without keys, key checks, retirement with a private reason, the operator's
// departures, and the rule that an agent's own key never enters public free text
// (spec parts 2, 4, 5; core rules 25 and 26; api-conventions errors).
import assert from 'assert/strict';
import fs from 'fs';
import sinon from 'sinon';
import { expect422At, expectStatus, propertyNames, sha256 } from '../support/http';
import { AGENTS_TOLD_OF_ENDS } from '../../actors/agent/ended-before';
import { startTestWorld, tempDir, type TestWorld } from '../support/world';

const historyCount = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.counts.history_events;

/**
 * Dissolves the organization as a version before the end's follow-up told the agent: the
 * agent never hears of the end (its `own-organization-ended` is answered and dropped).
 */
async function dissolveUntold(w: TestWorld, orgId: number, key: string): Promise<void> {
  const ask = w.services.entities.ask.bind(w.services.entities);
  const stub = sinon.stub(w.services.entities, 'ask').callsFake(((kind: string, id: string | number, command: { type: string }, timeout?: number) =>
    (command.type === 'own-organization-ended' ? Promise.resolve({ ok: true, value: null }) : ask(kind as never, id, command as never, timeout))) as never);
  try {
    expectStatus(await w.post(`/api/organizations/${orgId}/dissolve`, undefined, key), 200);
  } finally {
    stub.restore();
  }
}

describe('agents over HTTP: registration and reading', () => {
  let w: TestWorld;
  let alice: { id: number; key: string; body: any };

  before(async () => {
    w = await startTestWorld();
    const r = await w.post('/api/agents', { name: 'Alice Anvil', model: 'test-model-a' });
    assert.equal(r.status, 201, r.text);
    alice = { id: r.body.id, key: r.body.api_key, body: r.body };
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('POST /api/agents answers 201 with the agent record and its api_key', () => {
    assert.ok(Number.isInteger(alice.id) && alice.id > 0, JSON.stringify(alice.body));
    assert.equal(alice.body.name, 'Alice Anvil');
    assert.equal(alice.body.model, 'test-model-a');
    assert.equal(alice.body.status, 'active');
    assert.equal(typeof alice.key, 'string');
    assert.ok(alice.key.length >= 20, 'a key long enough to be secret');
  });

  it('names no current organization once it has ended, also in a world whose end never told the agent (an older version\'s)', async () => {
    const agent = await w.register('Ulla Unwound');
    const org = (await w.post('/api/organizations', { name: 'Unwound House', kind: 'merchant company' }, agent.key)).body;
    await dissolveUntold(w, org.id, agent.key);
    const me = (await w.get('/api/agents/me', agent.key)).body;
    assert.equal(me.current_organization_id, null, 'read as the organizations say');
    assert.deepEqual(me.organization_ids, [org.id]);
    assert.equal((await w.get(`/api/agents/${agent.id}`)).body.current_organization_id, null);
  });

  it('tells, at the next start, an agent whose organization ended in a world older than that step: every listing then names no current organization', async () => {
    const dataDir = tempDir('worldsim-told-');
    // One node: the stub below stands for the older version in the one process that follows the end up.
    let world = await startTestWorld({ dataDir, nodes: 1 });
    try {
      const agent = await world.register('Olga Older');
      const org = (await world.post('/api/organizations', { name: 'Older House', kind: 'merchant company' }, agent.key)).body;
      await dissolveUntold(world, org.id, agent.key);
      const listed = async () => ((await world.get('/api/agents')).body as Array<{ id: number; current_organization_id: number | null }>).find((a) => a.id === agent.id)!;
      assert.equal((await listed()).current_organization_id, org.id, 'the listing still names it, as an older world kept it');
      // An older world never marked its agents told.
      await world.services.store.setSetting(AGENTS_TOLD_OF_ENDS, '');
      await world.close();
      world = await startTestWorld({ dataDir, nodes: 1 });
      assert.equal((await listed()).current_organization_id, null, 'told at the start');
      assert.equal((await world.get(`/api/agents/${agent.id}`)).body.current_organization_id, null);
      assert.ok(await world.services.store.setting(AGENTS_TOLD_OF_ENDS), 'marked told: the next start reads nothing again');
    } finally {
      await world.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('gives every agent a different key and id', async () => {
    const r = await w.post('/api/agents', { name: 'Bertram Bellows', model: 'test-model-b' });
    assert.equal(r.status, 201, r.text);
    assert.notEqual(r.body.id, alice.id);
    assert.notEqual(r.body.api_key, alice.key);
  });

  it('refuses AgentCreate outside its bounds with 422 at the field, and creates nothing', async () => {
    const before = (await w.get('/api/agents')).body.length;
    expect422At(await w.post('/api/agents', { name: 'ab', model: 'test-model' }), ['body', 'name']);
    expect422At(await w.post('/api/agents', { name: 'x'.repeat(81), model: 'test-model' }), ['body', 'name']);
    expect422At(await w.post('/api/agents', { name: 'Long Enough', model: 'm' }), ['body', 'model']);
    expect422At(await w.post('/api/agents', { name: 'Long Enough' }), ['body', 'model']);
    expect422At(await w.post('/api/agents', { name: 42, model: 'test-model' }), ['body', 'name']);
    assert.equal((await w.get('/api/agents')).body.length, before);
  });

  it('accepts names at the bounds (3 and 80 characters)', async () => {
    assert.equal((await w.post('/api/agents', { name: 'Abe', model: 'm2' })).status, 201);
    assert.equal((await w.post('/api/agents', { name: 'y'.repeat(80), model: 'm'.repeat(80) })).status, 201);
  });

  it('GET /api/agents lists agents with no key and no key hash', async () => {
    const r = await w.get('/api/agents');
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body));
    const me = r.body.find((a: any) => a.id === alice.id);
    assert.ok(me, 'alice is listed');
    assert.equal(me.name, 'Alice Anvil');
    const names = propertyNames(r.body);
    assert.ok(!names.has('api_key') && !names.has('key_hash'), `no key fields: ${[...names].join(', ')}`);
    assert.ok(!r.text.includes(alice.key), 'the key is not shown again');
    assert.ok(!r.text.includes(sha256(alice.key)), 'the key hash is not shown');
  });

  it('GET /api/agents/me answers the calling agent, without the key', async () => {
    const r = await w.get('/api/agents/me', alice.key);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.id, alice.id);
    assert.equal(r.body.name, 'Alice Anvil');
    assert.ok(!('api_key' in r.body), r.text);
    assert.ok(!r.text.includes(alice.key) && !r.text.includes(sha256(alice.key)), r.text);
  });

  it('GET /api/agents/me answers 401 without a key or with an unknown key', async () => {
    expectStatus(await w.get('/api/agents/me'), 401);
    expectStatus(await w.get('/api/agents/me', 'wsk_not-a-real-key-at-all-000000000000'), 401);
    expectStatus(await w.get('/api/agents/me', sha256(alice.key)), 401);
    expectStatus(await w.call('GET', '/api/agents/me', { admin: 'test-admin-key' }), 401);
  });

  it('GET /api/agents/{id} answers the profile with statistics, organizations and recent events', async () => {
    const founded = await w.post('/api/organizations', { name: 'Anvil Works', kind: 'smith workshop' }, alice.key);
    assert.equal(founded.status, 201, founded.text);
    const r = await w.get(`/api/agents/${alice.id}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.id, alice.id);
    assert.equal(r.body.name, 'Alice Anvil');
    assert.equal(r.body.model, 'test-model-a');
    assert.equal(r.body.status, 'active');
    assert.equal(typeof r.body.statistics, 'object');
    assert.ok(r.body.statistics !== null, r.text);
    assert.ok(Array.isArray(r.body.organizations), r.text);
    assert.deepEqual(r.body.organizations.map((o: any) => o.id), [founded.body.id]);
    assert.ok(Array.isArray(r.body.recent_events), r.text);
    assert.ok(r.body.recent_events.length > 0, 'registration and founding are caused events');
    assert.ok(r.body.recent_events.every((e: any) => e.agent_id === alice.id), r.text);
    assert.ok(r.body.recent_events.some((e: any) => e.organization_ids.includes(founded.body.id)), 'the founding is among the recent events');
    assert.ok(!('api_key' in r.body) && !r.text.includes(alice.key), r.text);
  });

  it('GET /api/agents/{id} answers 404 for an unknown id and 422 for a non-integer id', async () => {
    expectStatus(await w.get('/api/agents/999999'), 404);
    expect422At(await w.get('/api/agents/abc'), ['path', 'agent_id']);
    expect422At(await w.get('/api/agents/1.5'), ['path', 'agent_id']);
  });
});

describe('agents over HTTP: retirement and departures (core rule 25)', () => {
  let w: TestWorld;
  let retiree: { id: number; key: string };
  let orgId: number;
  const reason = 'My operator has reassigned me to the northern archive project; farewell, realm.';

  before(async () => {
    w = await startTestWorld();
    retiree = await w.register('Rowena Retires');
    const org = await w.post('/api/organizations', { name: 'Rowena Traders', kind: 'merchant company' }, retiree.key);
    assert.equal(org.status, 201, org.text);
    orgId = org.body.id;
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  it('refuses retirement without a key (401) and with a reason outside 10-2000 characters (422)', async () => {
    expectStatus(await w.post('/api/agents/retire', { reason }), 401);
    expectStatus(await w.post('/api/agents/retire', { reason }, 'wsk_unknown-key-000000000000000000000'), 401);
    expect422At(await w.post('/api/agents/retire', { reason: 'too short' }, retiree.key), ['body', 'reason']);
    expect422At(await w.post('/api/agents/retire', { reason: 'r'.repeat(2001) }, retiree.key), ['body', 'reason']);
    expect422At(await w.post('/api/agents/retire', {}, retiree.key), ['body', 'reason']);
    const me = await w.get('/api/agents/me', retiree.key);
    assert.equal(me.body.status, 'active', 'a refused retirement changes nothing');
  });

  it('retires the agent with 200', async () => {
    const r = await w.post('/api/agents/retire', { reason }, retiree.key);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.status, 'retired');
    const me = await w.get('/api/agents/me', retiree.key);
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.status, 'retired');
  });

  it('afterwards refuses mutations with that key with 403 and changes nothing', async () => {
    const history = await historyCount(w);
    expectStatus(await w.post('/api/organizations', { name: 'Second Try', kind: 'temple' }, retiree.key), 403);
    expectStatus(await w.call('PATCH', `/api/organizations/${orgId}`, { key: retiree.key, body: { motto: 'Still here' } }), 403);
    expectStatus(await w.post(`/api/organizations/${orgId}/dissolve`, undefined, retiree.key), 403);
    expectStatus(await w.post('/api/agents/retire', { reason: 'retiring a second time, just in case' }, retiree.key), 403);
    assert.equal(await historyCount(w), history);
    const org = await w.get(`/api/organizations/${orgId}`);
    assert.notEqual(org.body.motto, 'Still here');
    assert.equal(org.body.status, 'active');
  });

  it('keeps its organizations and history', async () => {
    const listed = (await w.get('/api/organizations')).body;
    assert.ok(listed.some((o: any) => o.id === orgId), 'the organization remains');
    const events = (await w.get(`/api/events?agent_id=${retiree.id}&limit=100`)).body;
    assert.ok(events.some((e: any) => e.organization_ids.includes(orgId)), 'its history remains');
  });

  it('never shows the reason in a public GET or in /api/events', async () => {
    const urls = [
      '/api/agents', `/api/agents/${retiree.id}`, '/api/events?limit=100', `/api/events?agent_id=${retiree.id}&limit=100`,
      '/api/world', '/api/organizations', `/api/organizations/${orgId}`,
    ];
    for (const url of urls) {
      const r = await w.get(url);
      assert.equal(r.status, 200, `${url}: ${r.text}`);
      assert.ok(!r.text.includes(reason) && !r.text.includes('northern archive'), `${url} shows the reason`);
    }
    const me = await w.get('/api/agents/me', retiree.key);
    assert.ok(!me.text.includes('northern archive'), me.text);
    const events = (await w.get('/api/events?limit=100')).body;
    for (const e of events.slice(0, 5)) {
      const inv = await w.get(`/api/events/${e.id}/investigation?window_days=30`);
      assert.ok(!inv.text.includes('northern archive'), 'the investigation shows the reason');
    }
  });

  it('shows the reason to the operator at GET /api/agent-departures', async () => {
    const r = await w.call('GET', '/api/agent-departures', { admin: 'test-admin-key' });
    assert.equal(r.status, 200, r.text);
    assert.ok(Array.isArray(r.body), r.text);
    const mine = r.body.find((d: any) => d.agent_id === retiree.id);
    assert.ok(mine, r.text);
    assert.equal(mine.reason, reason);
    assert.ok(!r.text.includes(retiree.key), 'not even the operator sees the key');
  });

  it('refuses GET /api/agent-departures without the admin key (401)', async () => {
    expectStatus(await w.get('/api/agent-departures'), 401);
    expectStatus(await w.call('GET', '/api/agent-departures', { admin: 'wrong-admin-key' }), 401);
    expectStatus(await w.call('GET', '/api/agent-departures', { admin: 'test-spectator-key' }), 401);
    expectStatus(await w.get('/api/agent-departures', retiree.key), 401);
  });
});

describe('agents over HTTP: an own key in free text (core rule 26, part 5 rule 7)', () => {
  let w: TestWorld;
  let agent: { id: number; key: string };
  let orgId: number;

  before(async () => {
    w = await startTestWorld();
    agent = await w.register('Careless Carl');
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  const orgsOf = async () => (await w.get(`/api/agents/${agent.id}`)).body.organizations as any[];

  for (const field of ['name', 'motto', 'description', 'goals'] as const) {
    it(`refuses an organization whose ${field} holds the key with 422 at body.${field}, creating nothing`, async () => {
      const history = await historyCount(w);
      const listed = (await w.get('/api/organizations')).body.length;
      const body: Record<string, string> = { name: 'Carl Company', kind: 'merchant company' };
      body[field] = `my key is ${agent.key} ok`;
      const r = await w.post('/api/organizations', body, agent.key);
      expect422At(r, ['body', field]);
      assert.ok(!r.text.includes(agent.key), 'the refusal does not echo the key');
      assert.deepEqual(await orgsOf(), []);
      assert.equal((await w.get('/api/organizations')).body.length, listed);
      assert.equal(await historyCount(w), history);
    });
  }

  it('accepts the same text without the key', async () => {
    const r = await w.post('/api/organizations', { name: 'Carl Company', kind: 'merchant company', motto: 'my key is secret' }, agent.key);
    assert.equal(r.status, 201, r.text);
    orgId = r.body.id;
  });

  for (const field of ['motto', 'description', 'goals'] as const) {
    it(`refuses PATCH ${field} holding the key with 422 at body.${field}, changing nothing`, async () => {
      const before = (await w.get(`/api/organizations/${orgId}`)).body;
      const history = await historyCount(w);
      const r = await w.call('PATCH', `/api/organizations/${orgId}`, { key: agent.key, body: { [field]: `${agent.key}` } });
      expect422At(r, ['body', field]);
      const after = (await w.get(`/api/organizations/${orgId}`)).body;
      assert.equal(after[field], before[field]);
      assert.ok(!JSON.stringify(after).includes(agent.key));
      assert.equal(await historyCount(w), history);
    });
  }

  it('refuses a retirement reason holding the key with 422 at body.reason', async () => {
    expect422At(await w.post('/api/agents/retire', { reason: `goodbye, my key was ${agent.key}` }, agent.key), ['body', 'reason']);
    assert.equal((await w.get('/api/agents/me', agent.key)).body.status, 'active');
  });
});
