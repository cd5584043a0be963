// The helpers of the store port that adapters use: the id order of every listing, and an
// event stream over events loaded asynchronously, replayed the way nact replays.
import assert from 'assert/strict';
import { compareIds, eventStream, type PersistedEvent } from '../../actors/ports/store';

const event = (sequenceNumber: number): PersistedEvent =>
  ({ key: 'k:1', sequenceNumber, createdAt: sequenceNumber, data: { n: sequenceNumber }, tags: [], isDeleted: false });

describe('store port helpers', () => {
  it('orders ids: integers numerically, after string ids, which sort by name', () => {
    const ids: Array<string | number> = ['100', 2, 'emberfall', '10', 'world-event-3', 1, 'ashen-moors', 'world-event-12', '3'];
    assert.deepEqual([...ids].sort(compareIds).map(String), ['ashen-moors', 'emberfall', 'world-event-12', 'world-event-3', '1', '2', '3', '10', '100']);
    assert.equal(compareIds(7, '7'), 0);
  });

  it('replays an asynchronously loaded stream with an async reducer, as nact does', async () => {
    let loads = 0;
    const stream = eventStream(async () => { loads += 1; return [event(1), event(2), event(3)]; });
    const result = await stream.reduce(async (previous: Promise<number[]>, e: PersistedEvent, index: number) => {
      const seen = await previous;
      return [...seen, e.sequenceNumber * 10 + index];
    }, Promise.resolve([] as number[]));
    assert.deepEqual(result, [10, 21, 32]);
    assert.equal(loads, 1);
  });

  it('rejects the replay when the events cannot be loaded', async () => {
    const stream = eventStream(async () => { throw new Error('unreachable'); });
    await assert.rejects(Promise.resolve(stream.reduce((n: number) => n + 1, 0)), /unreachable/);
  });
});
