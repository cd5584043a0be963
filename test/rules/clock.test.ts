import assert from 'assert/strict';
import type { ClockState } from '../../actors/clock/messages';
import { FIRST_DAY, decideAdvance, decideBegin, evolve } from '../../actors/clock/rules';

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
});
