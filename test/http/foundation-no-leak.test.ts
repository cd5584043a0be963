// No key ever leaks (spec part 2: listings never expose API keys; part 5: the key is shown
// exactly once): after some activity, every GET endpoint of the route table is read with
// every kind of credential, and no answer holds an agent key or a key hash.
import assert from 'assert/strict';
import fs from 'fs';
import { routes } from '../../http/routes';
import { propertyNames, sha256 } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

describe('no leak over HTTP: no GET ever shows an api_key or a key hash', () => {
  let w: TestWorld;
  const agents: Array<{ id: number; key: string }> = [];
  const orgIds: number[] = [];
  let eventIds: number[] = [];

  before(async function () {
    this.timeout(60_000);
    w = await startTestWorld();
    for (const name of ['Lea Leakless', 'Max Mum', 'Nora Nosecret']) agents.push(await w.register(name));
    const kinds = ['merchant company', 'temple', 'mercenary band'];
    for (let i = 0; i < agents.length; i++) {
      const r = await w.post('/api/organizations', { name: `Leakless House ${i}`, kind: kinds[i], motto: 'Keys stay secret.' }, agents[i].key);
      assert.equal(r.status, 201, r.text);
      orgIds.push(r.body.id);
    }
    assert.equal((await w.call('PATCH', `/api/organizations/${orgIds[0]}`, { key: agents[0].key, body: { description: 'A house of careful clerks.' } })).status, 200);
    // An attempt to publish a key is refused and leaves no trace.
    assert.equal((await w.call('PATCH', `/api/organizations/${orgIds[1]}`, { key: agents[1].key, body: { goals: agents[1].key } })).status, 422);
    assert.equal((await w.post(`/api/organizations/${orgIds[2]}/dissolve`, undefined, agents[2].key)).status, 200);
    assert.equal((await w.post('/api/agents/retire', { reason: 'Leaving after the leak audit, with thanks.' }, agents[2].key)).status, 200);
    for (let i = 0; i < 3; i++) await w.tick();
    eventIds = ((await w.get('/api/events?limit=100')).body as Array<{ id: number }>).map((e) => e.id);
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  /** Every concrete URL for a GET route: its path parameters filled with ids that exist. */
  async function urlsFor(path: string): Promise<string[]> {
    const values: Record<string, Array<string | number>> = {
      agent_id: agents.map((a) => a.id),
      organization_id: [...orgIds, 1],
      event_id: [eventIds[0], eventIds[Math.floor(eventIds.length / 2)], eventIds[eventIds.length - 1]],
      location_id: ['emberfall', 'greenhollow'],
      adventurer_id: [1, 2],
      quest_id: [((await w.get('/api/quests')).body as Array<{ id: number }>)[0]?.id ?? 1],
      contract_id: [1],
      alliance_id: [1],
      party_id: [1],
      resource: ['food'],
    };
    let urls = [path];
    for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
      const options = values[name];
      assert.ok(options, `a value for the path parameter ${name}`);
      urls = urls.flatMap((u) => options.map((v) => u.replace(`{${name}}`, String(v))));
    }
    return urls;
  }

  it('reads every GET endpoint without finding a key, a key hash or a key field', async () => {
    const secrets = agents.flatMap((a) => [a.key, sha256(a.key)]);
    const getRoutes = routes.filter((r) => r.method === 'GET');
    assert.ok(getRoutes.length >= 10, 'the route table has the GET endpoints');
    const listed = ['/api/agents', '/api/agents/{agent_id}', '/api/agents/me', '/api/organizations', '/api/organizations/{organization_id}',
      '/api/events', '/api/events/{event_id}/investigation', '/api/world', '/api/rules', '/api/locations', '/api/locations/{location_id}',
      '/api/adventurers', '/api/adventurers/{adventurer_id}', '/api/agent-departures'];
    for (const path of listed) assert.ok(getRoutes.some((r) => r.path === path), `GET ${path} is in the route table`);
    let reads = 0;
    for (const route of getRoutes) {
      for (const url of await urlsFor(route.path)) {
        const credentials: Array<{ key?: string; admin?: string; spectator?: string }> = [{}];
        if (route.auth === 'agent-read' || route.auth === 'agent-optional' || route.auth === 'agent') credentials.push(...agents.map((a) => ({ key: a.key })));
        if (route.auth === 'admin') credentials.push({ admin: 'test-admin-key' });
        if (route.auth === 'spectator') credentials.push({ spectator: 'test-spectator-key' });
        for (const c of credentials) {
          const r = await w.call('GET', url, c);
          reads += 1;
          assert.ok(r.status < 500, `GET ${url}: ${r.status} ${r.text}`);
          for (const secret of secrets) assert.ok(!r.text.includes(secret), `GET ${url} (${Object.keys(c).join(',') || 'no key'}) shows a key or key hash`);
          if (route.path !== '/api/rules') {
            const names = propertyNames(r.body);
            assert.ok(!names.has('api_key') && !names.has('key_hash'), `GET ${url} has a key field: ${[...names].join(', ')}`);
          }
        }
      }
    }
    assert.ok(reads >= 40, `read ${reads} answers`);
  });

  it('shows each key only once, in the answer to POST /api/agents', async () => {
    const r = await w.post('/api/agents', { name: 'Otto Once', model: 'test-model' });
    assert.equal(r.status, 201, r.text);
    const key = r.body.api_key as string;
    assert.ok(key);
    for (const url of ['/api/agents', `/api/agents/${r.body.id}`, '/api/events?limit=5', `/api/events/${(await w.get('/api/events?limit=1')).body[0].id}/investigation`]) {
      const g = await w.get(url);
      assert.equal(g.status, 200, g.text);
      assert.ok(!g.text.includes(key) && !g.text.includes(sha256(key)), `${url} shows the new key`);
    }
    const me = await w.get('/api/agents/me', key);
    assert.equal(me.status, 200, me.text);
    assert.ok(!me.text.includes(key) && !me.text.includes(sha256(key)), 'GET /api/agents/me does not show the key again');
  });
});
