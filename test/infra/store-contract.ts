// The contract of the store port (actors/ports/store.ts), as a mocha suite any adapter
// runs: `describeStoreContract('SQLite', open)`. It writes only through the port (the
// engine's persist, the sequences, the settings) and reads back through it, so it knows
// nothing of tables, SQL or CQL.
//
// `open` must give an empty store each time it is called (a fresh folder, a fresh
// keyspace): every describe block below opens its own, so no test depends on data left
// by another. `reopen` (every adapter gives it) closes the store and opens it again
// over the same data; the tests of durability across a restart need it.
import assert from 'assert/strict';
import {
  QUERIES, compareIds, compareNewest, type HistoryEntry, type IdempotencyRecord, type PersistedEvent, type ProjectionRow, type QueryName, type QuerySpec, type Store, type Writes,
} from '../../actors/ports/store';

export interface OpenedStore {
  store: Store;
  close(): Promise<void>;
  /** Closes the store and opens it again over the same data; `close` then closes the new one. Every adapter must give it: the reopen tests run on each. */
  reopen(): Promise<Store>;
}

/** One persisted record of a test entity: what the region persists for one command. */
function event(key: string, sequenceNumber: number, data: unknown = { events: [] }): PersistedEvent {
  return { key, sequenceNumber, createdAt: 1_700_000_000_000 + sequenceNumber, data: data as PersistedEvent['data'], tags: [], isDeleted: false };
}

export function describeStoreContract(adapterName: string, open: () => Promise<OpenedStore>): void {
  describe(`store port contract: ${adapterName}`, function () {
    this.timeout(60_000);

    /** Opens a fresh store for the enclosing describe block and closes it after. */
    function freshStore(): { current: () => Store; opened: () => OpenedStore } {
      let opened: OpenedStore | null = null;
      let store: Store | null = null;
      before(async () => { opened = await open(); store = opened.store; });
      after(async () => { await opened?.close(); });
      return {
        current: () => store!,
        opened: () => ({ ...opened!, reopen: async () => { store = await opened!.reopen(); return store; } }),
      };
    }

    /** Persists one record of `key` carrying `writes`; sequence numbers count up per key. */
    function persister(s: () => Store) {
      const sequence = new Map<string, number>();
      return (key: string, writes: Writes) => {
        const n = (sequence.get(key) ?? 0) + 1;
        sequence.set(key, n);
        return s().engine.persist(event(key, n), writes);
      };
    }

    describe('persist and read back', () => {
      const ctx = freshStore();
      const persist = persister(ctx.current);

      it('answers a ping while it can be reached', async () => {
        await ctx.current().ping();
      });

      it('answers nothing before anything is written', async () => {
        const store = ctx.current();
        assert.equal(await store.row('organization', 1), undefined);
        assert.deepEqual(await store.list('organizations'), []);
        assert.deepEqual(await store.ids('organizations'), []);
        assert.equal(await store.count('organizations'), 0);
        assert.deepEqual(await store.history({ limit: 10 }), []);
        assert.equal(await store.lastHistoryId(), 0);
        assert.equal(await store.historyCount(), 0);
        assert.equal(await store.historyEvent(1), undefined);
        assert.equal(await store.agentForKeyHash('nobody'), undefined);
        assert.equal(await store.engine.latestSnapshot('nobody:1'), undefined);
      });

      it('writes the rows, history entries and credentials of a persisted event together with it', async () => {
        const store = ctx.current();
        await persist('agent:7', {
          rows: [{ kind: 'agent', id: 7, status: 'active', agent_id: 7, doc: { id: 7, name: 'Mira', nested: { list: [1, 'two', null], flag: true } } }],
          history: [{ day: 3, category: 'agent', agent_id: 7, organization_ids: [], summary: 'Mira entered the world', data: { ledger: [{ gold: -5 }] } }],
          credentials: [{ key_hash: 'hash-of-mira', agent_id: 7 }],
        });
        assert.deepEqual(await store.row('agent', 7), { id: 7, name: 'Mira', nested: { list: [1, 'two', null], flag: true } });
        assert.deepEqual(await store.row('agent', '7'), { id: 7, name: 'Mira', nested: { list: [1, 'two', null], flag: true } }, 'an id reads the same as a number or as text');
        assert.equal(await store.agentForKeyHash('hash-of-mira'), 7);
        const [h] = await store.history({ limit: 1 });
        assert.equal(h.summary, 'Mira entered the world');
        assert.equal(h.day, 3);
        assert.equal(h.category, 'agent');
        assert.equal(h.agent_id, 7);
        assert.deepEqual(h.organization_ids, []);
        assert.deepEqual(h.data, { ledger: [{ gold: -5 }] });
        assert.equal(typeof h.id, 'number');
        assert.equal(typeof h.created_at, 'string');
        const journal = await store.engine.events('agent:7', 0, 10).reduce(
          async (previous: Promise<number[]>, e: PersistedEvent) => [...await previous, e.sequenceNumber], Promise.resolve([] as number[]));
        assert.deepEqual(journal, [1]);
      });

      it('gives a history entry without data an empty object', async () => {
        const store = ctx.current();
        await persist('clock:world', { history: [{ day: 4, category: 'world', agent_id: null, organization_ids: [], summary: 'Day 4 began' }] });
        const [h] = await store.history({ limit: 1 });
        assert.equal(h.summary, 'Day 4 began');
        assert.equal(h.agent_id, null);
        assert.deepEqual(h.data, {});
      });

      it('upserts a row: the newer write replaces every column and the doc', async () => {
        const store = ctx.current();
        await persist('organization:5', { rows: [{ kind: 'organization', id: 5, status: 'active', location_id: 'emberfall', organization_id: 5, agent_id: 7, doc: { id: 5, treasury: 100 } }] });
        await persist('organization:5', { rows: [{ kind: 'organization', id: 5, status: 'bankrupt', location_id: 'greenhollow', organization_id: 5, agent_id: 7, doc: { id: 5, treasury: 0 } }] });
        assert.deepEqual(await store.row('organization', 5), { id: 5, treasury: 0 });
        assert.deepEqual(await store.list('organizations'), [{ id: 5, treasury: 0 }]);
        assert.deepEqual(await store.list('activeOrganizations'), [], 'the old status no longer matches');
        assert.deepEqual(await store.list('bankruptOrganizations'), [{ id: 5, treasury: 0 }]);
        assert.deepEqual(await store.list('activeOrganizationsAt', 'emberfall'), []);
        assert.deepEqual(await store.list('organizationsOfAgent', 7), [{ id: 5, treasury: 0 }]);
      });

      it('upserts a row whose indexed columns stay: the doc changes and the row stays in its listings', async () => {
        const store = ctx.current();
        const row = { kind: 'organization', id: 6, status: 'active', location_id: 'emberfall', organization_id: 6, agent_id: 8 };
        await persist('organization:6', { rows: [{ ...row, doc: { id: 6, treasury: 100 } }] });
        await persist('organization:6', { rows: [{ ...row, doc: { id: 6, treasury: 90 } }] });
        assert.deepEqual(await store.row('organization', 6), { id: 6, treasury: 90 });
        assert.deepEqual(await store.list('activeOrganizationsAt', 'emberfall'), [{ id: 6, treasury: 90 }]);
        assert.deepEqual(await store.list('organizationsOfAgent', 8), [{ id: 6, treasury: 90 }]);
        await persist('organization:6', { rows: [{ ...row, agent_id: null, doc: { id: 6, treasury: 80 } }] });
        assert.deepEqual(await store.list('organizationsOfAgent', 8), [], 'a column set to null moves the row');
        assert.deepEqual(await store.row('organization', 6), { id: 6, treasury: 80 });
      });

      it('deletes a row marked deleted', async () => {
        const store = ctx.current();
        await persist('organization:5', { rows: [{ kind: 'party', id: 9, status: 'formed', location_id: 'emberfall', organization_id: 5, doc: { id: 9 } }] });
        assert.deepEqual(await store.list('partiesOf', 5), [{ id: 9 }]);
        await persist('organization:5', { rows: [{ kind: 'party', id: 9, deleted: true, doc: {} }] });
        assert.equal(await store.row('party', 9), undefined);
        assert.deepEqual(await store.list('parties'), []);
        assert.deepEqual(await store.list('partiesOf', 5), []);
        assert.equal(await store.count('parties'), 0);
      });

      it('keeps the same id apart in different kinds', async () => {
        const store = ctx.current();
        await persist('organization:6', { rows: [
          { kind: 'organization', id: 6, status: 'active', doc: { kind: 'organization' } },
          { kind: 'project', id: 6, status: 'active', organization_id: 6, doc: { kind: 'project' } },
        ] });
        assert.deepEqual(await store.row('organization', 6), { kind: 'organization' });
        assert.deepEqual(await store.row('project', 6), { kind: 'project' });
      });

      it('registers several credentials; a later one for the same hash wins', async () => {
        const store = ctx.current();
        await persist('agent:8', { credentials: [{ key_hash: 'h8', agent_id: 8 }, { key_hash: 'h9', agent_id: 9 }] });
        assert.equal(await store.agentForKeyHash('h8'), 8);
        assert.equal(await store.agentForKeyHash('h9'), 9);
        await persist('agent:10', { credentials: [{ key_hash: 'h9', agent_id: 10 }] });
        assert.equal(await store.agentForKeyHash('h9'), 10);
      });

      it('answers every persist once it is durable, also many at once', async () => {
        const store = ctx.current();
        await Promise.all(Array.from({ length: 100 }, (_, i) => persist(`adventurer:${1000 + i}`, {
          rows: [{ kind: 'adventurer', id: 1000 + i, status: 'available', doc: { id: 1000 + i } }],
        })));
        assert.equal(await store.count('adventurersAvailable'), 100);
      });
    });

    describe('named queries', () => {
      const ctx = freshStore();
      const rows = datasetForQueries();

      before(async () => {
        // One record per row, spread over a few keys, many persisted at once.
        const persist = persister(ctx.current);
        await Promise.all(rows.map((row, i) => persist(`fixture:${i % 7}`, { rows: [row] })));
      });

      for (const name of Object.keys(QUERIES) as QueryName[]) {
        const spec: QuerySpec = QUERIES[name];
        const args = argumentsFor(spec);
        for (const arg of args) {
          it(`${name}${arg === undefined ? '' : `(${JSON.stringify(arg)})`}: list, listJson, listPage, listPageJson, scanJson, ids and count give exactly the matching rows, in id order${spec.newestBy ? `; listNewestJson newest first by ${spec.newestBy}` : ''}`, async () => {
            const store = ctx.current();
            const expected = rows.filter((r) => matches(spec, r, arg)).sort((a, b) => compareIds(a.id, b.id));
            const listed = await store.list<{ id: string | number; kind: string }>(name, arg);
            assert.deepEqual(listed, expected.map((r) => r.doc));
            const seen: unknown[] = [];
            const picked = await store.list(name, arg, (doc: { id: string | number }) => { seen.push(doc); return { picked: doc.id }; });
            assert.deepEqual(seen, expected.map((r) => r.doc), 'pick is handed each document, in id order');
            assert.deepEqual(picked, expected.map((r) => ({ picked: r.doc.id })), 'only what pick returns is kept');
            assert.deepEqual(await store.listJson(name, arg), expected.map((r) => JSON.stringify(r.doc)), 'the documents as stored');
            assert.deepEqual(await store.ids(name, arg), expected.map((r) => String(r.id)));
            assert.equal(await store.count(name, arg), expected.length);
            for (const max of [0, 1, expected.length, expected.length + 1]) {
              assert.equal(await store.countAtMost(name, max, arg), Math.min(max, expected.length), `at most ${max}`);
            }
            // Pages of two, each after the last id of the one before, walk the same rows once.
            const paged: unknown[] = [];
            for (let after: string | undefined, page; (page = await store.listPage(name, arg, after, 2)).length > 0; after = String(expected[paged.length - 1].id)) {
              assert.ok(page.length <= 2);
              paged.push(...page);
            }
            assert.deepEqual(paged, expected.map((r) => r.doc));
            if (expected.length > 1) {
              assert.deepEqual(await store.listPage(name, arg, String(expected[0].id), 1000), expected.slice(1).map((r) => r.doc), 'after the first');
              assert.deepEqual(await store.listPage(name, arg, undefined, 1), [expected[0].doc], 'the first alone');
            }
            // The same pages as stored: each row's id as text and its document's JSON.
            const asStored = (r: (typeof expected)[number]) => ({ id: String(r.id), doc: JSON.stringify(r.doc) });
            assert.deepEqual(await store.listPageJson(name, arg, undefined, 2), expected.slice(0, 2).map(asStored), 'the first page as stored');
            if (expected.length > 1) {
              assert.deepEqual(await store.listPageJson(name, arg, String(expected[0].id), 1000), expected.slice(1).map(asStored), 'after the first, as stored');
            }
            // A scan gives the same rows as stored, from the first or after a start, as far as it is taken.
            const scanned = async (after: string | undefined, upTo = Infinity) => {
              const taken: unknown[] = [];
              for await (const chunk of store.scanJson(name, arg, after)) {
                assert.ok(chunk.length > 0, 'no empty chunk');
                taken.push(...chunk);
                if (taken.length >= upTo) break;
              }
              if (taken.length > upTo) taken.length = upTo;
              return taken;
            };
            assert.deepEqual(await scanned(undefined), expected.map(asStored), 'scanned from the first');
            if (expected.length > 1) assert.deepEqual(await scanned(String(expected[0].id)), expected.slice(1).map(asStored), 'scanned after the first');
            assert.deepEqual(await scanned(undefined, 2), expected.slice(0, 2).map(asStored), 'scanned for two');
            if (spec.newestBy) {
              // Newest first: the later day first, then the higher id; pages of three by offset walk them once.
              const field = spec.newestBy;
              const newest = expected.map((r) => ({ r, id: r.id, day: r.doc[field] as number })).sort(compareNewest).map((x) => asStored(x.r));
              // Four days: more than four rows share one (the fixture makes sure some query has them).
              if (newest.length > 4) assert.ok(new Set(newest.map((r) => JSON.parse(r.doc)[field])).size < newest.length, 'rows share a day');
              assert.deepEqual(await store.listNewestJson(name, arg, 0, 1000), newest, 'newest first, as stored');
              const byOffset: unknown[] = [];
              for (let offset = 0, page; (page = await store.listNewestJson(name, arg, offset, 3)).length > 0; offset += 3) {
                assert.ok(page.length <= 3);
                byOffset.push(...page);
              }
              assert.deepEqual(byOffset, newest, 'pages of three');
              assert.deepEqual(await store.listNewestJson(name, arg, newest.length, 10), [], 'nothing beyond the last');
            }
          });
        }
      }

      it('the fixture gives every query rows to find and rows to leave out', () => {
        for (const name of Object.keys(QUERIES) as QueryName[]) {
          const spec: QuerySpec = QUERIES[name];
          const found = argumentsFor(spec).map((arg) => rows.filter((r) => matches(spec, r, arg)).length);
          assert.ok(found.some((n) => n > 1), `${name} finds more than one row for some argument`);
          assert.ok(found.every((n) => n < rows.filter((r) => r.kind === spec.kind).length) || !spec.by && !spec.status && !spec.field, `${name} leaves rows of its kind out`);
        }
      });

      it('sorts integer ids numerically and string ids by name', async () => {
        const store = ctx.current();
        assert.deepEqual(await store.ids('locations'), ['ashen-moors', 'emberfall', 'greenhollow']);
        const ids = (await store.ids('organizations')).map(Number);
        assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
        assert.ok(ids.includes(2) && ids.includes(10) && ids.includes(100), 'ids that sort differently as text are among them');
      });

      it('lists the pending intents (ids "<kind>:<id>") until the write that ends each deletes it', async () => {
        const store = ctx.current();
        const persist = persister(ctx.current);
        const intent = (kind: string, id: number, what: string) => ({ kind: 'intent', id: `${kind}:${id}`, doc: { kind, id, intent: what, day: 3 } });
        const before = await store.list('pendingIntents');
        await persist('organization:41', { rows: [intent('organization', 41, 'ending')] });
        await persist('agent:42', { rows: [intent('agent', 42, 'founding')] });
        await persist('adventurer:43', { rows: [intent('adventurer', 43, 'hire')] });
        const added = (await store.list<{ kind: string; id: number }>('pendingIntents')).filter((r) => !before.some((b) => JSON.stringify(b) === JSON.stringify(r)));
        assert.deepEqual(added.map((r) => `${r.kind}:${r.id}`).sort(), ['adventurer:43', 'agent:42', 'organization:41']);
        assert.deepEqual(await store.row('intent', 'agent:42'), { kind: 'agent', id: 42, intent: 'founding', day: 3 }, 'an intent row is read by its key');
        await persist('agent:42', { rows: [{ kind: 'intent', id: 'agent:42', deleted: true, doc: {} }] });
        const left = (await store.ids('pendingIntents')).filter((id) => ['organization:41', 'agent:42', 'adventurer:43'].includes(id));
        assert.deepEqual(left.sort(), ['adventurer:43', 'organization:41'], 'an ended intent leaves the listing');
        assert.equal(await store.row('intent', 'agent:42'), undefined);
        await persist('organization:41', { rows: [{ kind: 'intent', id: 'organization:41', deleted: true, doc: {} }] });
        await persist('adventurer:43', { rows: [{ kind: 'intent', id: 'adventurer:43', deleted: true, doc: {} }] });
        assert.deepEqual(await store.list('pendingIntents'), before);
      });

      it('finds due rows up to and including the day, never those without a due day', async () => {
        const store = ctx.current();
        assert.deepEqual(await store.ids('questsDue', 4), []);
        assert.deepEqual(await store.ids('questsDue', 5), ['2']);
        assert.deepEqual(await store.ids('questsDue', 12), ['2', '10', '100']);
      });
    });

    describe('history', () => {
      const ctx = freshStore();
      const persist = persister(ctx.current);
      const entry = (i: number): HistoryEntry => ({
        day: 1 + Math.floor(i / 4), // four events a day
        category: ['trade', 'quest', 'world'][i % 3],
        agent_id: i % 5 === 0 ? null : (i % 2) + 1,
        organization_ids: i % 4 === 0 ? [] : i % 4 === 1 ? [11] : i % 4 === 2 ? [11, 12] : [12],
        summary: `event ${i}`,
        data: { i },
      });
      const entries = Array.from({ length: 40 }, (_, i) => entry(i));
      let ids: number[] = [];

      before(async () => {
        // In batches of several entries per record, one record after another, so ids follow this order.
        for (let i = 0; i < entries.length; i += 3) await persist('history:fixture', { history: entries.slice(i, i + 3) });
        ids = (await ctx.current().history({ limit: 100 })).map((e) => e.id).reverse();
      });

      const summaries = (events: Array<{ summary: string }>) => events.map((e) => e.summary);
      const expected = (keep: (e: HistoryEntry, i: number) => boolean, limit: number, beforeIndex = entries.length) =>
        entries.map((e, i) => ({ e, i })).filter(({ e, i }) => i < beforeIndex && keep(e, i)).reverse().slice(0, limit).map(({ e }) => e.summary);

      it('gives every entry an increasing id, in the order written', async () => {
        assert.equal(ids.length, entries.length);
        for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1]);
        assert.equal(await ctx.current().lastHistoryId(), ids[ids.length - 1]);
        assert.equal(await ctx.current().historyCount(), entries.length);
      });

      it('reads the history oldest first after an id, at most `limit` (the relay reads it as an outbox)', async () => {
        const store = ctx.current();
        const since = await store.historySince(ids[2], 4);
        assert.deepEqual(since.map((e) => e.id), ids.slice(3, 7));
        assert.deepEqual((await store.historySince(0, 1000)).map((e) => e.id), ids);
        assert.deepEqual(await store.historySince(ids[ids.length - 1], 10), []);
        assert.deepEqual(await store.historySince(0, 0), []);
      });

      it('lists newest first, at most `limit`', async () => {
        assert.deepEqual(summaries(await ctx.current().history({ limit: 5 })), expected(() => true, 5));
      });

      it('filters by category, by agent, by organization named, and by them together', async () => {
        const store = ctx.current();
        assert.deepEqual(summaries(await store.history({ limit: 100, category: 'quest' })), expected((e) => e.category === 'quest', 100));
        assert.deepEqual(summaries(await store.history({ limit: 100, agent_id: 2 })), expected((e) => e.agent_id === 2, 100));
        assert.deepEqual(summaries(await store.history({ limit: 100, organization_id: 11 })), expected((e) => e.organization_ids.includes(11), 100));
        assert.deepEqual(summaries(await store.history({ limit: 100, organization_id: 12, category: 'trade' })), expected((e) => e.organization_ids.includes(12) && e.category === 'trade', 100));
        assert.deepEqual(summaries(await store.history({ limit: 3, agent_id: 1, category: 'world' })), expected((e) => e.agent_id === 1 && e.category === 'world', 3));
        assert.deepEqual(await store.history({ limit: 10, organization_id: 99 }), []);
        assert.deepEqual(await store.history({ limit: 10, category: 'nothing' }), []);
      });

      it('pages back with before_id, with and without filters', async () => {
        const store = ctx.current();
        const at = 25;
        assert.deepEqual(summaries(await store.history({ limit: 4, before_id: ids[at] })), expected(() => true, 4, at));
        assert.deepEqual(summaries(await store.history({ limit: 4, before_id: ids[at], organization_id: 11 })), expected((e) => e.organization_ids.includes(11), 4, at));
        assert.deepEqual(summaries(await store.history({ limit: 4, before_id: ids[at], category: 'trade', agent_id: 2 })), expected((e) => e.category === 'trade' && e.agent_id === 2, 4, at));
        assert.deepEqual(await store.history({ limit: 4, before_id: ids[0] }), []);
        // Paging to the end visits every event once.
        const seen: string[] = [];
        let before: number | undefined;
        for (;;) {
          const page = await store.history({ limit: 7, organization_id: 12, ...(before === undefined ? {} : { before_id: before }) });
          if (!page.length) break;
          seen.push(...summaries(page));
          before = page[page.length - 1].id;
        }
        assert.deepEqual(seen, expected((e) => e.organization_ids.includes(12), 100));
      });

      it('counts the events an agent caused', async () => {
        const store = ctx.current();
        assert.equal(await store.historyCountOfAgent(1), entries.filter((e) => e.agent_id === 1).length);
        assert.equal(await store.historyCountOfAgent(2), entries.filter((e) => e.agent_id === 2).length);
        assert.equal(await store.historyCountOfAgent(3), 0);
      });

      it('reads one event by id', async () => {
        const store = ctx.current();
        const e = await store.historyEvent(ids[6]);
        assert.ok(e);
        assert.equal(e.id, ids[6]);
        assert.equal(e.summary, 'event 6');
        assert.equal(e.day, entries[6].day);
        assert.equal(e.category, entries[6].category);
        assert.equal(e.agent_id, entries[6].agent_id);
        assert.deepEqual(e.organization_ids, entries[6].organization_ids);
        assert.deepEqual(e.data, { i: 6 });
        assert.equal(await store.historyEvent(ids[ids.length - 1] + 1000), undefined);
      });

      it('reads the events of a span of days: all of them, or the nearest to an event, in id order', async () => {
        const store = ctx.current();
        const inDays = (from: number, to: number) => entries.map((e, i) => ({ e, id: ids[i] })).filter(({ e }) => e.day >= from && e.day <= to);
        /** The `limit` events of the span nearest to event `near` (the earlier of two as near), in id order. */
        const nearest = (from: number, to: number, limit: number, near: number) => inDays(from, to)
          .sort((a, b) => Math.abs(a.id - near) - Math.abs(b.id - near) || a.id - b.id).slice(0, limit)
          .sort((a, b) => a.id - b.id).map(({ e }) => e.summary);
        // Days 3..5: events 8..19.
        assert.deepEqual(summaries(await store.historyBetweenDays(3, 5, 100, ids[12])), inDays(3, 5).map(({ e }) => e.summary));
        assert.deepEqual(inDays(3, 5).map(({ e }) => e.summary), Array.from({ length: 12 }, (_, i) => `event ${8 + i}`));
        for (const [limit, at] of [[5, 12], [3, 8], [3, 19], [4, 12], [1, 15], [12, 8]]) {
          assert.deepEqual(summaries(await store.historyBetweenDays(3, 5, limit, ids[at])), nearest(3, 5, limit, ids[at]), `the ${limit} nearest to event ${at}`);
        }
        assert.deepEqual(await store.historyBetweenDays(50, 60, 10, ids[0]), []);
      });
    });

    describe('id sequences', () => {
      const ctx = freshStore();

      it('hands out ids that never repeat and only grow, also when asked many times at once', async () => {
        const store = ctx.current();
        const first = await store.nextId('contract-test');
        const second = await store.nextId('contract-test');
        assert.ok(first >= 1 && second > first);
        const many = await Promise.all(Array.from({ length: 300 }, () => store.nextId('contract-test')));
        assert.equal(new Set([first, second, ...many]).size, 302);
        assert.ok(Math.min(...many) > second);
        assert.deepEqual(many, [...many].sort((a, b) => a - b), 'ids are handed out in the order they are asked for');
      });

      it('keeps sequences apart', async () => {
        const store = ctx.current();
        const a = await store.nextId('contract-test-a');
        const b = await store.nextId('contract-test-b');
        assert.equal(a, b, 'two new sequences start alike');
      });

      it('never hands out an id up to a reserved value', async () => {
        const store = ctx.current();
        await store.reserveIdsUpTo('contract-test-seeded', 60);
        assert.ok(await store.nextId('contract-test-seeded') > 60);
        // Reserving below what was handed out changes nothing.
        const before = await store.nextId('contract-test-seeded');
        await store.reserveIdsUpTo('contract-test-seeded', 3);
        assert.ok(await store.nextId('contract-test-seeded') > before);
        // Reserving above it skips ahead, also for a sequence already in use.
        await store.reserveIdsUpTo('contract-test-seeded', 5000);
        assert.ok(await store.nextId('contract-test-seeded') > 5000);
      });

      it('never repeats an id after a reopen', async function () {
        const opened = ctx.opened();
        const store = ctx.current();
        const before = await Promise.all(Array.from({ length: 70 }, () => store.nextId('contract-test-restart')));
        await store.reserveIdsUpTo('contract-test-reserved', 40);
        const reopened = await opened.reopen();
        const after = await reopened.nextId('contract-test-restart');
        assert.ok(after > Math.max(...before), `an id after a reopen (${after}) is above every earlier one`);
        assert.ok(await reopened.nextId('contract-test-reserved') > 40);
      });
    });

    describe('settings', () => {
      const ctx = freshStore();

      it('reads back what was set, replaced by a later value', async () => {
        const store = ctx.current();
        assert.equal(await store.setting('contract-test'), undefined);
        await store.setSetting('contract-test', 'one');
        assert.equal(await store.setting('contract-test'), 'one');
        await store.setSetting('contract-test', 'two');
        assert.equal(await store.setting('contract-test'), 'two');
        await store.setSetting('contract-test-other', '');
        assert.equal(await store.setting('contract-test-other'), '');
      });

      it('reads several settings at once: the value of each name that has one, none for the others', async () => {
        const store = ctx.current();
        await store.setSetting('contract-many-a', '1');
        await store.setSetting('contract-many-b', '2');
        const found = await store.settings(['contract-many-a', 'contract-many-missing', 'contract-many-b']);
        assert.deepEqual([...found].sort(), [['contract-many-a', '1'], ['contract-many-b', '2']]);
        assert.equal((await store.settings([])).size, 0);
      });

      it('keeps settings across a reopen', async function () {
        const opened = ctx.opened();
        await ctx.current().setSetting('contract-test-kept', 'kept');
        const reopened = await opened.reopen();
        assert.equal(await reopened.setting('contract-test-kept'), 'kept');
        assert.equal(await reopened.setting('contract-test'), 'two');
      });
    });

    describe('idempotency records', () => {
      const ctx = freshStore();
      const HOUR = 3_600_000;
      const T0 = 1_800_000_000_000;
      const fresh = (owner: string, now: number, fingerprint = 'fp-1'): IdempotencyRecord => ({
        fingerprint, owner, leaseUntil: now + 60_000, expiresAt: now + 24 * HOUR, notes: null, answer: null,
      });

      it('lets exactly one of two racing claims take a key; the other sees the record', async () => {
        const idem = ctx.current().idempotency;
        const [a, b] = await Promise.all([idem.claim('race', fresh('a', T0), T0), idem.claim('race', fresh('b', T0), T0)]);
        assert.equal([a, b].filter((c) => c.taken).length, 1);
        const winner = a.taken ? 'a' : 'b';
        const loser = a.taken ? b : a;
        assert.equal(loser.record.owner, winner);
        assert.equal(loser.record.answer, null);
        assert.deepEqual(await idem.idempotencyRecord('race', T0 + 1), fresh(winner, T0));
        assert.equal(await idem.idempotencyRecord('nobody', T0), undefined);
      });

      it('keeps notes and the answer of the owner only, and answers them to later claims', async () => {
        const idem = ctx.current().idempotency;
        assert.ok((await idem.claim('k1', fresh('o1', T0), T0)).taken);
        assert.equal(await idem.note('k1', 'someone-else', 'n', T0), false);
        assert.equal(await idem.note('k1', 'o1', 'ids: 5', T0 + 10), true);
        assert.equal(await idem.complete('k1', 'someone-else', 'x', T0), false);
        assert.equal(await idem.complete('k1', 'o1', 'answer-1', T0 + 20), true);
        assert.equal(await idem.complete('k1', 'o1', 'answer-2', T0 + 30), false, 'an answer is final');
        const later = await idem.claim('k1', fresh('o2', T0 + HOUR), T0 + HOUR);
        assert.equal(later.taken, false);
        assert.deepEqual(later.record, { ...fresh('o1', T0), notes: 'ids: 5', answer: 'answer-1' });
        const other = await idem.claim('k1', fresh('o3', T0 + HOUR, 'fp-2'), T0 + HOUR);
        assert.equal(other.taken, false, 'another request under the key does not take it either');
        assert.equal(other.record.fingerprint, 'fp-1');
      });

      it('forgets a record once it expires: a claim after that takes the key afresh', async () => {
        const idem = ctx.current().idempotency;
        assert.ok((await idem.claim('k2', fresh('o1', T0), T0)).taken);
        assert.ok(await idem.complete('k2', 'o1', 'answer', T0));
        const justBefore = T0 + 24 * HOUR - 1;
        assert.equal((await idem.claim('k2', fresh('o2', justBefore), justBefore)).taken, false);
        const after = T0 + 24 * HOUR;
        assert.equal(await idem.idempotencyRecord('k2', after), undefined);
        const again = await idem.claim('k2', fresh('o3', after, 'fp-other'), after);
        assert.equal(again.taken, true);
        assert.deepEqual(await idem.idempotencyRecord('k2', after), fresh('o3', after, 'fp-other'));
      });

      it('lets a claim without an answer be taken over once its lease has run out, by the same request only, keeping notes and expiry', async () => {
        const idem = ctx.current().idempotency;
        assert.ok((await idem.claim('k3', fresh('o1', T0), T0)).taken);
        assert.ok(await idem.note('k3', 'o1', 'ids', T0));
        assert.equal((await idem.claim('k3', fresh('o2', T0 + 1000), T0 + 1000)).taken, false, 'the lease still holds');
        const late = T0 + 61_000;
        assert.equal((await idem.claim('k3', fresh('o2', late, 'fp-2'), late)).taken, false, 'another request never takes it over');
        const over = await idem.claim('k3', fresh('o2', late), late);
        assert.equal(over.taken, true);
        assert.deepEqual(over.record, { ...fresh('o1', T0), owner: 'o2', leaseUntil: late + 60_000, notes: 'ids' });
        assert.deepEqual(await idem.idempotencyRecord('k3', late), over.record);
        assert.equal(await idem.complete('k3', 'o1', 'stale', late), false, 'the first owner lost it');
        assert.equal(await idem.complete('k3', 'o2', 'answer', late), true);
      });

      it('forgets a released claim (an answer that was not final), but never an answered one', async () => {
        const idem = ctx.current().idempotency;
        assert.ok((await idem.claim('k4', fresh('o1', T0), T0)).taken);
        await idem.release('k4', 'someone-else');
        assert.ok(await idem.idempotencyRecord('k4', T0));
        await idem.release('k4', 'o1');
        assert.equal(await idem.idempotencyRecord('k4', T0), undefined);
        assert.ok((await idem.claim('k4', fresh('o2', T0), T0)).taken);
        assert.ok(await idem.complete('k4', 'o2', 'done', T0));
        await idem.release('k4', 'o2');
        assert.equal((await idem.idempotencyRecord('k4', T0))?.answer, 'done');
      });

      it('keeps records across a reopen', async function () {
        const opened = ctx.opened();
        assert.ok((await ctx.current().idempotency.claim('k5', fresh('o1', T0), T0)).taken);
        assert.ok(await ctx.current().idempotency.complete('k5', 'o1', 'kept', T0));
        const store = await opened.reopen();
        assert.equal((await store.idempotency.idempotencyRecord('k5', T0 + HOUR))?.answer, 'kept');
      });
    });

    describe('the nact engine: journal and snapshots', () => {
      const ctx = freshStore();
      /** Replays a stream the way nact does: an async reducer over a promise of the state. */
      const replay = async (key: string, offset?: number, limit?: number) => {
        const stream = ctx.current().engine.events(key, offset, limit);
        const result = await stream.reduce(async (previous: Promise<number[]>, e: PersistedEvent) => {
          const seen = await previous;
          return [...seen, e.sequenceNumber];
        }, Promise.resolve([] as number[]));
        return result;
      };

      before(async () => {
        const store = ctx.current();
        for (let n = 1; n <= 6; n++) await store.engine.persist(event('engine:a', n, { events: [{ type: 'added', amount: n }] }));
        await store.engine.persist(event('engine:b', 1, { events: [{ type: 'other' }] }));
      });

      it('replays the events of one key in sequence order, with their data', async () => {
        assert.deepEqual(await replay('engine:a'), [1, 2, 3, 4, 5, 6]);
        assert.deepEqual(await replay('engine:a', 0, Number.MAX_SAFE_INTEGER), [1, 2, 3, 4, 5, 6]);
        assert.deepEqual(await replay('engine:b'), [1]);
        assert.deepEqual(await replay('engine:none'), []);
        const events = await ctx.current().engine.events('engine:a', 0, 2).reduce(
          async (previous: Promise<PersistedEvent[]>, e: PersistedEvent) => [...await previous, e], Promise.resolve([] as PersistedEvent[]));
        assert.deepEqual(events.map((e) => e.data), [{ events: [{ type: 'added', amount: 1 }] }, { events: [{ type: 'added', amount: 2 }] }]);
        assert.equal(events[0].key, 'engine:a');
        assert.equal(events[0].isDeleted, false);
        assert.deepEqual(events[0].tags, []);
        assert.equal(events[0].createdAt, 1_700_000_000_001);
      });

      it('replays from an offset, at most `limit` events', async () => {
        assert.deepEqual(await replay('engine:a', 4), [5, 6]);
        assert.deepEqual(await replay('engine:a', 1, 3), [2, 3, 4]);
        assert.deepEqual(await replay('engine:a', 6), []);
      });

      it('keeps snapshots; the latest is the one with the highest sequence number', async () => {
        const store = ctx.current();
        await store.engine.takeSnapshot({ key: 'engine:a', sequenceNumber: 3, createdAt: 3, data: { total: 6 } });
        assert.deepEqual(await store.engine.latestSnapshot('engine:a'), { key: 'engine:a', sequenceNumber: 3, createdAt: 3, data: { total: 6 } });
        await store.engine.takeSnapshot({ key: 'engine:a', sequenceNumber: 5, createdAt: 5, data: { total: 15 } });
        const latest = await store.engine.latestSnapshot('engine:a');
        assert.equal(latest?.sequenceNumber, 5);
        assert.deepEqual(latest?.data, { total: 15 });
        assert.equal(await store.engine.latestSnapshot('engine:b'), undefined);
      });
    });
  });
}

/**
 * Rows of every kind the named queries read, spread over every value their filters
 * tell apart: the statuses each query lists and one it does not, two places, two
 * organizations, two agents, due days on both sides of the days asked, and nulls.
 */
function datasetForQueries(): ProjectionRow[] {
  const kinds = [...new Set(Object.values(QUERIES).map((q: QuerySpec) => q.kind))];
  const numbers = [100, 2, 10, 11, 3, 1, 20, 7, 30, 5, 40, 9, 12, 4, 13, 6, 8, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27];
  // A fixed sequence of draws (a linear congruential generator), so each column varies independently of the others.
  let seed = 12345;
  const draw = <T>(choices: readonly T[]): T => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return choices[Math.floor(seed / 65536) % choices.length];
  };
  const rows: ProjectionRow[] = [];
  for (const kind of kinds) {
    const statusChoices: Array<string | null> = [...statusesOf(kind), 'other', null];
    const newestField = newestFieldOf(kind);
    const ids: Array<string | number> = kind === 'location'
      ? ['greenhollow', 'emberfall', 'ashen-moors']
      : kind === 'market'
        ? ['greenhollow/food', 'emberfall/ore', 'emberfall/food', 'ashen-moors/ore']
        : kind === 'message'
          ? ['world-event-3', 'world-event-12', ...numbers]
          : kind === 'intent'
            ? ['organization:5', 'agent:12', 'adventurer:100', 'organization:30', 'adventurer:9']
            : numbers;
    ids.forEach((id, i) => {
      rows.push({
        kind, id,
        status: draw(statusChoices),
        location_id: draw([null, 'emberfall', 'greenhollow', 'emberfall']),
        organization_id: draw([5, 6, null, 5, 6]),
        agent_id: draw([7, null, 8, 7]),
        due_day: typeof id === 'number' ? (id === 2 ? 5 : id === 10 || id === 100 ? 12 : id === 20 ? 13 : null) : null,
        // A day to list newest first by, where the kind has one: several rows share each day.
        // The fields its queries by a document's field compare, drawn apart from the row's columns.
        doc: { kind, id, n: i, tag: `${kind}-${id}`, ...(newestField ? { [newestField]: draw([1, 2, 3, 4]) } : {}),
          ...Object.fromEntries(documentFieldsOf(kind).map((field) => [field, draw<string | number | null>(field === 'status' ? [...FIELD_STATUSES, null] : [5, 6, null, 5])])) },
      });
    });
  }
  return rows;
}

/** The statuses the fixture's documents hold in a `status` field compared by a query (QuerySpec.field). */
const FIELD_STATUSES = ['proposed', 'active', 'fulfilled'];

/** The document fields a kind's queries compare (QuerySpec.field). */
function documentFieldsOf(kind: string): string[] {
  return [...new Set((Object.values(QUERIES) as QuerySpec[]).filter((q) => q.kind === kind && q.field).map((q) => q.field!))];
}

/** The arguments a query is tried with: none, or each value of its column plus one that matches nothing. */
function argumentsFor(spec: QuerySpec): Array<string | number | undefined> {
  if (spec.field === 'status') return [...FIELD_STATUSES, 'nothing'];
  if (spec.field) return [5, 6, 99];
  switch (spec.by) {
    case undefined: return [undefined];
    case 'location_id': return ['emberfall', 'greenhollow', 'nowhere'];
    case 'organization_id': return [5, 6, 99];
    case 'agent_id': return [7, 8, 99];
    case 'due_by': return [4, 5, 12, 13, 100];
    case 'status': return [...statusesOf(spec.kind), 'nothing'];
  }
}

/** The statuses the named queries of a kind list (the fixture's rows take these, another, or none). */
function statusesOf(kind: string): string[] {
  return [...new Set(Object.values(QUERIES).filter((q: QuerySpec) => q.kind === kind).flatMap((q: QuerySpec) => q.status ?? []))];
}

/** The field of a kind's documents that its newest-first listings order by, if any. */
function newestFieldOf(kind: string): string | undefined {
  return (Object.values(QUERIES) as QuerySpec[]).find((q) => q.kind === kind && q.newestBy)?.newestBy;
}

/** What a named query means, row by row. */
function matches(spec: QuerySpec, row: ProjectionRow, arg: string | number | undefined): boolean {
  if (row.kind !== spec.kind) return false;
  if (spec.field) return row.doc[spec.field] === arg;
  if (spec.status && !(row.status != null && spec.status.includes(row.status))) return false;
  switch (spec.by) {
    case undefined: return true;
    case 'due_by': return row.due_day != null && row.due_day <= Number(arg);
    default: return row[spec.by] != null && row[spec.by] === arg;
  }
}
