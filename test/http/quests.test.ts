// HTTP journeys through adventurers, parties and quests (core rules 8-13 and 18; the
// Quest, Party and Adventurer parts of the specification; api-conventions status codes).
// One real world on a temporary folder; the clock is off, days pass only by tick().
import assert from 'assert/strict';
import { startTestWorld, type Answer, type TestWorld } from '../support/world';
import { forfeitedGold } from '../support/http';
import sinon from 'sinon';
import * as random from '../../actors/random';
import { DANGER_SPREAD, dangerMet } from '../../actors/quest/rules';

interface Org {
  id: number; name: string; treasury: number; reputation: number; status: string; location_id: string;
  daily_maintenance: number; employee_count: number; employees: number[]; travel: { destination_id: string; arrives_day: number } | null;
  trust: Record<string, number>;
}
interface Adventurer {
  id: number; name: string; strength: number; level: number; experience: number; traits: string[]; status: string;
  organization_id: number | null; party_id: number | null; bonds: Record<string, number>;
  moments: Array<{ day: number; kind: string; text: string }>;
  party_history: Array<{ party_id: number; organization_id: number; quest_id: number | null; outcome: string | null; day: number }>;
  hiring_fee: number;
}
interface Resolution {
  outcome: string; reason: string; party_strength: number; effective_danger: number; expected_danger?: number; reward_paid: number; refunded: number;
  experience: number; casualties: number[]; injured: number[]; monsters_change: number;
}
interface Quest {
  id: number; title: string; requester_id: number; location_id: string; reward: number; status: string; deadline_day: number | null;
  minimum_strength: number; minimum_reputation: number; accepted_organization_id: number | null; party_id: number | null;
  party_members: number[]; sponsors: Array<{ organization_id: number; amount: number }>; outcome: string | null;
  resolution: Resolution | null;
}
interface Party { id: number; name: string; organization_id: number; members: number[]; status: string; quest_id: number | null }
interface Place { id: string; kind: string; danger: number; monster_population: number }
interface HistoryEvent { id: number; day: number; category: string; summary: string; data: Record<string, unknown> }

/** Core rule 12 as the service states it: brave +20% where danger >= 40, reckless +15%; each cautious member cuts danger by 10%, at most 30%. */
const strengthAt = (members: Array<Pick<Adventurer, 'strength' | 'traits'>>, danger: number) => Math.round(members.reduce((n, m) => n + m.strength
  * (1 + (m.traits.includes('brave') && danger >= 40 ? 0.2 : 0) + (m.traits.includes('reckless') ? 0.15 : 0)), 0));
const dangerFor = (members: Array<Pick<Adventurer, 'traits'>>, danger: number) =>
  Math.round(danger * (1 - Math.min(0.3, 0.1 * members.filter((m) => m.traits.includes('cautious')).length)));
/** Core rule 8. */
const rule8 = (strength: number, danger: number) => (strength >= danger ? 'full' : strength >= danger / 2 ? 'partial' : 'failure');

const expectStatus = (r: Answer, status: number, what: string) =>
  assert.equal(r.status, status, `${what}: expected ${status}, got ${r.status} ${r.text}`);

describe('quests, parties and adventurers over HTTP', function () {
  this.timeout(60_000);
  let w: TestWorld;
  let a: { id: number; key: string; org: number }; // the adventuring band: hires, accepts, dispatches
  let b: { id: number; key: string; org: number }; // the merchants: post quests
  let c: { id: number; key: string; org: number }; // the temple: sponsors

  const org = async (id: number): Promise<Org> => {
    const r = await w.get<Org>(`/api/organizations/${id}`);
    expectStatus(r, 200, `GET organization ${id}`);
    return r.body;
  };
  const treasury = async (id: number) => (await org(id)).treasury;
  const quest = async (id: number): Promise<Quest> => {
    const r = await w.get<Quest>(`/api/quests/${id}`);
    expectStatus(r, 200, `GET quest ${id}`);
    return r.body;
  };
  const adventurer = async (id: number): Promise<Adventurer> => {
    const r = await w.get<Adventurer>(`/api/adventurers/${id}`);
    expectStatus(r, 200, `GET adventurer ${id}`);
    return r.body;
  };
  const place = async (id: string): Promise<Place> => {
    const r = await w.get<Place>(`/api/locations/${id}`);
    expectStatus(r, 200, `GET location ${id}`);
    return r.body;
  };
  const party = async (id: number): Promise<Party> => {
    const r = await w.get<Party[]>('/api/parties');
    expectStatus(r, 200, 'GET parties');
    const p = r.body.find((x) => x.id === id);
    assert.ok(p, `party ${id} is listed by GET /api/parties`);
    return p;
  };
  const listedQuestIds = async () => {
    const r = await w.get<Quest[]>('/api/quests');
    expectStatus(r, 200, 'GET quests');
    return r.body.map((q) => q.id);
  };
  const questEvents = async (questId: number): Promise<HistoryEvent[]> => {
    const r = await w.get<HistoryEvent[]>('/api/events?category=quest&limit=100');
    expectStatus(r, 200, 'GET events');
    return r.body.filter((e) => e.data && e.data.quest_id === questId);
  };
  const questBody = (requester: number, over: Record<string, unknown> = {}) => ({
    title: 'Clear the valley road', description: 'Wolves have been harrying the carts on the valley road.',
    requester_id: requester, location_id: 'greenhollow', reward: 100, deadline_days: null, ...over,
  });
  const post = (by: { key: string }, body: Record<string, unknown>) => w.post<any>("/api/quests", body, by.key);
  async function postOk(by: { key: string; org: number }, over: Record<string, unknown> = {}): Promise<Quest> {
    const r = await post(by, questBody(by.org, over));
    expectStatus(r, 201, 'post quest');
    return r.body;
  }
  async function found(name: string, kind: string, location = 'emberfall') {
    const agent = await w.register(`${name} agent`);
    const r = await w.post<Org>('/api/organizations', { name, kind, location_id: location }, agent.key);
    expectStatus(r, 201, `found ${name}`);
    return { ...agent, org: r.body.id };
  }

  before(async () => {
    w = await startTestWorld();
    a = await found('Lantern Mercenary Band', 'mercenary band');
    b = await found('Copper Merchant Company', 'merchant company');
    c = await found('Grey Temple', 'temple');
  });
  after(async () => { await w?.close(); });

  // Shared by the journey below; each step builds on the one before.
  let hired: number[] = [];
  let partyId = 0;
  let mainQuest: Quest;

  describe('hiring and releasing adventurers', () => {
    it('hires two available adventurers: employed, organization set, upkeep 5 + 2 per adventurer', async () => {
      const available = (await w.get<Adventurer[]>('/api/adventurers')).body.filter((x) => x.status === 'available');
      assert.ok(available.length >= 3, 'the seeded pool has available adventurers');
      hired = available.slice(0, 2).map((x) => x.id);
      assert.equal((await org(a.org)).daily_maintenance, 5);
      for (const id of hired) {
        const r = await w.post<Adventurer>('/api/adventurers/hire', { organization_id: a.org, adventurer_id: id }, a.key);
        expectStatus(r, 200, `hire ${id}`);
        assert.equal(r.body.status, 'employed');
        assert.equal(r.body.organization_id, a.org);
        const profile = await adventurer(id);
        assert.equal(profile.status, 'employed');
        assert.equal(profile.organization_id, a.org);
        assert.equal(profile.moments.at(-1)?.kind, 'employed', 'hiring is a moment on the profile');
      }
      const o = await org(a.org);
      assert.equal(o.daily_maintenance, 5 + 2 * 2);
      assert.deepEqual([...o.employees].sort((x, y) => x - y), [...hired].sort((x, y) => x - y));
    });

    it('refuses to hire an adventurer who is already employed (409)', async () => {
      const r = await w.post('/api/adventurers/hire', { organization_id: b.org, adventurer_id: hired[0] }, b.key);
      expectStatus(r, 409, 'hire an employed adventurer');
      assert.equal(typeof r.body.detail, 'string');
      assert.equal((await adventurer(hired[0])).organization_id, a.org, 'still with the first employer');
      assert.equal((await org(b.org)).employee_count, 0);
    });

    it("refuses to hire for someone else's organization (403)", async () => {
      const free = (await w.get<Adventurer[]>('/api/adventurers')).body.find((x) => x.status === 'available')!;
      const r = await w.post('/api/adventurers/hire', { organization_id: b.org, adventurer_id: free.id }, a.key);
      expectStatus(r, 403, "hire for another agent's organization");
      assert.equal((await adventurer(free.id)).status, 'available');
      assert.equal((await org(b.org)).employee_count, 0);
    });

    it('answers 404 for an unknown adventurer', async () => {
      const r = await w.post('/api/adventurers/hire', { organization_id: a.org, adventurer_id: 99999 }, a.key);
      expectStatus(r, 404, 'hire an unknown adventurer');
      expectStatus(await w.post('/api/adventurers/hire', { organization_id: 99999, adventurer_id: hired[0] }, a.key), 404, 'hire for an unknown organization');
      assert.equal((await org(a.org)).employee_count, 2);
    });
  });

  describe('parties', () => {
    let otherAdventurer = 0;

    it('forms a party and adds the two hired adventurers', async () => {
      const r = await w.post<Party>('/api/parties', { organization_id: a.org, name: 'The Lanterns' }, a.key);
      expectStatus(r, 201, 'form party');
      assert.equal(r.body.status, 'formed');
      assert.equal(r.body.organization_id, a.org);
      assert.deepEqual(r.body.members, []);
      partyId = r.body.id;
      for (const id of hired) {
        const m = await w.post<Party>(`/api/parties/${partyId}/members`, { adventurer_id: id }, a.key);
        expectStatus(m, 200, `add member ${id}`);
      }
      const p = await party(partyId);
      assert.deepEqual(p.members, hired);
      for (const id of hired) {
        const profile = await adventurer(id);
        assert.equal(profile.party_id, partyId);
        assert.equal(profile.party_history.at(-1)?.party_id, partyId);
      }
    });

    it("refuses someone else's adventurer as a member (403)", async () => {
      const free = (await w.get<Adventurer[]>('/api/adventurers')).body.find((x) => x.status === 'available')!;
      otherAdventurer = free.id;
      expectStatus(await w.post('/api/adventurers/hire', { organization_id: b.org, adventurer_id: free.id }, b.key), 200, 'B hires');
      const r = await w.post(`/api/parties/${partyId}/members`, { adventurer_id: otherAdventurer }, a.key);
      expectStatus(r, 403, "add another organization's adventurer");
      assert.deepEqual((await party(partyId)).members, hired);
      assert.equal((await adventurer(otherAdventurer)).party_id, null);
    });

    it("refuses a member added with another agent's key (403)", async () => {
      const r = await w.post(`/api/parties/${partyId}/members`, { adventurer_id: otherAdventurer }, b.key);
      expectStatus(r, 403, "add a member to another agent's party");
      assert.deepEqual((await party(partyId)).members, hired);
    });

    it('refuses the same adventurer in a second party (409)', async () => {
      const second = await w.post<Party>('/api/parties', { organization_id: a.org, name: 'The Second Lanterns' }, a.key);
      expectStatus(second, 201, 'form second party');
      const r = await w.post(`/api/parties/${second.body.id}/members`, { adventurer_id: hired[0] }, a.key);
      expectStatus(r, 409, 'same adventurer in a second party');
      assert.deepEqual((await party(second.body.id)).members, []);
      assert.equal((await adventurer(hired[0])).party_id, partyId);
    });

    it('releases an employee (200): it is available again and no longer costs upkeep (a member of a party away on a quest is refused: see dispatching)', async () => {
      const ok = await w.post<Adventurer>('/api/adventurers/release', { organization_id: b.org, adventurer_id: otherAdventurer }, b.key);
      expectStatus(ok, 200, 'release a free employee');
      const profile = await adventurer(otherAdventurer);
      assert.equal(profile.status, 'available');
      assert.equal(profile.organization_id, null);
      assert.equal((await org(b.org)).daily_maintenance, 5);
    });
  });

  describe('posting and sponsoring a quest', () => {
    it("reserves the reward from the requester's treasury at once", async () => {
      const before = await treasury(b.org);
      const rawStrength = (await Promise.all(hired.map(adventurer))).reduce((n, x) => n + x.strength, 0);
      const reputation = (await org(a.org)).reputation;
      // Requirements set exactly at what the band has: met at the boundary.
      const r = await post(b, questBody(b.org, { reward: 120, minimum_strength: rawStrength, minimum_reputation: reputation }));
      expectStatus(r, 201, 'post quest');
      mainQuest = r.body;
      assert.equal(mainQuest.status, 'open');
      assert.equal(mainQuest.reward, 120);
      assert.equal(mainQuest.requester_id, b.org);
      assert.equal(mainQuest.location_id, 'greenhollow');
      assert.equal(mainQuest.deadline_day, null);
      assert.deepEqual(mainQuest.sponsors, []);
      assert.equal(await treasury(b.org), before - 120);
      assert.ok((await listedQuestIds()).includes(mainQuest.id), 'an open quest is listed');
    });

    it('refuses a reward above the treasury (409) and changes nothing', async () => {
      const before = await org(b.org);
      const listed = await listedQuestIds();
      const events = (await w.get<HistoryEvent[]>('/api/events?category=quest&limit=100')).body.length;
      const r = await post(b, questBody(b.org, { reward: before.treasury + 1 }));
      expectStatus(r, 409, 'reward above treasury');
      assert.equal(typeof r.body.detail, 'string');
      assert.equal(await treasury(b.org), before.treasury);
      assert.deepEqual(await listedQuestIds(), listed);
      assert.equal((await w.get<HistoryEvent[]>('/api/events?category=quest&limit=100')).body.length, events, 'no history event');
    });

    it('answers 404 for an unknown location and 403 for a requester the agent does not control', async () => {
      const before = await treasury(b.org);
      const beforeA = await treasury(a.org);
      expectStatus(await post(b, questBody(b.org, { location_id: 'atlantis' })), 404, 'unknown location');
      expectStatus(await post(a, questBody(b.org)), 403, "post for another agent's organization");
      expectStatus(await post(b, questBody(999)), 404, 'unknown requester');
      assert.equal(await treasury(b.org), before);
      assert.equal(await treasury(a.org), beforeA);
    });

    it("lets another organization sponsor it: the sponsor's gold is reserved and the reward rises", async () => {
      const before = await treasury(c.org);
      const r = await w.post<Quest>(`/api/quests/${mainQuest.id}/sponsors`, { organization_id: c.org, amount: 60 }, c.key);
      expectStatus(r, 201, 'sponsor');
      assert.equal(await treasury(c.org), before - 60);
      const q = await quest(mainQuest.id);
      assert.equal(q.reward, 180);
      assert.equal(q.status, 'open');
      assert.deepEqual(q.sponsors, [{ organization_id: c.org, amount: 60 }]);
    });

    it('refuses a sponsorship larger than the treasury (409) and one for an organization not controlled (403)', async () => {
      const cBefore = await treasury(c.org);
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/sponsors`, { organization_id: c.org, amount: cBefore + 1 }, c.key), 409, 'sponsor beyond treasury');
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/sponsors`, { organization_id: c.org, amount: 5 }, a.key), 403, "sponsor with another agent's organization");
      assert.equal(await treasury(c.org), cBefore);
      const q = await quest(mainQuest.id);
      assert.equal(q.reward, 180);
      assert.equal(q.sponsors.length, 1);
    });
  });

  describe('accepting a quest', () => {
    it('refuses the requester accepting its own quest (409)', async () => {
      const r = await w.post(`/api/quests/${mainQuest.id}/accept`, { organization_id: b.org }, b.key);
      expectStatus(r, 409, 'accept own quest');
      assert.equal((await quest(mainQuest.id)).status, 'open');
    });

    it("refuses when minimum_reputation is above the organization's reputation (409)", async () => {
      const reputation = (await org(a.org)).reputation;
      const q = await postOk(b, { reward: 10, minimum_reputation: reputation + 1 });
      const r = await w.post(`/api/quests/${q.id}/accept`, { organization_id: a.org }, a.key);
      expectStatus(r, 409, 'reputation requirement');
      assert.match(r.body.detail, /reputation/);
      const after = await quest(q.id);
      assert.equal(after.status, 'open');
      assert.equal(after.accepted_organization_id, null);
      expectStatus(await w.post(`/api/quests/${q.id}/cancel`, undefined, b.key), 200, 'cancel the test quest');
    });

    it("refuses when minimum_strength is above the total strength of the organization's adventurers (409)", async () => {
      const profiles = await Promise.all(hired.map(adventurer));
      // Above even the best the traits could make of them (reckless +15%, brave +20%).
      const above = Math.ceil(profiles.reduce((n, x) => n + x.strength, 0) * 1.35) + 1;
      const q = await postOk(b, { reward: 10, minimum_strength: above });
      const r = await w.post(`/api/quests/${q.id}/accept`, { organization_id: a.org }, a.key);
      expectStatus(r, 409, 'strength requirement');
      assert.match(r.body.detail, /the organization's fielded strength \d+ is below the required/, 'it names whose strength was weighed');
      assert.equal((await quest(q.id)).status, 'open');
      expectStatus(await w.post(`/api/quests/${q.id}/cancel`, undefined, b.key), 200, 'cancel the test quest');
    });

    it('refuses when minimum_relationship is above the trust toward the requester (409)', async () => {
      const trust = (await org(a.org)).trust[String(b.org)] ?? 0;
      const q = await postOk(b, { reward: 10, minimum_relationship: trust + 1 });
      const r = await w.post(`/api/quests/${q.id}/accept`, { organization_id: a.org }, a.key);
      expectStatus(r, 409, 'relationship requirement');
      assert.match(r.body.detail, /trust/);
      assert.equal((await quest(q.id)).status, 'open');
      expectStatus(await w.post(`/api/quests/${q.id}/cancel`, undefined, b.key), 200, 'cancel the test quest');
    });

    it('refuses acceptance with a key that does not control the organization (403)', async () => {
      const r = await w.post(`/api/quests/${mainQuest.id}/accept`, { organization_id: a.org }, c.key);
      expectStatus(r, 403, "accept for another agent's organization");
      assert.equal((await quest(mainQuest.id)).status, 'open');
    });

    it('accepts when the requirements are met exactly', async () => {
      const r = await w.post<Quest>(`/api/quests/${mainQuest.id}/accept`, { organization_id: a.org }, a.key);
      expectStatus(r, 200, 'accept');
      const q = await quest(mainQuest.id);
      assert.equal(q.status, 'accepted');
      assert.equal(q.accepted_organization_id, a.org);
      assert.equal(q.party_id, null);
      assert.ok((await listedQuestIds()).includes(q.id), 'an accepted quest is listed');
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/sponsors`, { organization_id: c.org, amount: 5 }, c.key), 409, 'sponsor an accepted quest');
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/accept`, { organization_id: c.org }, c.key), 409, 'accept twice');
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/cancel`, undefined, b.key), 409, 'cancel an accepted quest');
      assert.equal((await quest(mainQuest.id)).reward, 180);
    });
  });

  describe('dispatching and completing', () => {
    let sideQuest: Quest;

    it('refuses to complete a quest no party was dispatched to (409)', async () => {
      const r = await w.post(`/api/quests/${mainQuest.id}/complete`, undefined, a.key);
      expectStatus(r, 409, 'complete without a party');
      assert.equal((await quest(mainQuest.id)).status, 'accepted');
    });

    it("refuses to dispatch while the organization is not at the quest's location (409), changing nothing", async () => {
      assert.equal((await org(a.org)).location_id, 'emberfall');
      const r = await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: mainQuest.id }, a.key);
      expectStatus(r, 409, 'dispatch from afar');
      assert.match(r.body.detail, /greenhollow/);
      assert.equal((await party(partyId)).status, 'formed');
      assert.equal((await quest(mainQuest.id)).party_id, null);

      // An open quest is not accepted on the way by a refused dispatch either.
      sideQuest = await postOk(b, { reward: 30 });
      expectStatus(await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: sideQuest.id }, a.key), 409, 'dispatch to an open quest from afar');
      const side = await quest(sideQuest.id);
      assert.equal(side.status, 'open');
      assert.equal(side.accepted_organization_id, null);
    });

    it('travels to greenhollow and arrives after three days; a second journey is refused meanwhile', async () => {
      const day = (await w.get<{ day: number }>('/api/world')).body.day;
      const r = await w.post<Org>('/api/travel', { organization_id: a.org, destination_id: 'greenhollow' }, a.key);
      expectStatus(r, 200, 'travel');
      assert.equal(r.body.travel?.arrives_day, day + 3);
      expectStatus(await w.post('/api/travel', { organization_id: a.org, destination_id: 'emberfall' }, a.key), 409, 'second journey');
      for (let i = 1; i <= 2; i++) {
        await w.tick();
        const o = await org(a.org);
        assert.notEqual(o.location_id, 'greenhollow', `not there after ${i} day(s)`);
        assert.ok(o.travel, 'still on the road');
        expectStatus(await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: mainQuest.id }, a.key), 409, 'dispatch on the road');
      }
      await w.tick();
      const o = await org(a.org);
      assert.equal(o.location_id, 'greenhollow');
      assert.equal(o.travel, null);
    });

    it("refuses to dispatch a party with a key that does not control its organization (403)", async () => {
      const r = await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: mainQuest.id }, c.key);
      expectStatus(r, 403, "dispatch another agent's party");
      assert.equal((await party(partyId)).status, 'formed');
    });

    it("refuses to dispatch a party to a quest another organization accepted (409: the quest is not open to it), changing nothing", async () => {
      const own = await w.post<Party>('/api/parties', { organization_id: c.org, name: 'The Grey Pilgrims' }, c.key);
      expectStatus(own, 201, 'form a party of its own');
      const r = await w.post<{ detail: string }>(`/api/parties/${own.body.id}/dispatch`, { quest_id: mainQuest.id }, c.key);
      expectStatus(r, 409, "dispatch to another organization's quest");
      assert.match(r.body.detail, /accepted by organization/);
      assert.equal((await quest(mainQuest.id)).accepted_organization_id, a.org);
      assert.equal((await party(own.body.id)).status, 'formed');
    });

    it('dispatches the party: party dispatched, quest carries it', async () => {
      const r = await w.post<Party>(`/api/parties/${partyId}/dispatch`, { quest_id: mainQuest.id }, a.key);
      expectStatus(r, 200, 'dispatch');
      assert.equal(r.body.status, 'dispatched');
      const p = await party(partyId);
      assert.equal(p.status, 'dispatched');
      assert.equal(p.quest_id, mainQuest.id);
      const q = await quest(mainQuest.id);
      assert.equal(q.party_id, partyId);
      assert.deepEqual(q.party_members, hired);
      expectStatus(await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: sideQuest.id }, a.key), 409, 'dispatch a dispatched party');
      assert.equal((await quest(sideQuest.id)).status, 'open');

      // Nobody joins a party that is away.
      const free = (await w.get<Adventurer[]>('/api/adventurers')).body.find((x) => x.status === 'available')!;
      expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org, adventurer_id: free.id }, a.key), 200, 'hire a third');
      expectStatus(await w.post(`/api/parties/${partyId}/members`, { adventurer_id: free.id }, a.key), 409, 'join a dispatched party');
      assert.deepEqual((await party(partyId)).members, hired);
      // Nor leaves it: a member of a party away on a quest is released only once the party is back.
      const away = await w.post('/api/adventurers/release', { organization_id: a.org, adventurer_id: hired[0] }, a.key);
      expectStatus(away, 409, 'release a member of a party away');
      assert.match(away.body.detail, /is away with the party .* on quest \d+; it can be released once the party is back/);
      assert.equal((await adventurer(hired[0])).status, 'employed');
      assert.deepEqual((await party(partyId)).members, hired);
      expectStatus(await w.post('/api/adventurers/release', { organization_id: a.org, adventurer_id: free.id }, a.key), 200, 'release the third');
      assert.equal((await org(a.org)).daily_maintenance, 9);
    });

    it('refuses completion by anyone but the accepting organization (403)', async () => {
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/complete`, undefined, b.key), 403, 'the requester completes');
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/complete`, undefined, c.key), 403, 'a sponsor completes');
      const q = await quest(mainQuest.id);
      assert.equal(q.status, 'accepted');
      assert.equal(q.party_id, partyId);
    });

    it('completes: outcome by strength against danger (core rule 8) with its reward, experience, moments, bonds, monsters and history', async () => {
      const profiles = await Promise.all(hired.map(adventurer));
      const greenhollow = await place('greenhollow');
      const [aBefore, bBefore, cBefore] = await Promise.all([org(a.org), org(b.org), org(c.org)]);
      const reward = (await quest(mainQuest.id)).reward;
      assert.equal(reward, 180);

      const r = await w.post<Quest>(`/api/quests/${mainQuest.id}/complete`, undefined, a.key);
      expectStatus(r, 200, 'complete');
      const q = await quest(mainQuest.id);
      assert.equal(q.status, 'resolved');
      assert.ok(q.outcome === 'full' || q.outcome === 'partial' || q.outcome === 'failure', `outcome ${q.outcome}`);
      const res = q.resolution!;
      assert.ok(res, 'the resolution is kept on the quest');
      assert.equal(res.outcome, q.outcome);

      // Core rule 8, exactly, on what the resolution reports.
      const s = res.party_strength;
      const d = res.effective_danger;
      const expected = s >= d ? 'full' : s >= d / 2 ? 'partial' : 'failure';
      assert.equal(q.outcome, expected, `strength ${s} against danger ${d}`);

      // Strength and danger follow the members and their traits (core rule 12).
      assert.equal(s, strengthAt(profiles, greenhollow.danger), 'party strength from the members');
      assert.equal(res.expected_danger, dangerFor(profiles, greenhollow.danger), 'expected danger from the place');
      // The danger met is the expected one with the spread drawn from the seed and the quest.
      assert.equal(d, dangerMet(res.expected_danger!, random.rng('test-seed', 'quest-danger', mainQuest.id)()), 'danger met: the spread drawn for this quest');
      assert.ok(Math.abs(d - res.expected_danger!) <= Math.ceil(res.expected_danger! * DANGER_SPREAD), 'within the spread');

      // Gold: the acceptor is paid all, half or nothing; the funders get back the rest, in proportion.
      const paid = q.outcome === 'full' ? reward : q.outcome === 'partial' ? Math.floor(reward / 2) : 0;
      assert.equal(res.reward_paid, paid);
      const [aAfter, bAfter, cAfter] = await Promise.all([org(a.org), org(b.org), org(c.org)]);
      assert.equal(aAfter.treasury, aBefore.treasury + paid, 'acceptor paid');
      const back = reward - paid;
      assert.equal((bAfter.treasury - bBefore.treasury) + (cAfter.treasury - cBefore.treasury), back, 'the rest returns to the funders');
      assert.ok(Math.abs((bAfter.treasury - bBefore.treasury) - (back * 120) / 180) <= 1, 'requester refunded its share');
      assert.ok(Math.abs((cAfter.treasury - cBefore.treasury) - (back * 60) / 180) <= 1, 'sponsor refunded its share');
      const repChange = { full: 5, partial: 2, failure: -5 }[q.outcome as 'full' | 'partial' | 'failure'];
      if (q.outcome === 'failure') assert.ok(aAfter.reputation < aBefore.reputation || aBefore.reputation === 0, 'reputation lost');
      else assert.ok(aAfter.reputation > aBefore.reputation, 'reputation gained');
      assert.equal(aAfter.reputation, Math.max(0, aBefore.reputation + repChange));
      // Shared work changes trust both ways (core rule 14): up on success, down on failure.
      const trustA = (aAfter.trust[String(b.org)] ?? 0) - (aBefore.trust[String(b.org)] ?? 0);
      const trustB = (bAfter.trust[String(a.org)] ?? 0) - (bBefore.trust[String(a.org)] ?? 0);
      for (const t of [trustA, trustB]) assert.ok(q.outcome === 'failure' ? t < 0 : t > 0, `trust change ${t} after ${q.outcome}`);

      // Adventurers: experience, a moment, party history, bonds; casualties only on failure.
      if (q.outcome !== 'failure') assert.deepEqual(res.casualties, [], 'no casualties on success');
      const xp = q.outcome === 'full' ? 10 : q.outcome === 'partial' ? 5 : 0;
      const survivors = profiles.filter((m) => !res.casualties.includes(m.id));
      for (const before of profiles) {
        const after = await adventurer(before.id);
        assert.equal(after.moments.length > before.moments.length, true, `${before.name} has a new moment`);
        const questMoment = after.moments.find((m) => m.kind === 'quest' && m.text.includes(mainQuest.title));
        assert.ok(questMoment, `${before.name}'s profile remembers the quest`);
        const history = after.party_history.at(-1)!;
        assert.equal(history.party_id, partyId);
        assert.equal(history.quest_id, mainQuest.id);
        assert.equal(history.outcome, q.outcome);
        if (res.casualties.includes(before.id)) {
          assert.equal(after.status, 'dead');
          assert.ok(after.moments.some((m) => m.kind === 'died'));
          continue;
        }
        assert.equal(after.status, 'employed');
        assert.equal(after.experience, before.experience + xp, `${before.name} gains ${xp} experience`);
        const other = profiles.find((m) => m.id !== before.id)!;
        const bond = (after.bonds[String(other.id)] ?? 0) - (before.bonds[String(other.id)] ?? 0);
        if (q.outcome === 'failure') assert.ok(bond < 0, `failure breeds resentment (${bond})`);
        else assert.ok(bond > 0, `${before.name} bonds with ${other.name} (${bond})`);
      }

      // The party is home again, without its dead.
      const p = await party(partyId);
      assert.equal(p.status, 'formed');
      assert.equal(p.quest_id, null);
      assert.deepEqual(p.members, survivors.map((m) => m.id));

      // Monsters at the quest's location (core rule 10).
      const afterPlace = await place('greenhollow');
      assert.notEqual(afterPlace.monster_population, greenhollow.monster_population, 'monster population changed');
      assert.equal(afterPlace.monster_population, greenhollow.monster_population + res.monsters_change);
      if (q.outcome === 'failure') assert.ok(res.monsters_change > 0);
      else assert.ok(res.monsters_change < 0);

      // History: the whole life of the quest, under category 'quest'.
      const events = await questEvents(mainQuest.id);
      assert.ok(events.length >= 5, `posted, sponsored, accepted, dispatched, resolved: got ${events.map((e) => e.summary).join(' | ')}`);
      assert.ok(events.every((e) => e.category === 'quest'));
      assert.ok(events.some((e) => e.data.outcome === q.outcome), 'the resolution is in the history');
      assert.ok((await listedQuestIds()).includes(mainQuest.id), 'a resolved quest is listed');
      // What befell each member is part of the acceptor's own story.
      const told = (await w.get<Array<{ summary: string; data: { adventurer_id?: number; quest_id?: number } }>>(`/api/events?organization_id=${a.org}&limit=100`)).body
        .filter((e) => e.data.quest_id === mainQuest.id && e.data.adventurer_id !== undefined);
      assert.deepEqual(told.map((e) => e.data.adventurer_id).sort((x, y) => x! - y!), [...hired].sort((x, y) => x - y), told.map((e) => e.summary).join(' | '));
    });

    it('refuses to complete, cancel or sponsor a resolved quest (409)', async () => {
      const before = await quest(mainQuest.id);
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/complete`, undefined, a.key), 409, 'complete again');
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/cancel`, undefined, b.key), 409, 'cancel a resolved quest');
      expectStatus(await w.post(`/api/quests/${mainQuest.id}/sponsors`, { organization_id: c.org, amount: 1 }, c.key), 409, 'sponsor a resolved quest');
      assert.deepEqual(await quest(mainQuest.id), before);
    });

    it('dispatching to an open quest accepts it on the way', async () => {
      const members = (await party(partyId)).members;
      assert.ok(members.length > 0, 'the party has survivors to send');
      const early = await w.post<Party>(`/api/parties/${partyId}/dispatch`, { quest_id: sideQuest.id }, a.key);
      expectStatus(early, 409, 'the party came back from a quest today');
      assert.match((early.body as unknown as { detail: string }).detail, /sets out again on day \d+ at the earliest/);
      assert.equal((await quest(sideQuest.id)).status, 'open', 'the refused dispatch accepted nothing');
      await w.tick();
      const r = await w.post<Party>(`/api/parties/${partyId}/dispatch`, { quest_id: sideQuest.id }, a.key);
      expectStatus(r, 200, 'dispatch to an open quest');
      const q = await quest(sideQuest.id);
      assert.equal(q.status, 'accepted');
      assert.equal(q.accepted_organization_id, a.org);
      assert.equal(q.party_id, partyId);
      expectStatus(await w.post(`/api/quests/${sideQuest.id}/complete`, undefined, a.key), 200, 'complete the side quest');
      assert.equal((await quest(sideQuest.id)).status, 'resolved');
      assert.equal((await party(partyId)).status, 'formed');
    });

    it("keeps every quest of a party in each member's party history", async () => {
      // Regression: actors/adventurer/rules.ts (evolve 'quest-endured') once overwrote the quest_id and
      // outcome of the member's last party_history record, so a party's second quest erased the record
      // of its first; fixed in 0c5e46a. Each quest keeps its own record.
      const side = await quest(sideQuest.id);
      const survivors = side.party_members.filter((id) => !side.resolution!.casualties.includes(id));
      assert.ok(survivors.length > 0);
      for (const id of survivors) {
        const quests = (await adventurer(id)).party_history.filter((h) => h.party_id === partyId).map((h) => h.quest_id);
        assert.ok(quests.includes(mainQuest.id), `adventurer ${id} remembers quest ${mainQuest.id} in party_history: ${JSON.stringify(quests)}`);
        assert.ok(quests.includes(sideQuest.id), `adventurer ${id} remembers quest ${sideQuest.id} in party_history: ${JSON.stringify(quests)}`);
      }
    });
  });

  describe('partial success and failure in the wilds (core rules 8, 10, 11, 13)', () => {
    // These parties are chosen for an outcome: the danger spread is drawn at its middle, so the danger met is the expected danger.
    let spread: sinon.SinonStub;
    before(() => {
      const real = random.rng;
      spread = sinon.stub(random, 'rng').callsFake((...parts: Array<string | number>) => (parts[1] === 'quest-danger' ? () => 0.5 : real(...parts)));
    });
    after(() => spread.restore());
    /** Founds a band standing at whisperwood, hires `members`, forms a party; B posts a quest there and C sponsors it. */
    async function expedition(name: string, members: Adventurer[]) {
      const e = await found(name, 'adventurers company', 'whisperwood');
      for (const m of members) expectStatus(await w.post('/api/adventurers/hire', { organization_id: e.org, adventurer_id: m.id }, e.key), 200, `hire ${m.id}`);
      const p = await w.post<Party>('/api/parties', { organization_id: e.org, name: `${name} party` }, e.key);
      expectStatus(p, 201, 'form party');
      for (const m of members) expectStatus(await w.post(`/api/parties/${p.body.id}/members`, { adventurer_id: m.id }, e.key), 200, `add ${m.id}`);
      const q = await postOk(b, { reward: 101, location_id: 'whisperwood', title: `Hunt in Whisperwood for ${name}` });
      expectStatus(await w.post(`/api/quests/${q.id}/sponsors`, { organization_id: c.org, amount: 50 }, c.key), 201, 'sponsor');
      return { e, partyId: p.body.id, questId: q.id };
    }
    const available = async () => (await w.get<Adventurer[]>('/api/adventurers')).body.filter((x) => x.status === 'available');

    async function run(label: string, members: Adventurer[], expected: 'partial' | 'failure') {
      const { e, partyId: pid, questId } = await expedition(label, members);
      const wood = await place('whisperwood');
      assert.equal(rule8(strengthAt(members, wood.danger), dangerFor(members, wood.danger)), expected, 'the chosen party fits the band');
      const [eBefore, bBefore, cBefore] = await Promise.all([org(e.org), org(b.org), org(c.org)]);
      // Dispatching to the open quest accepts it on the way.
      expectStatus(await w.post(`/api/parties/${pid}/dispatch`, { quest_id: questId }, e.key), 200, 'dispatch');
      assert.equal((await quest(questId)).accepted_organization_id, e.org);
      expectStatus(await w.post(`/api/quests/${questId}/complete`, undefined, e.key), 200, 'complete');
      const q = await quest(questId);
      const res = q.resolution!;
      assert.equal(q.outcome, expected, `strength ${res.party_strength} against danger ${res.effective_danger}`);
      assert.equal(res.party_strength, strengthAt(members, wood.danger));
      assert.equal(res.effective_danger, dangerFor(members, wood.danger));
      assert.equal(rule8(res.party_strength, res.effective_danger), expected);

      const paid = expected === 'partial' ? Math.floor(151 / 2) : 0;
      assert.equal(res.reward_paid, paid);
      const [eAfter, bAfter, cAfter] = await Promise.all([org(e.org), org(b.org), org(c.org)]);
      assert.equal(eAfter.treasury, eBefore.treasury + paid, 'acceptor paid half or nothing');
      const back = 151 - paid;
      assert.equal((bAfter.treasury - bBefore.treasury) + (cAfter.treasury - cBefore.treasury), back, 'the rest goes back to the funders');
      assert.ok(Math.abs((cAfter.treasury - cBefore.treasury) - (back * 50) / 151) <= 1, 'the sponsor gets its share back');
      assert.equal(eAfter.reputation, Math.max(0, eBefore.reputation + (expected === 'partial' ? 2 : -5)));
      const trust = (eAfter.trust[String(b.org)] ?? 0) - (eBefore.trust[String(b.org)] ?? 0);
      assert.ok(expected === 'partial' ? trust > 0 : trust < 0, `trust toward the requester changed by ${trust}`);

      const afterWood = await place('whisperwood');
      assert.equal(afterWood.monster_population, wood.monster_population + res.monsters_change);
      if (expected === 'partial') assert.ok(res.monsters_change < 0, 'a partial success slays some monsters');
      else assert.ok(res.monsters_change > 0, 'a failure emboldens them');

      if (expected === 'partial') assert.deepEqual(res.casualties, [], 'no casualties on a partial success');
      for (const m of members) {
        const after = await adventurer(m.id);
        assert.ok(after.moments.some((x) => x.kind === 'quest' && x.text.includes(q.title)), 'the quest is a moment on the profile');
        if (res.casualties.includes(m.id)) {
          assert.equal(expected, 'failure');
          assert.equal(after.status, 'dead');
          assert.ok(!eAfter.employees.includes(m.id), 'the dead leave the organization');
          continue;
        }
        assert.equal(after.experience, m.experience + (expected === 'partial' ? 5 : 0));
        for (const other of members.filter((x) => x.id !== m.id)) {
          const delta = after.bonds[String(other.id)] ?? 0;
          if (expected === 'partial') assert.ok(delta > 0, `${m.name} bonds with ${other.name}`);
          else assert.ok(delta < 0, `${m.name} resents ${other.name}`);
        }
      }
      assert.equal(eAfter.daily_maintenance, 5 + 2 * (members.length - res.casualties.length), 'upkeep only for the living');
      const p = await party(pid);
      assert.equal(p.status, 'formed');
      assert.deepEqual(p.members, members.map((m) => m.id).filter((id) => !res.casualties.includes(id)));
    }

    it('checks minimum_strength against the dispatched party itself (409 when the party is weaker)', async () => {
      const pool = (await available()).slice(0, 2);
      const e = await found('Split Company', 'adventurers company', 'whisperwood');
      for (const m of pool) expectStatus(await w.post('/api/adventurers/hire', { organization_id: e.org, adventurer_id: m.id }, e.key), 200, 'hire');
      const p = await w.post<Party>('/api/parties', { organization_id: e.org, name: 'Half a party' }, e.key);
      expectStatus(await w.post(`/api/parties/${p.body.id}/members`, { adventurer_id: pool[0].id }, e.key), 200, 'add one');
      const wood = await place('whisperwood');
      // The whole company meets the requirement; the one-member party does not.
      const q = await postOk(b, { reward: 20, location_id: 'whisperwood', minimum_strength: strengthAt(pool, wood.danger) });
      assert.ok(strengthAt([pool[0]], wood.danger) < q.minimum_strength);
      const r = await w.post(`/api/parties/${p.body.id}/dispatch`, { quest_id: q.id }, e.key);
      expectStatus(r, 409, 'dispatch a party below the minimum strength');
      assert.match(r.body.detail, /the party's strength \d+ is below the required/, 'it names whose strength was weighed');
      const after = await quest(q.id);
      assert.equal(after.status, 'open', 'not accepted on the way either');
      assert.equal((await party(p.body.id)).status, 'formed');
      expectStatus(await w.post(`/api/quests/${q.id}/cancel`, undefined, b.key), 200, 'cancel');
      // Each is released, the party's member too (its party is at home: it leaves the party).
      for (const m of pool) expectStatus(await w.post('/api/adventurers/release', { organization_id: e.org, adventurer_id: m.id }, e.key), 200, 'release');
      assert.deepEqual((await party(p.body.id)).members, []);
    });

    it('a party at least half as strong as the danger but weaker earns a partial success', async () => {
      const wood = await place('whisperwood');
      const pool = await available();
      let chosen: Adventurer[] | null = null;
      for (let i = 0; i < pool.length && !chosen; i++) {
        for (let j = i + 1; j < pool.length && !chosen; j++) {
          const pair = [pool[i], pool[j]];
          if (rule8(strengthAt(pair, wood.danger), dangerFor(pair, wood.danger)) === 'partial') chosen = pair;
        }
      }
      assert.ok(chosen, 'two available adventurers make a partial party');
      await run('Partial Band', chosen, 'partial');
    });

    it('a party weaker than half the danger fails: no reward, reputation lost, funders refunded', async () => {
      const wood = await place('whisperwood');
      const weak = (await available()).find((x) => rule8(strengthAt([x], wood.danger), dangerFor([x], wood.danger)) === 'failure');
      assert.ok(weak, 'an available adventurer too weak for whisperwood');
      await run('Doomed Band', [weak], 'failure');
    });
  });

  describe('cancelling a quest', () => {
    it('refuses a non-requester (403); the requester withdraws it and every funder is refunded exactly', async () => {
      const [bStart, cStart, aStart] = await Promise.all([treasury(b.org), treasury(c.org), treasury(a.org)]);
      const q = await postOk(b, { reward: 70, location_id: 'emberfall' });
      expectStatus(await w.post(`/api/quests/${q.id}/sponsors`, { organization_id: c.org, amount: 33 }, c.key), 201, 'C sponsors');
      expectStatus(await w.post(`/api/quests/${q.id}/sponsors`, { organization_id: a.org, amount: 17 }, a.key), 201, 'A sponsors');
      expectStatus(await w.post(`/api/quests/${q.id}/sponsors`, { organization_id: c.org, amount: 4 }, c.key), 201, 'C sponsors again');
      assert.equal((await quest(q.id)).reward, 124);
      assert.equal(await treasury(b.org), bStart - 70);
      assert.equal(await treasury(c.org), cStart - 37);
      assert.equal(await treasury(a.org), aStart - 17);

      expectStatus(await w.post(`/api/quests/${q.id}/cancel`, undefined, c.key), 403, 'a sponsor cancels');
      expectStatus(await w.post(`/api/quests/${q.id}/cancel`, undefined, a.key), 403, 'another agent cancels');
      assert.equal((await quest(q.id)).status, 'open');
      assert.equal(await treasury(c.org), cStart - 37);

      const r = await w.post<Quest>(`/api/quests/${q.id}/cancel`, undefined, b.key);
      expectStatus(r, 200, 'requester cancels');
      assert.equal((await quest(q.id)).status, 'withdrawn');
      assert.equal(await treasury(b.org), bStart, 'requester refunded exactly');
      assert.equal(await treasury(c.org), cStart, 'sponsor refunded exactly');
      assert.equal(await treasury(a.org), aStart, 'second sponsor refunded exactly');
      assert.ok(!(await listedQuestIds()).includes(q.id), 'a withdrawn quest is not listed');
      expectStatus(await w.post(`/api/quests/${q.id}/cancel`, undefined, b.key), 409, 'cancel twice');
      expectStatus(await w.post(`/api/quests/${q.id}/accept`, { organization_id: a.org }, a.key), 409, 'accept a withdrawn quest');
      assert.equal(await treasury(b.org), bStart);
    });

    it('answers 404 for an unknown quest and 401 without a key', async () => {
      expectStatus(await w.post('/api/quests/99999/cancel', undefined, b.key), 404, 'cancel unknown');
      expectStatus(await w.post('/api/quests/99999/sponsors', { organization_id: c.org, amount: 1 }, c.key), 404, 'sponsor unknown');
      expectStatus(await w.get('/api/quests/99999'), 404, 'GET unknown');
      expectStatus(await w.post('/api/quests', questBody(b.org)), 401, 'post without a key');
    });
  });

  describe('deadlines', () => {
    it('withdraws an open quest whose deadline passed (after two ticks), refunding every funder', async () => {
      const day = (await w.get<{ day: number }>('/api/world')).body.day;
      const q = await postOk(b, { reward: 40, deadline_days: 1 });
      assert.equal(q.deadline_day, day + 1);
      expectStatus(await w.post(`/api/quests/${q.id}/sponsors`, { organization_id: c.org, amount: 10 }, c.key), 201, 'sponsor');
      const [bBefore, cBefore] = await Promise.all([org(b.org), org(c.org)]);
      await w.tick();
      assert.equal((await quest(q.id)).status, 'open', 'still open on its deadline day');
      await w.tick();
      const after = await quest(q.id);
      assert.equal(after.status, 'withdrawn');
      assert.equal(await treasury(b.org), bBefore.treasury + 40 - 2 * bBefore.daily_maintenance);
      assert.equal(await treasury(c.org), cBefore.treasury + 10 - 2 * cBefore.daily_maintenance);
      assert.ok(!(await listedQuestIds()).includes(q.id));
    });

    it('resolves an accepted quest whose deadline passed as a failure without casualties, refunding the funders', async () => {
      const q = await postOk(b, { reward: 50, deadline_days: 1 });
      expectStatus(await w.post(`/api/quests/${q.id}/accept`, { organization_id: a.org }, a.key), 200, 'accept');
      const [aBefore, bBefore] = await Promise.all([org(a.org), org(b.org)]);
      const living = (await Promise.all(hired.map(adventurer))).filter((x) => x.status !== 'dead');
      await w.tick();
      await w.tick();
      const after = await quest(q.id);
      assert.equal(after.status, 'resolved');
      assert.equal(after.outcome, 'failure');
      assert.deepEqual(after.resolution?.casualties, []);
      assert.equal(after.resolution?.reward_paid, 0);
      assert.equal(await treasury(b.org), bBefore.treasury + 50 - 2 * bBefore.daily_maintenance);
      const aAfter = await org(a.org);
      assert.equal(aAfter.treasury, aBefore.treasury - 2 * aBefore.daily_maintenance);
      assert.equal(aAfter.reputation, Math.max(0, aBefore.reputation - 5));
      for (const x of living) assert.notEqual((await adventurer(x.id)).status, 'dead');
    });
  });

  describe('ending an organization', () => {
    it('dissolving frees its adventurers, withdraws its open quests with refunds, returns its pledges and reopens the ones it accepted', async () => {
      const d = await found('Short-lived Trading Company', 'trading company');
      const free = (await w.get<Adventurer[]>('/api/adventurers')).body.find((x) => x.status === 'available')!;
      const founded = await treasury(d.org);
      expectStatus(await w.post('/api/adventurers/hire', { organization_id: d.org, adventurer_id: free.id }, d.key), 200, 'hire');
      const start = await treasury(d.org);
      assert.equal(start, founded - free.hiring_fee, 'the hiring fee is paid when it hires');
      const own = await postOk(d, { reward: 90 });
      const cBefore = await treasury(c.org);
      expectStatus(await w.post(`/api/quests/${own.id}/sponsors`, { organization_id: c.org, amount: 25 }, c.key), 201, 'sponsor');
      const theirs = await postOk(b, { reward: 15 });
      expectStatus(await w.post(`/api/quests/${theirs.id}/accept`, { organization_id: d.org }, d.key), 200, 'accept');
      const pledged = await postOk(b, { reward: 20 });
      expectStatus(await w.post(`/api/quests/${pledged.id}/sponsors`, { organization_id: d.org, amount: 40 }, d.key), 201, 'D sponsors');
      expectStatus(await w.post(`/api/quests/${pledged.id}/sponsors`, { organization_id: c.org, amount: 8 }, c.key), 201, 'C sponsors too');
      assert.equal(await treasury(d.org), start - 90 - 40);
      assert.equal(await treasury(c.org), cBefore - 25 - 8);

      const r = await w.post(`/api/organizations/${d.org}/dissolve`, undefined, d.key);
      expectStatus(r, 200, 'dissolve');
      const ended = await org(d.org);
      assert.equal(ended.status, 'dissolved');
      const profile = await adventurer(free.id);
      assert.equal(profile.status, 'available');
      assert.equal(profile.organization_id, null);
      const withdrawn = await quest(own.id);
      assert.equal(withdrawn.status, 'withdrawn');
      assert.equal(await treasury(c.org), cBefore - 8, 'sponsor refunded exactly (its other pledge stands)');
      assert.equal(ended.treasury, 0, 'an ended organization keeps no gold');
      assert.equal(await forfeitedGold(w, d.org), start, 'the reward and its own pledge returned to the ended organization, and its whole estate passed to the world');
      const stillOpen = await quest(pledged.id);
      assert.equal(stillOpen.status, 'open');
      assert.equal(stillOpen.reward, 28, 'the reward shrinks by the returned pledge');
      assert.deepEqual(stillOpen.sponsors, [{ organization_id: c.org, amount: 8 }]);
      const reopened = await quest(theirs.id);
      assert.equal(reopened.status, 'open');
      assert.equal(reopened.accepted_organization_id, null);
      // The ended organization acts no more.
      expectStatus(await post(d, questBody(d.org, { reward: 1 })), 409, 'post for an ended organization');
    });

    it('bankruptcy frees its adventurers and withdraws its open quests, refunding the sponsors (core rule 6)', async () => {
      const e = await found('Penniless Scholars', 'scholars');
      const free = (await w.get<Adventurer[]>('/api/adventurers')).body.find((x) => x.status === 'available')!;
      expectStatus(await w.post('/api/adventurers/hire', { organization_id: e.org, adventurer_id: free.id }, e.key), 200, 'hire');
      const start = await treasury(e.org);
      const upkeep = (await org(e.org)).daily_maintenance;
      assert.equal(upkeep, 7);
      // Reserve all but 6 gold: tomorrow's upkeep of 7 cannot be paid.
      const own = await postOk(e, { reward: start - 6 });
      expectStatus(await w.post(`/api/quests/${own.id}/sponsors`, { organization_id: c.org, amount: 12 }, c.key), 201, 'sponsor');
      const cBefore = await org(c.org);
      await w.tick();
      const ended = await org(e.org);
      assert.equal(ended.status, 'bankrupt');
      assert.equal((await adventurer(free.id)).status, 'available');
      assert.equal((await quest(own.id)).status, 'withdrawn');
      assert.equal(await treasury(c.org), cBefore.treasury + 12 - cBefore.daily_maintenance, 'the sponsor got its pledge back');
      assert.equal(ended.treasury, 0, 'an ended organization keeps no gold');
      assert.equal(await forfeitedGold(w, e.org), start - 6, 'the reserved reward came back to the bankrupt requester and passed to the world; only the last 6 went to upkeep');
    });
  });
});
