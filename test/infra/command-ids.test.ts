// Command ids at the actor level: an actor applies each command id once. A command whose
// id it has applied before persists nothing and gets the first answer, also after a
// restart (the ids travel in the journal and in snapshots); a refused id is decided
// again; an actor asking others under an id sends them ids derived from it.
import assert from 'assert/strict';
import { COMMAND_IDS_KEPT, type EntityKind } from '../../actors/entity';
import { Region } from '../../actors/region';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { tempDir } from '../support/world';
import { waitFor } from '../support/wait';

type Counter = { id: string; total: number } | null;
type CounterCommand = { type: 'add'; id: string; amount: number } | { type: 'get' };
type CounterEvent = { type: 'added'; id: string; amount: number };
type Forward = { type: 'forward'; amount: number };
type TestProtocols = { counter: CounterCommand; forwarder: Forward };

function counterKind(handled: string[]): EntityKind<Counter, CounterCommand, CounterEvent> {
  return {
    kind: 'counter',
    rank: 10,
    commands: { add: true, get: true },
    initialState: null,
    evolve: (s, e) => ({ id: e.id, total: (s?.total ?? 0) + e.amount }),
    project: (s) => (s ? [{ kind: 'counter', id: s.id, doc: { ...s } }] : []),
    chronicle: (e) => [{ day: 1, category: 'test', agent_id: null, organization_ids: [], summary: `added ${e.amount}` }],
    view: (s) => s,
    handle: (s, c) => {
      handled.push(c.type);
      if (c.type === 'get') return { events: [] };
      if (c.amount < 0 && (s?.total ?? 0) + c.amount < 0) return { refusal: { status: 409, detail: 'too little' } };
      return { events: [{ type: 'added', id: c.id, amount: c.amount }] };
    },
  };
}

/** Asks the counter twice (the same command type), then records that it forwarded. */
const forwarderKind: EntityKind<number, Forward, { type: 'forwarded' }> = {
  kind: 'forwarder',
  rank: 20,
  commands: { forward: true },
  initialState: 0,
  evolve: (s) => s + 1,
  project: () => [],
  chronicle: () => [],
  view: (s) => s,
  handle: async (_s, c, io) => {
    const first = await io.ask('counter' as never, 'f', { type: 'add', id: 'f', amount: c.amount } as never);
    const second = await io.ask('counter' as never, 'f', { type: 'add', id: 'f', amount: c.amount } as never);
    return { events: [{ type: 'forwarded' }], reply: () => [first, second] };
  },
};

describe('command ids: an actor applies each id once', () => {
  let dir: string;
  let store: SqliteStore;
  let region: Region<TestProtocols>;
  let handled: string[];

  const open = (snapshotEvery = 50) => {
    store = new SqliteStore(dir);
    region = new Region<TestProtocols>(store.engine, store, [counterKind(handled), forwarderKind], { askTimeoutMs: 5_000, snapshotEvery, log: () => undefined });
  };
  const close = async () => { region.stop(); await store.close(); };
  const journal = async (key: string) => store.engine.events(key, 0).reduce((n: Promise<number>) => n.then((x) => x + 1), Promise.resolve(0));

  beforeEach(() => { dir = tempDir(); handled = []; open(); });
  afterEach(close);

  it('answers a redelivered command with its first answer and persists nothing', async () => {
    const first = await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 2 }, undefined, { commandId: 'c-1' });
    assert.deepEqual(first, { ok: true, value: { id: 'a', total: 2 } });
    await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 5 });
    const again = await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 2 }, undefined, { commandId: 'c-1' });
    assert.deepEqual(again, first, 'the first answer (total 2), not the state now (total 7)');
    assert.deepEqual(await store.row('counter', 'a'), { id: 'a', total: 7 });
    assert.equal(await journal('counter:a'), 2, 'no third journal record');
    assert.equal((await store.history({ limit: 10 })).length, 2, 'no third history entry');
    assert.deepEqual(handled, ['add', 'add'], 'the redelivered command was not decided again');
  });

  it('keeps the applied ids across a restart, from the journal and from a snapshot', async () => {
    await close();
    open(2); // a snapshot after every two records
    await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 1 }, undefined, { commandId: 'early' });
    for (let i = 0; i < 4; i++) await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 1 });
    await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 10 }, undefined, { commandId: 'late' });
    // The snapshot is written after the message.
    await waitFor(async () => ((await store.engine.latestSnapshot('counter:a'))?.sequenceNumber ?? 0) >= 4, 'a snapshot of counter:a at 4 or later', 10_000, 10);
    await close();
    open(2);
    assert.deepEqual(await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 1 }, undefined, { commandId: 'early' }), { ok: true, value: { id: 'a', total: 1 } });
    assert.deepEqual(await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 10 }, undefined, { commandId: 'late' }), { ok: true, value: { id: 'a', total: 15 } });
    assert.deepEqual(await store.row('counter', 'a'), { id: 'a', total: 15 });
    assert.ok((await store.engine.latestSnapshot('counter:a'))!.sequenceNumber >= 4, 'the ids came back through a snapshot');
  });

  it('decides a refused id again: a refusal persisted nothing', async () => {
    const refused = await region.ask('counter', 'r', { type: 'add', id: 'r', amount: -3 }, undefined, { commandId: 'take-3' });
    assert.deepEqual(refused, { ok: false, refusal: { status: 409, detail: 'too little' } });
    assert.equal(await journal('counter:r'), 0);
    await region.ask('counter', 'r', { type: 'add', id: 'r', amount: 5 });
    assert.deepEqual(await region.ask('counter', 'r', { type: 'add', id: 'r', amount: -3 }, undefined, { commandId: 'take-3' }), { ok: true, value: { id: 'r', total: 2 } });
    assert.deepEqual(await region.ask('counter', 'r', { type: 'add', id: 'r', amount: -3 }, undefined, { commandId: 'take-3' }), { ok: true, value: { id: 'r', total: 2 } });
    assert.deepEqual(await store.row('counter', 'r'), { id: 'r', total: 2 });
  });

  it('keeps the newest COMMAND_IDS_KEPT ids', async () => {
    for (let i = 0; i <= COMMAND_IDS_KEPT; i++) await region.ask('counter', 'k', { type: 'add', id: 'k', amount: 1 }, undefined, { commandId: `k-${i}` });
    const total = COMMAND_IDS_KEPT + 1;
    assert.deepEqual(await region.ask('counter', 'k', { type: 'add', id: 'k', amount: 1 }, undefined, { commandId: 'k-1' }), { ok: true, value: { id: 'k', total: 2 } }, 'k-1 is still kept');
    assert.deepEqual(await region.ask('counter', 'k', { type: 'add', id: 'k', amount: 1 }, undefined, { commandId: 'k-0' }), { ok: true, value: { id: 'k', total: total + 1 } }, 'k-0, the oldest, was forgotten and applied again');
  });

  it('refuses a command id that is empty or too long (422), before any actor sees it', async () => {
    for (const commandId of ['', 'x'.repeat(513)]) {
      const r = await region.ask('counter', 'z', { type: 'add', id: 'z', amount: 1 }, undefined, { commandId });
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.refusal.status, 422);
    }
    assert.deepEqual(handled, []);
  });

  it('derives the ids of the asks an actor makes under an id: a command decided again after a crash part-way applies each ask once', async () => {
    const r = await region.ask('forwarder', 'x', { type: 'forward', amount: 3 }, undefined, { commandId: 'fw-1' });
    assert.ok(r.ok);
    assert.deepEqual(await store.row('counter', 'f'), { id: 'f', total: 6 }, 'two asks of the same type, two ids');
    // The forwarder's own record is lost (as if the process stopped before it was written):
    // a new forwarder decides the same command id again, and the counter applies nothing twice.
    const fresh = await region.ask('forwarder', 'y', { type: 'forward', amount: 3 }, undefined, { commandId: 'fw-1' });
    assert.ok(fresh.ok);
    assert.deepEqual(await store.row('counter', 'f'), { id: 'f', total: 6 });
  });
});
