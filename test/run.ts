// `npm test`: every test, on every store.
// 1. Starts the real servers the distributed tests need (`infra/servers up`), unless
//    CASSANDRA_CONTACT_POINTS says where one already runs. If they cannot start, the run
//    fails and says why: nothing is skipped.
// 2. Runs the whole suite (the embedded store, the Cassandra adapter's own tests).
// 3. Runs the HTTP suite again with every world on Cassandra (WORLD_TEST_STORE=cassandra).
// 4. Stops the servers it started, whatever happened.
// Extra arguments go to both mocha runs (for example --grep).
import { spawnSync } from 'child_process';
import path from 'path';

const root = path.resolve(__dirname, '..', '..');
const mocha = path.join(root, 'node_modules', '.bin', 'mocha');
const servers = path.join(root, 'infra', 'servers');
const extra = process.argv.slice(2);

function run(what: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  console.log(`\n== ${what}`);
  const r = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  if (r.error) console.error(`${what}: ${r.error.message}`);
  return r.status ?? 1;
}

function main(): number {
  const env: NodeJS.ProcessEnv = { ...process.env };
  let started = false;
  if (!env.CASSANDRA_CONTACT_POINTS) {
    console.log('== infra/servers up cassandra');
    const up = spawnSync(servers, ['up', 'cassandra'], { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (up.status !== 0) {
      console.error('The Cassandra tests cannot run: infra/servers could not start Cassandra (its reasons are above).');
      return 1;
    }
    for (const line of up.stdout.split('\n')) {
      const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
      if (m) env[m[1]] = m[2];
    }
    started = true;
  }
  try {
    const embedded = run('the whole suite', mocha, extra, env);
    const cassandra = run('the HTTP suite on Cassandra', mocha, ['--config', '.mocharc.cassandra.json', ...extra], { ...env, WORLD_TEST_STORE: 'cassandra' });
    return embedded || cassandra;
  } finally {
    if (started) run('infra/servers down cassandra', servers, ['down', 'cassandra'], env);
  }
}

process.exitCode = main();
