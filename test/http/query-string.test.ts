// The query string as restify's queryParser reads it (qs, its defaults), the common queries
// read without qs (http/query-string.ts): the same parameters as qs gives for any string,
// compared with qs itself over many strings made of the pieces that tell them apart.
import assert from 'assert/strict';
import qs from 'qs';
import sinon from 'sinon';
import { parseQuery } from '../../http/query-string';

/** mulberry32: the same strings on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces of query strings: names, separators, escapes that decode and ones that do not, plus signs, brackets, prototype names. */
const PIECES = [
  'a', 'b', 'limit', 'status', 'location_id', '30', '0', '1', '=', '=', '&', '&', '+', '%20', '%2B', '%3D', '%26', '%', '%E2%9C%93', '%E0%A4%A', '%ZZ',
  'é', '?', '.', ',', ';', '[', ']', '[]', '%5B', '%5d', 'constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf', 'utf8', '%25', '%255B',
];

describe('query strings (http/query-string.ts)', () => {
  afterEach(() => sinon.restore());

  it('reads every string as qs.parse does', () => {
    const random = seeded(20261208);
    for (let n = 0; n < 20_000; n++) {
      let query = '';
      const length = Math.floor(random() * 12);
      for (let i = 0; i < length; i++) query += PIECES[Math.floor(random() * PIECES.length)];
      assert.deepStrictEqual(parseQuery(query), qs.parse(query), query);
    }
  });

  it('reads the forms qs gives meaning to as qs does', () => {
    for (const query of [
      '', 'limit=30', 'limit=30&status=active', 'a', 'a=', '=a', '&&', 'a==b', 'a=1&a=2', 'a=1&b=2&a=3', `${'a=1&'.repeat(30)}`,
      'limit[a]=1', 'agent_id[]=1', 'category[x]=ab', 'a%5Bb%5D=c', 'a[b][c]=d', 'a[0]=x&a[1]=y', 'a[30]=x', 'constructor=1', '__proto__=1',
      'hasOwnProperty=x&b=y', 'q=a+b%20c', 'q=%E0%A4%A', 'q=%ZZ', 'name=%E2%9C%93', '%61=1', 'a=1&%61=2', '?a=1', 'a.b=1',
      Array.from({ length: 1_200 }, (_, i) => `k${i}=${i}`).join('&'),
    ]) assert.deepStrictEqual(parseQuery(query), qs.parse(query), query);
  });

  it('reads a query with no bracket and no repeated key itself, and hands any other to qs', () => {
    const parse = sinon.spy(qs, 'parse');
    assert.deepStrictEqual(parseQuery('limit=30&location_id=ember+fall'), { limit: '30', location_id: 'ember fall' });
    assert.deepStrictEqual(parseQuery('q=%E2%9C%93&empty'), { q: '✓', empty: '' });
    assert.equal(parse.callCount, 0, 'qs is not asked for the common queries');
    assert.deepStrictEqual(parseQuery('status=a&status=b'), { status: ['a', 'b'] });
    assert.deepStrictEqual(parseQuery('limit[a]=1'), { limit: { a: '1' } });
    assert.deepStrictEqual(parseQuery('limit%5Ba%5D=1'), { limit: { a: '1' } });
    assert.equal(parse.callCount, 3, 'repeated keys and brackets are qs\'s to read');
  });
});
