import assert from 'assert/strict';
import sinon from 'sinon';
import { IntervalTicker } from '../../infra/clock/interval-ticker';
import type { TickerWorld } from '../../actors/ports/clock';
import { forEachLimited } from '../../actors/concurrency';
import { hash32, rng } from '../../actors/random';
import { adventurerName, generateWorld } from '../../actors/world/generate';
import { numeral } from '../../actors/words';

describe('interval ticker', () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => { clock = sinon.useFakeTimers(); });
  afterEach(() => clock.restore());

  const HOUR = 3600_000;
  /** A world's clock as the store keeps it: its day and when that day began, moved by each day begun. */
  function world(beganAt: number | null, day = 1) {
    const w = { day, beganAt, days: [] as number[], hosts: true };
    const ticked: TickerWorld = {
      hostsClock: () => w.hosts,
      current: async () => ({ day: w.day, began_at: w.beganAt }),
      advance: async (at, fromDay) => {
        if (fromDay !== w.day) return; // another tick began it (decideAdvance's from_day)
        w.day += 1; w.days.push(at); w.beganAt = at;
      },
    };
    return { w, ticked };
  }

  it('begins one day per period, each at the time it was due', async () => {
    const ticker = new IntervalTicker();
    const { w, ticked } = world(0);
    ticker.start(HOUR, ticked);
    await clock.tickAsync(3 * HOUR);
    assert.deepEqual(w.days, [HOUR, 2 * HOUR, 3 * HOUR]);
    assert.equal(w.day, 4);
    ticker.stop();
    await clock.tickAsync(HOUR);
    assert.equal(w.days.length, 3);
  });

  it('is off when the period is 0', async () => {
    const ticker = new IntervalTicker();
    const { w, ticked } = world(0);
    ticker.start(0, ticked);
    await clock.tickAsync(10 * HOUR);
    assert.equal(w.days.length, 0);
  });

  it('begins no day on a node that does not host the clock, and does not even look', async () => {
    const ticker = new IntervalTicker();
    const { w, ticked } = world(0);
    w.hosts = false;
    let looks = 0;
    ticker.start(HOUR, { ...ticked, current: async () => { looks += 1; return ticked.current(); } });
    await clock.tickAsync(3 * HOUR);
    assert.equal(w.days.length, 0);
    assert.equal(looks, 0);
    w.hosts = true; // the clock's shard moved here: the overdue day begins at the next look
    await clock.tickAsync(1000);
    assert.equal(w.days.length, 1);
    ticker.stop();
  });

  it('never overlaps a day still being settled', async () => {
    const ticker = new IntervalTicker();
    let started = 0;
    ticker.start(1000, { hostsClock: () => true, current: async () => ({ day: 1, began_at: null }), advance: () => { started += 1; return new Promise((r) => setTimeout(r, 2500)); } });
    await clock.tickAsync(3000);
    assert.equal(started, 1);
    await clock.tickAsync(1000);
    assert.equal(started, 2);
    ticker.stop();
  });

  it('begins no day once stopped, even from a look already under way', async () => {
    const ticker = new IntervalTicker();
    const { w, ticked } = world(0);
    let release!: () => void;
    ticker.start(HOUR, { ...ticked, current: () => new Promise((r) => { release = () => r({ day: w.day, began_at: w.beganAt }); }) });
    await clock.tickAsync(HOUR);
    ticker.stop();
    release();
    await clock.tickAsync(1000);
    assert.equal(w.days.length, 0);
  });

  it('keeps the beat across a restart: a day that began half a period before the start ends half a period after it', async () => {
    await clock.tickAsync(10 * HOUR);
    const { w, ticked } = world(10 * HOUR - HOUR / 2);
    const ticker = new IntervalTicker();
    ticker.start(HOUR, ticked);
    await clock.tickAsync(HOUR / 2 - 1000);
    assert.equal(w.days.length, 0);
    await clock.tickAsync(1000);
    assert.deepEqual(w.days, [10 * HOUR + HOUR / 2]);
    ticker.stop();
  });

  it('begins an overdue day at once after a long stop, one day for the whole stop, and counts the next period from then', async () => {
    await clock.tickAsync(10 * HOUR);
    const { w, ticked } = world(HOUR); // stopped nine hours ago, in the middle of a day
    const ticker = new IntervalTicker();
    ticker.start(HOUR, ticked);
    await clock.tickAsync(1000);
    assert.deepEqual(w.days, [10 * HOUR + 1000]);
    await clock.tickAsync(HOUR - 1000);
    assert.equal(w.days.length, 1, 'one day for the whole stop');
    await clock.tickAsync(1000);
    assert.deepEqual(w.days, [10 * HOUR + 1000, 11 * HOUR + 1000]);
    ticker.stop();
  });

  it('counts from its start in a world that does not know when its day began (an older version\'s)', async () => {
    await clock.tickAsync(5 * HOUR);
    const { w, ticked } = world(null);
    const ticker = new IntervalTicker();
    ticker.start(HOUR, ticked);
    await clock.tickAsync(HOUR - 1000);
    assert.equal(w.days.length, 0);
    await clock.tickAsync(1000);
    assert.deepEqual(w.days, [6 * HOUR]);
    ticker.stop();
  });

  it('tries a day the world could not begin (its bus down) again at its next look, not a period later', async () => {
    const { w, ticked } = world(0);
    let refusals = 5;
    const ticker = new IntervalTicker();
    ticker.start(HOUR, { ...ticked, advance: async (at, fromDay) => { if (refusals-- > 0) throw new Error('the bus cannot be reached'); await ticked.advance(at, fromDay); } });
    await clock.tickAsync(HOUR + 5000);
    // Five looks a second apart were refused; the sixth begins the day, as late as it is (past a poll's slack).
    assert.deepEqual(w.days, [HOUR + 5000]);
    ticker.stop();
  });
});

describe('bounded fan-out', () => {
  it('never has more than the limit in flight and visits every item', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachLimited(Array.from({ length: 50 }, (_, i) => i), 4, async (i) => {
      inFlight += 1; peak = Math.max(peak, inFlight);
      await new Promise((r) => setImmediate(r));
      seen.push(i);
      inFlight -= 1;
    });
    assert.equal(peak, 4);
    assert.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  });
});

describe('seeded randomness and the generated world', () => {
  it('draws the same values for the same names and different ones for others', () => {
    assert.equal(hash32('s', 1), hash32('s', 1));
    assert.notEqual(hash32('s', 1), hash32('s', 2));
    const a = rng('seed', 'x'); const b = rng('seed', 'x');
    const xs = [a(), a(), a()];
    assert.deepEqual(xs, [b(), b(), b()]);
    assert.ok(xs.every((x) => x >= 0 && x < 1));
  });

  it('generates the same world from the same seed', () => {
    assert.deepEqual(generateWorld('one'), generateWorld('one'));
    assert.notDeepEqual(generateWorld('one').adventurers, generateWorld('two').adventurers);
  });

  it('has emberfall, a timber place, an ore place, wilderness and dungeons, with two-way routes', () => {
    const w = generateWorld('one');
    const ids = w.locations.map((l) => l.id);
    for (const id of ['emberfall', 'greenhollow', 'ironcrag']) assert.ok(ids.includes(id));
    assert.ok(w.locations.some((l) => l.kind === 'wilderness' && l.monster_population > 0));
    assert.ok(w.locations.some((l) => l.kind === 'dungeon' && l.monster_population > 0));
    for (const l of w.locations) {
      for (const r of l.routes) {
        const back = w.locations.find((o) => o.id === r.destination_id)!.routes.find((x) => x.destination_id === l.id);
        assert.deepEqual(back && { d: back.distance_days, g: back.danger }, { d: r.distance_days, g: r.danger });
      }
    }
    assert.ok(w.organizations.every((o) => o.treasury > 0));
    assert.ok(w.adventurers.every((a) => a.traits.length >= 1 && a.strength > 0));
  });

  it('names the first 1,312 adventurers of a world each differently, neighbours sharing neither name, then with a numeral', () => {
    for (const seed of ['one', 'two', 'bench']) {
      const names = Array.from({ length: 1312 }, (_, i) => adventurerName(seed, i + 1));
      assert.equal(new Set(names).size, 1312, seed);
      for (let i = 1; i < names.length; i++) {
        const [given, family] = names[i].split(' ');
        const [givenBefore, familyBefore] = names[i - 1].split(' ');
        assert.ok(given !== givenBefore && family !== familyBefore, `${names[i - 1]}, ${names[i]}`);
      }
      assert.equal(adventurerName(seed, 1313), `${names[0]} II`);
      assert.equal(adventurerName(seed, 2 * 1312 + 5), `${names[4]} III`);
    }
    assert.notEqual(adventurerName('one', 1), adventurerName('two', 1));
    assert.deepEqual(generateWorld('one').adventurers.map((a) => a.name), Array.from({ length: 60 }, (_, i) => adventurerName('one', i + 1)));
  });

  it('writes the numeral of a name\'s nth bearer', () => {
    assert.deepEqual([1, 2, 4, 9, 10, 14, 40, 76, 1994].map(numeral), ['', ' II', ' IV', ' IX', ' X', ' XIV', ' XL', ' LXXVI', ' MCMXCIV']);
  });
});
