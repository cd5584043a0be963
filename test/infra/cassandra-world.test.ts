// The whole world on the Cassandra store: the seeded world and a run of daily ticks through
// the real actors, the daily fan-out and the bus (composed here as infra/app.ts composes
// them, without the HTTP server), on Cassandra and on SQLite side by side. The world is
// deterministic given its seed, so both stores must end with the same read model and the
// same history.
import { CLOCK_ID } from '../../actors/clock/actor';
import assert from 'assert/strict';
import { QUERIES, type HistoryEvent, type QueryName, type QuerySpec, type Store } from '../../actors/ports/store';
import { seedWorld } from '../../actors/world/seed';
import type { AddressInfo } from 'net';
import { routes } from '../../http/routes';
import { hashKey } from '../../http/auth';
import { buildServer } from '../../http/server';
import { currentDay } from '../../http/services';
import { EmbeddedBus } from '../../infra/bus/embedded-bus';
import { NODE, worldRegion } from '../../infra/app';
import { StoreSettlements } from '../../infra/clock/store-settlements';
import { openCassandraStore } from '../../infra/store/cassandra-store';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { useCassandra } from '../support/cassandra';
import { tempDir } from '../support/world';

const SEED = 'cassandra-world';
const DAYS = 12;

/** Seeds the world on `store` and runs `days` ticks, as the service would. */
async function runWorld(store: Store, days: number): Promise<void> {
  const log = (line: string) => { throw new Error(`the world logged: ${line}`); };
  const bus = new EmbeddedBus();
  const region = await worldRegion(store, bus, new StoreSettlements(store, NODE), SEED, log);
  try {
    await seedWorld(region, store, SEED);
    await region.ask('clock', CLOCK_ID, { type: 'resume' }, 120_000);
    for (let d = 0; d < days; d++) {
      const r = await region.ask('clock', CLOCK_ID, { type: 'advance' }, 120_000);
      assert.ok(r.ok, `day ${d + 1}: ${JSON.stringify(r)}`);
    }
  } finally {
    region.stop();
    await bus.close();
  }
}

/** History without what depends on timing: the store's stamp, and the ids (parallel persists take them in any order). */
const comparable = (events: HistoryEvent[]) => events
  .map(({ id: _id, created_at: _c, ...rest }) => JSON.stringify(rest))
  .sort();

describe('the world on the Cassandra store', function () {
  this.timeout(300_000);
  const cassandra = useCassandra();

  it(`seeds the world and runs ${DAYS} days to the same read model and history as SQLite`, async () => {
    const cas = await openCassandraStore(cassandra.options());
    const sql = new SqliteStore(tempDir());
    try {
      await runWorld(cas, DAYS);
      await runWorld(sql, DAYS);

      const clock = await cas.row<{ day: number }>('world', CLOCK_ID);
      assert.equal(clock?.day, DAYS + 1);
      assert.deepEqual(clock, await sql.row('world', CLOCK_ID));

      let compared = 0;
      for (const [name, spec] of Object.entries(QUERIES as Record<string, QuerySpec>)) {
        const query = name as QueryName;
        // A status (by the column or a document's field), as the kinds' rows take them.
        const statuses = ['open', 'accepted', 'resolved', 'withdrawn', 'proposed', 'active', 'fulfilled', 'rejected', 'ended', 'cancelled', 'completed'];
        const column = spec.by ?? spec.field;
        const args: Array<string | number | undefined> = column === undefined ? [undefined]
          : column === 'due_by' ? [1, DAYS, DAYS + 5]
            : column === 'status' ? statuses
              : column === 'location_id' ? await sql.ids('locations')
                : column === 'organization_id' || column === 'requester_id' ? (await sql.ids('organizations')).map(Number)
                  : (await sql.ids('agents')).map(Number).concat([1, 2]);
        for (const arg of args) {
          assert.deepEqual(await cas.list(query, arg), await sql.list(query, arg), `${name}(${arg ?? ''})`);
          compared += await sql.count(query, arg);
        }
      }
      assert.ok(compared > 100, `the world has rows to compare (${compared})`);

      const [casHistory, sqlHistory] = [await cas.history({ limit: 100_000 }), await sql.history({ limit: 100_000 })];
      assert.ok(sqlHistory.length > 50, `the world has a history (${sqlHistory.length} events)`);
      assert.deepEqual(comparable(casHistory), comparable(sqlHistory));
      assert.equal(await cas.lastHistoryId(), casHistory.length, 'one process numbers its events without gaps');
      for (const organization of (await sql.ids('organizations')).map(Number)) {
        assert.deepEqual(comparable(await cas.history({ limit: 100_000, organization_id: organization })), comparable(await sql.history({ limit: 100_000, organization_id: organization })));
      }
      for (const category of new Set(sqlHistory.map((e) => e.category))) {
        assert.deepEqual(comparable(await cas.history({ limit: 100_000, category })), comparable(await sql.history({ limit: 100_000, category })));
      }
    } finally {
      await cas.close();
      await sql.close();
    }
  });

  it('serves the HTTP API from Cassandra: keys, founding, ticks, events and their paging, the investigation, the counts', async () => {
    const store = await openCassandraStore(cassandra.options());
    const log = (line: string) => { throw new Error(`the world logged: ${line}`); };
    const bus = new EmbeddedBus();
    const region = await worldRegion(store, bus, new StoreSettlements(store, NODE), SEED, log);
    const { server, setReady, close } = buildServer(routes, log);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const admin = 'cassandra-admin-key';
    try {
      await seedWorld(region, store, SEED);
      await region.ask('clock', CLOCK_ID, { type: 'resume' }, 120_000);
      setReady({ entities: region, read: store, store, operatorKeyHashes: { admin: hashKey(admin), spectator: hashKey('cassandra-spectator-key') }, seed: SEED, day: () => currentDay(store), now: () => Date.now() });
      const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const res = await fetch(url + path, { method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body: body ? JSON.stringify(body) : undefined });
        return { status: res.status, body: await res.json() as any };
      };

      const agent = await call('POST', '/api/agents', { name: 'Mira Ashvale', model: 'test-model' });
      assert.equal(agent.status, 201, JSON.stringify(agent.body));
      const key = { 'x-agent-key': agent.body.api_key as string };
      const me = await call('GET', '/api/agents/me', undefined, key);
      assert.equal(me.status, 200);
      assert.equal(me.body.id, agent.body.id, 'the key is found by its hash');
      assert.equal((await call('GET', '/api/agents/me', undefined, { 'x-agent-key': 'wsk_wrong' })).status, 401);

      const org = await call('POST', '/api/organizations', { name: 'The Lantern Company', kind: 'merchant company', motto: 'Light for a fair price' }, key);
      assert.equal(org.status, 201, JSON.stringify(org.body));
      assert.ok(org.body.id > 4, 'ids above the seeded organizations');
      assert.equal((await call('GET', `/api/organizations/${org.body.id}`)).body.name, 'The Lantern Company');
      assert.ok((await call('GET', '/api/organizations')).body.some((o: { id: number }) => o.id === org.body.id));

      for (let d = 0; d < 3; d++) assert.equal((await call('POST', '/api/tick', undefined, { 'x-admin-key': admin })).status, 200);
      const world = await call('GET', '/api/world');
      assert.equal(world.body.day, 4);
      assert.equal(world.body.counts.history_events, await store.historyCount());

      const newest = await call('GET', '/api/events?limit=5');
      assert.equal(newest.body.length, 5);
      const ids = newest.body.map((e: { id: number }) => e.id);
      assert.deepEqual(ids, [...ids].sort((a, b) => b - a), 'newest first');
      const older = await call('GET', `/api/events?limit=5&before_id=${ids[4]}`);
      assert.ok(older.body.every((e: { id: number }) => e.id < ids[4]));
      const ofOrg = await call('GET', `/api/events?organization_id=${org.body.id}`);
      assert.ok(ofOrg.body.length >= 1 && ofOrg.body.every((e: { organization_ids: number[] }) => e.organization_ids.includes(org.body.id)));
      const founding = ofOrg.body[ofOrg.body.length - 1];
      const investigation = await call('GET', `/api/events/${founding.id}/investigation`);
      assert.equal(investigation.status, 200);
      assert.equal(investigation.body.event.id, founding.id);
      assert.ok(investigation.body.surrounding.length > 0);
      assert.equal(investigation.body.involved.organizations[0].id, org.body.id);
      const profile = await call('GET', `/api/agents/${agent.body.id}`);
      assert.equal(profile.body.statistics.events_caused, await store.historyCountOfAgent(agent.body.id));
      assert.ok(profile.body.statistics.events_caused >= 5);
    } finally {
      await close();
      region.stop();
      await bus.close();
      await store.close();
    }
  });
});
