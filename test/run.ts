// `npm test`: every test, on every store.
// 1. Starts the real servers the distributed tests need (`infra/servers up`: Cassandra and
//    Kafka), unless CASSANDRA_CONTACT_POINTS and KAFKA_BROKERS say where they already run.
//    If they cannot start, the run fails and says why: nothing is skipped.
// 2. Runs the whole suite (the embedded store and bus; the adapters' own tests).
// 3. Runs the HTTP suite again with every world on Cassandra (WORLD_TEST_STORE=cassandra).
// 4. Runs the HTTP suite again with every world's days and history on Kafka (WORLD_TEST_BUS=kafka).
// 5. Runs the journeys of the HTTP suite (.mocharc.nodes.json: agents, organizations, the
//    economy, quests, diplomacy, an organization's end across a restart) again with every
//    world on three nodes (Cassandra and Kafka; requests go to the nodes in turn:
//    WORLD_TEST_NODES=3). The whole HTTP suite runs so with
//    `WORLD_TEST_NODES=3 npx mocha --config .mocharc.http.json` (about 17 minutes here).
// 6. Stops the servers it started, whatever happened.
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
  const needed = [...(env.CASSANDRA_CONTACT_POINTS ? [] : ['cassandra']), ...(env.KAFKA_BROKERS ? [] : ['kafka'])];
  const started: string[] = [];
  for (const server of needed) {
    console.log(`== infra/servers up ${server}`);
    const up = spawnSync(servers, ['up', server], { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (up.status !== 0) {
      console.error(`The ${server} tests cannot run: infra/servers could not start ${server} (its reasons are above).`);
      for (const s of started) run(`infra/servers down ${s}`, servers, ['down', s], env);
      return 1;
    }
    for (const line of up.stdout.split('\n')) {
      const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
      if (m) env[m[1]] = m[2];
    }
    started.push(server);
  }
  try {
    const embedded = run('the whole suite', mocha, extra, env);
    const cassandra = run('the HTTP suite on Cassandra', mocha, ['--config', '.mocharc.http.json', ...extra], { ...env, WORLD_TEST_STORE: 'cassandra' });
    const kafka = run('the HTTP suite on Kafka', mocha, ['--config', '.mocharc.http.json', ...extra], { ...env, WORLD_TEST_BUS: 'kafka' });
    const nodes = run('the HTTP journeys on three nodes', mocha, ['--config', '.mocharc.nodes.json', ...extra], { ...env, WORLD_TEST_NODES: '3' });
    return embedded || cassandra || kafka || nodes;
  } finally {
    for (const s of started) run(`infra/servers down ${s}`, servers, ['down', s], env);
  }
}

process.exitCode = main();
