// The accounting check of test/http/accounting.test.ts at a larger size:
//   npm run build && node dist/bench/accounting.js [actions=3000] [seed=20261126] [agents=6]
// Starts a real world on a temporary folder, drives it with random actions by several
// agents and checks after every step that the world's gold and goods changed by exactly
// the named flows and that the history's ledgers give every treasury and holding. Prints
// what was done; exits non-zero at the first step that breaks the accounting.
import fc from 'fast-check';
import { EconomyDriver, actionArbitrary } from '../test/support/economy-driver';
import { startTestWorld } from '../test/support/world';

async function main() {
  const [actions = 3000, seed = 20261126, agents = 6] = process.argv.slice(2).map(Number);
  const w = await startTestWorld({ seed: `accounting-${seed}` });
  const started = Date.now();
  try {
    const driver = new EconomyDriver(w, agents);
    await driver.start();
    let done = 0;
    for (const action of fc.sample(actionArbitrary(agents), { seed, numRuns: actions })) {
      await driver.step(action);
      done += 1;
      if (done % 500 === 0) console.error(`${done} actions checked`);
    }
    const day = (await w.get('/api/world')).body.day;
    const report = driver.report();
    const ok = Object.entries(report.answers).filter(([k]) => / 20\d$/.test(k)).reduce((n, [, c]) => n + c, 0);
    console.log(JSON.stringify({
      actions: report.steps, succeeded: ok, refused: report.steps - ok, world_day: day, history_events: report.events,
      ledger_lines_by_flow: report.flows, seconds: (Date.now() - started) / 1000, result: 'every step accounted for',
    }, null, 2));
  } finally {
    await w.close();
  }
}

main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
