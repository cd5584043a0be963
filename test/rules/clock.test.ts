import assert from 'assert/strict';
import type { ClockState } from '../../actors/clock/messages';
import { FIRST_DAY, dayBeginning, decideAdvance, decideBegin, evolve, nextDayAt } from '../../actors/clock/rules';

describe('clock rules (core rule 1)', () => {
  it('begins on the first day, once', () => {
    const d = decideBegin(null, 'seed');
    assert.ok('events' in d);
    const s = d.events.reduce(evolve, null as ClockState);
    assert.equal(s!.day, FIRST_DAY);
    assert.deepEqual(decideBegin(s, 'other'), { events: [] });
  });

  it('advances exactly one day', () => {
    let s: ClockState = { day: 41, seed: 's' };
    const d = decideAdvance(s);
    assert.ok('events' in d);
    s = d.events.reduce(evolve, s);
    assert.equal(s!.day, 42);
  });

  it('cannot advance a world that has not begun', () => {
    const d = decideAdvance(null);
    assert.ok('refusal' in d && d.refusal.status === 409);
  });

  describe('when a day began, for the background clock\'s beat across restarts', () => {
    it('keeps the time the world and each day began', () => {
      const begun = decideBegin(null, 'seed', 1_000);
      assert.ok('events' in begun);
      let s = begun.events.reduce(evolve, null as ClockState);
      assert.equal(s!.began_at, 1_000);
      const d = decideAdvance(s, 3_601_000);
      assert.ok('events' in d);
      s = d.events.reduce(evolve, s);
      assert.deepEqual(s, { day: FIRST_DAY + 1, seed: 'seed', began_at: 3_601_000 });
    });

    it('begins no second day for a ticker that saw the day before another tick began this one (from_day)', () => {
      const s: ClockState = { day: 7, seed: 's', began_at: 1_000 };
      assert.deepEqual(decideAdvance(s, 2_000, 6), { events: [] });
      const d = decideAdvance(s, 2_000, 7);
      assert.ok('events' in d);
      assert.deepEqual(d.events, [{ type: 'day-advanced', day: 8, at: 2_000 }]);
    });

    it('forgets it for a day begun without its time (by an older node), rather than keep the day before\'s', () => {
      const s = evolve({ day: 4, seed: 's', began_at: 1_000 }, { type: 'day-advanced', day: 5 });
      assert.equal(s!.began_at, null);
    });

    it('begins the next day one period after the current one began, or after `since` when that is not known', () => {
      assert.equal(nextDayAt(1_000, 99_999, 3_600_000), 3_601_000);
      assert.equal(nextDayAt(null, 5_000, 3_600_000), 3_605_000);
    });

    it('records a day begun a poll late at the time it was due, and one begun later at the time it began', () => {
      assert.equal(dayBeginning(3_600_000, 3_600_900, 2_000), 3_600_000);
      assert.equal(dayBeginning(3_600_000, 3_602_000, 2_000), 3_600_000);
      assert.equal(dayBeginning(3_600_000, 3_602_001, 2_000), 3_602_001);
      assert.equal(dayBeginning(3_600_000, 40_000_000, 2_000), 40_000_000);
    });
  });
});
