// An actor's write carries the read-model rows its events changed, not every row it projects
// (actors/entity.ts, `project(state, before)`): a trade writes the one market entry it moved,
// an organization's day leaves out its finished projects, its establishments and its
// parties that stayed where they were. The first write of an actor's life carries every row,
// so a restart brings every row up to date. The reads answer as before.
import assert from 'assert/strict';
import sinon from 'sinon';
import type { PersistedEvent, Writes } from '../../actors/ports/store';
import { establishmentProject, expectStatus } from '../support/http';
import { organizationKind } from '../../actors/organization/actor';
import { locationKind } from '../../actors/location/actor';
import { startTestWorld, type TestWorld } from '../support/world';

type Written = { kind: string; id: string; deleted: boolean };

/** The rows each write of the actor of `key` carries from now on, one list per write. */
function watchRows(w: TestWorld, key: string): Written[][] {
  const seen: Written[][] = [];
  const engine = w.services.store.engine;
  const persist = engine.persist.bind(engine);
  sinon.stub(engine, 'persist').callsFake((event: PersistedEvent, writes?: Writes) => {
    if (event.key === key) seen.push((writes?.rows ?? []).map((r) => ({ kind: r.kind, id: String(r.id), deleted: !!r.deleted })));
    return persist(event, writes);
  });
  return seen;
}

/** The rows, by kind and id; an action's intent rows (actors/intents.ts) are left aside. */
const names = (rows: Written[]) => rows.filter((r) => r.kind !== 'intent').map((r) => `${r.kind} ${r.id}${r.deleted ? ' (deleted)' : ''}`).sort();

describe('rows written with each change', function () {
  this.timeout(120_000);
  // One process: the writes are watched in its store.
  let worlds: TestWorld[] = [];
  const open = async (dataDir?: string) => {
    const w = await startTestWorld({ nodes: 1, seed: 'projection-writes', ...(dataDir ? { dataDir } : {}) });
    worlds.push(w);
    return w;
  };
  afterEach(async () => {
    sinon.restore();
    for (const w of worlds) await w.close();
    worlds = [];
  });

  const buyFood = (w: TestWorld, org: number, key: string) =>
    w.post('/api/trade', { organization_id: org, resource: 'food', side: 'buy', quantity: 1 }, key);

  it('a trade writes the market entry it moved and nothing else of the place; the first write after a restart writes them all', async () => {
    let w = await open();
    const agent = await w.register('Row Trader');
    const founded = await w.post<{ id: number; location_id: string }>('/api/organizations', { name: 'Row Traders', kind: 'merchant company', location_id: 'emberfall' }, agent.key);
    expectStatus(founded, 201);
    const place = founded.body.location_id;
    expectStatus(await buyFood(w, founded.body.id, agent.key), 200); // the place's actor is awake and has written its rows
    const before = (await w.get<Array<{ resource: string; price: number; supply: number }>>(`/api/market?location_id=${place}`)).body;

    const rows = watchRows(w, `location:${place}`);
    expectStatus(await buyFood(w, founded.body.id, agent.key), 200);
    assert.deepEqual(names(rows.flat()), [`market ${place}/food`], 'one row for the whole trade');
    const after = (await w.get<Array<{ resource: string; price: number; supply: number }>>(`/api/market?location_id=${place}`)).body;
    const food = (m: typeof before) => m.find((e) => e.resource === 'food')!;
    assert.equal(food(after).supply, food(before).supply - 1, 'the entry it wrote reads the trade');
    assert.deepEqual(after.filter((e) => e.resource !== 'food'), before.filter((e) => e.resource !== 'food'), 'the others read as they were');

    // A new life of the place: its first write carries the place and every entry.
    const dataDir = w.dataDir;
    sinon.restore();
    await w.close();
    worlds = [];
    w = await open(dataDir);
    const fresh = watchRows(w, `location:${place}`);
    expectStatus(await buyFood(w, founded.body.id, agent.key), 200);
    const first = names(fresh[0]);
    assert.ok(first.includes(`location ${place}`), `the first write carries the place: ${first}`);
    assert.deepEqual(first.filter((r) => r.startsWith('market ')), before.map((e) => `market ${place}/${e.resource}`).sort(), 'and every market entry');
  });

  it("rests on evolve copying what it changes: an organization's and a place's life with every state frozen", async () => {
    // A frozen state throws (strict mode) where evolve would change a part of it in place,
    // which would leave that part's row unwritten: the command would fail, not answer 2xx.
    const freeze = <T>(value: T): T => {
      if (value && typeof value === 'object' && !Object.isFrozen(value)) {
        Object.freeze(value);
        for (const v of Object.values(value as object)) freeze(v);
      }
      return value;
    };
    for (const kind of [organizationKind, locationKind] as Array<{ evolve: (s: unknown, e: unknown) => unknown }>) {
      const evolve = kind.evolve.bind(kind);
      sinon.stub(kind, 'evolve').callsFake((state: unknown, event: unknown) => evolve(freeze(state), event));
    }
    const w = await open();
    const agent = await w.register('Frozen Founder');
    const founded = await w.post<{ id: number }>('/api/organizations', { name: 'Frozen Traders', kind: 'merchant company', location_id: 'greenhollow' }, agent.key);
    expectStatus(founded, 201);
    const org = founded.body.id;
    expectStatus(await buyFood(w, org, agent.key), 200);
    expectStatus(await w.post('/api/trade', { organization_id: org, resource: 'food', side: 'sell', quantity: 1 }, agent.key), 200);
    expectStatus(await w.post('/api/projects', establishmentProject(org, 'The Frozen Hall', 'shrine'), agent.key), 201);
    const party = await w.post<{ id: number }>('/api/parties', { organization_id: org, name: 'The Frozen Few' }, agent.key);
    expectStatus(party, 201);
    const free = (await w.get<Array<{ id: number; status: string }>>('/api/adventurers')).body.find((x) => x.status === 'available')!;
    expectStatus(await w.post('/api/adventurers/hire', { organization_id: org, adventurer_id: free.id }, agent.key), 200);
    expectStatus(await w.post(`/api/parties/${party.body.id}/members`, { adventurer_id: free.id }, agent.key), 200);
    for (let i = 0; i < 3; i++) await w.tick();
    expectStatus(await w.post('/api/travel', { organization_id: org, destination_id: 'emberfall' }, agent.key), 200);
    while ((await w.get<{ travel: unknown }>(`/api/organizations/${org}`)).body.travel !== null) await w.tick();
    expectStatus(await buyFood(w, org, agent.key), 200);
    const standing = (await w.get<Array<{ organization_id: number }>>('/api/establishments?location_id=greenhollow')).body;
    assert.ok(standing.some((e) => e.organization_id === org), 'the hall stands');
    assert.ok((organizationKind.evolve as sinon.SinonStub).called && (locationKind.evolve as sinon.SinonStub).called);
  });

  it("an organization's day leaves out its finished project and its establishment, and writes a party again when the organization moves", async () => {
    const w = await open();
    const agent = await w.register('Row Builder');
    const founded = await w.post<{ id: number }>('/api/organizations', { name: 'Row Builders', kind: 'merchant company', location_id: 'greenhollow' }, agent.key);
    expectStatus(founded, 201);
    const org = founded.body.id;
    const project = await w.post<{ id: number }>('/api/projects', establishmentProject(org, 'The Row House', 'shrine'), agent.key);
    expectStatus(project, 201);
    const party = await w.post<{ id: number }>('/api/parties', { organization_id: org, name: 'The Row Walkers' }, agent.key);
    expectStatus(party, 201);
    for (let i = 0; i < 3; i++) await w.tick();
    const statusOf = async (id: number) => (await w.get<Array<{ id: number; status: string }>>('/api/projects')).body.find((p) => p.id === id)?.status;
    assert.equal(await statusOf(project.body.id), 'completed');
    const standing = (await w.get<Array<{ id: number; kind: string; organization_id: number }>>('/api/establishments?location_id=greenhollow')).body.filter((e) => e.organization_id === org);
    assert.equal(standing.length, 1, 'the shrine stands');

    const rows = watchRows(w, `organization:${org}`);
    await w.tick();
    assert.ok(rows.length > 0, 'the organization settled the day');
    assert.deepEqual(names(rows.flat()), [`organization ${org}`], 'only the organization itself changed');
    assert.equal(await statusOf(project.body.id), 'completed', 'the project reads as before');

    // Arriving moves the organization, and its party's row carries the place: it is written again.
    rows.length = 0;
    expectStatus(await w.post('/api/travel', { organization_id: org, destination_id: 'emberfall' }, agent.key), 200);
    assert.ok(!names(rows.flat()).includes(`party ${party.body.id}`), 'setting out does not move it yet');
    while ((await w.get<{ travel: unknown }>(`/api/organizations/${org}`)).body.travel !== null) await w.tick();
    assert.equal((await w.get<{ location_id: string }>(`/api/organizations/${org}`)).body.location_id, 'emberfall');
    assert.ok(names(rows.flat()).includes(`party ${party.body.id}`), `the party was written on arrival: ${names(rows.flat())}`);
    assert.ok(!names(rows.flat()).includes(`project ${project.body.id}`), 'the finished project never');
  });

  it("an organization's day leaves out its trust rows; a change of its trust writes them", async () => {
    const w = await open();
    const a = await w.register('Row Ally');
    const b = await w.register('Row Friend');
    const orgA = (await w.post<{ id: number }>('/api/organizations', { name: 'Row Allies', kind: 'merchant company' }, a.key)).body.id;
    const orgB = (await w.post<{ id: number }>('/api/organizations', { name: 'Row Friends', kind: 'merchant company' }, b.key)).body.id;
    const alliance = await w.post<{ id: number }>('/api/alliances', { proposer_id: orgA, counterparty_id: orgB, terms: 'Shared roads and shared watch.' }, a.key);
    expectStatus(alliance, 201);
    expectStatus(await w.post(`/api/alliances/${alliance.body.id}/accept`, { organization_id: orgB }, b.key), 200);
    await w.tick();

    const rows = watchRows(w, `organization:${orgA}`);
    await w.tick();
    assert.ok(rows.length > 0, 'the organization settled the day');
    assert.deepEqual(names(rows.flat()), [`organization ${orgA}`], 'its trust did not move: no trust row');
    rows.length = 0;
    expectStatus(await w.post(`/api/alliances/${alliance.body.id}/end`, { organization_id: orgA }, a.key), 200);
    assert.ok(names(rows.flat()).some((n) => n.startsWith('trust trust:')), `ending the alliance moved its trust: ${names(rows.flat())}`);
  });
});
