// The days on many nodes (infra/cluster/shard-settlements.ts): each shard records the day
// it settled, and the world's initiative is taken once per day by the clock shard's host,
// never on the world's first day. The settler runs on the real SQLite store.
import assert from 'assert/strict';
import fs from 'fs';
import { ShardSettler, shardSetting } from '../../infra/cluster/shard-settlements';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { tempDir } from '../support/world';

const SHARDS = 4;
const CLOCK_SHARD = 2;

describe('ShardSettler: the days of the shards a node hosts', () => {
  let dir: string;
  let store: SqliteStore;
  let today: number;
  let ticks: Array<[number, boolean]>;
  let settler: ShardSettler;

  beforeEach(() => {
    dir = tempDir('worldsim-shard-settler-');
    store = new SqliteStore(dir);
    today = 0;
    ticks = [];
    settler = new ShardSettler(store, { hosts: () => true }, SHARDS, async (day, initiative) => { ticks.push([day, initiative]); }, async () => today, CLOCK_SHARD);
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const settled = () => Promise.all(Array.from({ length: SHARDS }, (_, s) => store.setting(shardSetting(s))));

  it('settles nothing before the world has begun: a shard taken over then records no day 0', async () => {
    await settler.catchUp();
    assert.deepEqual(ticks, []);
    assert.deepEqual(await settled(), [undefined, undefined, undefined, undefined]);
    assert.equal(await store.setting('initiative_day'), undefined);
  });

  it("begins the world's first day quiet, whether a catch-up came before the world began or not, and takes the initiative from the next day on", async () => {
    await settler.catchUp();
    today = 1;
    await settler.settle(1);
    await settler.catchUp();
    today = 2;
    await settler.settle(2);
    await settler.settle(2);
    // Each day its shards' part, then (from the second day) the initiative, once.
    assert.deepEqual(ticks, [[1, false], [2, false], [2, true]]);
    assert.deepEqual(await settled(), ['2', '2', '2', '2']);
    assert.equal(await store.setting('initiative_day'), '2');
  });

  describe('on two nodes', () => {
    const CLOCK_HOST = new Set([CLOCK_SHARD, 0]);
    let other: ShardSettler;
    let otherTicks: Array<[number, boolean]>;
    let clockHostHosts: (s: number) => boolean;
    let order: string[];

    beforeEach(() => {
      otherTicks = [];
      order = [];
      clockHostHosts = (s) => CLOCK_HOST.has(s);
      settler = new ShardSettler(store, { hosts: (s) => clockHostHosts(s) }, SHARDS, async (day, initiative) => {
        ticks.push([day, initiative]);
        order.push(initiative ? `initiative ${day}` : `clock host settles ${day}`);
      }, async () => today, CLOCK_SHARD);
      other = new ShardSettler(store, { hosts: (s) => !CLOCK_HOST.has(s) }, SHARDS, async (day, initiative) => {
        otherTicks.push([day, initiative]);
        order.push(`other node settles ${day}`);
      }, async () => today, CLOCK_SHARD);
    });

    it("takes the world's initiative only once every other shard has settled its part of the day", async () => {
      today = 1;
      await Promise.all([settler.settle(1), other.settle(1)]);
      today = 2;
      order = [];
      const clockHost = settler.settle(2);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(order, ['clock host settles 2'], 'the initiative waits for the other node');
      assert.deepEqual(await settled(), ['2', '1', '1', '1'], "the clock host's other shard is recorded; the clock shard is recorded after the initiative");
      await other.settle(2);
      await clockHost;
      assert.deepEqual(order, ['clock host settles 2', 'other node settles 2', 'initiative 2']);
      assert.deepEqual(await settled(), ['2', '2', '2', '2']);
      assert.equal(await store.setting('initiative_day'), '2');
    });

    it('settles the shards it takes over while it waits, then takes the initiative', async () => {
      today = 1;
      await Promise.all([settler.settle(1), other.settle(1)]);
      today = 2;
      order = [];
      const clockHost = settler.settle(2);
      await new Promise((r) => setTimeout(r, 300));
      clockHostHosts = () => true; // the other node died; its shards came here
      await clockHost;
      assert.deepEqual(order, ['clock host settles 2', 'clock host settles 2', 'initiative 2']);
      assert.deepEqual(otherTicks, [[1, false]]);
      assert.deepEqual(await settled(), ['2', '2', '2', '2']);
    });
  });
});

