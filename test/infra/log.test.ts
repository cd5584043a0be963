// The JSON log's time field: ISO 8601 in UTC, as pino's isoTime writes it, formatted at most
// once a millisecond; and stdout's lines, handed on once a turn of the event loop, none lost
// when the process exits.
import assert from 'assert';
import { execFileSync } from 'child_process';
import path from 'path';
import sinon from 'sinon';
import { isoTimeOncePerMs, jsonLogger, LinesOfATurn } from '../../infra/log';

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

describe('the lines of a turn (stdout\'s log)', () => {
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const recording = () => {
    const calls: string[] = [];
    return { calls, out: { write: (text: string) => { calls.push(`write ${text}`); }, flush: (cb?: () => void) => { calls.push('flush'); cb?.(); } } };
  };

  it('hands the lines logged in one turn on together, in the order they came, and those of the next turn apart', async () => {
    const { calls, out } = recording();
    const lines = new LinesOfATurn(out);
    lines.write('a\n');
    lines.write('b\n');
    lines.write('c\n');
    assert.deepEqual(calls, [], 'nothing is handed on within the turn');
    await turn();
    assert.deepEqual(calls, ['write a\nb\nc\n']);
    lines.write('d\n');
    await turn();
    assert.deepEqual(calls, ['write a\nb\nc\n', 'write d\n']);
    await turn();
    assert.equal(calls.length, 2, 'a turn without lines hands on nothing');
  });

  it('hands on what it holds before the destination is flushed', async () => {
    const { calls, out } = recording();
    const lines = new LinesOfATurn(out);
    lines.write('a\n');
    let flushed = false;
    lines.flush(() => { flushed = true; });
    assert.deepEqual(calls, ['write a\n', 'flush']);
    assert.ok(flushed);
    await turn();
    assert.deepEqual(calls, ['write a\n', 'flush'], 'the turn\'s end finds nothing more');
  });

  /** The messages a process wrote to stdout after logging 3,000 lines in one turn, then running `end`. */
  const linesOfAProcess = (end: string) => {
    const log = path.resolve(__dirname, '../../infra/log.js');
    const program = `const logger = require(${JSON.stringify(log)}).jsonLogger(); for (let i = 0; i < 3000; i++) logger.info('line ' + i); ${end}`;
    const out = execFileSync(process.execPath, ['-e', program], { maxBuffer: 64 * 2 ** 20 }).toString();
    return out.trim().split('\n').map((l) => JSON.parse(l).msg);
  };
  const logged = Array.from({ length: 3000 }, (_, i) => `line ${i}`);

  it('writes every line it logged to stdout when the process exits in the middle of a turn (process.exit)', () => {
    assert.deepEqual(linesOfAProcess('process.exit(0);'), logged);
  });

  it('writes every line it logged to stdout when the process ends by itself', () => {
    assert.deepEqual(linesOfAProcess(''), logged);
  });
});
