// The organizations no agent controls live by their policies (issue 13, "A living world";
// docs/decisions.md, "The world's organizations"): over 100 days of a real world with no
// agent, seeded organizations trade, hire, accept and dispatch quests and travel; not all
// their quests go well; prospering places see new organizations, some of which go
// bankrupt; every gold piece stays accounted for; two fresh worlds with one seed unfold alike.
import assert from 'assert/strict';
import type { HistoryEvent } from '../../actors/ports/store';
import { SEEDED_ORGANIZATIONS } from '../../actors/world/generate';
import { allEvents, assertBooks, mark } from '../support/sagas';
import { startTestWorld, type TestWorld } from '../support/world';

const DAYS = 100;

interface Org { id: number; name: string; status: string; agent_id: number | null; treasury: number }
interface Quest { id: number; accepted_organization_id: number | null; status: string; outcome: string | null }

describe('the world\'s organizations act every day (issue 13)', function () {
  this.timeout(600_000);
  let w: TestWorld;
  let events: HistoryEvent[];
  let from: { gold: number; lastEvent: number };
  let orgs: Org[];
  before(async () => {
    w = await startTestWorld({ seed: 'policies' });
    from = await mark(w);
    for (let d = 0; d < DAYS; d++) await w.tick();
    events = await allEvents(w);
    orgs = await w.services.read.list<Org>('organizations');
  });
  after(async () => { await w?.close(); });

  const seeded = (id: unknown) => typeof id === 'number' && id >= 1 && id <= SEEDED_ORGANIZATIONS;
  /** Events of a category caused by no agent that name a seeded organization. */
  const seededDid = (category: string, words: RegExp) => events.filter((e) => e.category === category && e.agent_id === null
    && e.organization_ids.some(seeded) && words.test(e.summary));

  it('seeded organizations buy and sell at the markets, each trade in the ledger with the market flow', () => {
    const trades = seededDid('trade', /bought|sold/);
    assert.ok(trades.some((e) => /bought/.test(e.summary)) && trades.some((e) => /sold/.test(e.summary)), 'they buy and they sell');
    for (const e of trades) assert.ok(((e.data as { ledger: Array<{ flow: string }> }).ledger).every((l) => l.flow === 'market'));
    assert.ok(new Set(trades.map((e) => e.organization_ids[0])).size >= 2, 'more than one of them trades');
  });

  it('seeded organizations hire adventurers, and travel', () => {
    assert.ok(seededDid('adventurer', /was hired by/).length >= SEEDED_ORGANIZATIONS);
    assert.ok(seededDid('travel', /set out/).length >= SEEDED_ORGANIZATIONS);
  });

  it('seeded organizations accept quests, dispatch parties to them and see them resolved, not always fully', async () => {
    const quests = (await w.services.read.list<Quest>('questsListed')).filter((q) => seeded(q.accepted_organization_id));
    assert.ok(seededDid('quest', /accepted/).length > 0 || quests.length > 0);
    assert.ok(seededDid('party', /dispatched the party/).length >= 5, 'parties are sent out');
    const resolved = quests.filter((q) => q.status === 'resolved');
    assert.ok(resolved.filter((q) => q.outcome === 'full').length >= 5, 'quests are won');
    assert.ok(resolved.some((q) => q.outcome !== 'full'), 'and some are not: partial successes or failures');
  });

  it('prospering places see new organizations without an agent, some of which go bankrupt', async () => {
    const founded = orgs.filter((o) => o.id > SEEDED_ORGANIZATIONS && o.agent_id === null);
    assert.ok(founded.length >= 2, `the world founded ${founded.length}`);
    assert.ok(events.some((e) => e.category === 'organization' && /was founded/.test(e.summary) && e.day > 1));
    const bankrupt = founded.find((o) => o.status === 'bankrupt');
    assert.ok(bankrupt, 'some go bankrupt');
    const shown = await w.get(`/api/organizations/${bankrupt.id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.status, 'bankrupt');
    assert.equal(shown.body.agent_id, null);
    assert.ok(events.some((e) => e.category === 'bankruptcy'));
    // World-founded organizations act by the same policy.
    assert.ok(events.some((e) => e.agent_id === null && e.organization_ids.some((id) => founded.some((o) => o.id === id)) && /was hired by|set out|bought|sold/.test(e.summary)));
  });

  it('no agent is named as the cause of what the world does', () => {
    assert.ok(events.every((e) => e.agent_id === null), 'no agent played, and the world\'s own commands are caused by no agent');
  });

  it('the world\'s gold stays accounted for', async () => {
    await assertBooks(w, from);
  });

  it('a second fresh world with the same seed unfolds alike', async () => {
    const twin = await startTestWorld({ seed: 'policies' });
    try {
      for (let d = 0; d < DAYS; d++) await twin.tick();
      // The same events on the same days; within a day, steps of different entities may be written in either order on Cassandra.
      const summaries = (list: HistoryEvent[]) => list.map((e) => `${e.day} ${e.summary}`).sort();
      assert.deepEqual(summaries(await allEvents(twin)), summaries(events));
    } finally {
      await twin.close();
    }
  });
});
