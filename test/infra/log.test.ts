// The JSON log's time field: ISO 8601 in UTC, as pino's isoTime writes it, formatted at most
// once a millisecond.
import assert from 'assert';
import sinon from 'sinon';
import { isoTimeOncePerMs, jsonLogger } from '../../infra/log';

describe('the JSON log\'s time', () => {
  it('is the ISO time of the millisecond the line is written in, made once for lines of the same millisecond', () => {
    let now = Date.UTC(2026, 10, 27, 15, 4, 5, 678);
    const made: number[] = [];
    const field = isoTimeOncePerMs(() => { made.push(now); return now; });
    assert.equal(field(), ',"time":"2026-11-27T15:04:05.678Z"');
    const first = field();
    assert.equal(field(), first);
    now += 1;
    assert.equal(field(), ',"time":"2026-11-27T15:04:05.679Z"');
    assert.equal(made.length, 4, 'the clock is read for every line');
  });

  it('is written on every line of a logger, and moves with the clock', () => {
    const clock = sinon.useFakeTimers({ now: Date.UTC(2026, 10, 27, 23, 59, 59, 999), toFake: ['Date'] });
    try {
      const lines: string[] = [];
      const logger = jsonLogger((line) => lines.push(line));
      logger.info('one');
      logger.info('two');
      clock.tick(1);
      logger.info('three');
      assert.deepEqual(lines.map((l) => JSON.parse(l).time), ['2026-11-27T23:59:59.999Z', '2026-11-27T23:59:59.999Z', '2026-11-28T00:00:00.000Z']);
    } finally {
      clock.restore();
    }
  });
});
