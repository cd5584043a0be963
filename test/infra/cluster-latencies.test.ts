// The cross-node ask latencies /healthz shows: percentiles of the asks of the last minute.
import assert from 'assert/strict';
import { Latencies, WINDOW_MS } from '../../infra/cluster/latencies';

describe('the latencies of cross-node asks (/healthz)', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('has none before the first ask', () => {
    assert.equal(new Latencies(clock).percentile(99), null);
  });

  it('gives the nearest-rank percentiles of what it holds, to a tenth of a millisecond', () => {
    const l = new Latencies(clock);
    for (let ms = 1; ms <= 100; ms++) l.add(ms + 0.04);
    assert.equal(l.percentile(50), 51);
    assert.equal(l.percentile(99), 100);
  });

  it('forgets asks older than a minute: a burst at start-up no longer shows once it is a minute old', () => {
    const l = new Latencies(clock);
    for (let i = 0; i < 50; i++) l.add(900); // the seeding of a new world
    now += 30_000;
    for (let i = 0; i < 100; i++) l.add(5);
    assert.equal(l.percentile(99), 900, 'within the minute, the burst counts');
    now += WINDOW_MS - 30_000 + 1;
    assert.equal(l.percentile(99), 5);
    now += WINDOW_MS;
    assert.equal(l.percentile(50), null, 'a quiet minute shows nothing');
  });

  it('keeps at most the last 1,000 asks of the minute', () => {
    const l = new Latencies(clock);
    for (let i = 0; i < 1_000; i++) l.add(500);
    for (let i = 0; i < 1_000; i++) l.add(2);
    assert.equal(l.percentile(99), 2);
  });
});
