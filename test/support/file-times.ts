// A mocha root-hook plugin for test/run.ts (--require): the seconds each test file took,
// printed as one line at the end of the run, so the three-node lanes can be balanced by
// what their files cost. A test's time counts from the end of the test before it, so a
// file's hooks count for it (its last `after` counts for the next file).
import path from 'path';

const seconds = new Map<string, number>();
let last = performance.now();

export const FILE_TIMES_MARK = 'file-seconds:';

export const mochaHooks = {
  afterEach(this: Mocha.Context) {
    const now = performance.now();
    const file = this.currentTest?.file;
    if (file) seconds.set(path.basename(file), (seconds.get(path.basename(file)) ?? 0) + (now - last) / 1000);
    last = now;
  },
  afterAll() {
    const rounded = Object.fromEntries([...seconds].map(([f, s]) => [f, Math.round(s)]));
    console.log(`${FILE_TIMES_MARK} ${JSON.stringify(rounded)}`);
  },
};
