// Tests for the gaps the conformance walk found (docs/conformance.md, "Summary of gaps"):
// recovery from injuries (core rule 13), disbanded parties, a bankrupt sponsor's pledges
// (core rule 6), `limit` on the message listings, 404s for unknown ids, the version in
// GET /api/rules (part 9) and construction drawing on the market over HTTP (core rule 20).
// Each block runs its own real world on a temporary folder; the clock is off, days pass
// only by tick().
import assert from 'assert/strict';
import fs from 'fs';
import path from 'path';
import { startTestWorld, type Answer, type TestWorld } from '../support/world';

interface Org {
  id: number; name: string; treasury: number; reputation: number; status: string; location_id: string;
  daily_maintenance: number; employees: number[]; workers: number;
  parties: Party[];
}
interface Moment { day: number; kind: string; text: string }
interface Adventurer {
  id: number; name: string; strength: number; status: string; organization_id: number | null; party_id: number | null;
  injured_until: number | null; moments: Moment[];
}
interface Resolution { outcome: string; casualties: number[]; injured: number[] }
interface Quest {
  id: number; requester_id: number; reward: number; status: string; accepted_organization_id: number | null; party_id: number | null;
  sponsors: Array<{ organization_id: number; amount: number }>; resolution: Resolution | null;
}
interface Party { id: number; name: string; organization_id: number; members: number[]; status: string; quest_id: number | null }
interface HistoryEvent { id: number; day: number; category: string; summary: string; data: Record<string, unknown> }
interface Message { id: number; sender_id: number; recipient_id: number | null; body: string; sent_day: number }
interface MarketEntry { resource: string; price: number; supply: number; location_id: string }
interface Member { key: string; agent: number; org: number }

const expectStatus = (r: Answer, status: number, what: string) => {
  assert.equal(r.status, status, `${what}: expected ${status}, got ${r.status} ${r.text}`);
  if (status >= 400 && status !== 422) assert.ok(typeof r.body?.detail === 'string' && r.body.detail.length > 0, `${what}: a plain-words detail: ${r.text}`);
};

/** A 422 whose detail names the query parameter `limit`. */
const expectLimit422 = (r: Answer, what: string) => {
  expectStatus(r, 422, what);
  assert.ok(Array.isArray(r.body.detail), `${what}: detail is a list: ${r.text}`);
  assert.ok(r.body.detail.some((d: { loc: unknown[] }) => d.loc[0] === 'query' && d.loc[1] === 'limit'), `${what}: a problem at query.limit: ${r.text}`);
};

async function found(w: TestWorld, name: string, kind: string, location = 'emberfall'): Promise<Member> {
  const agent = await w.register(`${name} agent`);
  const r = await w.post<Org>('/api/organizations', { name, kind, location_id: location }, agent.key);
  expectStatus(r, 201, `found ${name}`);
  return { key: agent.key, agent: agent.id, org: r.body.id };
}
const orgOf = async (w: TestWorld, id: number): Promise<Org> => {
  const r = await w.get<Org>(`/api/organizations/${id}`);
  expectStatus(r, 200, `GET organization ${id}`);
  return r.body;
};
const adventurerOf = async (w: TestWorld, id: number): Promise<Adventurer> => {
  const r = await w.get<Adventurer>(`/api/adventurers/${id}`);
  expectStatus(r, 200, `GET adventurer ${id}`);
  return r.body;
};
const questOf = async (w: TestWorld, id: number): Promise<Quest> => {
  const r = await w.get<Quest>(`/api/quests/${id}`);
  expectStatus(r, 200, `GET quest ${id}`);
  return r.body;
};
const parties = async (w: TestWorld): Promise<Party[]> => {
  const r = await w.get<Party[]>('/api/parties');
  expectStatus(r, 200, 'GET parties');
  return r.body;
};
const today = async (w: TestWorld): Promise<number> => (await w.get<{ day: number }>('/api/world')).body.day;
const available = async (w: TestWorld): Promise<Adventurer[]> =>
  (await w.get<Adventurer[]>('/api/adventurers')).body.filter((x) => x.status === 'available');
const questBody = (requester: number, over: Record<string, unknown> = {}) => ({
  title: 'Clear the old road', description: 'Something has been taking travellers on the old road.',
  requester_id: requester, location_id: 'emberfall', reward: 10, deadline_days: null, ...over,
});
async function postQuest(w: TestWorld, by: Member, over: Record<string, unknown> = {}): Promise<Quest> {
  const r = await w.post<Quest>('/api/quests', questBody(by.org, over), by.key);
  expectStatus(r, 201, 'post quest');
  return r.body;
}
async function hire(w: TestWorld, by: Member, adventurerId: number) {
  expectStatus(await w.post('/api/adventurers/hire', { organization_id: by.org, adventurer_id: adventurerId }, by.key), 200, `hire ${adventurerId}`);
}
async function formParty(w: TestWorld, by: Member, name: string): Promise<number> {
  const r = await w.post<Party>('/api/parties', { organization_id: by.org, name }, by.key);
  expectStatus(r, 201, `form party ${name}`);
  return r.body.id;
}
async function join(w: TestWorld, by: Member, partyId: number, adventurerId: number): Promise<Answer> {
  return w.post(`/api/parties/${partyId}/members`, { adventurer_id: adventurerId }, by.key);
}

describe('gaps: injured adventurers recover (core rule 13)', function () {
  this.timeout(120_000);
  let w: TestWorld;
  before(async () => { w = await startTestWorld(); });
  after(async () => { await w?.close(); });

  it('an injured adventurer cannot join a party (409) until injured_until, then recovers: injured_until null, a recovered moment and history event', async () => {
    const board = await found(w, 'Deepwork Merchant Company', 'merchant company');
    const band = await found(w, 'Frostmaw Reckless Band', 'mercenary band', 'frostmaw-deep');
    const partyId = await formParty(w, band, 'The Doomed Lanterns');

    // Send a weak party into Frostmaw Deep until someone comes back wounded.
    let hurt: { id: number; day: number; until: number } | null = null;
    for (let attempt = 0; attempt < 25 && !hurt; attempt++) {
      // A party back from a quest sets out again the next day.
      if (attempt > 0) await w.tick();
      const members = (await parties(w)).find((p) => p.id === partyId)!.members;
      for (let n = members.length; n < 2; n++) {
        const weakest = (await available(w)).sort((x, y) => x.strength - y.strength)[0];
        assert.ok(weakest, 'an available adventurer to send');
        await hire(w, band, weakest.id);
        expectStatus(await join(w, band, partyId, weakest.id), 200, 'add to party');
      }
      const q = await postQuest(w, board, { location_id: 'frostmaw-deep', reward: 1, title: `Into Frostmaw Deep, attempt ${attempt + 1}` });
      expectStatus(await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: q.id }, band.key), 200, 'dispatch');
      expectStatus(await w.post(`/api/quests/${q.id}/complete`, undefined, band.key), 200, 'complete');
      const res = (await questOf(w, q.id)).resolution!;
      assert.ok(res, 'the quest keeps its resolution');
      if (res.injured.length > 0) {
        const id = res.injured[0];
        assert.ok(!res.casualties.includes(id), 'the injured are not among the dead');
        const a = await adventurerOf(w, id);
        assert.ok(a.injured_until !== null, `adventurer ${id} reported injured has injured_until set`);
        hurt = { id, day: await today(w), until: a.injured_until };
      }
    }
    assert.ok(hurt, 'some quest in Frostmaw Deep left an adventurer injured');
    const { id, day, until } = hurt;
    assert.ok(until > day, `injured_until ${until} lies after today ${day}`);
    const wounded = await adventurerOf(w, id);
    assert.equal(wounded.status, 'employed');
    assert.ok(wounded.moments.some((m) => m.kind === 'injured' && m.day === day && m.text.includes(`${until - day} days`)),
      `an injured moment for ${until - day} days: ${JSON.stringify(wounded.moments)}`);

    // A party with a wounded member does not set out.
    const again = await postQuest(w, board, { location_id: 'frostmaw-deep', reward: 1, title: 'Into Frostmaw Deep, once more' });
    const stayed = await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: again.id }, band.key);
    expectStatus(stayed, 409, 'a party with an injured member is dispatched');
    assert.match(stayed.body.detail, /injur/);
    assert.equal((await questOf(w, again.id)).status, 'open', 'the quest stays open');

    // Free the wounded adventurer from the band's party: dissolving the band releases everyone.
    expectStatus(await w.post(`/api/organizations/${band.org}/dissolve`, undefined, band.key), 200, 'dissolve the band');
    const freed = await adventurerOf(w, id);
    assert.equal(freed.status, 'available');
    assert.equal(freed.party_id, null);
    assert.equal(freed.injured_until, until, 'leaving the organization does not heal');

    const healers = await found(w, 'Grey Healers Temple', 'temple');
    await hire(w, healers, id);
    const ward = await formParty(w, healers, 'The Convalescents');
    const refused = await join(w, healers, ward, id);
    expectStatus(refused, 409, 'an injured adventurer joins a party');
    assert.match(refused.body.detail, /injur/);
    assert.deepEqual((await parties(w)).find((p) => p.id === ward)?.members, [], 'the party stays empty');
    assert.equal((await adventurerOf(w, id)).party_id, null);

    // Still injured on the day before injured_until (until > day, so that day is today or later).
    while ((await today(w)) < until - 1) await w.tick();
    assert.equal(await today(w), until - 1);
    const stillHurt = await adventurerOf(w, id);
    assert.equal(stillHurt.injured_until, until, 'still injured the day before');
    assert.ok(!stillHurt.moments.some((m) => m.kind === 'recovered' && m.day > day), 'no recovery before injured_until');
    expectStatus(await join(w, healers, ward, id), 409, 'join the day before recovery');

    // The day of injured_until: recovered.
    assert.equal(await w.tick(), until);
    const healed = await adventurerOf(w, id);
    assert.equal(healed.injured_until, null, 'injured_until is cleared on recovery');
    assert.equal(healed.status, 'employed');
    const recovered = healed.moments.filter((m) => m.kind === 'recovered' && m.day > day);
    assert.equal(recovered.length, 1, `one recovered moment: ${JSON.stringify(healed.moments)}`);
    assert.equal(recovered[0].day, until);
    const events = (await w.get<HistoryEvent[]>('/api/events?category=adventurer&limit=100')).body;
    assert.ok(events.some((e) => e.data.adventurer_id === id && e.day === until && /recovered/.test(e.summary)),
      'the recovery is in the history');

    // Now it may join; and a further day records no second recovery.
    expectStatus(await join(w, healers, ward, id), 200, 'join after recovery');
    assert.deepEqual((await parties(w)).find((p) => p.id === ward)?.members, [id]);
    await w.tick();
    assert.equal((await adventurerOf(w, id)).moments.filter((m) => m.kind === 'recovered' && m.day > day).length, 1, 'recovery is recorded once');
  });
});

describe('gaps: parties of a dissolved organization (part 3)', function () {
  this.timeout(60_000);
  let w: TestWorld;
  before(async () => { w = await startTestWorld(); });
  after(async () => { await w?.close(); });

  it('leave GET /api/parties and the organization detail; their adventurers become available and can join other parties', async () => {
    const board = await found(w, 'Notice Board Merchants', 'merchant company');
    const band = await found(w, 'Short Watch Band', 'mercenary band');
    const pool = (await available(w)).slice(0, 2).map((x) => x.id);
    assert.equal(pool.length, 2);
    for (const id of pool) await hire(w, band, id);
    const away = await formParty(w, band, 'The Outriders');
    const home = await formParty(w, band, 'The Home Guard');
    expectStatus(await join(w, band, away, pool[0]), 200, 'join away party');
    expectStatus(await join(w, band, home, pool[1]), 200, 'join home party');
    const q = await postQuest(w, board, { reward: 20 });
    expectStatus(await w.post(`/api/parties/${away}/dispatch`, { quest_id: q.id }, band.key), 200, 'dispatch');

    const before = await parties(w);
    assert.equal(before.find((p) => p.id === away)?.status, 'dispatched');
    assert.equal(before.find((p) => p.id === home)?.status, 'formed');
    assert.deepEqual((await orgOf(w, band.org)).parties.map((p) => p.id).sort((x, y) => x - y), [away, home].sort((x, y) => x - y));

    const r = await w.post<Org>(`/api/organizations/${band.org}/dissolve`, undefined, band.key);
    expectStatus(r, 200, 'dissolve');
    for (const p of r.body.parties ?? []) {
      assert.ok(p.status === 'formed' || p.status === 'dispatched', `the dissolve answer lists a party with status ${p.status}, not a part-3 state`);
    }

    const listed = (await parties(w)).map((p) => p.id);
    assert.ok(!listed.includes(away), 'the dispatched party left GET /api/parties');
    assert.ok(!listed.includes(home), 'the formed party left GET /api/parties');
    const detail = await orgOf(w, band.org);
    assert.equal(detail.status, 'dissolved');
    assert.deepEqual(detail.parties.filter((p) => p.id === away || p.id === home), [], 'the parties left the organization detail');

    for (const id of pool) {
      const a = await adventurerOf(w, id);
      assert.equal(a.status, 'available');
      assert.equal(a.organization_id, null);
      assert.equal(a.party_id, null);
    }
    assert.ok((await available(w)).some((x) => x.id === pool[0]), 'listed as available');
    const reopened = await questOf(w, q.id);
    assert.equal(reopened.status, 'open');
    assert.equal(reopened.party_id, null);

    // Another organization hires them and puts them in a party of its own.
    const other = await found(w, 'Second Chance Company', 'adventurers company');
    const fresh = await formParty(w, other, 'The Second Chances');
    for (const id of pool) {
      await hire(w, other, id);
      expectStatus(await join(w, other, fresh, id), 200, `adventurer ${id} joins a new party`);
    }
    assert.deepEqual((await parties(w)).find((p) => p.id === fresh)?.members, pool);
  });
});

describe('gaps: a bankrupt sponsor gets its pledges back (core rule 6), and its estate passes to the world', function () {
  this.timeout(60_000);
  let w: TestWorld;
  before(async () => { w = await startTestWorld(); });
  after(async () => { await w?.close(); });

  it("returns the pledge to the bankrupt sponsor; the quest stays open with the reward shrunk by exactly the pledge", async () => {
    const a = await found(w, 'Steady Merchant Company', 'merchant company');
    const b = await found(w, 'Spendthrift Scholars', 'scholars');
    const q = await postQuest(w, a, { reward: 100 });
    const bStart = (await orgOf(w, b.org)).treasury;
    // Pledge so much that the rest is a whole number of workers at 25 gold each.
    const pledge = 40 + ((bStart - 40) % 25);
    expectStatus(await w.post(`/api/quests/${q.id}/sponsors`, { organization_id: b.org, amount: pledge }, b.key), 201, 'B sponsors');
    assert.equal((await questOf(w, q.id)).reward, 100 + pledge);
    const workers = (bStart - pledge) / 25;
    expectStatus(await w.post('/api/workers/hire', { organization_id: b.org, quantity: workers }, b.key), 200, 'B hires workers');
    const bBefore = await orgOf(w, b.org);
    assert.equal(bBefore.treasury, 0, 'B has spent everything');
    assert.ok(bBefore.daily_maintenance > 0);
    const aBefore = await orgOf(w, a.org);

    const day = await w.tick();
    const bAfter = await orgOf(w, b.org);
    assert.equal(bAfter.status, 'bankrupt');
    // The pledge came back to the bankrupt sponsor, exactly, and with the rest of its estate passed to the world.
    assert.equal(bAfter.treasury, 0, 'an ended organization keeps no gold');
    const bLedger = ((await w.get<HistoryEvent[]>(`/api/events?organization_id=${b.org}&limit=100`)).body)
      .filter((e) => e.day === day).flatMap((e) => (e.data.ledger as Array<{ organization_id: number; flow: string; gold?: number }>) ?? [])
      .filter((l) => l.organization_id === b.org);
    assert.deepEqual(bLedger.filter((l) => l.flow === 'quest_escrow').map((l) => l.gold), [pledge], 'the pledge came back to it');
    assert.equal(bLedger.filter((l) => l.flow === 'estate_forfeited').reduce((n, l) => n + (l.gold ?? 0), 0), -pledge, 'and passed to the world');
    const after = await questOf(w, q.id);
    assert.equal(after.status, 'open', "A's quest stays open");
    assert.equal(after.reward, 100, 'the reward shrinks by the pledge');
    assert.deepEqual(after.sponsors, [], 'the sponsor is gone from the quest');
    assert.equal(after.requester_id, a.org);
    const aAfter = await orgOf(w, a.org);
    assert.equal(aAfter.treasury, aBefore.treasury - aBefore.daily_maintenance, 'the requester only paid its upkeep');
    const events = (await w.get<HistoryEvent[]>('/api/events?category=quest&limit=100')).body;
    // The pledge was made the day before; today's quest event with that amount is its return.
    assert.ok(events.some((e) => e.day === day && e.data.quest_id === q.id && e.data.amount === pledge),
      `the returned pledge is in the history: ${JSON.stringify(events.filter((e) => e.data.quest_id === q.id))}`);
    // The quest can still be taken up.
    const c = await found(w, 'Late Patron Guild', 'merchant guild');
    expectStatus(await w.post(`/api/quests/${q.id}/sponsors`, { organization_id: c.org, amount: 5 }, c.key), 201, 'sponsor the open quest');
    assert.equal((await questOf(w, q.id)).reward, 105);
  });
});

describe('gaps: limit on the message listings (MessagesQuery: 1-500, default 100)', function () {
  this.timeout(120_000);
  const PUBLIC = 105;
  const PRIVATE = 105;
  let w: TestWorld;
  let a: Member; // broadcasts
  let b: Member; // receives
  let c: Member; // writes to b
  let publicIds: number[] = [];
  let privateIds: number[] = [];

  before(async () => {
    w = await startTestWorld();
    a = await found(w, 'Loud Merchant Company', 'merchant company');
    b = await found(w, 'Quiet Merchant Guild', 'merchant guild');
    c = await found(w, 'Chatty Trading Company', 'trading company');
    for (let i = 1; i <= PUBLIC; i++) {
      const r = await w.post<Message>('/api/messages', { sender_id: a.org, recipient_id: null, body: `Broadcast number ${i}` }, a.key);
      expectStatus(r, 201, `public message ${i}`);
      publicIds.push(r.body.id);
    }
    for (let i = 1; i <= PRIVATE; i++) {
      const r = await w.post<Message>('/api/messages', { sender_id: c.org, recipient_id: b.org, body: `Letter number ${i}` }, c.key);
      expectStatus(r, 201, `private message ${i}`);
      privateIds.push(r.body.id);
    }
    publicIds = publicIds.reverse(); // newest first
    privateIds = privateIds.reverse();
  });
  after(async () => { await w?.close(); });

  const ids = (r: Answer<Message[]>) => r.body.map((m) => m.id);
  const listings = {
    'GET /api/messages': (q: string) => w.call<Message[]>('GET', `/api/messages${q}`),
    'GET /api/messages/inbox': (q: string) => w.call<Message[]>('GET', `/api/messages/inbox${q}`, { key: b.key }),
    'GET /api/messages/investigation': (q: string) => w.call<Message[]>('GET', `/api/messages/investigation${q}`, { spectator: w.keys.spectator }),
  };
  /** What each listing holds, newest first. */
  const expected = (name: keyof typeof listings) => name === 'GET /api/messages' ? publicIds
    : name === 'GET /api/messages/inbox' ? privateIds
      : [...privateIds, ...publicIds];

  for (const name of Object.keys(listings) as Array<keyof typeof listings>) {
    describe(name, () => {
      it('answers 100 by default, newest first', async () => {
        const r = await listings[name]('');
        expectStatus(r, 200, name);
        assert.deepEqual(ids(r), expected(name).slice(0, 100));
      });

      it('answers as many as limit asks: 1, 7 and 500 (all there are)', async () => {
        for (const limit of [1, 7, 500]) {
          const r = await listings[name](`?limit=${limit}`);
          expectStatus(r, 200, `${name}?limit=${limit}`);
          assert.deepEqual(ids(r), expected(name).slice(0, limit), `limit=${limit}`);
        }
        assert.equal((await listings[name]('?limit=500')).body.length, expected(name).length);
      });

      it('refuses limit=0, limit=501 and limit=abc with 422 at query.limit', async () => {
        for (const bad of ['0', '501', 'abc', '-1']) expectLimit422(await listings[name](`?limit=${bad}`), `${name}?limit=${bad}`);
      });
    });
  }
});

describe('gaps: 404 for unknown ids (api-conventions, errors)', function () {
  this.timeout(60_000);
  let w: TestWorld;
  let a: Member;
  let b: Member;
  let partyId = 0;
  let questId = 0;
  const UNKNOWN = 987654;

  before(async () => {
    w = await startTestWorld();
    a = await found(w, 'Lost Ids Company', 'adventurers company');
    b = await found(w, 'Id Keepers Guild', 'merchant guild');
    const free = (await available(w))[0];
    await hire(w, a, free.id);
    partyId = await formParty(w, a, 'The Unknowns');
    expectStatus(await join(w, a, partyId, free.id), 200, 'join');
    questId = (await postQuest(w, b, { reward: 30 })).id;
  });
  after(async () => { await w?.close(); });

  const snapshot = async () => ({
    a: await orgOf(w, a.org), b: await orgOf(w, b.org),
    history: (await w.get('/api/world')).body.counts.history_events as number,
    parties: await parties(w), quest: await questOf(w, questId),
  });

  it('answers 404 for an unknown party on members and dispatch, and an unknown quest in a dispatch body, changing nothing', async () => {
    const before = await snapshot();
    const spare = (await available(w))[0];
    expectStatus(await w.post(`/api/parties/${UNKNOWN}/members`, { adventurer_id: spare.id }, a.key), 404, 'members of an unknown party');
    expectStatus(await w.post(`/api/parties/${UNKNOWN}/dispatch`, { quest_id: questId }, a.key), 404, 'dispatch an unknown party');
    expectStatus(await w.post(`/api/parties/${partyId}/dispatch`, { quest_id: UNKNOWN }, a.key), 404, 'dispatch to an unknown quest');
    assert.deepEqual(await snapshot(), before);
    assert.equal((await adventurerOf(w, spare.id)).status, 'available');
  });

  it('answers 404 for an unknown quest on accept, complete, cancel and sponsors, changing nothing', async () => {
    const before = await snapshot();
    expectStatus(await w.post(`/api/quests/${UNKNOWN}/accept`, { organization_id: a.org }, a.key), 404, 'accept');
    expectStatus(await w.post(`/api/quests/${UNKNOWN}/complete`, undefined, a.key), 404, 'complete');
    expectStatus(await w.post(`/api/quests/${UNKNOWN}/cancel`, undefined, b.key), 404, 'cancel');
    expectStatus(await w.post(`/api/quests/${UNKNOWN}/sponsors`, { organization_id: b.org, amount: 5 }, b.key), 404, 'sponsors');
    assert.deepEqual(await snapshot(), before);
  });

  it('answers 404 for unknown contract and alliance ids on every action, changing nothing', async () => {
    const before = await snapshot();
    for (const verb of ['accept', 'reject', 'fulfill']) {
      expectStatus(await w.post(`/api/contracts/${UNKNOWN}/${verb}`, { organization_id: a.org }, a.key), 404, `contract ${verb}`);
    }
    for (const verb of ['accept', 'end']) {
      expectStatus(await w.post(`/api/alliances/${UNKNOWN}/${verb}`, { organization_id: a.org }, a.key), 404, `alliance ${verb}`);
    }
    expectStatus(await w.get(`/api/contracts/${UNKNOWN}`), 404, 'GET contract');
    assert.deepEqual(await snapshot(), before);
  });

  it('answers 404 for an unknown world event on end and an unknown suggestion on PATCH, with the admin key', async () => {
    const before = await snapshot();
    expectStatus(await w.call('POST', `/api/world-events/${UNKNOWN}/end`, { admin: w.keys.admin }), 404, 'end an unknown world event');
    expectStatus(await w.call('PATCH', `/api/suggestions/${UNKNOWN}`, { admin: w.keys.admin, body: { status: 'reviewed', admin_note: 'seen' } }), 404, 'review an unknown suggestion');
    assert.deepEqual(await snapshot(), before);
    const listed = await w.call<unknown[]>('GET', '/api/suggestions', { admin: w.keys.admin });
    expectStatus(listed, 200, 'GET suggestions');
    assert.deepEqual(listed.body, [], 'no suggestion appeared');
  });
});

describe('gaps: GET /api/rules carries the version (part 9)', function () {
  let w: TestWorld;
  before(async () => { w = await startTestWorld(); });
  after(async () => { await w?.close(); });

  it("has version '0.1.0', the package's version", async () => {
    const r = await w.get<{ version: string }>('/api/rules');
    expectStatus(r, 200, 'GET rules');
    assert.equal(r.body.version, '0.1.0');
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string };
    assert.equal(r.body.version, pkg.version);
  });
});

describe('gaps: construction draws timber and ore from the market (core rule 20)', function () {
  this.timeout(60_000);
  let built: TestWorld;
  let control: TestWorld;
  const SEED = 'construction-seed';

  before(async () => {
    built = await startTestWorld({ seed: SEED });
    control = await startTestWorld({ seed: SEED });
  });
  after(async () => {
    await built?.close();
    await control?.close();
  });

  const board = async (w: TestWorld) => {
    const r = await w.get<MarketEntry[]>('/api/market?location_id=emberfall');
    expectStatus(r, 200, 'GET market');
    return Object.fromEntries(r.body.map((m) => [m.resource, m.supply])) as Record<string, number>;
  };

  it("lowers emberfall's timber and ore supply below that of an identical world without the project, after a tick", async () => {
    const builders = await found(built, 'Emberfall Builders Company', 'builders company');
    const twin = await found(control, 'Emberfall Builders Company', 'builders company');
    assert.equal(builders.org, twin.org);
    const r = await built.post<{ id: number; status: string }>('/api/projects', {
      owner_id: builders.org, title: 'The Ember Inn', kind: 'construction', description: 'an inn by the forge-temple gate',
      location_id: 'emberfall', budget: 100, duration_days: 5, output_resource: null, establishment_kind: 'inn',
    }, builders.key);
    expectStatus(r, 201, 'start a construction project');
    const listed = (await built.get<Array<{ id: number; status: string; production_plan?: boolean }>>('/api/projects')).body.find((p) => p.id === r.body.id);
    assert.equal(listed?.status, 'active');
    assert.notEqual(listed?.production_plan, true, 'not a production plan');

    const [before, beforeControl] = await Promise.all([board(built), board(control)]);
    assert.deepEqual(before, beforeControl, 'the two worlds start with the same market');
    assert.ok(before.timber > 0 && before.ore > 0, 'emberfall trades timber and ore');

    assert.equal(await built.tick(), await control.tick());
    const [after, afterControl] = await Promise.all([board(built), board(control)]);
    assert.ok(after.timber < afterControl.timber, `timber ${after.timber} with the project, ${afterControl.timber} without`);
    assert.ok(after.ore < afterControl.ore, `ore ${after.ore} with the project, ${afterControl.ore} without`);
    assert.equal(after.food, afterControl.food, 'food is not drawn by construction');
  });
});
