// Typed protocols: every kind declares the command types it handles, and the region
// refuses any other at once (422), before the actor sees it, instead of letting it crash
// the actor and keep the caller waiting for the ask timeout.
import assert from 'assert/strict';
import type { EntityKind } from '../../actors/entity';
import type { Entities } from '../../actors/ports/entities';
import { Region } from '../../actors/region';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { startTestWorld, tempDir, type TestWorld } from '../support/world';

type Counter = { id: string; total: number } | null;
type CounterCommand = { type: 'add'; id: string; amount: number } | { type: 'get' };
type CounterEvent = { type: 'added'; id: string; amount: number };
type TestProtocols = { counter: CounterCommand; asker: { type: 'ask-counter'; command: unknown } };

/** Counts the commands that reach `handle`; a misspelt one would throw in it. */
function counterKind(handled: string[]): EntityKind<Counter, CounterCommand, CounterEvent> {
  return {
    kind: 'counter',
    rank: 10,
    commands: { add: true, get: true },
    initialState: null,
    evolve: (s, e) => ({ id: e.id, total: (s?.total ?? 0) + e.amount }),
    project: (s) => (s ? [{ kind: 'counter', id: s.id, doc: { ...s } }] : []),
    chronicle: () => [],
    view: (s) => s,
    handle: (_s, c) => {
      handled.push(c.type);
      switch (c.type) {
        case 'add': return { events: [{ type: 'added', id: c.id, amount: c.amount }] };
        case 'get': return { events: [] };
        default: throw new Error(`no such command ${(c as { type: string }).type}`);
      }
    },
  };
}

/** An actor of a higher rank that passes whatever command it is given on to the counter. */
const askerKind: EntityKind<null, { type: 'ask-counter'; command: unknown }, never> = {
  kind: 'asker',
  rank: 20,
  commands: { 'ask-counter': true },
  initialState: null,
  evolve: (s) => s,
  project: () => [],
  chronicle: () => [],
  view: (s) => s,
  handle: async (_s, c, io) => {
    const r = await io.ask('counter' as never, 'a', c.command as never);
    return { events: [], reply: () => r };
  },
};

// Compile-time checks: each line below must fail to compile (tsc fails on an unused @ts-expect-error).
export function protocolTypeChecks(e: Entities): void {
  // @ts-expect-error a misspelt command type does not compile
  void e.ask('organization', 1, { type: 'quest-standin', agent_id: 1, requester_id: 2 });
  // @ts-expect-error a command of another kind does not compile
  void e.ask('quest', 1, { type: 'control', agent_id: 1 });
  // @ts-expect-error a command missing a field does not compile
  void e.ask('location', 'emberfall', { type: 'monsters-changed', day: 1, change: 2 });
  // @ts-expect-error an unknown kind does not compile
  void e.ask('dragon', 1, { type: 'status' });
  // @ts-expect-error naming the reply type alone does not compile: the command would go unchecked
  void e.ask<{ day: number }>('clock', 'world', { type: 'now' });
  // @ts-expect-error a tell is checked the same way
  e.tell('adventurer', 1, { type: 'fred', organization_id: 1, day: 1, reason: '' });
}

describe('typed protocols: a command the kind does not handle', () => {
  let store: SqliteStore;
  let region: Region<TestProtocols>;
  let handled: string[];
  let logged: string[];

  beforeEach(() => {
    store = new SqliteStore(tempDir());
    handled = [];
    logged = [];
    region = new Region<TestProtocols>(store.engine, store, [counterKind(handled), askerKind], { askTimeoutMs: 5_000, log: (l) => logged.push(l) });
  });

  afterEach(async () => {
    region.stop();
    await store.close();
  });

  it('is refused at once with 422 naming the kind and the command type, without reaching the actor', async () => {
    assert.deepEqual(await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 2 }), { ok: true, value: { id: 'a', total: 2 } });
    const started = Date.now();
    const r = await region.ask('counter', 'a', { type: 'ad', id: 'a', amount: 3 } as never);
    assert.ok(Date.now() - started < 1_000, 'answered at once, not after the ask timeout');
    assert.deepEqual(r, { ok: false, refusal: { status: 422, detail: 'the counter entity does not handle the command "ad"' } });
    assert.deepEqual(handled, ['add'], 'handle never saw the unknown command');
  });

  it('leaves the actor working: the next commands are handled as before', async () => {
    await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 2 });
    await region.ask('counter', 'a', { type: 'substract', id: 'a', amount: 1 } as never);
    assert.deepEqual(await region.ask('counter', 'a', { type: 'add', id: 'a', amount: 5 }), { ok: true, value: { id: 'a', total: 7 } });
    assert.deepEqual(await region.ask('counter', 'a', { type: 'get' }), { ok: true, value: { id: 'a', total: 7 } });
    assert.deepEqual(await store.row('counter', 'a'), { id: 'a', total: 7 });
  });

  it('refuses a command without a type, a type that is not a string, an inherited name, and no command at all', async () => {
    for (const command of [{}, { type: 3 }, { type: 'toString' }, { type: '__proto__' }, null, undefined, 'add']) {
      const r = await region.ask('counter', 'b', command as never);
      assert.equal(r.ok, false, JSON.stringify(command));
      if (!r.ok) {
        assert.equal(r.refusal.status, 422);
        assert.match(r.refusal.detail, /^the counter entity does not handle the command /);
      }
    }
    assert.deepEqual(handled, []);
  });

  it('is refused the same way when one actor asks another', async () => {
    const started = Date.now();
    const r = await region.ask<{ ok: boolean; refusal?: { status: number; detail: string } }, 'asker'>('asker', 'x', { type: 'ask-counter', command: { type: 'gett' } });
    assert.ok(Date.now() - started < 1_000);
    assert.deepEqual(r, { ok: true, value: { ok: false, refusal: { status: 422, detail: 'the counter entity does not handle the command "gett"' } } });
    assert.deepEqual(handled, []);
  });

  it('drops a tell of an unknown command, with a log line, and keeps the actor working', async () => {
    region.tell('counter', 'c', { type: 'add', id: 'c', amount: 1 });
    region.tell('counter', 'c', { type: 'addd', id: 'c', amount: 100 } as never);
    assert.deepEqual(await region.ask('counter', 'c', { type: 'get' }), { ok: true, value: { id: 'c', total: 1 } });
    assert.ok(logged.some((l) => l.includes('counter:c') && l.includes('"addd"')), logged.join('\n'));
  });
});

describe('typed protocols in the running world', () => {
  let world: TestWorld;
  before(async () => { world = await startTestWorld(); });
  after(async () => { await world.close(); });

  it('answers a misspelt command to a real kind with 422 at once; the organization keeps answering', async () => {
    const { entities } = world.services;
    const started = Date.now();
    const r = await entities.ask('organization', 1, { type: 'quest-standin', agent_id: 1, requester_id: 2 } as never);
    assert.ok(Date.now() - started < 1_000);
    assert.deepEqual(r, { ok: false, refusal: { status: 422, detail: 'the organization entity does not handle the command "quest-standin"' } });
    const status = await entities.ask<{ id: number; status: string }, 'organization'>('organization', 1, { type: 'status' });
    assert.ok(status.ok && status.value.id === 1 && status.value.status === 'active');
    assert.equal((await world.get('/api/organizations/1')).status, 200);
  });

  it('declares every command type each kind handles: the commands of the world still work end to end', async () => {
    const { entities } = world.services;
    const clock = await entities.ask<{ day: number }, 'clock'>('clock', 'world', { type: 'now' });
    assert.ok(clock.ok && clock.value.day >= 1);
    const place = await entities.ask('location', 'emberfall', { type: 'status' });
    assert.ok(place.ok);
  });
});
