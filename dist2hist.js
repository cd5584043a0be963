const { startTestWorld } = require('./dist/test/support/world');
const { simulate } = require('./dist/bench/simulate');
const { allEvents } = require('./dist/test/support/sagas');
(async () => {
  const w = await startTestWorld({ seed: process.argv[2] || 'hist' });
  await simulate(w, Number(process.argv[3] || 200));
  const events = await allEvents(w);
  const cats = {}; const pats = {};
  for (const e of events) { cats[e.category] = (cats[e.category] || 0) + 1; const p = e.summary.replace(/\d+/g, 'N').replace(/^[A-Z][\w' ]+? (pays|paid)/, 'X $1').slice(0, 50); pats[p] = (pats[p] || 0) + 1; }
  console.log(events.length, cats);
  console.log(Object.entries(pats).sort((a, b) => b[1] - a[1]).slice(0, 25));
  console.log(events.slice(0, 40).map(e => `${e.day} ${e.category}: ${e.summary}`).join('\n'));
  process.exit(0);
})();
