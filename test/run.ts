// `npm test`: every test, on every store.
// 1. Starts the real servers the distributed tests need (`infra/servers up`: Cassandra and
//    Kafka), unless CASSANDRA_CONTACT_POINTS and KAFKA_BROKERS say where they already run.
//    If they cannot start, the run fails and says why: nothing is skipped.
// 2. Runs the whole suite (the embedded store and bus; the adapters' own tests; the
//    cluster's tests with node processes) in two mocha processes side by side: the tests
//    of the servers, the node processes and the browser (test/infra, test/cluster,
//    test/browser), which mostly wait for them, beside the rest (rules, codecs, the HTTP
//    suite on the embedded store), which keeps a core busy and touches no server.
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
import { FILE_TIMES_MARK } from './support/file-times';
import { ending } from './support/mocha-report';

const root = path.resolve(__dirname, '..', '..');
const mocha = path.join(root, 'node_modules', '.bin', 'mocha');
const servers = path.join(root, 'infra', 'servers');
const extra = process.argv.slice(2);

/** How many mocha processes share the HTTP suite on three nodes. */
const NODE_LANES = 3;
const TEST_DIR = path.join(root, 'dist', 'test');
const HTTP_DIR = path.join(TEST_DIR, 'http');
/** The folders of the tests that use the servers (one of them stops and starts Kafka; another, Cassandra). */
const SERVER_TESTS = ['infra', 'cluster', 'browser'];

/** Every test file of the whole suite, as paths. */
function allTestFiles(dir = TEST_DIR): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return allTestFiles(p);
    return e.name.endsWith('.test.js') ? [p] : [];
  }).sort();
}
/** Files the three-node pass leaves out, and why; every one of them runs in the whole suite (the embedded store and bus). */
const NOT_ON_NODES: Record<string, string> = {
  'accounting.test.js': 'its 400 random actions take more than 300 s on three nodes',
  'clock-beat.test.js': 'it restarts a world within days of a few seconds, shorter than three nodes take to start on two shared cores',
};

function httpFiles(): string[] {
  return fs.readdirSync(HTTP_DIR).filter((f) => f.endsWith('.test.js')).sort();
}

/**
 * The seconds each file took on three nodes (26 November 2026, a 2-core machine, three
 * lanes side by side, as the run prints them at its end): the weights for splitting the
 * suite into lanes of about equal time. A file not named here counts for its size.
 */
const SECONDS_ON_NODES: Record<string, number> = {
  'diplomacy.test.js': 209, 'fair-play.test.js': 179, 'seeded-policies.test.js': 178, 'openapi.test.js': 132, 'living-world.test.js': 130,
  'world-events.test.js': 117, 'quest-gold.test.js': 95, 'gaps.test.js': 94, 'saga-initiative.test.js': 87, 'economy-projects.test.js': 81,
  'foundation-history.test.js': 80, 'saga-alliance.test.js': 63, 'saga-quest.test.js': 58, 'saga-founding-hiring.test.js': 57, 'saga-contract.test.js': 55,
  'saga-career-end.test.js': 105, 'careers.test.js': 65, 'saga-party.test.js': 48, 'saga-posting.test.js': 39, 'quests.test.js': 37, 'saga-world-event.test.js': 36, 'foundation-clock.test.js': 35,
  'saga-ending.test.js': 33, 'saga-trade.test.js': 32, 'agent-aids.test.js': 32, 'economy.test.js': 31, 'foundation-agents.test.js': 25,
  'saga-pledge.test.js': 23, 'foundation-organizations.test.js': 22, 'rate-limit.test.js': 19, 'stream.test.js': 19, 'foundation-world.test.js': 16,
  'restart-every-read.test.js': 16, 'foundation-restart.test.js': 13, 'foundation-no-leak.test.js': 13, 'foundation-errors.test.js': 12, 'echo-and-dispatch.test.js': 9,
  'history-listings.test.js': 10, 'relationships.test.js': 10, 'idempotency.test.js': 8, 'mcp.test.js': 8, 'security-paging.test.js': 7, 'logs.test.js': 6, 'travel-establishments.test.js': 6,
  'security-key-in-text.test.js': 4, 'security-operator-keys.test.js': 3, 'metrics.test.js': 3, 'security-transport.test.js': 2,
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

/** One mocha process over some HTTP test files; it reports the seconds each file took (support/file-times.ts). */
function lane(what: string, files: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  // A longer limit than the whole suite's: three nodes on two cores, three lanes side by
  // side, make a test of a hundred days several times slower without making it wrong.
  const args = ['--no-config', '--timeout', '240000', '--exit', '--node-option', 'no-deprecation', '--require', path.join(TEST_DIR, 'support', 'file-times.js'),
    ...extra, ...files.map((f) => path.join(HTTP_DIR, f))];
  return mochaRun(`${what} (${files.length} files)`, args, env);
}

/** The seconds per file the lanes reported, slowest first: the figures for SECONDS_ON_NODES. */
function fileSeconds(outputs: string[]): string {
  const all: Record<string, number> = {};
  for (const out of outputs) {
    const line = out.split('\n').find((l) => l.startsWith(FILE_TIMES_MARK));
    if (line) Object.assign(all, JSON.parse(line.slice(FILE_TIMES_MARK.length)));
  }
  return Object.entries(all).sort((a, b) => b[1] - a[1]).map(([f, s]) => `'${f}': ${s}`).join(', ');
}

/**
 * What each mocha process ended with (its counts, and each failure's titles and error:
 * support/mocha-report.ts), printed last, so that the tail of a long run says what failed.
 */
const endings: string[] = [];

/** One mocha process; its output is printed whole when it ends, so runs side by side do not interleave. */
function mochaRun(what: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(mocha, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => out.push(c));
    child.on('error', (e) => out.push(Buffer.from(`${what}: ${e.message}\n`)));
    child.on('close', (code) => {
      const seconds = Math.round((Date.now() - started) / 1000);
      console.log(`\n== ${what}: ${seconds} s`);
      const output = Buffer.concat(out).toString('utf8');
      process.stdout.write(output);
      endings.push(ending(what, seconds, output));
      resolve({ code: code ?? 1, output });
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
    // The whole suite first, without the lanes: beside them, on two cores, it took three
    // times as long and Cassandra timed out (26 November 2026).
    const files = allTestFiles();
    const usesServers = (f: string) => SERVER_TESTS.some((d) => f.startsWith(path.join(TEST_DIR, d) + path.sep));
    // .mocharc.json's options, with the files given here instead of its spec.
    const rc = JSON.parse(fs.readFileSync(path.join(root, '.mocharc.json'), 'utf8')) as { timeout: number; 'node-option'?: string[] };
    const options = ['--no-config', '--timeout', String(rc.timeout), '--exit', ...(rc['node-option'] ?? []).flatMap((o) => ['--node-option', o]), ...extra];
    const embedded = Math.max(...(await Promise.all([
      mochaRun('the whole suite: servers, node processes, browser', [...options, ...files.filter(usesServers)], env),
      mochaRun('the whole suite: rules, codecs, HTTP on the embedded store', [...options, ...files.filter((f) => !usesServers(f))], env),
    ])).map((r) => r.code));
    const lanes = split(httpFiles().filter((f) => !(f in NOT_ON_NODES)), NODE_LANES)
      .map((files, i) => lane(`the HTTP suite on three nodes, lane ${i + 1} of ${NODE_LANES}`, files, { ...env, WORLD_TEST_NODES: '3' }));
    const ran = await Promise.all(lanes);
    console.log(`\n== seconds per file on three nodes: ${fileSeconds(ran.map((r) => r.output))}`);
    return Math.max(embedded, ...ran.map((r) => r.code));
  } finally {
    for (const s of started) run(`infra/servers down ${s}`, servers, ['down', s], env);
    console.log(`\n== how each part ended\n${endings.join('\n')}`);
  }
}

main().then((code) => { process.exitCode = code; });
