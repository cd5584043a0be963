// Test support: a real Cassandra for the Cassandra store's tests. The first suite that needs
// it runs `infra/servers up cassandra` (once per mocha run; harmless when it already runs)
// and reads the settings it prints. Tests work in worlds of their own (a world costs no
// DDL) inside a few keyspaces shared by the whole run, one per partition layout, dropped at
// its end; tests of the schema itself get fresh keyspaces. A server this run started is
// stopped at the end of the run (set WORLDSIM_KEEP_CASSANDRA=1 to keep it up). When
// CASSANDRA_CONTACT_POINTS is set, that server is used and nothing is started.
//
// If Cassandra cannot be started, the suites FAIL with the reason: they are never skipped.
import { execFile } from 'child_process';
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import { Client } from 'cassandra-driver';
import { DEFAULT_LAYOUT, type CassandraStoreOptions } from '../../infra/store/cassandra-store';
import type { Layout } from '../../infra/store/cassandra-model';

export interface CassandraServer {
  contactPoints: string[];
  localDataCenter: string;
  /** This mocha run started it (and stops it at the end). */
  startedHere: boolean;
}

/** The first start fetches nothing (jars are cached) but may take a while on a busy machine. */
export const CASSANDRA_START_TIMEOUT_MS = 200_000;

function repoRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'infra', 'servers'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find the repository root (with infra/servers) above ${__dirname}`);
    dir = up;
  }
}

function servers(command: 'up' | 'down', timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  const root = repoRoot();
  return new Promise((resolve, reject) => {
    execFile(path.join(root, 'infra', 'servers'), [command, 'cassandra'], { cwd: root, timeout: timeoutMs, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error) {
        const said = `${String(stderr).trim()}\n${String(stdout).trim()}`.trim();
        const tail = said ? said.split('\n').slice(-25).join('\n') : '(it printed nothing; run `infra/servers up cassandra` from the repository root to see why)';
        reject(new Error(`Cassandra: 'infra/servers ${command} cassandra' failed (${error.killed ? `killed after ${timeoutMs} ms` : `exit ${error.code}`}), so the Cassandra tests cannot run:\n${tail}`));
      } else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** KEY=value lines of `infra/servers up`. */
export function parseSettings(stdout: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) settings[m[1]] = m[2];
  }
  return settings;
}

let server: Promise<CassandraServer> | null = null;

/** The Cassandra of this run: started once, on first use. Rejects with the reason when it cannot start. */
export function ensureCassandra(): Promise<CassandraServer> {
  if (!server) {
    server = (async () => {
      if (process.env.CASSANDRA_CONTACT_POINTS) {
        return {
          contactPoints: process.env.CASSANDRA_CONTACT_POINTS.split(',').map((s) => s.trim()).filter(Boolean),
          localDataCenter: process.env.CASSANDRA_LOCAL_DATACENTER ?? 'datacenter1',
          startedHere: false,
        };
      }
      const { stdout, stderr } = await servers('up', CASSANDRA_START_TIMEOUT_MS);
      const settings = parseSettings(stdout);
      if (!settings.CASSANDRA_CONTACT_POINTS) throw new Error(`Cassandra: 'infra/servers up cassandra' printed no CASSANDRA_CONTACT_POINTS:\n${stdout}\n${stderr}`);
      return {
        contactPoints: settings.CASSANDRA_CONTACT_POINTS.split(','),
        localDataCenter: settings.CASSANDRA_LOCAL_DATACENTER ?? 'datacenter1',
        startedHere: !/already runs/.test(stderr),
      };
    })();
    // A failed start is reported by every suite that needs it, each with the reason.
    server.catch(() => undefined);
  }
  return server;
}

/** Keyspaces handed out for the run's worlds, dropped at its end (before a server this run started is stopped). */
const runKeyspaces = new Set<string>();
export const trackKeyspace = (keyspace: string) => { runKeyspaces.add(keyspace); };

// At the end of the run: drop the worlds' keyspaces, then stop a server this run started.
// (Guarded: scripts outside mocha import this module too.)
if (typeof after === 'function') {
  after(async function stopCassandra() {
    if (!server) return;
    this.timeout(300_000);
    const s = await server.catch(() => null);
    if (!s) return;
    await dropKeyspaces(s, [...runKeyspaces]).catch(() => undefined);
    if (!s.startedHere || process.env.WORLDSIM_KEEP_CASSANDRA) return;
    await servers('down', 80_000);
  });
}

export function randomKeyspace(): string {
  return `worldsim_test_${crypto.randomBytes(6).toString('hex')}`;
}

/** A fresh world name. */
export function randomWorld(): string {
  return `t${crypto.randomBytes(8).toString('hex')}`;
}

/** The partition sizes of the tests that want small partitions (several buckets with a few rows). */
export const SMALL_LAYOUT: Layout = { journalPartitionSize: 5, entityBucketSize: 10, historyBucketSize: 16, historyFilterBucketSize: 40 };

/** The run's shared keyspaces, one per layout (a keyspace's layout is fixed when it is created). */
const sharedKeyspaces = new Map<string, string>();
const runId = crypto.randomBytes(5).toString('hex');

/** The keyspace of this run for a layout: created by the first store opened on it, dropped at the end of the run. */
export function sharedKeyspace(layout: Partial<Layout> = {}): string {
  const full = { ...DEFAULT_LAYOUT, ...layout };
  const key = JSON.stringify([full.journalPartitionSize, full.entityBucketSize, full.historyBucketSize, full.historyFilterBucketSize]);
  let ks = sharedKeyspaces.get(key);
  if (!ks) {
    ks = `worldsim_test_${runId}_${sharedKeyspaces.size}`;
    sharedKeyspaces.set(key, ks);
    trackKeyspace(ks);
  }
  return ks;
}

export async function dropKeyspaces(s: CassandraServer, keyspaces: string[]): Promise<void> {
  if (keyspaces.length === 0) return;
  const client = new Client({ contactPoints: s.contactPoints, localDataCenter: s.localDataCenter });
  try {
    await client.connect();
    for (const ks of keyspaces) await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
  } finally {
    await client.shutdown();
  }
}

export interface CassandraFixture {
  server(): CassandraServer;
  /** A fresh keyspace name, dropped after the suite (for tests of the schema itself: creating one costs seconds). */
  keyspace(): string;
  /** A fresh world name. */
  world(): string;
  /**
   * Store options: unless given, a fresh world in the run's shared keyspace of the layout
   * asked for (`overrides.layout`, the default layout otherwise).
   */
  options(overrides?: Partial<CassandraStoreOptions>): CassandraStoreOptions;
}

/**
 * For a describe block: starts (or finds) Cassandra before its tests, with the long timeout
 * a first start needs, and drops the keyspaces it handed out afterwards.
 */
export function useCassandra(): CassandraFixture {
  let current: CassandraServer | null = null;
  const made: string[] = [];
  before(async function startCassandra() {
    this.timeout(CASSANDRA_START_TIMEOUT_MS + 10_000);
    current = await ensureCassandra();
  });
  after(async function dropTestKeyspaces() {
    this.timeout(120_000);
    if (current) await dropKeyspaces(current, made.splice(0));
  });
  const fixture: CassandraFixture = {
    server() {
      if (!current) throw new Error('Cassandra is not up (the before hook failed)');
      return current;
    },
    keyspace() {
      const ks = randomKeyspace();
      made.push(ks);
      return ks;
    },
    world: randomWorld,
    options(overrides = {}) {
      const s = fixture.server();
      return {
        contactPoints: s.contactPoints, localDataCenter: s.localDataCenter,
        keyspace: overrides.keyspace ?? sharedKeyspace(overrides.layout), world: overrides.world ?? randomWorld(), ...overrides,
      };
    },
  };
  return fixture;
}
