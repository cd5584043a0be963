// The end of an employed adventurer's career, over HTTP on the real embedded store: an
// agent's organization does not keep a veteran for ever. From its career_end_day it
// leaves of its own accord the first day it is at home (no agent's say), then dies of old
// age; a member away with its party on a quest leaves the first day after the party is
// back. The books stay whole.
import assert from 'assert/strict';
import fs from 'fs';
import { CAREER_DUE_DAYS_WRITTEN } from '../../actors/adventurer/career-due-days';
import type { PersistedEvent } from '../../actors/ports/store';
import { foundOrg } from '../support/http';
import { assertBooks, mark } from '../support/sagas';
import { startTestWorld, tempDir, type TestWorld } from '../support/world';

interface Adventurer { id: number; name: string; status: string; organization_id: number | null; party_id: number | null; career_end_day: number | null; moments: Array<{ kind: string; text: string }> }
interface Org { id: number; employees: number[]; status: string; treasury: number }
interface HistoryEvent { id: number; day: number; category: string; agent_id: number | null; organization_ids: number[]; summary: string; data: { adventurer_id?: number } }

describe('the end of an employed adventurer\'s career', function () {
  this.timeout(120_000);
  let w: TestWorld;
  let books: Awaited<ReturnType<typeof mark>>;
  let owner: Awaited<ReturnType<typeof foundOrg>>;
  let requester: Awaited<ReturnType<typeof foundOrg>>;
  let stayer: Adventurer; // hired, in no party: leaves the day its career ends
  let traveller: Adventurer; // away with a party when its career ends: leaves once home
  let day: number;

  const adventurer = async (id: number) => (await w.get<Adventurer>(`/api/adventurers/${id}`)).body;
  const organization = async (id: number) => (await w.get<Org>(`/api/organizations/${id}`)).body;
  const tickTo = async (target: number) => { while (day < target) day = await w.tick(); };
  const historyOf = async (id: number) => ((await w.get<HistoryEvent[]>(`/api/events?limit=100&organization_id=${owner.org.id}`)).body).filter((e) => e.data?.adventurer_id === id);

  before(async () => {
    w = await startTestWorld({ seed: 'careers' });
    books = await mark(w);
    owner = await foundOrg(w, 'Old Hands Company', 'adventuring company', 'emberfall');
    requester = await foundOrg(w, 'Beacon Keepers', 'merchant company', 'emberfall');
    day = (await w.get<{ day: number }>('/api/world')).body.day;
    // The two available adventurers whose careers end first.
    const listed = (await w.get<Adventurer[]>('/api/adventurers?limit=100')).body;
    const profiles = await Promise.all(listed.filter((a) => a.status === 'available').map((a) => adventurer(a.id)));
    [stayer, traveller] = profiles.filter((a) => a.career_end_day !== null).sort((a, b) => a.career_end_day! - b.career_end_day! || a.id - b.id);
    for (const a of [stayer, traveller]) {
      const hired = await w.post('/api/adventurers/hire', { organization_id: owner.org.id, adventurer_id: a.id }, owner.key);
      assert.equal(hired.status, 200, hired.text);
    }
  });
  after(async () => { await w?.close(); });

  it('says in its profile the day its career ends', () => {
    assert.ok(Number.isInteger(stayer.career_end_day) && stayer.career_end_day! > day, JSON.stringify(stayer.career_end_day));
    assert.ok(traveller.career_end_day! >= stayer.career_end_day!);
  });

  it('works on until its career ends', async () => {
    await tickTo(stayer.career_end_day! - 1);
    const a = await adventurer(stayer.id);
    assert.equal(a.status, 'employed');
    assert.equal(a.organization_id, owner.org.id);
  });

  it('away with a party when its career ends, it stays until the party is back', async () => {
    // The traveller sets out on a quest of another organization the day before its career ends (the stayer's, if theirs is later).
    await tickTo(traveller.career_end_day! - 1);
    const quest = await w.post<{ id: number }>('/api/quests', { requester_id: requester.org.id, title: 'Walk the beacon road', description: 'Check every beacon on the road.', location_id: 'emberfall', reward: 20, deadline_days: 30 }, requester.key);
    assert.equal(quest.status, 201, quest.text);
    assert.equal((await w.post(`/api/quests/${quest.body.id}/accept`, { organization_id: owner.org.id }, owner.key)).status, 200);
    const party = await w.post<{ id: number }>('/api/parties', { organization_id: owner.org.id, name: 'Last Road' }, owner.key);
    assert.equal(party.status, 201, party.text);
    assert.equal((await w.post(`/api/parties/${party.body.id}/members`, { adventurer_id: traveller.id }, owner.key)).status, 200);
    const sent = await w.post(`/api/parties/${party.body.id}/dispatch`, { quest_id: quest.body.id }, owner.key);
    assert.equal(sent.status, 200, sent.text);
    await tickTo(traveller.career_end_day! + 2);
    const away = await adventurer(traveller.id);
    assert.equal(away.status, 'employed', 'away with its party, it stays');
    assert.ok((await organization(owner.org.id)).employees.includes(traveller.id));
    const done = await w.post<{ resolution: { casualties: number[] } }>(`/api/quests/${quest.body.id}/complete`, undefined, owner.key);
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body.resolution.casualties, [], 'the quest at emberfall took nobody');
    assert.equal((await adventurer(traveller.id)).status, 'employed', 'back home, it is still a member until the next day');
    day = await w.tick();
    const gone = await adventurer(traveller.id);
    assert.equal(gone.status, 'dead');
    assert.equal(gone.organization_id, null);
    assert.equal(gone.party_id, null);
    assert.ok(!(await organization(owner.org.id)).employees.includes(traveller.id));
    const told = await historyOf(traveller.id);
    assert.deepEqual(told.filter((e) => e.day === day).map((e) => [e.summary, e.agent_id]).reverse(), [[`${traveller.name} left Old Hands Company (its career is over)`, null], [`${traveller.name} died of old age`, null]], JSON.stringify(told));
  });

  it('at home when its career ends, it leaves its organization of its own accord that day and dies of old age', async () => {
    const a = await adventurer(stayer.id);
    assert.equal(a.status, 'dead');
    assert.equal(a.organization_id, null);
    assert.deepEqual(a.moments.slice(-2).map((m) => m.kind), ['released', 'died']);
    assert.ok(!(await organization(owner.org.id)).employees.includes(stayer.id));
    const told = await historyOf(stayer.id);
    const left = told.find((e) => e.summary === `${stayer.name} left Old Hands Company (its career is over)`);
    assert.ok(left && left.day === stayer.career_end_day && left.agent_id === null && left.organization_ids.includes(owner.org.id), JSON.stringify(told));
    const deaths = (await w.get<HistoryEvent[]>('/api/events?category=death&limit=100')).body.filter((e) => e.data?.adventurer_id === stayer.id);
    assert.deepEqual(deaths.map((e) => [e.day, e.summary, e.organization_ids]), [[stayer.career_end_day, `${stayer.name} died of old age`, [owner.org.id]]], 'its death is in the story of the organization it has just left');
    assert.ok(left.id < deaths[0].id, 'it left, then died');
  });

  it('keeps the books whole', async () => {
    await assertBooks(w, books);
  });
});

describe('the end of careers in a world of an older version (its employed adventurers\' rows carry no due day)', function () {
  this.timeout(120_000);

  it('has every employed adventurer write its due day at the next start, once, so a veteran still leaves when its career ends', async () => {
    const dataDir = tempDir('worldsim-career-days-');
    // One node: the older version's row is written straight through its store.
    let w = await startTestWorld({ dataDir, nodes: 1, seed: 'careers' });
    try {
      const owner = await foundOrg(w, 'Older Hands Company', 'adventuring company', 'emberfall');
      const listed = (await w.get<Adventurer[]>('/api/adventurers?status=available&limit=100')).body;
      const profiles = await Promise.all(listed.map(async (a) => (await w.get<Adventurer>(`/api/adventurers/${a.id}`)).body));
      const veteran = profiles.filter((a) => a.career_end_day !== null).sort((a, b) => a.career_end_day! - b.career_end_day! || a.id - b.id)[0];
      const hired = await w.post('/api/adventurers/hire', { organization_id: owner.org.id, adventurer_id: veteran.id }, owner.key);
      assert.equal(hired.status, 200, hired.text);
      const due = async () => (await w.services.store.ids('adventurersDue', veteran.career_end_day!)).includes(String(veteran.id));
      assert.ok(await due(), 'this version: the row carries its career\'s end');
      // As an older version left it: the row without a due day, and no mark.
      const doc = await w.services.store.row<Record<string, unknown>>('adventurer', veteran.id);
      const event = { key: 'test:older-row', sequenceNumber: 1, createdAt: Date.now(), data: { events: [] }, tags: [], isDeleted: false } as unknown as PersistedEvent;
      await w.services.store.engine.persist(event, { rows: [{ kind: 'adventurer', id: veteran.id, status: 'employed', organization_id: owner.org.id, due_day: null, doc: doc! }] });
      await w.services.store.setSetting(CAREER_DUE_DAYS_WRITTEN, '');
      assert.ok(!(await due()), 'no due day: the daily fan-out would never visit it');
      await w.close();

      w = await startTestWorld({ dataDir, nodes: 1, seed: 'careers' });
      assert.ok(await due(), 'written at the start');
      assert.ok(await w.services.store.setting(CAREER_DUE_DAYS_WRITTEN), 'marked written: the next start asks nobody again');
      for (let day = (await w.get<{ day: number }>('/api/world')).body.day; day < veteran.career_end_day!;) day = await w.tick();
      const gone = (await w.get<Adventurer>(`/api/adventurers/${veteran.id}`)).body;
      assert.equal(gone.status, 'dead', 'it left when its career ended, and died of old age');
      assert.ok(!(await w.get<Org>(`/api/organizations/${owner.org.id}`)).body.employees.includes(veteran.id));
    } finally {
      await w.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
