// Routing on many nodes: an ask whose actor was let go before it took the command up
// (NOT_SERVED, actors/region.ts) is sent where the shard is now, by the node that asked
// and by a node serving another's ask (which answers "moved"), so the client gets the
// command's own answer, once. The region's NOT_SERVED is injected once (sinon) on the
// node that hosts the agent; the rest is a real two-node world on Cassandra and Kafka.
import assert from 'assert';
import fs from 'fs';
import sinon from 'sinon';
import { NOT_SERVED } from '../../actors/region';
import { startTestWorld, type TestWorld } from '../support/world';

const SHARDS = 4;

describe('Many nodes: an ask its actor never took up (real Cassandra and Kafka)', function () {
  this.timeout(120_000);
  let w: TestWorld | undefined;
  before(async () => { w = await startTestWorld({ store: 'cassandra', bus: 'kafka', nodes: 2, shards: SHARDS }); });
  after(async () => {
    sinon.restore();
    await w?.close();
    if (w) fs.rmSync(w.dataDir, { recursive: true, force: true });
  });

  /** The agent's host and the other node; the host's region answers the agent's next ask NOT_SERVED. */
  async function agentWithHostNotServingOnce(name: string) {
    const agent = await w!.register(name);
    const shard = w!.nodes[0].node!.shardOf('agent', agent.id);
    const host = w!.nodes.find((n) => n.node!.hosts(shard))!;
    const other = w!.nodes.find((n) => n !== host)!;
    assert.ok(host && other, 'one node hosts the agent, the other does not');
    const ask = host.region.ask.bind(host.region);
    /** How many asks for this agent reached the host's region (the one being made included). */
    const asksOfAgent = () => stub.getCalls().filter((c) => c.args[0] === 'agent' && c.args[1] === agent.id).length;
    const stub = sinon.stub(host.region, 'ask').callsFake(((kind: string, id: string | number, ...rest: unknown[]) => {
      if (kind === 'agent' && id === agent.id && asksOfAgent() === 1) return Promise.resolve({ ok: false, refusal: NOT_SERVED });
      return (ask as (...a: unknown[]) => unknown)(kind, id, ...rest);
    }) as typeof host.region.ask);
    return { agent, host, other, stub, asksOfAgent };
  }

  async function retire(at: { url: string }, key: string) {
    const res = await fetch(`${at.url}/api/agents/retire`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-agent-key': key }, body: JSON.stringify({ reason: 'leaving the world for good' }) });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  }

  it('asked on the node that hosts it: the node asks again and answers the command\'s own answer', async () => {
    const { agent, host, stub, asksOfAgent } = await agentWithHostNotServingOnce('Asked at home');
    const r = await retire(host, agent.key);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'retired');
    assert.equal(asksOfAgent(), 2, 'not served once, then served');
    stub.restore();
    const again = await retire(host, agent.key);
    assert.equal(again.status, 403, 'retired once: its key changes nothing any more');
  });

  it('asked through the other node: the host answers "moved", and the asker sends it again', async () => {
    const { agent, other, stub, asksOfAgent } = await agentWithHostNotServingOnce('Asked from afar');
    const r = await retire(other, agent.key);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'retired');
    assert.equal(asksOfAgent(), 2, 'not served once, then served');
    stub.restore();
    const profile = await fetch(`${other.url}/api/agents/${agent.id}`).then((res) => res.json()) as Record<string, unknown>;
    assert.equal(profile.status, 'retired');
  });
});
