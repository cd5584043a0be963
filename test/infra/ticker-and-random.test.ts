import assert from 'assert/strict';
import sinon from 'sinon';
import { IntervalTicker } from '../../infra/clock/interval-ticker';
import { forEachLimited } from '../../actors/concurrency';
import { hash32, rng } from '../../actors/random';
import { generateWorld } from '../../actors/world/generate';

describe('interval ticker', () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => { clock = sinon.useFakeTimers(); });
  afterEach(() => clock.restore());

  const HOUR = 3600_000;
  /** A world's clock as the store keeps it: the time its current day began, moved by each day begun. */
  function world(beganAt: number | null) {
    const w = { beganAt, days: [] as number[] };
    return {
      w,
      dayBeganAt: async () => w.beganAt,
      advance: async (at: number) => { w.days.push(at); w.beganAt = at; },
    };
  }

  it('begins one day per period, each at the time it was due', async () => {
    const ticker = new IntervalTicker();
    const { w, dayBeganAt, advance } = world(0);
    ticker.start(HOUR, dayBeganAt, advance);
    await clock.tickAsync(3 * HOUR);
    assert.deepEqual(w.days, [HOUR, 2 * HOUR, 3 * HOUR]);
    ticker.stop();
    await clock.tickAsync(HOUR);
    assert.equal(w.days.length, 3);
  });

  it('is off when the period is 0', async () => {
    const ticker = new IntervalTicker();
    const { w, dayBeganAt, advance } = world(0);
    ticker.start(0, dayBeganAt, advance);
    await clock.tickAsync(10 * HOUR);
    assert.equal(w.days.length, 0);
  });

  it('never overlaps a day still being settled', async () => {
    const ticker = new IntervalTicker();
    let started = 0;
    ticker.start(1000, async () => null, () => { started += 1; return new Promise((r) => setTimeout(r, 2500)); });
    await clock.tickAsync(3000);
    assert.equal(started, 1);
    await clock.tickAsync(1000);
    assert.equal(started, 2);
    ticker.stop();
  });

  it('keeps the beat across a restart: a day that began half a period before the start ends half a period after it', async () => {
    await clock.tickAsync(10 * HOUR);
    const { w, dayBeganAt, advance } = world(10 * HOUR - HOUR / 2);
    const ticker = new IntervalTicker();
    ticker.start(HOUR, dayBeganAt, advance);
    await clock.tickAsync(HOUR / 2 - 1000);
    assert.equal(w.days.length, 0);
    await clock.tickAsync(1000);
    assert.deepEqual(w.days, [10 * HOUR + HOUR / 2]);
    ticker.stop();
  });

  it('begins an overdue day at once after a long stop, one day for the whole stop, and counts the next period from then', async () => {
    await clock.tickAsync(10 * HOUR);
    const { w, dayBeganAt, advance } = world(HOUR); // stopped nine hours ago, in the middle of a day
    const ticker = new IntervalTicker();
    ticker.start(HOUR, dayBeganAt, advance);
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
    const { w, dayBeganAt, advance } = world(null);
    const ticker = new IntervalTicker();
    ticker.start(HOUR, dayBeganAt, advance);
    await clock.tickAsync(HOUR - 1000);
    assert.equal(w.days.length, 0);
    await clock.tickAsync(1000);
    assert.deepEqual(w.days, [6 * HOUR]);
    ticker.stop();
  });

  it('tries a day the world could not begin (its bus down) again at its next look, not a period later', async () => {
    const { w, dayBeganAt, advance } = world(0);
    let refusals = 5;
    const ticker = new IntervalTicker();
    ticker.start(HOUR, dayBeganAt, async (at) => { if (refusals-- > 0) throw new Error('the bus cannot be reached'); await advance(at); });
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
});
