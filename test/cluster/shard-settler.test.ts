// The days on many nodes (infra/cluster/shard-settlements.ts): each shard records the day
// it settled, and the world's initiative is taken once per day by the clock shard's host,
// never on the world's first day. The settler runs on the real SQLite store.
import assert from 'assert/strict';
import fs from 'fs';
import { ShardSettler, shardSetting } from '../../infra/cluster/shard-settlements';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { tempDir } from '../support/world';
import { waitFor } from '../support/wait';

const SHARDS = 4;
const CLOCK_SHARD = 2;

describe('ShardSettler: the days of the shards a node hosts', () => {
  let dir: string;
  let store: SqliteStore;
  let today: number;
  let ticks: Array<[number, boolean]>;
  let settler: ShardSettler;
  let observed: number[];

  beforeEach(() => {
    dir = tempDir('worldsim-shard-settler-');
    store = new SqliteStore(dir);
    today = 0;
    ticks = [];
    observed = [];
    settler = new ShardSettler(store, { hosts: () => true }, SHARDS, async (day, initiative) => { ticks.push([day, initiative]); }, async () => today, CLOCK_SHARD, () => undefined, (s) => observed.push(s));
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

  it("settles a day announced a moment before the world's row shows it (it reads the row again), and ignores one its clock never reaches", async () => {
    today = 0;
    const settling = settler.settle(1);
    setTimeout(() => { today = 1; }, 200);
    await settling;
    assert.deepEqual(ticks, [[1, false]], 'the first day, read again, is settled');
    const lines: string[] = [];
    const other = new ShardSettler(store, { hosts: () => true }, SHARDS, async (day, initiative) => { ticks.push([day, initiative]); }, async () => 1, CLOCK_SHARD, (l) => lines.push(l));
    await other.settle(7);
    assert.deepEqual(ticks, [[1, false]], "a day this world's clock does not reach is not settled");
    assert.match(lines[0], /day 7 was announced, but this world's clock is at day 1: ignored/);
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
    assert.equal(observed.length, 2, 'one day settled is measured once, its initiative included');
    assert.deepEqual(await settled(), ['2', '2', '2', '2']);
    assert.equal(await store.setting('initiative_day'), '2');
  });

  describe('on two nodes', () => {
    const CLOCK_HOST = new Set([CLOCK_SHARD, 0]);
    let other: ShardSettler;
    let clockHostHosts: (s: number) => boolean;
    let order: string[];
    /** A day's settlement as the tick runs it: places, then (once the others' places have settled) organizations; or the initiative alone. */
    const daily = (node: string) => async (day: number, initiative: boolean, _hosts: unknown, placesSettled?: () => Promise<void>) => {
      if (initiative) { order.push(`initiative ${day}`); return; }
      order.push(`${node} places ${day}`);
      await placesSettled?.();
      order.push(`${node} organizations ${day}`);
    };

    /** Waits until the order shows `step`. */
    const begun = (step: string) => waitFor(() => order.includes(step), () => `${step} (the order: ${JSON.stringify(order)})`, 10_000, 10);

    beforeEach(async () => {
      order = [];
      clockHostHosts = (s) => CLOCK_HOST.has(s);
      settler = new ShardSettler(store, { hosts: (s) => clockHostHosts(s) }, SHARDS, daily('A'), async () => today, CLOCK_SHARD);
      other = new ShardSettler(store, { hosts: (s) => !CLOCK_HOST.has(s) }, SHARDS, daily('B'), async () => today, CLOCK_SHARD);
      today = 1;
      await Promise.all([settler.settle(1), other.settle(1)]);
      today = 2;
      order = [];
    });

    it("settles organizations once every node's places have settled the day, and takes the world's initiative once every shard has settled it", async () => {
      const clockHost = settler.settle(2);
      await begun('A places 2');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(order, ['A places 2'], "A's organizations wait for B's places");
      await other.settle(2);
      await clockHost;
      assert.deepEqual(order.slice(0, 2), ['A places 2', 'B places 2']);
      assert.deepEqual(order.slice(2, 4).sort(), ['A organizations 2', 'B organizations 2']);
      assert.deepEqual(order.slice(4), ['initiative 2'], 'the initiative comes last, once');
      assert.deepEqual(await settled(), ['2', '2', '2', '2']);
      assert.equal(await store.setting('initiative_day'), '2');
    });

    it('settles the shards it takes over while it waits, then goes on with its day and the initiative', async () => {
      const clockHost = settler.settle(2);
      await begun('A places 2');
      await new Promise((r) => setTimeout(r, 300));
      clockHostHosts = () => true; // B died; its shards came to A
      await clockHost;
      assert.deepEqual(order, ['A places 2', 'A places 2', 'A organizations 2', 'A organizations 2', 'initiative 2']);
      assert.deepEqual(await settled(), ['2', '2', '2', '2']);
    });
  });
});
