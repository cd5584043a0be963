import assert from 'assert/strict';
import fs from 'fs';
import path from 'path';
import { TEST_STORE, startTestWorld, tempDir, type TestWorld } from '../support/world';

// Records echo the request fields they were made from (api-conventions, "Records"), the
// data folder is created when missing, and requirements hold again at dispatch (core rule 9).

async function founded(w: TestWorld, name: string, kind = 'merchant company') {
  const agent = await w.register(name);
  const r = await w.call('POST', '/api/organizations', { key: agent.key, body: { name, kind } });
  assert.equal(r.status, 201, r.text);
  return { key: agent.key, org: r.body.id as number };
}

describe('records echo their request fields; the data folder is created; requirements hold at dispatch', function () {
  this.timeout(60_000);
  let w: TestWorld;
  let dataDir: string;
  before(async () => {
    dataDir = path.join(tempDir(), 'not', 'yet', 'there');
    w = await startTestWorld({ dataDir });
  });
  after(async () => { await w.close(); });

  it('keeps the store where the configuration says: the SQLite file in WORLD_DATA_DIR (created when missing), or Cassandra', async () => {
    const health = (await w.get('/healthz')).body;
    assert.equal(health.store, TEST_STORE);
    // On Cassandra the world lives in its keyspace, and nothing is written to the data folder.
    assert.equal(fs.existsSync(path.join(dataDir, 'world.sqlite')), TEST_STORE === 'sqlite');
  });

  it('echoes deadline_days on a quest, beside deadline_day', async () => {
    const a = await founded(w, 'Echo Guild');
    const day = (await w.get('/api/world')).body.day as number;
    const r = await w.call('POST', '/api/quests', { key: a.key, body: { title: 'Count the crows', description: 'Count every crow on the walls.', requester_id: a.org, location_id: 'emberfall', reward: 10, deadline_days: 5 } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.deadline_days, 5);
    assert.equal(r.body.deadline_day, day + 5);
    const open = await w.call('POST', '/api/quests', { key: a.key, body: { title: 'Count the rats', description: 'Count every rat in the cellars.', requester_id: a.org, location_id: 'emberfall', reward: 10 } });
    assert.equal(open.body.deadline_days, null);
    assert.equal(open.body.deadline_day, null);
  });

  it('echoes quest and location on a world event, beside their ids', async () => {
    const r = await w.call('POST', '/api/world-events', {
      admin: 'test-admin-key',
      body: {
        title: 'A new hamlet', description: 'Settlers raise a hamlet by the river.', duration_days: 2,
        effects: [{ kind: 'population_growth_modifier', value: 10, resource: null, location_id: null, price: null }],
        quest: { title: 'Guard the settlers', description: 'Keep the settlers safe.', requester_id: 1, location_id: 'riverbend', reward: 50 },
        location: { id: 'riverbend', name: 'Riverbend', kind: 'village', description: 'A hamlet by the river.', danger: 5, population: 100, monster_population: 0, routes: [{ destination_id: 'emberfall', distance_days: 1, danger: 5 }] },
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.location.id, 'riverbend');
    assert.equal(r.body.location_id, 'riverbend');
    assert.equal(r.body.quest.title, 'Guard the settlers');
    assert.equal(r.body.quest_id, r.body.quest.id);
  });

  it('checks trust with the requester again at dispatch: a quest accepted in good standing is refused once trust has fallen', async () => {
    const requester = await founded(w, 'Trusting Patrons');
    const taker = await founded(w, 'Fickle Blades', 'mercenary band');
    const q = await w.call('POST', '/api/quests', { key: requester.key, body: { title: 'Clear the cellar', description: 'Rats in the cellar again.', requester_id: requester.org, location_id: 'emberfall', reward: 20, minimum_relationship: 0 } });
    assert.equal(q.status, 201, q.text);
    const hire = (await w.get('/api/adventurers')).body.find((a: { status: string }) => a.status === 'available');
    assert.equal((await w.call('POST', '/api/adventurers/hire', { key: taker.key, body: { organization_id: taker.org, adventurer_id: hire.id } })).status, 200);
    const party = await w.call('POST', '/api/parties', { key: taker.key, body: { organization_id: taker.org, name: 'The Fickle Few' } });
    assert.equal((await w.call('POST', `/api/parties/${party.body.id}/members`, { key: taker.key, body: { adventurer_id: hire.id } })).status, 200);
    assert.equal((await w.call('POST', `/api/quests/${q.body.id}/accept`, { key: taker.key, body: { organization_id: taker.org } })).status, 200);

    // The requester's contract is rejected by the taker: trust falls below the quest's minimum on both sides.
    const c = await w.call('POST', '/api/contracts', { key: requester.key, body: { proposer_id: requester.org, counterparty_id: taker.org, title: 'Cellar duty', terms: 'Guard our cellar for a season.', value: 5 } });
    assert.equal((await w.call('POST', `/api/contracts/${c.body.id}/reject`, { key: taker.key, body: { organization_id: taker.org } })).status, 200);

    const sent = await w.call('POST', `/api/parties/${party.body.id}/dispatch`, { key: taker.key, body: { quest_id: q.body.id } });
    assert.equal(sent.status, 409, sent.text);
    assert.match(sent.body.detail, /trust/);
    const parties = (await w.get('/api/parties')).body as Array<{ id: number; status: string }>;
    assert.equal(parties.find((p) => p.id === party.body.id)!.status, 'formed', 'the party stays home');
    assert.equal((await w.get(`/api/quests/${q.body.id}`)).body.party_id, null);
  });
});
