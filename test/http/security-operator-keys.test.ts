// Issue 12, security: generated operator keys are kept only as hashes (never in plain
// text in the data folder), a plain key kept by an older version is replaced by its hash
// and keeps working, and a key is handed out for printing only when it is generated.
import assert from 'assert/strict';
import Database from 'better-sqlite3';
import fs from 'fs';
import path from 'path';
import { startWorld, type World } from '../../infra/app';
import { DEFAULT_CASSANDRA, DEFAULT_KAFKA, type Config } from '../../infra/config';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { hashKey } from '../../http/auth';
import { tempDir } from '../support/world';

const configFor = (dataDir: string): Config => ({
  port: 0, host: '127.0.0.1', store: 'sqlite', dataDir, cassandra: DEFAULT_CASSANDRA, bus: 'local', kafka: DEFAULT_KAFKA,
  adminKey: null, spectatorKey: null, daySeconds: 0, seed: 'security-seed', nodeId: '1', shards: 32,
});

/** Every byte of the data folder (the SQLite file and any journal beside it). */
const folderBytes = (dataDir: string) => Buffer.concat(fs.readdirSync(dataDir).map((f) => fs.readFileSync(path.join(dataDir, f))));

const tick = (w: World, key: string) => fetch(`${w.url}/api/tick`, { method: 'POST', headers: { 'x-admin-key': key } }).then((r) => r.status);
const investigate = (w: World, key: string) => fetch(`${w.url}/api/messages/investigation`, { headers: { 'x-spectator-key': key } }).then((r) => r.status);

describe('security: operator keys are kept only as hashes', function () {
  this.timeout(60_000);
  const lines: string[] = [];
  const log = (l: string) => { lines.push(l); };

  it('a generated key never reaches the data folder; its hash is kept, and it works after a restart', async () => {
    const dataDir = tempDir('worldsim-security-keys-');
    const first = await startWorld(configFor(dataDir), log);
    const { admin, spectator } = first.generatedKeys;
    assert.ok(admin && spectator);
    await first.close();

    const bytes = folderBytes(dataDir);
    for (const key of [admin, spectator]) {
      assert.equal(bytes.includes(Buffer.from(key)), false, 'the plain key is nowhere in the data folder');
      assert.equal(bytes.includes(Buffer.from(hashKey(key))), true, 'its hash is kept');
    }
    assert.ok(!lines.some((l) => l.includes(admin) || l.includes(spectator)), 'the world logs no key');

    const second = await startWorld(configFor(dataDir), log);
    try {
      assert.deepEqual(second.generatedKeys, {}, 'nothing is generated (or printed) again');
      assert.equal(await tick(second, admin), 200);
      assert.equal(await investigate(second, spectator), 200);
      assert.equal(await tick(second, hashKey(admin)), 401, 'the kept hash is not itself a key');
      assert.equal(await tick(second, admin.toUpperCase()), 401);
    } finally {
      await second.close();
    }
  });

  it('a plain key kept by an older version is replaced by its hash and keeps working', async () => {
    const dataDir = tempDir('worldsim-security-legacy-');
    const legacyAdmin = 'Legacy-admin-key-kept-in-plain-text';
    const legacySpectator = 'Legacy-spectator-key-kept-in-plain-text';
    const old = new SqliteStore(dataDir);
    await old.setSetting('admin_key', legacyAdmin);
    await old.setSetting('spectator_key', legacySpectator);
    await old.close();

    const w = await startWorld(configFor(dataDir), log);
    try {
      assert.deepEqual(w.generatedKeys, {}, 'the kept keys stay: nothing is generated');
      assert.equal(await tick(w, legacyAdmin), 200);
      assert.equal(await investigate(w, legacySpectator), 200);
      assert.ok(lines.some((l) => /kept admin key is now kept as its hash only/.test(l)));
    } finally {
      await w.close();
    }
    const bytes = folderBytes(dataDir);
    assert.equal(bytes.includes(Buffer.from(legacyAdmin)), false, 'the plain admin key is gone from the data folder');
    assert.equal(bytes.includes(Buffer.from(legacySpectator)), false, 'the plain spectator key is gone from the data folder');
  });

  it('an operator who lost a generated key gets a new one by removing its setting (the documented reset)', async () => {
    const dataDir = tempDir('worldsim-security-reset-');
    const first = await startWorld(configFor(dataDir), log);
    const lost = first.generatedKeys.admin!;
    const spectator = first.generatedKeys.spectator!;
    await first.close();
    // The statement README.md gives for the embedded store.
    const db = new Database(path.join(dataDir, 'world.sqlite'));
    db.exec("DELETE FROM settings WHERE name = 'admin_key'");
    db.close();

    const second = await startWorld(configFor(dataDir), log);
    try {
      const fresh = second.generatedKeys.admin;
      assert.ok(fresh && fresh !== lost, 'a new admin key is generated');
      assert.equal(second.generatedKeys.spectator, undefined, 'the spectator key is untouched');
      assert.equal(await tick(second, fresh), 200);
      assert.equal(await tick(second, lost), 401, 'the lost key no longer works');
      assert.equal(await investigate(second, spectator), 200);
    } finally {
      await second.close();
    }
  });

  it('warns at start-up of a configured key that public text holding it would not be refused (too short, or split by a space), without saying the key', async () => {
    const weak: string[] = [];
    const w = await startWorld({ ...configFor(tempDir('worldsim-security-weak-')), adminKey: 'abc', spectatorKey: 'has space in key' }, (l) => { weak.push(l); });
    await w.close();
    assert.ok(weak.some((l) => /WORLD_ADMIN_KEY is weak: it is shorter than 8 characters/.test(l)), weak.join('\n'));
    assert.ok(weak.some((l) => /WORLD_SPECTATOR_KEY is weak: it holds a space/.test(l)), weak.join('\n'));
    assert.ok(!weak.some((l) => l.includes('abc') || l.includes('has space in key')), 'no line says the key');

    const strong: string[] = [];
    const s = await startWorld({ ...configFor(tempDir('worldsim-security-strong-')), adminKey: 'a-long-random-admin-key', spectatorKey: 'a-long-random-spectator-key' }, (l) => { strong.push(l); });
    await s.close();
    assert.ok(!strong.some((l) => /is weak/.test(l)), strong.join('\n'));
  });
});
