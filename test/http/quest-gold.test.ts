// Property: quest actions neither create nor destroy gold. Over one real world, random
// sequences of quest actions by three agents (post, sponsor, accept, cancel, dispatch,
// complete, and now and then dissolving an organization and founding a new one, which
// gets no treasury the same day) run without ticks. After every action the world's gold
// (every organization's treasury, ended ones too, plus the reward held by every open or
// accepted quest) must equal what it was, plus the starting treasuries of organizations
// founded since, less the estates of ended organizations (which pass to the world; the
// history's ledger says how much). A refused action must change nothing at all
// (api-conventions: "A refused action changes nothing").
import assert from 'assert/strict';
import fc from 'fast-check';
import { startTestWorld, type Answer, type TestWorld } from '../support/world';

interface OrgRow { id: number; treasury: number; status: string; location_id: string }
interface QuestRow {
  id: number; requester_id: number; location_id: string; reward: number; status: string;
  accepted_organization_id: number | null; party_id: number | null; outcome: string | null;
  sponsors: Array<{ organization_id: number; amount: number }>;
  resolution: { reward_paid: number; refunded: number } | null;
}
interface AgentSlot { key: string; org: number; party: number | null; location: string; generation: number }

type Action =
  | { kind: 'post'; actor: number; requester: number | null; reward: number; location: string; deadline: number | null }
  | { kind: 'sponsor'; actor: number; org: number | null; pick: number; wild: boolean; amount: number }
  | { kind: 'accept'; actor: number; org: number | null; pick: number; wild: boolean }
  | { kind: 'cancel'; actor: number; pick: number; wild: boolean }
  | { kind: 'dispatch'; actor: number; pick: number; wild: boolean }
  | { kind: 'complete'; actor: number; pick: number; wild: boolean }
  | { kind: 'dissolve'; actor: number };

const AGENTS = 3;
const HOMES = ['emberfall', 'whisperwood', 'sunken-crypt'];
const PLACES = ['emberfall', 'whisperwood', 'sunken-crypt', 'greenhollow'];
/** Every answer a quest action may give: success, or a refusal of api-conventions. Never 422 (inputs are valid) nor 5xx. */
const ANSWERS = [200, 201, 403, 404, 409];

const agent = fc.integer({ min: 0, max: AGENTS - 1 });
const pick = fc.nat(20);
/** One time in five an action aims at any known quest instead of one it fits, to exercise refusals. */
const wild = fc.integer({ min: 0, max: 4 }).map((n) => n === 0);
/**
 * Agent 0 keeps its first organization. An agent that dissolved its organization cannot
 * found another the same day (the founding allowance has refilled nothing, and an
 * organization that cannot pay a day of upkeep is not founded: docs/decisions.md), and
 * this world has no ticks, so if every agent dissolved early, every post would be refused
 * for gold and the property say nothing of posted gold.
 */
const dissolver = fc.integer({ min: 1, max: AGENTS - 1 });
/** Usually the actor's own organization; sometimes another agent's (refused with 403). */
const ownOrOther = fc.oneof({ arbitrary: fc.constant(null), weight: 5 }, { arbitrary: agent, weight: 1 });
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('post' as const), actor: agent, requester: ownOrOther, reward: fc.integer({ min: 1, max: 700 }), location: fc.constantFrom(...PLACES), deadline: fc.option(fc.integer({ min: 1, max: 5 })) }), weight: 6 },
  { arbitrary: fc.record({ kind: fc.constant('sponsor' as const), actor: agent, org: ownOrOther, pick, wild, amount: fc.integer({ min: 1, max: 300 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('accept' as const), actor: agent, org: ownOrOther, pick, wild }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), actor: agent, pick, wild }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('dispatch' as const), actor: agent, pick, wild }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('complete' as const), actor: agent, pick, wild }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('dissolve' as const), actor: dissolver }), weight: 1 },
);

describe('quest gold is conserved (property over a real world, no ticks)', function () {
  this.timeout(180_000);
  let w: TestWorld;
  const agents: AgentSlot[] = [];
  const orgIds = new Set<number>();
  const questIds = new Set<number>();
  /** The world's gold as it must stay; raised only by the starting treasury of an organization founded during the run. */
  let expectedGold = 0;
  const tally = new Map<string, number>();
  /** The first refusal's detail of each action and status, to say why when no action of a kind succeeded. */
  const firstDetail = new Map<string, string>();

  async function ok<T = any>(p: Promise<Answer<T>>, status: number, what: string): Promise<T> {
    const r = await p;
    assert.equal(r.status, status, `${what}: ${r.status} ${r.text}`);
    return r.body;
  }

  interface Snapshot { gold: number; orgs: Map<number, OrgRow>; quests: Map<number, QuestRow> }

  async function snapshot(): Promise<Snapshot> {
    for (const o of await ok<OrgRow[]>(w.get('/api/organizations'), 200, 'list organizations')) orgIds.add(o.id);
    for (const q of await ok<QuestRow[]>(w.get('/api/quests'), 200, 'list quests')) questIds.add(q.id);
    const orgs = new Map<number, OrgRow>();
    for (const id of [...orgIds].sort((x, y) => x - y)) orgs.set(id, await ok<OrgRow>(w.get(`/api/organizations/${id}`), 200, `organization ${id}`));
    const quests = new Map<number, QuestRow>();
    for (const id of [...questIds].sort((x, y) => x - y)) quests.set(id, await ok<QuestRow>(w.get(`/api/quests/${id}`), 200, `quest ${id}`));
    let gold = 0;
    for (const o of orgs.values()) {
      assert.ok(Number.isInteger(o.treasury) && o.treasury >= 0, `organization ${o.id} treasury ${o.treasury}`);
      gold += o.treasury;
    }
    for (const q of quests.values()) {
      if (q.status === 'open' || q.status === 'accepted') gold += q.reward;
      const pledged = q.sponsors.reduce((n, s) => n + s.amount, 0);
      assert.ok(q.reward > pledged, `quest ${q.id}: the reward ${q.reward} holds the requester's share beyond the pledges ${pledged}`);
      if (q.status === 'resolved') {
        assert.ok(q.resolution, `resolved quest ${q.id} keeps its resolution`);
        assert.equal(q.resolution.reward_paid + q.resolution.refunded, q.reward, `quest ${q.id}: paid + refunded = reward`);
        const paid = q.outcome === 'full' ? q.reward : q.outcome === 'partial' ? Math.floor(q.reward / 2) : 0;
        assert.equal(q.resolution.reward_paid, paid, `quest ${q.id}: ${q.outcome} pays ${paid}`);
      }
    }
    return { gold, orgs, quests };
  }

  /** The gold-relevant face of the world, for "a refused action changes nothing". */
  const face = (s: Snapshot) => ({
    orgs: [...s.orgs.values()].map((o) => [o.id, o.treasury, o.status]),
    quests: [...s.quests.values()].map((q) => [q.id, q.status, q.reward, q.accepted_organization_id, q.party_id, q.sponsors.length]),
  });

  /** Hires up to two available adventurers into the agent's organization, as far as its gold pays their fees, and forms a party of them. */
  async function staff(slot: AgentSlot, name: string): Promise<void> {
    const day = (await ok<{ day: number }>(w.get('/api/world'), 200, 'world')).day;
    const free = (await ok<Array<{ id: number; status: string; injured_until: number | null; hiring_fee: number }>>(w.get('/api/adventurers'), 200, 'adventurers'))
      .filter((a) => a.status === 'available' && (a.injured_until === null || a.injured_until <= day));
    let treasury = (await ok<OrgRow>(w.get(`/api/organizations/${slot.org}`), 200, 'organization')).treasury;
    const party = await ok<{ id: number }>(w.post('/api/parties', { organization_id: slot.org, name }, slot.key), 201, 'form party');
    slot.party = party.id;
    for (const a of free.slice(0, 2)) {
      if (a.hiring_fee > treasury) continue;
      await ok(w.post('/api/adventurers/hire', { organization_id: slot.org, adventurer_id: a.id }, slot.key), 200, `hire ${a.id}`);
      treasury -= a.hiring_fee;
      await ok(w.post(`/api/parties/${party.id}/members`, { adventurer_id: a.id }, slot.key), 200, `add ${a.id}`);
    }
  }

  async function foundFor(slot: Omit<AgentSlot, 'org' | 'party'> & Partial<AgentSlot>): Promise<AgentSlot> {
    const org = await ok<OrgRow>(w.post('/api/organizations', {
      name: `Band ${HOMES.indexOf(slot.location)}-${slot.generation}`, kind: 'adventurers company', location_id: slot.location,
    }, slot.key), 201, 'found organization');
    orgIds.add(org.id);
    const full: AgentSlot = { ...slot, org: org.id, party: null };
    await staff(full, `Party ${org.id}`);
    return full;
  }

  before(async () => {
    w = await startTestWorld();
    // Gold before any agent exists: the seeded organizations (and any quest the world posted on day one).
    const seededOnly = await snapshot();
    let founded = 0;
    for (let i = 0; i < AGENTS; i++) {
      const { key } = await w.register(`Gold agent ${i}`);
      const slot = await foundFor({ key, location: HOMES[i], generation: 0 });
      agents.push(slot);
      founded += (await ok<OrgRow>(w.get(`/api/organizations/${slot.org}`), 200, 'new organization')).treasury;
    }
    expectedGold = seededOnly.gold + founded;
    assert.equal((await snapshot()).gold, expectedGold, 'hiring (its fee is out of the starting treasury counted above) and forming parties move no more gold');
  });
  after(async () => { await w?.close(); });

  /** Chooses a quest: among those that fit the action, or (wild) among all known, to exercise refusals. */
  function choose(s: Snapshot, fits: (q: QuestRow) => boolean, n: number, isWild: boolean): number {
    const all = [...s.quests.values()];
    const pool = isWild ? all : all.filter(fits);
    if (pool.length === 0) return all.length ? all[n % all.length].id : 99999;
    return pool[pool.length - 1 - (n % pool.length)].id; // newest first
  }

  async function perform(a: Action, s: Snapshot): Promise<{ r: Answer; founded: number }> {
    const me = agents[a.actor];
    switch (a.kind) {
      case 'post': {
        const requester = agents[a.requester ?? a.actor].org;
        const r = await w.post('/api/quests', {
          title: 'Trouble on the road', description: 'Something stirs and must be dealt with.', requester_id: requester,
          location_id: a.location, reward: a.reward, deadline_days: a.deadline,
        }, me.key);
        if (r.status === 201) questIds.add(r.body.id);
        return { r, founded: 0 };
      }
      case 'sponsor': {
        const id = choose(s, (q) => q.status === 'open', a.pick, a.wild);
        return { r: await w.post(`/api/quests/${id}/sponsors`, { organization_id: agents[a.org ?? a.actor].org, amount: a.amount }, me.key), founded: 0 };
      }
      case 'accept': {
        const org = agents[a.org ?? a.actor].org;
        const id = choose(s, (q) => q.status === 'open' && q.requester_id !== org, a.pick, a.wild);
        return { r: await w.post(`/api/quests/${id}/accept`, { organization_id: org }, me.key), founded: 0 };
      }
      case 'cancel': {
        const id = choose(s, (q) => q.status === 'open' && q.requester_id === me.org, a.pick, a.wild);
        return { r: await w.post(`/api/quests/${id}/cancel`, undefined, me.key), founded: 0 };
      }
      case 'dispatch': {
        const id = choose(s, (q) => ((q.status === 'open' && q.requester_id !== me.org) || (q.status === 'accepted' && q.accepted_organization_id === me.org && q.party_id === null))
          && q.location_id === me.location, a.pick, a.wild);
        return { r: await w.post(`/api/parties/${me.party ?? 99999}/dispatch`, { quest_id: id }, me.key), founded: 0 };
      }
      case 'complete': {
        const id = choose(s, (q) => q.status === 'accepted' && q.party_id !== null && q.accepted_organization_id === me.org, a.pick, a.wild);
        return { r: await w.post(`/api/quests/${id}/complete`, undefined, me.key), founded: 0 };
      }
      case 'dissolve': {
        const r = await w.post(`/api/organizations/${me.org}/dissolve`, undefined, me.key);
        if (r.status !== 200) return { r, founded: 0 };
        // What the ended organization held, and the refunds that reached it after, passed to the world.
        const forfeited = (await ok<Array<{ data: { ledger?: Array<{ organization_id: number; flow: string; gold?: number }> } }>>(
          w.get(`/api/events?organization_id=${me.org}&category=organization&limit=100`), 200, 'events of the ended organization'))
          .flatMap((e) => e.data.ledger ?? []).filter((l) => l.flow === 'estate_forfeited' && l.organization_id === me.org)
          .reduce((n, l) => n + (l.gold ?? 0), 0);
        // Rule 3 lets it found again once the old one has ended, but not the same day: nothing is granted yet, so nothing is
        // founded (409) and no gold is new. The agent keeps its ended organization: whatever it does with it is refused.
        const again = await w.post('/api/organizations', { name: `Band ${HOMES.indexOf(me.location)}-${me.generation + 1}`, kind: 'adventurers company', location_id: me.location }, me.key);
        assert.equal(again.status, 409, again.text);
        return { r, founded: forfeited };
      }
    }
  }

  it('keeps the sum of treasuries and held rewards constant through any sequence of quest actions', async () => {
    // The run's seed, said in every failure (QUEST_GOLD_SEED runs it again).
    const seed = process.env.QUEST_GOLD_SEED ? Number(process.env.QUEST_GOLD_SEED) : (Date.now() ^ (Math.random() * 0x100000000)) | 0;
    await fc.assert(fc.asyncProperty(fc.array(actionArb, { minLength: 8, maxLength: 12 }), async (actions) => {
      const log: string[] = [];
      for (const action of actions) {
        const before = await snapshot();
        assert.equal(before.gold, expectedGold, 'gold at the start of the step');
        const { r, founded } = await perform(action, before);
        const key = `${action.kind} ${r.status}`;
        tally.set(key, (tally.get(key) ?? 0) + 1);
        if (r.status >= 400 && !firstDetail.has(key)) firstDetail.set(key, String(r.body?.detail));
        log.push(`${JSON.stringify(action)} -> ${r.status}${r.status >= 400 ? ` ${r.body?.detail}` : ''}`);
        assert.ok(ANSWERS.includes(r.status), `unexpected answer ${r.status} ${r.text}\n${log.join('\n')}`);
        expectedGold += founded;
        const after = await snapshot();
        assert.equal(after.gold, expectedGold, `gold changed by ${after.gold - expectedGold} after:\n${log.join('\n')}`);
        if (r.status >= 400) assert.deepEqual(face(after), face(before), `a refused action changed the world:\n${log.join('\n')}`);
      }
    }), { numRuns: 10, endOnFailure: true, seed });
    // The sequences must have moved gold somewhere, or the property said nothing.
    const succeeded = (kind: string) => [...tally].filter(([k]) => k.startsWith(`${kind} 20`)).reduce((n, [, c]) => n + c, 0);
    assert.ok(succeeded('post') > 0, `some post succeeded (seed ${seed}): ${JSON.stringify([...tally])}; first refusals: ${JSON.stringify([...firstDetail])}`);
  });
});
