// A restart continues the same world, read by read: after a busy stretch (agents,
// organizations, trades, projects, quests with a party, contracts, an alliance, messages,
// a world event, a suggestion, a retirement, several days), the service is stopped and
// started again on the same store (the same data folder; on Cassandra the same keyspace),
// and every GET endpoint of the route table answers exactly as before.
import assert from 'assert/strict';
import { routes } from '../../http/routes';
import { expectStatus, foundOrg } from '../support/http';
import { TEST_STORE, startTestWorld, tempDir, type TestWorld } from '../support/world';

describe(`restart: every read endpoint answers the same afterwards (${TEST_STORE})`, function () {
  this.timeout(180_000);
  const dataDir = tempDir('worldsim-restart-all-');
  let w: TestWorld | null = null;
  after(async () => { await w?.close(); });

  it('answers every GET of the route table identically before and after a restart', async () => {
    w = await startTestWorld({ dataDir });
    const a = await foundOrg(w, 'Restart Traders', 'merchant company');
    const b = await foundOrg(w, 'Restart Guild', 'adventurers band');
    expectStatus(await w.post('/api/trade', { organization_id: a.org.id, resource: 'food', side: 'buy', quantity: 7 }, a.key), 200);
    expectStatus(await w.post('/api/workers/hire', { organization_id: a.org.id, quantity: 2 }, a.key), 200);
    expectStatus(await w.post('/api/projects', {
      owner_id: a.org.id, title: 'Restart Inn', kind: 'construction', description: 'An inn that survives restarts.', location_id: 'emberfall',
      budget: 100, duration_days: 2, output_resource: null, output_quantity: 0, establishment_kind: 'inn',
    }, a.key), 201);
    const free = (await w.get('/api/adventurers')).body.find((x: { status: string }) => x.status === 'available');
    expectStatus(await w.post('/api/adventurers/hire', { organization_id: b.org.id, adventurer_id: free.id }, b.key), 200);
    const party = await w.post('/api/parties', { organization_id: b.org.id, name: 'The Returners' }, b.key);
    expectStatus(await w.post(`/api/parties/${party.body.id}/members`, { adventurer_id: free.id }, b.key), 200);
    const quest = await w.post('/api/quests', { title: 'Rats in the cellar', description: 'Clear the cellar of rats.', requester_id: a.org.id, location_id: 'emberfall', reward: 30 }, a.key);
    expectStatus(await w.post(`/api/quests/${quest.body.id}/sponsors`, { organization_id: b.org.id, amount: 5 }, b.key), 201);
    expectStatus(await w.post(`/api/parties/${party.body.id}/dispatch`, { quest_id: quest.body.id }, b.key), 200);
    expectStatus(await w.post(`/api/quests/${quest.body.id}/complete`, undefined, b.key), 200);
    const contract = await w.post('/api/contracts', { proposer_id: a.org.id, counterparty_id: b.org.id, title: 'Food supply', terms: 'Seven sacks of food.', value: 20, resource: 'food', quantity: 7 }, a.key);
    expectStatus(await w.post(`/api/contracts/${contract.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
    expectStatus(await w.post(`/api/contracts/${contract.body.id}/fulfill`, { organization_id: a.org.id }, a.key), 200);
    const alliance = await w.post('/api/alliances', { proposer_id: b.org.id, counterparty_id: a.org.id, terms: 'We stand together after any restart.' }, b.key);
    expectStatus(await w.post(`/api/alliances/${alliance.body.id}/accept`, { organization_id: a.org.id }, a.key), 200);
    expectStatus(await w.post('/api/messages', { sender_id: a.org.id, recipient_id: b.org.id, body: 'See you on the other side.' }, a.key), 201);
    expectStatus(await w.post('/api/messages', { sender_id: b.org.id, recipient_id: null, body: 'Hear us!', kind: 'rumor' }, b.key), 201);
    expectStatus(await w.post('/api/suggestions', { title: 'More restarts', body: 'Restarts should lose nothing at all.' }, a.key), 201);
    expectStatus(await w.call('POST', '/api/world-events', {
      admin: w.keys.admin,
      body: {
        title: 'A long winter', description: 'The roads freeze over.', duration_days: 5,
        effects: [{ kind: 'market_price_modifier', value: 20, resource: 'food', location_id: null, price: null }], quest: null, location: null,
      },
    }), 201);
    const leaver = await foundOrg(w, 'Restart Leavers', 'temple');
    expectStatus(await w.post(`/api/organizations/${leaver.org.id}/dissolve`, undefined, leaver.key), 200);
    expectStatus(await w.post('/api/agents/retire', { reason: 'Leaving before the restart, for good.' }, leaver.key), 200);
    for (let i = 0; i < 3; i++) await w.tick();

    const lastEvent = (await w.get('/api/events?limit=1')).body[0].id;
    const ids: Record<string, Array<string | number>> = {
      agent_id: [a.agentId, b.agentId, leaver.agentId], contract_id: [contract.body.id], organization_id: [1, a.org.id, b.org.id, leaver.org.id],
      location_id: ['emberfall', 'greenhollow', 'whisperwood'], resource: ['food', 'ore'], adventurer_id: [free.id, 2],
      quest_id: [quest.body.id], event_id: [lastEvent, 1], party_id: [party.body.id], alliance_id: [alliance.body.id],
    };
    // The quotes need to be told what to quote.
    const queries: Record<string, string> = {
      '/api/market/{resource}/quote': '?side=buy&quantity=1', '/api/travel/plan': `?organization_id=${a.org.id}&destination_id=greenhollow`,
      '/api/quests/{quest_id}/odds': `?party_id=${party.body.id}`,
    };
    const reads: Array<{ url: string; opts: { key?: string; admin?: string; spectator?: string } }> = [];
    for (const r of routes.filter((x) => x.method === 'GET')) {
      const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const opts = r.auth === 'admin' ? { admin: w.keys.admin } : r.auth === 'spectator' ? { spectator: w.keys.spectator } : r.auth.startsWith('agent') ? { key: a.key } : {};
      const expand = (path: string, rest: string[]): string[] => (rest.length === 0 ? [path]
        : (ids[rest[0]] ?? []).flatMap((v) => expand(path.replace(`{${rest[0]}}`, String(v)), rest.slice(1))));
      assert.ok(params.every((p) => ids[p]), `the test knows ids for every path parameter of ${r.path}`);
      for (const url of expand(r.path, params)) reads.push({ url: url + (queries[r.path] ?? ''), opts });
    }
    reads.push({ url: '/api/events?limit=100', opts: {} }, { url: `/api/events?organization_id=${a.org.id}&limit=100`, opts: {} }, { url: '/api/market?location_id=ironcrag', opts: {} });
    const readAll = async (world: TestWorld) => {
      const out: Record<string, unknown> = {};
      for (const { url, opts } of reads) {
        const r = await world.call('GET', url, opts);
        assert.equal(r.status, 200, `${url}: ${r.text}`);
        out[url] = r.body;
      }
      return out;
    };
    const before = await readAll(w);
    const keys = w.keys;
    await w.close();
    w = await startTestWorld({ dataDir, adminKey: keys.admin, spectatorKey: keys.spectator });
    const after = await readAll(w);
    for (const url of Object.keys(before)) assert.deepEqual(after[url], before[url], `${url} answers the same after the restart`);
    assert.ok(reads.length >= 40, `read ${reads.length} endpoints`);
  });
});
