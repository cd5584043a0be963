// Pages of listings kept until a commit may change them (infra/store/page-cache.ts): a write
// changes a page when its row is on it, or lies in its span and its query selects it now;
// every other write leaves the page as it was read.
import assert from 'assert/strict';
import { PageCache, selects } from '../../infra/store/page-cache';
import { QUERIES, type StoredRow } from '../../actors/ports/store';

const rows = (...ids: number[]): StoredRow[] => ids.map((id) => ({ id: String(id), doc: `{"id":${id}}` }));

describe('page cache: which rows a query selects', () => {
  it('by kind only, by status, by its column, and by due day, a null column matching nothing', () => {
    assert.ok(selects(QUERIES.parties, undefined, { kind: 'party', id: 1, status: 'disbanded' }));
    assert.ok(selects(QUERIES.questsListed, undefined, { kind: 'quest', id: 1, status: 'open' }));
    assert.ok(!selects(QUERIES.questsListed, undefined, { kind: 'quest', id: 1, status: 'withdrawn' }));
    assert.ok(selects(QUERIES.openQuestsAt, 'emberfall', { kind: 'quest', id: 1, status: 'open', location_id: 'emberfall' }));
    assert.ok(!selects(QUERIES.openQuestsAt, 'emberfall', { kind: 'quest', id: 1, status: 'open', location_id: 'ashford' }));
    assert.ok(!selects(QUERIES.openQuestsAt, 'emberfall', { kind: 'quest', id: 1, status: 'accepted', location_id: 'emberfall' }));
    assert.ok(selects(QUERIES.employeesOf, 5, { kind: 'adventurer', id: 1, status: 'employed', organization_id: 5 }));
    assert.ok(selects(QUERIES.employeesOf, '5', { kind: 'adventurer', id: 1, status: 'employed', organization_id: 5 }), 'the argument as the address gives it');
    assert.ok(!selects(QUERIES.membersOf, 5, { kind: 'adventurer', id: 1, organization_id: null }));
    assert.ok(selects(QUERIES.questsDue, 10, { kind: 'quest', id: 1, due_day: 10 }));
    assert.ok(!selects(QUERIES.questsDue, 10, { kind: 'quest', id: 1, due_day: 11 }));
    assert.ok(!selects(QUERIES.questsDue, 10, { kind: 'quest', id: 1, due_day: null }));
    assert.ok(!selects(QUERIES.parties, undefined, { kind: 'party', id: 1, deleted: true }), 'a row that left is selected by nothing');
  });

  it('by a document\'s field: any row of the kind may be, since a write says only its columns', () => {
    assert.ok(selects(QUERIES.questsRequestedBy, 5, { kind: 'quest', id: 1, status: 'open', organization_id: 6 }));
    assert.ok(selects(QUERIES.contractsInStatus, 'proposed', { kind: 'contract', id: 1, status: 'fulfilled' }));
    assert.ok(!selects(QUERIES.contractsInStatus, 'proposed', { kind: 'contract', id: 1, deleted: true }));
    // So a kept page of such a query goes with a write in its span, and stays for one beyond it.
    const cache = new PageCache();
    cache.keep('contractsInStatus', 'proposed', undefined, 3, rows(2, 5, 9));
    cache.written([{ kind: 'contract', id: 12, status: 'active' }]);
    assert.ok(cache.get('contractsInStatus', 'proposed', undefined, 3), 'beyond the row read past it: kept');
    cache.written([{ kind: 'contract', id: 7, status: 'active' }]);
    assert.equal(cache.get('contractsInStatus', 'proposed', undefined, 3), undefined, 'in its span: dropped');
  });
});

describe('page cache: pages kept until a write may change them', () => {
  // The quest board's first page of two, read with one more row to learn that more follow.
  const board = (cache: PageCache) => cache.keep('questsListed', undefined, undefined, 3, rows(1, 2, 3));
  const open = (id: number) => ({ kind: 'quest', id, status: 'open' });

  it('gives every reader the rows kept, the same frozen array', () => {
    const cache = new PageCache();
    const kept = board(cache);
    assert.equal(cache.get('questsListed', undefined, undefined, 3), kept);
    assert.ok(Object.isFrozen(kept) && Object.isFrozen(kept[0]));
    assert.equal(cache.get('questsListed', undefined, undefined, 20), undefined, 'another limit is another read');
    assert.equal(cache.get('questsListed', undefined, '3', 3), undefined, 'another start is another read');
  });

  it('keeps a full page across writes beyond its last row, of another kind, or that its query does not select', () => {
    const cache = new PageCache();
    board(cache);
    cache.written([open(4), open(900), { kind: 'organization', id: 2, status: 'active' }]);
    assert.ok(cache.get('questsListed', undefined, undefined, 3), 'kept');
    cache.keep('questsListed', undefined, undefined, 3, rows(2, 4, 6));
    cache.written([{ kind: 'quest', id: 3, status: 'withdrawn' }]);
    assert.ok(cache.get('questsListed', undefined, undefined, 3), 'a row in its span that the board does not list');
  });

  it('drops it for a write of a row on it, the row read beyond it included, whatever the row is now', () => {
    for (const row of [open(1), { kind: 'quest', id: 2, status: 'withdrawn' }, { kind: 'quest', id: '3', deleted: true }]) {
      const cache = new PageCache();
      board(cache);
      cache.written([row]);
      assert.equal(cache.get('questsListed', undefined, undefined, 3), undefined, JSON.stringify(row));
    }
  });

  it('drops it for a row its query selects now, in its span: after its start and, for a full page, through its last row', () => {
    const cache = new PageCache();
    cache.keep('questsListed', undefined, '10', 3, rows(12, 14, 16));
    cache.written([open(9), open(17)]);
    assert.ok(cache.get('questsListed', undefined, '10', 3), 'before its start and after its last row');
    cache.written([open(13)]);
    assert.equal(cache.get('questsListed', undefined, '10', 3), undefined, 'a row that joins the page');
  });

  it('drops the end of a listing (a page shorter than asked for) for any row its query selects after its start', () => {
    const cache = new PageCache();
    cache.keep('openQuestsAt', 'emberfall', undefined, 3, rows(1, 2));
    cache.written([{ kind: 'quest', id: 50, status: 'open', location_id: 'ashford' }]);
    assert.ok(cache.get('openQuestsAt', 'emberfall', undefined, 3), 'elsewhere');
    cache.written([{ kind: 'quest', id: 50, status: 'open', location_id: 'emberfall' }]);
    assert.equal(cache.get('openQuestsAt', 'emberfall', undefined, 3), undefined);
  });

  it('keeps a read of no rows at all (a limit of 0) as the end of its listing', () => {
    const cache = new PageCache();
    assert.deepEqual(cache.keep('questsListed', undefined, undefined, 0, []), []);
    cache.written([{ kind: 'quest', id: 5, status: 'withdrawn' }]);
    assert.deepEqual(cache.get('questsListed', undefined, undefined, 0), []);
    cache.written([open(5)]);
    assert.equal(cache.get('questsListed', undefined, undefined, 0), undefined);
  });

  it('keeps reads apart whatever their argument and start hold', () => {
    const cache = new PageCache();
    cache.keep('openQuestsAt', 'ab\u0000cd', undefined, 5, rows(1));
    assert.equal(cache.get('openQuestsAt', 'ab', 'cd\u0000', 5), undefined);
    assert.equal(cache.get('openQuestsAt', 'ab\u0000cd', undefined, 5)?.length, 1);
  });

  it('drops every page when the rows written cannot be told', () => {
    const cache = new PageCache();
    board(cache);
    cache.keep('agents', undefined, undefined, 5, rows(1));
    cache.clear();
    assert.equal(cache.size, 0);
    assert.equal(cache.get('agents', undefined, undefined, 5), undefined);
  });

  it('keeps at most its bound of pages and of characters, the oldest going first', () => {
    const cache = new PageCache(2, 40);
    cache.keep('agents', undefined, undefined, 5, rows(1));
    cache.keep('agents', undefined, undefined, 6, rows(2));
    cache.keep('agents', undefined, undefined, 7, rows(3));
    assert.deepEqual([5, 6, 7].map((l) => cache.get('agents', undefined, undefined, l) !== undefined), [false, true, true]);
    cache.keep('agents', undefined, undefined, 8, rows(4, 5, 6, 7, 8)); // 40 characters: with another page, over 40
    assert.deepEqual([6, 7, 8].map((l) => cache.get('agents', undefined, undefined, l) !== undefined), [false, false, true]);
    const big = cache.keep('agents', undefined, undefined, 9, rows(10, 11, 12, 13, 14, 15));
    assert.equal(big.length, 6, 'a page over the bound is answered, not kept');
    assert.equal(cache.get('agents', undefined, undefined, 9), undefined);
    assert.equal(cache.size, 1);
  });
});
