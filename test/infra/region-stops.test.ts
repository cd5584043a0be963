// An actor that stops drops the commands it had not begun (nact keeps no mailbox past a
// stop). Their askers hear so at once, not at the end of their ask timeout: the region
// asks the actor's next life when the actor stopped by itself, and answers NOT_SERVED when
// it let the actor go (a shard that moved to another node, the region stopping).
import assert from 'assert/strict';
import sinon from 'sinon';
import type { EntityKind } from '../../actors/entity';
import { isNotServed, NOT_SERVED, Region } from '../../actors/region';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { tempDir } from '../support/world';

type Tally = { id: string; total: number } | null;
type TallyCommand = { type: 'add'; id: string; amount: number } | { type: 'hold' };
type TallyEvent = { type: 'added'; id: string; amount: number };
type TestProtocols = { tally: TallyCommand };

/** A tally whose `hold` keeps the actor busy until the test lets it go on (`gate.open()`). */
function tallyKind(gate: { wait: Promise<void> }, handled: TallyCommand[]): EntityKind<Tally, TallyCommand, TallyEvent> {
  return {
    kind: 'tally',
    rank: 10,
    commands: { add: true, hold: true },
    initialState: null,
    evolve: (s, e) => ({ id: e.id, total: (s?.total ?? 0) + e.amount }),
    project: (s) => (s ? [{ kind: 'tally', id: s.id, doc: { ...s } }] : []),
    chronicle: () => [],
    view: (s) => s,
    handle: async (_s, c) => {
      handled.push(c);
      if (c.type === 'hold') {
        await gate.wait;
        return { events: [] };
      }
      return { events: [{ type: 'added', id: c.id, amount: c.amount }] };
    },
  };
}

function newGate() {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => { open = resolve; });
  return { wait, open };
}

const ASK_TIMEOUT_MS = 10_000;

describe('an actor that stops before it takes up an ask', () => {
  let store: SqliteStore;
  let region: Region<TestProtocols>;
  let gate: ReturnType<typeof newGate>;
  let handled: TallyCommand[];

  beforeEach(() => {
    store = new SqliteStore(tempDir());
    gate = newGate();
    handled = [];
    region = new Region<TestProtocols>(store.engine, store, [tallyKind(gate, handled)], { askTimeoutMs: ASK_TIMEOUT_MS, log: () => undefined });
  });

  afterEach(async () => {
    sinon.restore();
    gate.open();
    region.stop();
    await store.close();
  });

  it('let go by the region (its shard moved): the waiting ask is answered NOT_SERVED at once, and nothing of it happened', async () => {
    assert.deepEqual(await region.ask('tally', 'a', { type: 'add', id: 'a', amount: 1 }), { ok: true, value: { id: 'a', total: 1 } });
    const holding = region.ask('tally', 'a', { type: 'hold' });
    const started = Date.now();
    const waiting = region.ask('tally', 'a', { type: 'add', id: 'a', amount: 10 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(region.stopWhere((kind, id) => kind === 'tally' && id === 'a'), 1);

    const r = await waiting;
    assert.ok(Date.now() - started < 2_000, `answered at once, not after the ask timeout (${Date.now() - started} ms)`);
    assert.ok(isNotServed(r), JSON.stringify(r));
    assert.deepEqual(r, { ok: false, refusal: NOT_SERVED });
    assert.equal(NOT_SERVED.status, 503);

    // The command it had begun finishes and answers as it would have.
    gate.open();
    assert.deepEqual(await holding, { ok: true, value: { id: 'a', total: 1 } });
    assert.deepEqual(handled.map((c) => c.type), ['add', 'hold'], 'the dropped add never reached the actor');
    // The actor's next life (here, as on the shard's next host) recovers without it.
    assert.deepEqual(await region.ask('tally', 'a', { type: 'add', id: 'a', amount: 100 }), { ok: true, value: { id: 'a', total: 101 } });
    assert.deepEqual(await store.row('tally', 'a'), { id: 'a', total: 101 });
  });

  it('stopped by itself (a write of its failed): the waiting ask is taken up by its next life', async () => {
    const persist = sinon.stub(store.engine, 'persist').callThrough();
    // The first write fails a little later, while the second ask waits behind it.
    persist.onFirstCall().callsFake(() => new Promise((_, reject) => setTimeout(() => reject(new Error('disk full')), 50)));
    const started = Date.now();
    const failing = region.ask('tally', 'b', { type: 'add', id: 'b', amount: 1 });
    const waiting = region.ask('tally', 'b', { type: 'add', id: 'b', amount: 10 });

    const first = await failing;
    assert.equal(first.ok, false);
    assert.equal(!first.ok && first.refusal.status, 503);
    const second = await waiting;
    assert.ok(Date.now() - started < 2_000, `answered at once, not after the ask timeout (${Date.now() - started} ms)`);
    assert.deepEqual(second, { ok: true, value: { id: 'b', total: 10 } }, 'only the second add happened');
    assert.deepEqual(await store.row('tally', 'b'), { id: 'b', total: 10 });
  });

  it('stopped with the region (the world closing): the waiting ask is answered NOT_SERVED at once', async () => {
    void region.ask('tally', 'c', { type: 'hold' });
    const started = Date.now();
    const waiting = region.ask('tally', 'c', { type: 'add', id: 'c', amount: 10 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    region.stop();
    const r = await waiting;
    assert.ok(Date.now() - started < 2_000, `answered at once (${Date.now() - started} ms)`);
    assert.ok(isNotServed(r), JSON.stringify(r));
  });
});
