// The whole world on the Cassandra store: the seeded world and a run of daily ticks through
// the real actors, the daily fan-out and the bus (composed here as infra/app.ts composes
// them, without the HTTP server), on Cassandra and on SQLite side by side. The world is
// deterministic given its seed, so both stores must end with the same read model and the
// same history.
import assert from 'assert/strict';
import { adventurerKind } from '../../actors/adventurer/actor';
import { agentKind } from '../../actors/agent/actor';
import { allianceKind } from '../../actors/alliance/actor';
import { CLOCK_ID, clockKind } from '../../actors/clock/actor';
import { dailyTick } from '../../actors/clock/daily';
import { contractKind } from '../../actors/contract/actor';
import { locationKind } from '../../actors/location/actor';
import { organizationKind } from '../../actors/organization/actor';
import { TOPICS } from '../../actors/ports/bus';
import { QUERIES, type HistoryEvent, type QueryName, type QuerySpec, type Store } from '../../actors/ports/store';
import { questKind } from '../../actors/quest/actor';
import { Region } from '../../actors/region';
import { relationshipKind } from '../../actors/relationship/actor';
import { suggestionKind } from '../../actors/suggestion/actor';
import { worldEventKind } from '../../actors/world-event/actor';
import { seedWorld } from '../../actors/world/seed';
import { EmbeddedBus } from '../../infra/bus/embedded-bus';
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
  const region = new Region(store.engine, store, [
    clockKind(bus), agentKind, worldEventKind, contractKind, relationshipKind, allianceKind, questKind, locationKind, adventurerKind, organizationKind, suggestionKind,
  ], { log });
  bus.subscribe(TOPICS.days, dailyTick(region, store, SEED, (sequence) => store.nextId(sequence), log));
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
        const args: Array<string | number | undefined> = spec.by === undefined ? [undefined]
          : spec.by === 'due_by' ? [1, DAYS, DAYS + 5]
            : spec.by === 'location_id' ? await sql.ids('locations')
              : spec.by === 'organization_id' ? (await sql.ids('organizations')).map(Number)
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
});
