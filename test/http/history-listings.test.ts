// Listings that grow with the world's history are read as pages (docs/decisions.md,
// "Listings come in pages"): the messages newest first (the later day sent, then the higher
// id; a day's chronicle reports after its numbered messages), and listings filtered by a
// status alone. What each answers is what the whole listing, sorted and filtered, holds.
import assert from 'assert/strict';
import { expectStatus, foundOrg, walkPages } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

interface Listed { id: number | string; status?: string }
interface Message extends Listed { sent_day: number; kind: string; public: boolean }

const ids = (xs: Listed[]) => xs.map((x) => x.id);

/** The order of the messages newest first, written out: the later day, then numbered ids from the highest, then text ids. */
function newestFirst(ms: Message[]): Array<number | string> {
  return [...ms].sort((a, b) => {
    if (a.sent_day !== b.sent_day) return b.sent_day - a.sent_day;
    if (typeof a.id === 'number' && typeof b.id === 'number') return b.id - a.id;
    if (typeof a.id === 'number') return -1;
    if (typeof b.id === 'number') return 1;
    return a.id < b.id ? 1 : -1;
  }).map((m) => m.id);
}

describe('listings that grow with the history are read as pages', () => {
  let w: TestWorld;
  let a: Awaited<ReturnType<typeof foundOrg>>;
  let b: Awaited<ReturnType<typeof foundOrg>>;
  let c: Awaited<ReturnType<typeof foundOrg>>;
  const spectator = () => ({ 'x-spectator-key': w.keys.spectator! });

  before(async () => {
    w = await startTestWorld();
    a = await foundOrg(w, 'Amber Scribes');
    b = await foundOrg(w, 'Birch Scribes');
    c = await foundOrg(w, 'Cedar Scribes', 'merchant company', 'greenhollow');
  });
  after(async () => { await w.close(); });

  it('lists the messages of several days newest first, a day\'s chronicle report after its numbered messages, in pages by offset', async () => {
    const say = async (from: typeof a, body: string, recipient: number | null = null, kind = 'message') =>
      expectStatus(await w.post('/api/messages', { sender_id: from.org.id, recipient_id: recipient, body, kind }, from.key), 201);
    await say(a, 'The first news of the first day.');
    await say(b, 'A letter for Amber.', a.org.id);
    await w.tick();
    await say(b, 'Birch sells salt.');
    // A world event's chronicle report (string id) on the same day as numbered messages.
    expectStatus(await w.call('POST', '/api/world-events', { admin: w.keys.admin, body: {
      title: 'Hard frost', description: 'A frost bites the fields.', duration_days: 2,
      effects: [{ kind: 'maintenance_modifier', value: 1, resource: null, location_id: null, price: null }], quest: null, location: null,
    } }), 201);
    await say(c, 'A rumor from the hollow: gold in the hills.', null, 'rumor');
    await say(a, 'A letter for Cedar, far away.', c.org.id);
    await w.tick();
    await say(c, 'Cedar buys ore.');

    const every = await walkPages<Message>(w, '/api/messages/investigation?limit=500', spectator());
    assert.ok(every.some((m) => typeof m.id === 'string') && every.some((m) => !m.public), 'a chronicle report and private letters are among them');
    assert.ok(new Set(every.map((m) => m.sent_day)).size >= 3, 'over three days');
    assert.deepEqual(ids(every), newestFirst(every), 'the investigation: every message, newest first');
    const day2 = every.filter((m) => m.sent_day === every.find((x) => typeof x.id === 'string')!.sent_day);
    assert.equal(typeof day2[day2.length - 1].id, 'string', 'the chronicle report ends its day');

    const published = every.filter((m) => m.public);
    assert.deepEqual(ids(await walkPages<Message>(w, '/api/messages')), newestFirst(published), 'the public messages, newest first');
    assert.deepEqual(ids(await walkPages<Message>(w, '/api/messages?limit=2')), newestFirst(published), 'pages of two walk them once');
    assert.deepEqual(ids(await walkPages<Message>(w, '/api/messages/investigation?limit=3', spectator())), ids(every), 'pages of three walk every message once');
    assert.deepEqual(ids((await w.get('/api/messages?offset=1&limit=2')).body), newestFirst(published).slice(1, 3));
    assert.deepEqual((await w.get('/api/messages?offset=100')).body, [], 'past the last: an empty page');
  });

  it("lists an agent's inbox newest first: letters delivered to its organization and everything it sent; a letter on its way once it arrives", async () => {
    const every = await walkPages<Message & { sender_id: number | null; recipient_id: number | null; deliver_day: number }>(w, '/api/messages/investigation?limit=500', spectator());
    const letter = every.find((m) => m.sender_id === a.org.id && m.recipient_id === c.org.id)!;
    assert.ok(letter && letter.deliver_day > letter.sent_day, 'a letter from afar takes days');
    const inboxOf = async (who: typeof a) => walkPages<Message>(w, '/api/messages/inbox?limit=2', { 'x-agent-key': who.key });
    const expected = (who: typeof a, day: number) => newestFirst(every.filter((m) => m.sender_id === who.org.id || (m.recipient_id === who.org.id && m.deliver_day <= day)));
    let day = (await w.get('/api/world')).body.day as number;
    assert.ok(day < letter.deliver_day, 'still on its way');
    assert.deepEqual(ids(await inboxOf(c)), expected(c, day), 'what Cedar sent, in pages of two');
    assert.deepEqual(ids(await inboxOf(a)), expected(a, day), "Amber's: its sending and Birch's letter, at once (the same place)");
    while (day < letter.deliver_day) day = await w.tick();
    const now = await inboxOf(c);
    assert.deepEqual(ids(now), expected(c, day));
    assert.ok(ids(now).includes(letter.id), 'the letter has arrived');
    assert.deepEqual(ids((await w.get('/api/messages/inbox?offset=1&limit=1', c.key)).body), expected(c, day).slice(1, 2));
  });

  it('lists quests of one status (withdrawn ones too) and a place\'s open quests as pages, in id order', async () => {
    const quest = async (from: typeof a, place: string, title: string) => {
      const r = await w.post<{ id: number }>('/api/quests', { title, description: 'Work for brave hands.', requester_id: from.org.id, location_id: place, reward: 30, deadline_days: 10 }, from.key);
      expectStatus(r, 201);
      return r.body.id;
    };
    const posted = [
      await quest(a, 'emberfall', 'Clear the cellars'), await quest(c, 'greenhollow', 'Guard the mill'), await quest(b, 'emberfall', 'Find the lost cat'),
      await quest(a, 'emberfall', 'Carry the letters'), await quest(c, 'greenhollow', 'Mend the fences'),
    ];
    expectStatus(await w.post(`/api/quests/${posted[0]}/cancel`, undefined, a.key), 200);
    expectStatus(await w.post(`/api/quests/${posted[4]}/cancel`, undefined, c.key), 200);
    const whole = await walkPages<Listed & { location_id: string }>(w, '/api/quests?status=withdrawn&limit=1000');
    const all = [...whole, ...await walkPages<Listed & { location_id: string }>(w, '/api/quests?limit=1000')];
    const withdrawn = all.filter((q) => q.status === 'withdrawn').map((q) => q.id).sort((x, y) => Number(x) - Number(y));
    assert.deepEqual(withdrawn, [posted[0], posted[4]]);
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/quests?status=withdrawn&limit=1')), withdrawn, 'withdrawn ones, a page of one at a time');
    const open = all.filter((q) => q.status === 'open').map((q) => q.id);
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/quests?status=open&limit=2')), open, 'open ones in pages of two');
    const openHere = all.filter((q) => q.status === 'open' && q.location_id === 'emberfall').map((q) => q.id);
    assert.ok(openHere.includes(posted[2]) && openHere.includes(posted[3]) && !openHere.includes(posted[1]));
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/quests?status=open&location_id=emberfall&limit=1')), openHere, "a place's open quests, one at a time");
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/quests?status=open&requester_id=${a.org.id}&limit=1`)), [posted[3]], 'narrowed further: filtered');
  });

  it('lists projects of an ended status as pages', async () => {
    const made: number[] = [];
    for (const title of ['The Amber Inn', 'The Amber Wall', 'The Amber Well']) {
      const r = await w.post<{ id: number }>('/api/projects', {
        owner_id: a.org.id, title, kind: 'construction', description: 'Building for the years ahead.', location_id: 'emberfall', budget: 20, duration_days: 20,
      }, a.key);
      expectStatus(r, 201);
      made.push(r.body.id);
    }
    for (const id of [made[0], made[2]]) expectStatus(await w.post(`/api/projects/${id}/cancel`, undefined, a.key), 200);
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/projects?status=cancelled&limit=1')), [made[0], made[2]]);
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/projects?status=cancelled&location_id=emberfall&limit=1')), [made[0], made[2]]);
    assert.ok(ids(await walkPages<Listed>(w, '/api/projects?status=active')).includes(made[1]));
  });

  it('lists alliances of the statuses asked for, merged in id order and paged', async () => {
    const propose = async (from: typeof a, to: typeof a) => {
      const r = await w.post<{ id: number }>('/api/alliances', { proposer_id: from.org.id, counterparty_id: to.org.id, terms: 'Shared roads and shared watch.' }, from.key);
      expectStatus(r, 201);
      return r.body.id;
    };
    const ab = await propose(a, b);
    const bc = await propose(b, c);
    const ca = await propose(c, a);
    expectStatus(await w.post(`/api/alliances/${ab}/accept`, { organization_id: b.org.id }, b.key), 200);
    expectStatus(await w.post(`/api/alliances/${ab}/end`, { organization_id: a.org.id }, a.key), 200);
    expectStatus(await w.post(`/api/alliances/${ca}/accept`, { organization_id: a.org.id }, a.key), 200);
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/alliances?status=ended,proposed&limit=1')), [ab, bc], 'an ended and a proposed one, in id order');
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/alliances?status=active,proposed,ended&limit=2')), [ab, bc, ca]);
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/alliances?status=active')), [ca]);
  });

  it('lists quests filtered by requester, reward, and a place beside a status, as pages read only as far as each needs, in id order', async () => {
    const quest = async (from: typeof a, place: string, title: string, reward: number) => {
      const r = await w.post<{ id: number }>('/api/quests', { title, description: 'Work for brave hands.', requester_id: from.org.id, location_id: place, reward, deadline_days: 10 }, from.key);
      expectStatus(r, 201);
      return r.body.id;
    };
    const posted = [
      await quest(b, 'emberfall', 'Count the sheep', 20), await quest(b, 'greenhollow', 'Paint the barn', 45), await quest(a, 'emberfall', 'Sweep the square', 60),
      await quest(b, 'emberfall', 'Ring the bell', 80), await quest(c, 'greenhollow', 'Dig the well', 35), await quest(b, 'emberfall', 'Light the lamps', 50),
    ];
    expectStatus(await w.post(`/api/quests/${posted[3]}/cancel`, undefined, b.key), 200);
    expectStatus(await w.post(`/api/quests/${posted[1]}/cancel`, undefined, b.key), 200);
    type Quest = Listed & { location_id: string; requester_id: number; reward: number };
    const all = [...await walkPages<Quest>(w, '/api/quests?limit=1000'), ...await walkPages<Quest>(w, '/api/quests?status=withdrawn&limit=1000')]
      .sort((x, y) => Number(x.id) - Number(y.id));
    const cases: Array<[string, (q: Quest) => boolean]> = [
      [`requester_id=${b.org.id}`, (q) => q.requester_id === b.org.id && q.status !== 'withdrawn'],
      [`requester_id=${b.org.id}&status=withdrawn`, (q) => q.requester_id === b.org.id && q.status === 'withdrawn'],
      [`requester_id=${b.org.id}&location_id=emberfall&min_reward=30`, (q) => q.requester_id === b.org.id && q.location_id === 'emberfall' && q.reward >= 30 && q.status !== 'withdrawn'],
      ['min_reward=40&max_reward=60', (q) => q.reward >= 40 && q.reward <= 60 && q.status !== 'withdrawn'],
      ['status=open&max_reward=45', (q) => q.status === 'open' && q.reward <= 45],
      ['status=withdrawn&location_id=emberfall', (q) => q.status === 'withdrawn' && q.location_id === 'emberfall'],
      ['location_id=greenhollow', (q) => q.location_id === 'greenhollow' && q.status !== 'withdrawn'],
    ];
    const none = `requester_id=${a.org.id}&location_id=greenhollow`;
    cases.push([none, () => false]);
    for (const [filter, keep] of cases) {
      const expected = all.filter(keep).map((q) => q.id);
      if (filter !== none) assert.ok(expected.length > 0, `${filter} finds some`);
      for (const limit of [1, 2, 500]) assert.deepEqual(ids(await walkPages<Listed>(w, `/api/quests?${filter}&limit=${limit}`)), expected, `${filter}, pages of ${limit}`);
    }
    assert.deepEqual(ids((await w.get(`/api/quests?requester_id=${b.org.id}&after_id=${posted[0]}&limit=1`)).body), [posted[5]], 'after a start: the next of the requester\'s listed quests');
  });

  it('lists contracts of the statuses asked for, merged in id order and paged', async () => {
    const propose = async (from: typeof a, to: typeof a, title: string) => {
      const r = await w.post<{ id: number }>('/api/contracts', { proposer_id: from.org.id, counterparty_id: to.org.id, title, terms: 'Ten loads of grain, paid on delivery.', value: 10, resource: null }, from.key);
      expectStatus(r, 201);
      return r.body.id;
    };
    const ab = await propose(a, b, 'Grain for Birch');
    const bc = await propose(b, c, 'Grain for Cedar');
    const ca = await propose(c, a, 'Grain for Amber');
    const ac = await propose(a, c, 'Salt for Cedar');
    expectStatus(await w.post(`/api/contracts/${ab}/accept`, { organization_id: b.org.id }, b.key), 200);
    expectStatus(await w.post(`/api/contracts/${ca}/reject`, { organization_id: a.org.id }, a.key), 200);
    const statusOf = async (id: number) => (await w.get<{ status: string }>(`/api/contracts/${id}`)).body.status;
    assert.deepEqual([await statusOf(ab), await statusOf(bc), await statusOf(ca), await statusOf(ac)], ['accepted', 'proposed', 'rejected', 'proposed']);
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/contracts?status=proposed&limit=1')), [bc, ac]);
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/contracts?status=rejected,accepted&limit=1')), [ab, ca], 'two statuses, merged in id order');
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/contracts?status=accepted,proposed,rejected&limit=2')), [ab, bc, ca, ac]);
    assert.deepEqual(ids(await walkPages<Listed>(w, `/api/contracts?status=proposed&organization_id=${c.org.id}`)), [bc, ac], 'with an organization: its own, filtered');
    // A cursor written with leading zeros names the same item: the page starts after it.
    const every = ids(await walkPages<Listed>(w, '/api/contracts?limit=1000'));
    assert.deepEqual(ids((await w.get<Listed[]>(`/api/contracts?after_id=00${ab}&limit=1`)).body), [every[every.indexOf(ab) + 1]]);
    assert.deepEqual(ids((await w.get<Listed[]>(`/api/contracts?status=proposed&after_id=0${bc}`)).body), [ac]);
  });

  it('lists establishments of a kind (in any case) as pages, anywhere or at a place', async () => {
    const build = async (who: typeof a, title: string, kind: string) => expectStatus(await w.post('/api/projects', {
      owner_id: who.org.id, title, kind: 'construction', description: 'Built to stand for a hundred years.', location_id: who.org.location_id,
      budget: 100, duration_days: 1, establishment_kind: kind,
    }, who.key), 201);
    await build(a, 'The Amber Inn of Rest', 'Inn');
    await build(b, 'The Birch Smithy', 'smithy');
    await build(c, 'The Cedar Inn', 'inn');
    await build(b, 'The Birch Inn', 'INN');
    await w.tick();
    type Establishment = Listed & { kind: string; location_id: string };
    const every = await walkPages<Establishment>(w, '/api/establishments');
    const inns = every.filter((e) => e.kind.toLowerCase() === 'inn');
    assert.equal(inns.length, 3, JSON.stringify(every));
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/establishments?kind=iNn&limit=1')), ids(inns), 'every inn, one at a time');
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/establishments?kind=inn&location_id=emberfall&limit=1')), ids(inns.filter((e) => e.location_id === 'emberfall')));
    assert.deepEqual(ids(await walkPages<Listed>(w, '/api/establishments?kind=smithy&location_id=greenhollow')), [], 'none of that kind there');
  });
});
