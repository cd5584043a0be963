import assert from 'assert/strict';
import { RowCache } from '../../infra/store/row-cache';

describe('RowCache', () => {
  it('keeps what was read, by kind and id', () => {
    const cache = new RowCache();
    cache.keep('quest', '1', '{"id":1}');
    assert.equal(cache.get('quest', '1'), '{"id":1}');
    assert.equal(cache.get('organization', '1'), undefined);
  });

  it('replaces a kept row with what a commit wrote, and drops a deleted one', () => {
    const cache = new RowCache();
    cache.keep('quest', '1', 'old');
    cache.keep('quest', '2', 'old');
    cache.written('quest', '1', 'new');
    cache.written('quest', '2', null);
    assert.equal(cache.get('quest', '1'), 'new');
    assert.equal(cache.get('quest', '2'), undefined);
  });

  it('keeps nothing a commit wrote unless it was read (a day writes every organization)', () => {
    const cache = new RowCache();
    cache.written('organization', '7', '{}');
    assert.equal(cache.get('organization', '7'), undefined);
    assert.equal(cache.size, 0);
  });

  it('forgets a row whose write failed, and everything when asked', () => {
    const cache = new RowCache();
    cache.keep('quest', '1', 'a');
    cache.keep('quest', '2', 'b');
    cache.forget('quest', '1');
    assert.equal(cache.get('quest', '1'), undefined);
    cache.clear();
    assert.equal(cache.size, 0);
  });

  it('holds at most its bound, the oldest going first', () => {
    const cache = new RowCache(2);
    cache.keep('quest', '1', 'a');
    cache.keep('quest', '2', 'b');
    cache.keep('quest', '3', 'c');
    assert.equal(cache.size, 2);
    assert.equal(cache.get('quest', '1'), undefined);
    assert.equal(cache.get('quest', '3'), 'c');
  });
});
