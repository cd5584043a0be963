// The Cassandra store's pure parts, without a server: key mapping, index values, history
// access paths, the limiter, the id blocks' order, and which driver errors mean "unavailable".
import assert from 'assert/strict';
import { LIVE_CONTRACT_STATUSES } from '../../actors/contract/rules';
import { errors, types } from 'cassandra-driver';
import { QUERIES, compareIds, type QuerySpec } from '../../actors/ports/store';
import { StoreUnavailableError, isUnavailable, storeError } from '../../infra/store/cassandra-errors';
import { Sequence, type SequenceReserver } from '../../infra/store/cassandra-ids';
import { Limiter, mapLimited } from '../../infra/store/cassandra-limit';
import {
  ENTITY_COLUMNS, byIndex, compareKeys, dayMarks, dueValue, entityKey, entityValues, historyPaths, idNum, indexValue, indexedColumns, pathBucket, validWorld, type Layout,
} from '../../infra/store/cassandra-model';
import { replicationCql, validKeyspace } from '../../infra/store/cassandra-schema';

const layout: Layout = { journalPartitionSize: 5, entityBucketSize: 10, historyBucketSize: 16, historyFilterBucketSize: 40 };

describe('Cassandra store parts', () => {
  describe('keys', () => {
    it('clusters rows in the order of the port\'s compareIds', () => {
      const ids: Array<string | number> = ['100', 2, 'emberfall', '10', 'world-event-3', 1, 'ashen-moors', 'world-event-12', '3',
        'a10', 'Zed', '007', 12, '12abc', '-5', 'greenhollow/food', 0, '0', 45, 9, 19, 20];
      const byPort = [...ids].map(String).sort(compareIds);
      const byKeys = ids.map((id) => entityKey(layout, 'k', id)).sort(compareKeys).map((k) => k.id);
      assert.deepEqual(byKeys, byPort);
    });

    it('gives integer ids their value and every other id 0', () => {
      assert.equal(idNum(7), 7);
      assert.equal(idNum('7'), 7);
      assert.equal(idNum('007'), 7);
      assert.equal(idNum('emberfall'), 0);
      assert.equal(idNum('12abc'), 0);
      assert.equal(idNum('-5'), 0);
      assert.equal(idNum('99999999999999999999999'), Number.MAX_SAFE_INTEGER);
    });

    it('puts a row in the bucket of its id', () => {
      assert.deepEqual(entityKey(layout, 'agent', 7), { kind: 'agent', bucket: 0, idNum: 7, id: '7' });
      assert.deepEqual(entityKey(layout, 'agent', '25'), { kind: 'agent', bucket: 2, idNum: 25, id: '25' });
      assert.deepEqual(entityKey(layout, 'location', 'emberfall'), { kind: 'location', bucket: 0, idNum: 0, id: 'emberfall' });
    });

    it('writes no nulls: an absent value of a column the kind\'s queries read is empty; the other index columns are left unset', () => {
      // Parties are listed by organization only.
      const values = entityValues(layout, 'w1', { kind: 'party', id: 31, organization_id: 4, status: 'ready', location_id: 'x', doc: { a: 1 } });
      assert.deepEqual(values, ['w1', 'party', 3, 31, '31', undefined, undefined, 'w1|party|4', undefined, undefined, undefined, '{"a":1}']);
      assert.equal(values.length, ENTITY_COLUMNS.split(',').length);
      assert.ok(values.every((v) => v !== null));
      assert.deepEqual(entityValues(layout, 'w1', { kind: 'party', id: 31, doc: {} }).slice(5, 11), [undefined, undefined, '', undefined, undefined, undefined]);
      // Quests are listed by status, by place and by due day.
      const due = entityValues(layout, 'main', { kind: 'quest', id: 2, status: 'open', location_id: 'emberfall', agent_id: 0, due_day: 0, doc: {} });
      assert.deepEqual(due.slice(5, 11), ['main|quest|open', 'main|quest|emberfall', undefined, undefined, 'main|quest', 0]);
      const notDue = entityValues(layout, 'main', { kind: 'quest', id: 2, status: 'open', doc: {} });
      assert.deepEqual(notDue.slice(5, 11), ['main|quest|open', '', undefined, undefined, '', undefined]);
      assert.deepEqual(entityValues(layout, 'main', { kind: 'world', id: 'clock', status: 'x', doc: {} }).slice(5, 11), Array(6).fill(undefined), 'no named query reads the clock');
    });

    it('indexes for each kind the columns its named queries read', () => {
      assert.deepEqual(indexedColumns('organization'), { status: true, location: true, organization: false, agent: true, due: false });
      assert.deepEqual(indexedColumns('adventurer'), { status: true, location: false, organization: true, agent: false, due: true });
      assert.deepEqual(indexedColumns('nothing'), { status: false, location: false, organization: false, agent: false, due: false });
    });

    it('reads a status asked for by a request (`by: status`) from the status index, only of kinds whose rows already carry it', () => {
      assert.deepEqual(byIndex('w', { kind: 'quest', by: 'status' }, 'withdrawn'), { column: 'k_status', value: 'w|quest|withdrawn' });
      // A keyspace of an older version wrote k_status only for kinds with a query by a listed
      // status: a `by: status` query of another kind would miss its older rows.
      const specs = Object.values(QUERIES) as QuerySpec[];
      const byStatus = specs.filter((q) => q.by === 'status');
      assert.ok(byStatus.length >= 3);
      for (const q of byStatus) assert.ok(specs.some((o) => o.kind === q.kind && o.status), `${q.kind} has a query by a listed status`);
    });

    it('reads the status column of the kinds whose rows carried it before, and of contracts, whose live rows each world writes again once (actors/contract/live-rows.ts)', () => {
      // A kind added here would miss the rows an older keyspace holds without the column:
      // it needs its rows written again, as the contracts have.
      const specs = Object.values(QUERIES) as QuerySpec[];
      const kinds = [...new Set(specs.filter((q) => q.status || q.by === 'status').map((q) => q.kind))].sort();
      assert.deepEqual(kinds, ['adventurer', 'agent', 'alliance', 'contract', 'message', 'organization', 'project', 'quest', 'world_event']);
      const contractStatuses = [...new Set(specs.filter((q) => q.kind === 'contract').flatMap((q) => q.status ?? []))];
      assert.deepEqual(contractStatuses, [...LIVE_CONTRACT_STATUSES], 'only the live statuses, which the pass writes again');
    });

    it('looks up integer columns by value, whether the argument is a number or its text', () => {
      const spec = { kind: 'adventurer', by: 'organization_id' as const };
      assert.deepEqual(byIndex('w', spec, 5), { column: 'k_organization', value: 'w|adventurer|5' });
      assert.deepEqual(byIndex('w', spec, '5'), { column: 'k_organization', value: 'w|adventurer|5' });
      assert.notEqual(byIndex('w', spec, '').value, 'w|adventurer|0');
      assert.notEqual(byIndex('w', spec, 'x').value, 'w|adventurer|NaN');
      assert.deepEqual(byIndex('w', { kind: 'market', by: 'location_id' }, 'emberfall'), { column: 'k_location', value: 'w|market|emberfall' });
    });

    it('keeps worlds apart in every index value, and accepts plain world names only', () => {
      assert.notEqual(indexValue('a', 'agent', 'active'), indexValue('b', 'agent', 'active'));
      assert.notEqual(dueValue('a', 'quest', 3), dueValue('b', 'quest', 3));
      assert.equal(dueValue('a', 'quest', null), '');
      for (const good of ['main', 'w-1_2', 'A', 'x'.repeat(48)]) assert.equal(validWorld(good), good);
      for (const bad of ['', 'a|b', 'a b', 'x'.repeat(49), "a'", 'é']) assert.throws(() => validWorld(bad), /invalid world name/);
    });
  });

  describe('history access paths', () => {
    it('writes an event to the whole history, its category, its agent and each organization it names once', () => {
      const paths = historyPaths({ day: 3, category: 'trade', agent_id: 7, organization_ids: [2, 2, 5], summary: '' });
      assert.deepEqual(paths.map((p) => `${p.dimension}:${p.value}`), [
        'all:', 'category:trade', 'agent:7', 'organization:2', 'organization:5',
      ]);
      assert.equal(historyPaths({ day: 1, category: 'world', agent_id: null, organization_ids: [], summary: '' }).length, 2);
    });

    it('buckets the whole history finely and the filters coarsely', () => {
      assert.equal(pathBucket(layout, historyPaths({ day: 1, category: 'c', agent_id: null, organization_ids: [], summary: '' })[0], 39), 2);
      assert.equal(pathBucket(layout, historyPaths({ day: 1, category: 'c', agent_id: null, organization_ids: [], summary: '' })[1], 39), 0);
      assert.equal(pathBucket(layout, historyPaths({ day: 1, category: 'c', agent_id: null, organization_ids: [], summary: '' })[1], 40), 1);
    });

    it('marks each day of a batch by its smallest and largest id', () => {
      assert.deepEqual(dayMarks([]), []);
      assert.deepEqual(dayMarks([{ id: 5, day: 2 }]), [{ day: 2, id: 5 }]);
      assert.deepEqual(dayMarks([{ id: 9, day: 2 }, { id: 4, day: 3 }, { id: 5, day: 2 }, { id: 7, day: 2 }, { id: 6, day: 3 }]),
        [{ day: 2, id: 5 }, { day: 2, id: 9 }, { day: 3, id: 4 }, { day: 3, id: 6 }]);
    });
  });

  describe('schema settings', () => {
    it('accepts plain keyspace names only', () => {
      assert.equal(validKeyspace('worldsim_1'), 'worldsim_1');
      for (const bad of ['1world', 'a-b', 'a b', 'x'.repeat(49), "a'; DROP", '']) assert.throws(() => validKeyspace(bad));
    });

    it('writes the replication of the keyspace', () => {
      assert.equal(replicationCql({ class: 'SimpleStrategy', replication_factor: 1 }), "{'class': 'SimpleStrategy', 'replication_factor': '1'}");
      assert.equal(replicationCql({ class: 'NetworkTopologyStrategy', dc1: 3, dc2: 3 }), "{'class': 'NetworkTopologyStrategy', 'dc1': '3', 'dc2': '3'}");
      assert.throws(() => replicationCql({ class: 'SimpleStrategy' }));
      assert.throws(() => replicationCql({ class: 'NetworkTopologyStrategy' }));
    });
  });

  describe('the limiter', () => {
    it('never runs more than its bound at once, and frees a slot when a request fails', async () => {
      const limiter = new Limiter(5);
      let running = 0;
      let most = 0;
      const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => limiter.run(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, i % 3));
        running--;
        if (i % 7 === 0) throw new Error('boom');
        return i;
      })));
      assert.equal(most, 5);
      assert.equal(limiter.peak, 5);
      assert.equal(limiter.inFlight, 0);
      assert.equal(results.filter((r) => r.status === 'rejected').length, 29);
    });

    it('maps with a bounded fan-out, keeping the order', async () => {
      let running = 0;
      let most = 0;
      const out = await mapLimited(Array.from({ length: 50 }, (_, i) => i), 4, async (n) => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, (n * 7) % 5));
        running--;
        return n * 2;
      });
      assert.deepEqual(out, Array.from({ length: 50 }, (_, i) => i * 2));
      assert.equal(most, 4);
      assert.deepEqual(await mapLimited([], 4, async () => 1), []);
    });
  });

  describe('id blocks', () => {
    /** The sequence's value (read through a function, so each assertion reads it afresh). */
    const valueOf = (r: { value: number }) => r.value;
    /** A reserver in memory: blocks follow one another, after a delay; it can be made to fail. */
    function fakeReserver() {
      const fake = {
        value: 0,
        reserved: 0,
        failing: false,
        async giveBack(_name: string, top: number, to: number) {
          if (fake.value !== top || to >= top) return false;
          fake.value = to;
          return true;
        },
        async reserve(_name: string, size: number) {
          await new Promise((r) => setTimeout(r, 2));
          if (fake.failing) throw new StoreUnavailableError('down');
          fake.reserved++;
          const block = { first: fake.value + 1, next: fake.value + 1, last: fake.value + size };
          fake.value += size;
          return block;
        },
      };
      return fake;
    }

    it('hands out ids in the order asked, across blocks, synchronously while the block lasts', async () => {
      const reserver = fakeReserver();
      const seq = new Sequence(reserver as unknown as SequenceReserver, 's', 4, false);
      const asked = Array.from({ length: 30 }, (_, i) => seq.take(1 + (i % 3)));
      const ids = (await Promise.all(asked)).flat();
      assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1));
      const now = seq.take(1);
      assert.ok(Array.isArray(now) || now instanceof Promise);
      assert.deepEqual(await seq.take(0), []);
    });

    it('reserves the next block while half of the current one is left, when asked to', async () => {
      const reserver = fakeReserver();
      const seq = new Sequence(reserver as unknown as SequenceReserver, 's', 10, true);
      assert.deepEqual(await seq.take(1), [1]);
      assert.equal(reserver.reserved, 1);
      for (let i = 0; i < 5; i++) await seq.take(1);
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(reserver.reserved, 2, 'the spare block is on its way');
      const rest = await Promise.all(Array.from({ length: 4 }, () => seq.take(1)));
      assert.deepEqual(rest.flat(), [7, 8, 9, 10]);
      assert.deepEqual(seq.take(1), [11], 'the spare block serves at once');
    });

    it('never hands out an id up to a raised floor', async () => {
      const seq = new Sequence(fakeReserver() as unknown as SequenceReserver, 's', 64, false);
      assert.deepEqual(await seq.take(1), [1]);
      seq.raiseFloor(40);
      assert.deepEqual(await seq.take(2), [41, 42]);
      seq.raiseFloor(100);
      assert.deepEqual(await seq.take(1), [101]);
    });

    it('gives back the ids reserved and not handed out when it holds the top of the sequence', async () => {
      const reserver = fakeReserver();
      const seq = new Sequence(reserver as unknown as SequenceReserver, 's', 10, true);
      for (let i = 0; i < 6; i++) await seq.take(1);
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(valueOf(reserver), 20, 'a spare block is reserved');
      await seq.release();
      assert.equal(valueOf(reserver), 6, 'both the rest of the block and the spare are given back');
      const again = new Sequence(reserver as unknown as SequenceReserver, 's', 10, false);
      assert.deepEqual(await again.take(2), [7, 8]);
      reserver.value += 10; // another process reserves 11..20
      await again.release();
      assert.equal(valueOf(reserver), 26, 'nothing is given back below a block another process holds');
    });

    it('gives back only the spare block when another process reserved between it and the current one', async () => {
      const reserver = fakeReserver();
      const seq = new Sequence(reserver as unknown as SequenceReserver, 's', 10, true);
      assert.deepEqual(await seq.take(6), [1, 2, 3, 4, 5, 6]);
      reserver.value += 10; // another process takes 11..20 before the spare is reserved
      await seq.take(1);
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(valueOf(reserver), 30);
      await seq.release();
      assert.equal(valueOf(reserver), 20, 'the spare 21..30 goes back, 8..10 are skipped');
    });

    it('never gives back below a raised floor', async () => {
      const reserver = fakeReserver();
      const seq = new Sequence(reserver as unknown as SequenceReserver, 's', 64, false);
      await seq.take(1);
      seq.raiseFloor(30);
      await seq.release();
      assert.equal(valueOf(reserver), 30);
    });

    it('fails every waiter when no block can be reserved, and recovers on the next call', async () => {
      const reserver = fakeReserver();
      const seq = new Sequence(reserver as unknown as SequenceReserver, 's', 2, false);
      reserver.failing = true;
      const results = await Promise.allSettled([seq.take(1), seq.take(1), seq.take(3)]);
      assert.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof StoreUnavailableError));
      reserver.failing = false;
      assert.deepEqual(await seq.take(3), [1, 2, 3]);
    });
  });

  describe('errors', () => {
    it('calls out of reach what is: no host, timeouts, busy connections, closed sockets, and the server\'s "not now" answers', () => {
      const unavailable = [
        new errors.NoHostAvailableError({}), new errors.OperationTimedOutError('slow'), new errors.BusyConnectionError('h', 2048, 1),
        new (errors.DriverError as unknown as new (message: string) => Error)('Socket was closed'),
        new errors.ResponseError(types.responseErrorCodes.unavailableException, 'few replicas'),
        new errors.ResponseError(types.responseErrorCodes.writeTimeout, 'timeout'),
        new errors.ResponseError(types.responseErrorCodes.readTimeout, 'timeout'),
        new errors.ResponseError(types.responseErrorCodes.overloaded, 'busy'),
        Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      ];
      for (const e of unavailable) {
        assert.ok(isUnavailable(e), String(e));
        const mapped = storeError(e, 'test');
        assert.ok(mapped instanceof StoreUnavailableError);
        assert.equal(mapped.status, 503);
        assert.equal(mapped.cause, e);
      }
      const others = [
        new errors.ResponseError(types.responseErrorCodes.invalid, 'Batch too large'),
        new errors.ResponseError(types.responseErrorCodes.syntaxError, 'bad'),
        new errors.ArgumentError('bad'), new TypeError('bad'),
      ];
      for (const e of others) {
        assert.ok(!isUnavailable(e), String(e));
        assert.equal(storeError(e, 'test'), e);
      }
    });
  });
});
