// A restart on the same data folder continues the same world (api-conventions:
// WORLD_DATA_DIR): the day, agents and their keys, organizations, treasuries and history
// are all still there, and the resumed day is not charged twice.
import assert from 'assert/strict';
import fs from 'fs';
import { startTestWorld, tempDir, type TestWorld } from '../support/world';

interface Snapshot {
  day: number;
  agents: unknown[];
  organizations: unknown[];
  detail: any;
  events: Array<{ id: number }>;
  historyCount: number;
  adventurers: unknown[];
}

async function snapshot(w: TestWorld, orgId: number): Promise<Snapshot> {
  const world = (await w.get('/api/world')).body;
  return {
    day: world.day,
    agents: (await w.get('/api/agents')).body,
    organizations: (await w.get('/api/organizations')).body,
    detail: (await w.get(`/api/organizations/${orgId}`)).body,
    events: (await w.get('/api/events?limit=100')).body,
    historyCount: world.counts.history_events,
    adventurers: (await w.get('/api/adventurers')).body,
  };
}

describe('restart over HTTP: the same data folder continues the same world', () => {
  const dataDir = tempDir('worldsim-restart-');
  let first: TestWorld | null = null;
  let second: TestWorld | null = null;
  let founder: { id: number; key: string };
  let retired: { id: number; key: string };
  let orgId: number;
  let dissolvedId: number;
  let saved: Snapshot;
  let foundedTreasury: number;

  before(async function () {
    this.timeout(60_000);
    first = await startTestWorld({ dataDir });
    founder = await first.register('Renate Restart');
    retired = await first.register('Ralf Retired');
    const org = await first.post('/api/organizations', { name: 'Renate Remembers', kind: 'merchant company', motto: 'Nothing is lost.' }, founder.key);
    assert.equal(org.status, 201, org.text);
    orgId = org.body.id;
    foundedTreasury = org.body.treasury;
    const other = await first.post('/api/organizations', { name: 'Ralf Relics', kind: 'temple' }, retired.key);
    dissolvedId = other.body.id;
    assert.equal((await first.post(`/api/organizations/${dissolvedId}/dissolve`, undefined, retired.key)).status, 200);
    assert.equal((await first.post('/api/agents/retire', { reason: 'Testing whether retirement survives a restart.' }, retired.key)).status, 200);
    await first.tick();
    await first.tick();
    saved = await snapshot(first, orgId);
    await first.close();
    first = null;
    second = await startTestWorld({ dataDir });
  });
  after(async () => {
    if (first) await first.close();
    if (second) await second.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('was a world with some history before the restart', () => {
    assert.equal(saved.day, 3, 'two ticks after day 1');
    assert.equal(saved.detail.treasury, foundedTreasury - 10, 'the fixture paid two days of upkeep');
    assert.ok(saved.historyCount > 0);
  });

  it('keeps the day', async () => {
    assert.equal((await second!.get('/api/world')).body.day, saved.day);
  });

  it('keeps the agents, their statuses and their keys', async () => {
    assert.deepEqual((await second!.get('/api/agents')).body, saved.agents);
    const me = await second!.get('/api/agents/me', founder.key);
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.id, founder.id);
    const ret = await second!.get('/api/agents/me', retired.key);
    assert.equal(ret.status, 200, ret.text);
    assert.equal(ret.body.status, 'retired');
  });

  it('keeps a retired key unable to act', async () => {
    const r = await second!.post('/api/organizations', { name: 'Ralf Returns', kind: 'temple' }, retired.key);
    assert.equal(r.status, 403, r.text);
  });

  it('keeps the organizations, their treasuries and their text, and charges the resumed day no second time', async () => {
    assert.deepEqual((await second!.get('/api/organizations')).body, saved.organizations);
    assert.deepEqual((await second!.get(`/api/organizations/${orgId}`)).body, saved.detail);
    const ended = await second!.get(`/api/organizations/${dissolvedId}`);
    assert.equal(ended.body.status, 'dissolved');
  });

  it('keeps the history and the adventurer pool', async () => {
    assert.deepEqual((await second!.get('/api/events?limit=100')).body, saved.events);
    assert.equal((await second!.get('/api/world')).body.counts.history_events, saved.historyCount);
    assert.deepEqual((await second!.get('/api/adventurers')).body, saved.adventurers);
  });

  it('keeps the one-organization rule across the restart', async () => {
    const r = await second!.post('/api/organizations', { name: 'Renate Again', kind: 'temple' }, founder.key);
    assert.equal(r.status, 409, r.text);
  });

  it('goes on from where it stopped: the old key acts, the next tick is the next day, ids are not reused', async () => {
    const patch = await second!.call('PATCH', `/api/organizations/${orgId}`, { key: founder.key, body: { motto: 'Still nothing lost.' } });
    assert.equal(patch.status, 200, patch.text);
    const day = await second!.tick();
    assert.equal(day, saved.day + 1);
    const org = (await second!.get(`/api/organizations/${orgId}`)).body;
    assert.equal(org.treasury, saved.detail.treasury - 5);
    const newest = (await second!.get('/api/events?limit=1')).body[0];
    assert.ok(newest.id > saved.events[0].id, 'history ids continue');
    const fresh = await second!.register('Nina Newcomer');
    assert.ok(fresh.id > Math.max(founder.id, retired.id), 'agent ids continue');
    assert.notEqual(fresh.key, founder.key);
  });
});
