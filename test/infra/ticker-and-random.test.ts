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

  it('advances one day per period', async () => {
    const ticker = new IntervalTicker();
    let days = 0;
    ticker.start(3600_000, async () => { days += 1; });
    await clock.tickAsync(3 * 3600_000);
    assert.equal(days, 3);
    ticker.stop();
    await clock.tickAsync(3600_000);
    assert.equal(days, 3);
  });

  it('is off when the period is 0', async () => {
    const ticker = new IntervalTicker();
    let days = 0;
    ticker.start(0, async () => { days += 1; });
    await clock.tickAsync(10 * 3600_000);
    assert.equal(days, 0);
  });

  it('never overlaps a day still being settled', async () => {
    const ticker = new IntervalTicker();
    let started = 0;
    ticker.start(1000, () => { started += 1; return new Promise((r) => setTimeout(r, 2500)); });
    await clock.tickAsync(3000);
    assert.equal(started, 1);
    await clock.tickAsync(1000);
    assert.equal(started, 2);
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
