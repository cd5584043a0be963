// GET /api/relationships reads the `trust` rows: each organization writes its trust toward
// each other one as a row of its own when that trust moves, and a world older than those
// rows has its organizations write them once at the next start (actors/organization/trust-rows.ts).
// The listing names each pair once: from the lower id's side when both sides have a score,
// else from the side that has one (docs/decisions.md, "Listings come in pages").
import assert from 'assert/strict';
import fs from 'fs';
import { TRUST_ROWS_WRITTEN } from '../../actors/organization/trust-rows';
import { trustRowId } from '../../actors/relationship/rules';
import type { PersistedEvent, ProjectionRow } from '../../actors/ports/store';
import { expectStatus, foundOrg, walkPages } from '../support/http';
import { startTestWorld, tempDir, type TestWorld } from '../support/world';

interface Pair { id: string; organization_id: number; other_organization_id: number; organization_ids: number[]; trust: number }


/** The pairs as the organizations' own trust says them: each once, from the lower id's side when both have a score. */
async function pairsFromOrganizations(w: TestWorld, ids: number[]): Promise<Pair[]> {
  const trust = new Map<number, Record<string, number>>();
  for (const id of ids) trust.set(id, (await w.get(`/api/organizations/${id}`)).body.trust);
  const pairs: Pair[] = [];
  for (const id of [...ids].sort((a, b) => a - b)) {
    for (const [key, score] of Object.entries(trust.get(id)!)) {
      const other = Number(key);
      if (id > other && trust.get(other)?.[String(id)] !== undefined) continue;
      pairs.push({ id: `${id}-${other}`, organization_id: id, other_organization_id: other, organization_ids: [id, other], trust: score });
    }
  }
  return pairs.sort((x, y) => x.organization_id - y.organization_id || x.other_organization_id - y.other_organization_id);
}

/** Trust rows written straight through the store port (as an organization's write carries them), or deleted. */
async function writeTrustRows(w: TestWorld, rows: Array<{ self: number; other: number; trust: number | null }>, sequenceNumber: number): Promise<void> {
  const event = { key: 'test:trust-rows', sequenceNumber, createdAt: Date.now(), data: { events: [] }, tags: [], isDeleted: false } as unknown as PersistedEvent;
  await w.services.store.engine.persist(event, {
    rows: rows.map(({ self, other, trust }): ProjectionRow => (trust === null
      ? { kind: 'trust', id: trustRowId(self, other), deleted: true, doc: {} }
      : { kind: 'trust', id: trustRowId(self, other), organization_id: self, doc: { id: `${self}-${other}`, organization_id: self, other_organization_id: other, organization_ids: [self, other], trust } })),
  });
}

describe('GET /api/relationships, from the trust rows', () => {
  it('lists what the organizations\' trust says as it moves (alliances, a rejected contract), each pair once, in pages', async () => {
    const w = await startTestWorld();
    try {
      const orgs = [await foundOrg(w, 'Ash Traders'), await foundOrg(w, 'Beech Traders'), await foundOrg(w, 'Cork Traders')];
      const [a, b, c] = orgs;
      const ally = async (from: typeof a, to: typeof a) => {
        const r = await w.post<{ id: number }>('/api/alliances', { proposer_id: from.org.id, counterparty_id: to.org.id, terms: 'Shared roads and shared watch.' }, from.key);
        expectStatus(r, 201);
        expectStatus(await w.post(`/api/alliances/${r.body.id}/accept`, { organization_id: to.org.id }, to.key), 200);
      };
      await ally(a, b);
      await ally(c, b);
      const contract = await w.post<{ id: number }>('/api/contracts', { proposer_id: c.org.id, counterparty_id: a.org.id, title: 'Salt for Ash', terms: 'Ten gold for salt.', value: 10, resource: null }, c.key);
      expectStatus(contract, 201);
      expectStatus(await w.post(`/api/contracts/${contract.body.id}/reject`, { organization_id: a.org.id }, a.key), 200);
      const ids = orgs.map((o) => o.org.id);
      const expected = await pairsFromOrganizations(w, ids);
      assert.ok(expected.length >= 3, JSON.stringify(expected));
      const listed = (await walkPages<Pair>(w, '/api/relationships')).filter((p) => ids.includes(p.organization_id));
      assert.deepEqual(listed, expected);
      assert.deepEqual((await walkPages<Pair>(w, '/api/relationships?limit=1')).filter((p) => ids.includes(p.organization_id)), expected, 'pages of one walk them once');
      // Trust moves again: the row follows.
      await ally(a, c);
      assert.deepEqual((await walkPages<Pair>(w, '/api/relationships?limit=2')).filter((p) => ids.includes(p.organization_id)), await pairsFromOrganizations(w, ids));
    } finally {
      await w.close();
    }
  });

  it('names a pair from the lower id\'s side when both have a score, from the other side when only it has one', async () => {
    // One node: the rows are written straight through its store, which fences the shards it does not hold.
    const w = await startTestWorld({ nodes: 1 });
    try {
      // Organizations far beyond this world's: 900,002 and 900,003 both score each other;
      // only 900,009 scores 900,004; 900,010 scores 900,012 and 900,011 alone.
      await writeTrustRows(w, [
        { self: 900_003, other: 900_002, trust: -4 }, { self: 900_002, other: 900_003, trust: 7 },
        { self: 900_009, other: 900_004, trust: 5 }, { self: 900_010, other: 900_012, trust: 1 }, { self: 900_010, other: 900_011, trust: 2 },
      ], 1);
      const ours = (pairs: Pair[]) => pairs.filter((p) => p.organization_id >= 900_000).map((p) => [p.id, p.trust]);
      const expected = [['900002-900003', 7], ['900009-900004', 5], ['900010-900011', 2], ['900010-900012', 1]];
      for (const limit of [1, 2, 3, 500]) assert.deepEqual(ours(await walkPages<Pair>(w, `/api/relationships?limit=${limit}`)), expected, `pages of ${limit}`);
      assert.deepEqual(ours((await w.get('/api/relationships?after_id=900003-900002&limit=1')).body), [['900009-900004', 5]], 'a cursor on a pair named from the other side goes on after it');
    } finally {
      await w.close();
    }
  });

  it('has the organizations of a world older than the trust rows write them at the next start, once', async () => {
    const dataDir = tempDir('worldsim-trust-rows-');
    let w = await startTestWorld({ dataDir, nodes: 1 });
    try {
      const a = await foundOrg(w, 'Elm Keepers');
      const b = await foundOrg(w, 'Fir Keepers');
      const r = await w.post<{ id: number }>('/api/alliances', { proposer_id: a.org.id, counterparty_id: b.org.id, terms: 'Shared roads and shared watch.' }, a.key);
      expectStatus(r, 201);
      expectStatus(await w.post(`/api/alliances/${r.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
      const before = await walkPages<Pair>(w, '/api/relationships');
      assert.deepEqual(before.map((p) => p.id), [`${a.org.id}-${b.org.id}`]);
      // As an older version left it: the scores in the organizations' rows only, and no mark.
      await writeTrustRows(w, [{ self: a.org.id, other: b.org.id, trust: null }, { self: b.org.id, other: a.org.id, trust: null }], 1);
      await w.services.store.setSetting(TRUST_ROWS_WRITTEN, '');
      assert.deepEqual(await walkPages<Pair>(w, '/api/relationships'), [], 'no rows, nothing listed');
      await w.close();
      w = await startTestWorld({ dataDir, nodes: 1 });
      assert.deepEqual(await walkPages<Pair>(w, '/api/relationships'), before, 'written at the start');
      assert.ok(await w.services.store.setting(TRUST_ROWS_WRITTEN), 'marked written: the next start reads nothing again');
    } finally {
      await w.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
