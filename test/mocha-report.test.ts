// The closing summary of `npm test` (test/run.ts) names each failure with its titles and
// its error, because the tail of a long run is often all a CI log keeps.
import assert from 'assert/strict';
import { ending } from './support/mocha-report';

/** Mocha's spec reporter's end of a run with two failures: a hook and a test. */
const REPORT = [
  '  546 passing (5m)',
  '  2 failing',
  '',
  '  1) actors on ordered writes',
  '       of Cassandra on one node',
  '         "before each" hook for "go on while their writes are on their way":',
  '     Error: Timeout of 60000ms exceeded.',
  '      at listOnTimeout (node:internal/timers:573:17)',
  '      at process.processTimers (node:internal/timers:514:7)',
  '',
  '  2) the day\'s fan-out on ordered writes',
  '       asks an organization again:',
  '',
  '      AssertionError [ERR_ASSERTION]: asked again, it paid one upkeep for the day',
  '      + expected - actual',
  '',
  '      -2',
  '      +1',
  '      ',
  '      at Context.<anonymous> (dist/test/infra/ordered-writes.test.js:400:16)',
  '',
].join('\n');

describe("the closing summary of the test run", () => {
  it('gives the counts, then each failure with its nested titles and its error, without the stack', () => {
    assert.equal(ending('the servers part', 282, REPORT), [
      'the servers part: 282 s; 546 passing (5m), 2 failing',
      '     1) actors on ordered writes',
      '          of Cassandra on one node',
      '            "before each" hook for "go on while their writes are on their way":',
      '        Error: Timeout of 60000ms exceeded.',
      "     2) the day's fan-out on ordered writes",
      '          asks an organization again:',
      '         AssertionError [ERR_ASSERTION]: asked again, it paid one upkeep for the day',
      '         + expected - actual',
      '         -2',
      '         +1',
    ].join('\n'));
  });

  it('keeps at most twelve lines of a failure, and says when a run gave no count', () => {
    const long = ['  1 failing', '', '  1) a test:', ...Array.from({ length: 30 }, (_, i) => `     line ${i}`)].join('\n');
    assert.equal(ending('long', 1, long).split('\n').length, 1 + 12);
    assert.equal(ending('silent', 0, 'Error: Cannot find module'), 'silent: 0 s; no count (did it start?)');
  });
});
