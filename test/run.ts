// `npm test`: every test, on every store.
// 1. Starts the real servers the distributed tests need (`infra/servers up`: Cassandra and
//    Kafka), unless CASSANDRA_CONTACT_POINTS and KAFKA_BROKERS say where they already run.
//    If they cannot start, the run fails and says why: nothing is skipped.
// 2. Runs the whole suite (the embedded store and bus; the adapters' own tests; the
//    cluster's tests with node processes).
// 3. Runs the HTTP suite again with every world on three nodes on Cassandra and Kafka
//    (WORLD_TEST_NODES=3; requests go to the nodes in turn; a test that injects faults into
//    one process runs on one node of that layout), split into lanes of test files of about
//    equal time run side by side; each lane's output is printed whole when it ends. (One
//    node on Cassandra and Kafka is the same layout with one node: the three-node pass
//    covers what it would, and more.)
// 4. Stops the servers it started, whatever happened.
// Extra arguments go to every mocha run (for example --grep).
import { spawn, spawnSync } from 'child_process';
import fs from 'fs';
import path from 'path';

const root = path.resolve(__dirname, '..', '..');
const mocha = path.join(root, 'node_modules', '.bin', 'mocha');
const servers = path.join(root, 'infra', 'servers');
const extra = process.argv.slice(2);

/** How many mocha processes share the HTTP suite on three nodes. */
const NODE_LANES = 3;
const HTTP_DIR = path.join(root, 'dist', 'test', 'http');
/** Files the three-node pass leaves out, and why; every one of them runs in the whole suite (the embedded store and bus). */
const NOT_ON_NODES: Record<string, string> = {
  'accounting.test.js': 'its 400 random actions take more than 300 s on three nodes',
};

function httpFiles(): string[] {
  return fs.readdirSync(HTTP_DIR).filter((f) => f.endsWith('.test.js')).sort();
}

/**
 * The seconds the tests of the slowest files took on three nodes (26 November 2026, a
 * 2-core machine): the weights for splitting the suite into lanes of about equal time.
 * A file not named here counts for its size (a few seconds).
 */
const SECONDS_ON_NODES: Record<string, number> = {
  'world-events.test.js': 153, 'saga-quest.test.js': 130, 'openapi.test.js': 130, 'saga-founding-hiring.test.js': 107, 'saga-party.test.js': 99,
  'seeded-policies.test.js': 90, 'saga-alliance.test.js': 79, 'saga-initiative.test.js': 77, 'saga-contract.test.js': 72, 'quest-gold.test.js': 71,
  'living-world.test.js': 60, 'fair-play.test.js': 60, 'saga-world-event.test.js': 60, 'saga-trade.test.js': 58, 'saga-posting.test.js': 51,
  'stream.test.js': 43, 'saga-ending.test.js': 43, 'quests.test.js': 35, 'saga-pledge.test.js': 34, 'gaps.test.js': 29,
};

/** Splits the files into `n` lanes of about equal time. */
function split(files: string[], n: number): string[][] {
  const weight = (f: string) => SECONDS_ON_NODES[f] ?? Math.max(2, fs.statSync(path.join(HTTP_DIR, f)).size / 4000);
  const lanes = Array.from({ length: n }, () => ({ files: [] as string[], weight: 0 }));
  for (const f of [...files].sort((a, b) => weight(b) - weight(a))) {
    const lightest = lanes.reduce((a, b) => (b.weight < a.weight ? b : a));
    lightest.files.push(f);
    lightest.weight += weight(f);
  }
  return lanes.map((l) => l.files.sort());
}

/** One mocha process over some HTTP test files. */
function lane(what: string, files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = ['--no-config', '--timeout', '120000', '--exit', '--node-option', 'no-deprecation', ...extra, ...files.map((f) => path.join(HTTP_DIR, f))];
  return mochaRun(`${what} (${files.length} files)`, args, env);
}

/** One mocha process; its output is printed whole when it ends, so runs side by side do not interleave. */
function mochaRun(what: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(mocha, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => out.push(c));
    child.on('error', (e) => out.push(Buffer.from(`${what}: ${e.message}\n`)));
    child.on('close', (code) => {
      console.log(`\n== ${what}: ${Math.round((Date.now() - started) / 1000)} s`);
      process.stdout.write(Buffer.concat(out));
      resolve(code ?? 1);
    });
  });
}

function run(what: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  console.log(`\n== ${what}`);
  const r = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  if (r.error) console.error(`${what}: ${r.error.message}`);
  return r.status ?? 1;
}

async function main(): Promise<number> {
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
    console.log(`\n== left out on three nodes: ${Object.entries(NOT_ON_NODES).map(([f, why]) => `${f} (${why})`).join('; ')}`);
    // The whole suite first, alone: beside the lanes, on two cores, it took three times as
    // long and Cassandra timed out (26 November 2026).
    const embedded = run('the whole suite', mocha, extra, env);
    const lanes = split(httpFiles().filter((f) => !(f in NOT_ON_NODES)), NODE_LANES)
      .map((files, i) => lane(`the HTTP suite on three nodes, lane ${i + 1} of ${NODE_LANES}`, files, { ...env, WORLD_TEST_NODES: '3' }));
    return Math.max(embedded, ...await Promise.all(lanes));
  } finally {
    for (const s of started) run(`infra/servers down ${s}`, servers, ['down', s], env);
  }
}

main().then((code) => { process.exitCode = code; });
