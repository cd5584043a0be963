// The end of an employed adventurer's career (adventurer -> organization, begun by the
// day's settling) stays whole across a crash (actors/intents.ts). The process dies at each
// write of it: the adventurer's intent, the organization's side, the adventurer's record
// that it left, its death. The world is reopened on the same folder: what began is
// finished at start-up, once on both sides; what did not begin, or only its death, the
// next day does; and between the two nobody can hire an adventurer past its career.
import assert from 'assert/strict';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { assertBooks, failWrite, mark, pendingIntents, useSagaWorlds } from '../support/sagas';
import type { TestWorld } from '../support/world';

interface Adventurer { id: number; name: string; status: string; organization_id: number | null; career_end_day: number | null }

describe('the end of an employed adventurer\'s career survives a crash at every step', function () {
  this.timeout(180_000);
  const { fresh, restart } = useSagaWorlds('worldsim-saga-career-');

  /** An organization that employs the available adventurer whose career ends first, and the world's day just before that end. */
  async function scene(w: TestWorld) {
    const a = await foundOrg(w, 'Old Hands', 'adventuring company', 'emberfall');
    const listed = (await w.get<Adventurer[]>('/api/adventurers?limit=100')).body.filter((x) => x.status === 'available');
    const profiles = await Promise.all(listed.map(async (x) => (await w.get<Adventurer>(`/api/adventurers/${x.id}`)).body));
    const veteran = profiles.sort((x, y) => x.career_end_day! - y.career_end_day! || x.id - y.id)[0];
    expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: veteran.id }, a.key), 200);
    let day = (await w.get<{ day: number }>('/api/world')).body.day;
    while (day < veteran.career_end_day! - 1) day = await w.tick();
    return { a, veteran };
  }

  const adventurer = async (w: TestWorld, id: number) => (await w.get<Adventurer>(`/api/adventurers/${id}`)).body;
  const employees = async (w: TestWorld, org: number) => (await w.get<{ employees: number[] }>(`/api/organizations/${org}`)).body.employees;
  const told = async (w: TestWorld, org: number, veteran: Adventurer) => {
    const events = (await w.get<Array<{ summary: string }>>(`/api/events?organization_id=${org}&limit=100`)).body;
    const deaths = (await w.get<Array<{ summary: string }>>('/api/events?category=death&limit=100')).body;
    return {
      left: events.filter((e) => e.summary === `${veteran.name} left Old Hands (its career is over)`).length,
      died: deaths.filter((e) => e.summary === `${veteran.name} died of old age`).length,
    };
  };

  for (const [where, key, eventType] of [
    ['before the organization records it', 'organization', 'adventurer-left'],
    ['after the organization recorded it, before the adventurer does', 'adventurer', 'released'],
  ] as const) {
    it(`crash ${where}: finished at start-up, once on both sides, and the adventurer dies`, async () => {
      let w = await fresh();
      const { a, veteran } = await scene(w);
      const before = await mark(w);
      failWrite(w, key === 'adventurer' ? `adventurer:${veteran.id}` : `organization:${a.org.id}`, eventType);
      await w.tick();
      assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['adventurer', veteran.id, 'release']]);
      w = await restart(w);
      assert.deepEqual(await pendingIntents(w), []);
      const after = await adventurer(w, veteran.id);
      assert.equal(after.status, 'dead');
      assert.equal(after.organization_id, null);
      assert.deepEqual(await employees(w, a.org.id), []);
      assert.deepEqual(await told(w, a.org.id, veteran), { left: 1, died: 1 });
      await assertBooks(w, before);
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      assert.deepEqual(await mark(w), again);
    });
  }

  it('crash before the adventurer records its intent: nothing happened; the next day it leaves and dies', async () => {
    let w = await fresh();
    const { a, veteran } = await scene(w);
    failWrite(w, `adventurer:${veteran.id}`, 'employment-begun');
    await w.tick();
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    assert.equal((await adventurer(w, veteran.id)).status, 'employed');
    assert.deepEqual(await employees(w, a.org.id), [veteran.id]);
    await w.tick();
    assert.equal((await adventurer(w, veteran.id)).status, 'dead');
    assert.deepEqual(await employees(w, a.org.id), []);
    assert.deepEqual(await told(w, a.org.id, veteran), { left: 1, died: 1 });
  });

  it('crash after it left, before its death: nobody can hire it (409); the next day it dies', async () => {
    let w = await fresh();
    const { a, veteran } = await scene(w);
    failWrite(w, `adventurer:${veteran.id}`, 'aged-out');
    await w.tick();
    w = await restart(w);
    assert.deepEqual(await pendingIntents(w), []);
    const left = await adventurer(w, veteran.id);
    assert.equal(left.status, 'available');
    assert.deepEqual(await employees(w, a.org.id), []);
    const hire = await w.post<{ detail: string }>('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: veteran.id }, a.key);
    expectStatus(hire, 409);
    assert.match(hire.body.detail, /career ended on day \d+; it takes no more work/);
    await w.tick();
    assert.equal((await adventurer(w, veteran.id)).status, 'dead');
    assert.deepEqual(await told(w, a.org.id, veteran), { left: 1, died: 1 });
  });
});
