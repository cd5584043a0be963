// The follow-up of an organization's end stays whole across a crash (actors/intents.ts,
// actors/organization/ending.ts). An organization with an employed adventurer, a quest
// it requested (with another organization's pledge), a pledge to another's quest, an
// accepted and a proposed contract and an alliance is dissolved; the process dies before
// each step of what follows (the adventurer freed, the quest withdrawn, the pledge
// returned, each contract closed, the alliance ended, its agent told it controls it no
// more, the organization's record that it
// is done), or inside the quest's withdrawal after it paid its funders back, or as a
// contract records its closing. The world is reopened on the same folder: at start-up the follow-up
// is finished, every piece of it, no gold is created or destroyed, and running it again
// pays nobody twice.
import assert from 'assert/strict';
import fs from 'fs';
import sinon from 'sinon';
import { completeEnding } from '../../actors/organization/ending';
import { resumeIntents } from '../../actors/intents';
import { expectStatus, foundOrg } from '../support/http';
import { CRASH, allEvents, assertBooks, failWrite, mark, pendingIntents, worldOn } from '../support/sagas';
import { tempDir, type TestWorld } from '../support/world';

const questBody = (requester: number, reward: number) => ({
  title: 'Trouble in town', description: 'Something must be done about it.', requester_id: requester, location_id: 'emberfall', reward,
});

/** The steps of the follow-up, by the command each sends (the accepted contract is closed first: it has the lower id). */
const STEPS = ['freed', 'organization-ended', 'sponsor-ended', 'party-ended', 'party-ended', 'member-ended', 'own-organization-ended', 'ending-followed'] as const;
const stepName = (i: number) => (STEPS[i] === 'party-ended' ? `party-ended" (the ${STEPS[i - 1] === 'party-ended' ? 'proposed' : 'accepted'} contract)` : `${STEPS[i]}"`);

interface Scene {
  a: Awaited<ReturnType<typeof foundOrg>>; b: Awaited<ReturnType<typeof foundOrg>>; adventurer: number; ownQuest: number; othersQuest: number; alliance: number;
  /** A contract it proposed that its partner accepted, and one its partner proposed to it. */
  acceptedContract: number; proposedContract: number;
}

const contractBody = (from: number, to: number, title: string) => ({ proposer_id: from, counterparty_id: to, title, terms: 'Paid in gold on delivery.', value: 30, resource: null, quantity: 0 });

async function scene(w: TestWorld): Promise<Scene> {
  const a = await foundOrg(w, 'Ending House', 'merchant company', 'emberfall');
  const b = await foundOrg(w, 'Survivor House', 'merchant company', 'emberfall');
  const free = (await w.get<Array<{ id: number; status: string }>>('/api/adventurers')).body.find((x) => x.status === 'available')!;
  expectStatus(await w.post('/api/adventurers/hire', { organization_id: a.org.id, adventurer_id: free.id }, a.key), 200);
  const own = await w.post('/api/quests', questBody(a.org.id, 20), a.key);
  expectStatus(own, 201);
  expectStatus(await w.post(`/api/quests/${own.body.id}/sponsors`, { organization_id: b.org.id, amount: 10 }, b.key), 201);
  const others = await w.post('/api/quests', questBody(b.org.id, 20), b.key);
  expectStatus(others, 201);
  expectStatus(await w.post(`/api/quests/${others.body.id}/sponsors`, { organization_id: a.org.id, amount: 5 }, a.key), 201);
  const alliance = await w.call('POST', '/api/alliances', { key: a.key, body: { proposer_id: a.org.id, counterparty_id: b.org.id, terms: 'We stand together on the roads.' } });
  expectStatus(alliance, 201);
  expectStatus(await w.post(`/api/alliances/${alliance.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
  const accepted = await w.post('/api/contracts', contractBody(a.org.id, b.org.id, 'Escort to the coast'), a.key);
  expectStatus(accepted, 201);
  expectStatus(await w.post(`/api/contracts/${accepted.body.id}/accept`, { organization_id: b.org.id }, b.key), 200);
  const proposed = await w.post('/api/contracts', contractBody(b.org.id, a.org.id, 'Lanterns for the hall'), b.key);
  expectStatus(proposed, 201);
  return { a, b, adventurer: free.id, ownQuest: own.body.id, othersQuest: others.body.id, alliance: alliance.body.id, acceptedContract: accepted.body.id, proposedContract: proposed.body.id };
}

/** Its contracts are closed (rejected, with the reason), once each in the history, and its partner lists neither. */
async function assertContractsClosed(w: TestWorld, s: Scene, how: 'went bankrupt' | 'was dissolved') {
  const events = await allEvents(w);
  for (const id of [s.acceptedContract, s.proposedContract]) {
    const c = (await w.get(`/api/contracts/${id}`)).body;
    assert.equal(c.status, 'rejected', `contract ${id} closed`);
    assert.equal(c.end_reason, `organization ${s.a.org.id} (Ending House) ${how}`);
    assert.equal(events.filter((e) => e.category === 'contract' && (e.data as { contract_id?: number })?.contract_id === id && /closed unfulfilled/.test(e.summary)).length, 1, `one closing of contract ${id} in the history`);
  }
  assert.deepEqual((await w.get(`/api/organizations/${s.b.org.id}`)).body.contracts, [], 'its partner lists no live contract');
}

/** Everything that follows the end is done. */
async function assertFollowed(w: TestWorld, s: Scene, bTreasury: number) {
  assert.deepEqual(await pendingIntents(w), [], 'no intent is left pending');
  const me = (await w.get('/api/agents/me', s.a.key)).body;
  assert.equal(me.current_organization_id, null, 'its agent controls no organization now');
  assert.ok(me.organization_ids.includes(s.a.org.id), 'and still lists the one it founded');
  const adv = (await w.get(`/api/adventurers/${s.adventurer}`)).body;
  assert.equal(adv.status, 'available', 'the adventurer is free');
  assert.equal(adv.organization_id, null);
  assert.equal((await w.get(`/api/quests/${s.ownQuest}`)).body.status, 'withdrawn', 'the quest it requested is withdrawn');
  const others = (await w.get(`/api/quests/${s.othersQuest}`)).body;
  assert.equal(others.status, 'open');
  assert.deepEqual(others.sponsors, [], 'its pledge went back to it');
  assert.equal(others.reward, 20);
  assert.equal((await w.get(`/api/alliances`)).body.find((x: { id: number }) => x.id === s.alliance).status, 'ended', 'its alliance ended');
  await assertContractsClosed(w, s, 'was dissolved');
  const a = (await w.get(`/api/organizations/${s.a.org.id}`)).body;
  assert.equal(a.status, 'dissolved');
  assert.equal(a.treasury, 0, 'the refunds that reached it passed to the world');
  assert.equal((await w.get(`/api/organizations/${s.b.org.id}`)).body.treasury, bTreasury + 10, 'its partner got its pledge back, once');
}

describe('the follow-up of an organization\'s end survives a crash at every step', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  let worlds: TestWorld[] = [];
  afterEach(async () => {
    sinon.restore();
    for (const w of worlds) await w.close();
    worlds = [];
  });
  after(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

  const open = async (dir: string) => { const w = await worldOn(dir); worlds.push(w); return w; };
  const close = async (w: TestWorld) => { sinon.restore(); await w.close(); worlds = worlds.filter((x) => x !== w); };

  for (let crashAt = 0; crashAt <= STEPS.length; crashAt++) {
    const where = crashAt < STEPS.length ? `before "${stepName(crashAt)}` : 'after the last step (no crash)';
    it(`dissolution, crash ${where}: finished at start-up, every step once`, async () => {
      const dir = tempDir('worldsim-saga-ending-');
      dirs.push(dir);
      let w = await open(dir);
      const s = await scene(w);
      const before = await mark(w);
      const bTreasury = (await w.get(`/api/organizations/${s.b.org.id}`)).body.treasury;
      // From the crashing step on, nothing reaches the actors any more: the process is gone.
      let seen = 0;
      let dead = false;
      const ask = w.services.entities.ask.bind(w.services.entities);
      sinon.stub(w.services.entities, 'ask').callsFake(((kind: string, id: string | number, command: { type: string }, timeout?: number) => {
        if ((STEPS as readonly string[]).includes(command.type) && seen++ === crashAt) dead = true;
        return dead ? Promise.resolve(CRASH) : ask(kind as never, id, command as never, timeout);
      }) as never);
      const dissolved = await w.post(`/api/organizations/${s.a.org.id}/dissolve`, undefined, s.a.key);
      expectStatus(dissolved, 200);
      assert.equal(dissolved.body.status, 'dissolved', 'the answer is the one it always was: the dissolution is durable');
      if (crashAt < STEPS.length) {
        assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['organization', s.a.org.id, 'ending']], 'the end is pending');
      }
      await close(w);

      w = await open(dir);
      await assertFollowed(w, s, bTreasury);
      await assertBooks(w, before);
      // Run again, by the recovery and by hand: nothing changes, nobody is paid twice.
      const again = await mark(w);
      assert.equal(await resumeIntents(w.services.entities, w.services.read), 0);
      assert.equal(await completeEnding(w.services.entities, w.services.read, s.a.org.id, 1, 'dissolution'), null);
      assert.deepEqual(await mark(w), again, 'a repeated follow-up changes nothing');
      await assertFollowed(w, s, bTreasury);
    });
  }

  it('dissolution, crash inside the quest\'s withdrawal (after it paid its funders back): finished at start-up, paid once', async () => {
    const dir = tempDir('worldsim-saga-ending-');
    dirs.push(dir);
    let w = await open(dir);
    const s = await scene(w);
    const before = await mark(w);
    const bTreasury = (await w.get(`/api/organizations/${s.b.org.id}`)).body.treasury;
    failWrite(w, `quest:${s.ownQuest}`, 'withdrawn');
    expectStatus(await w.post(`/api/organizations/${s.a.org.id}/dissolve`, undefined, s.a.key), 200);
    assert.equal((await w.get(`/api/quests/${s.ownQuest}`)).body.status, 'open', 'the quest did not record its withdrawal');
    assert.equal((await w.get(`/api/organizations/${s.b.org.id}`)).body.treasury, bTreasury + 10, 'though its sponsor was paid back');
    await close(w);

    w = await open(dir);
    await assertFollowed(w, s, bTreasury);
    await assertBooks(w, before);
  });

  it('dissolution, crash as a contract records its closing: finished at start-up, closed once, nothing moved', async () => {
    const dir = tempDir('worldsim-saga-ending-');
    dirs.push(dir);
    let w = await open(dir);
    const s = await scene(w);
    const before = await mark(w);
    const bTreasury = (await w.get(`/api/organizations/${s.b.org.id}`)).body.treasury;
    failWrite(w, `contract:${s.proposedContract}`, 'closed');
    expectStatus(await w.post(`/api/organizations/${s.a.org.id}/dissolve`, undefined, s.a.key), 200);
    assert.equal((await w.get(`/api/contracts/${s.acceptedContract}`)).body.status, 'rejected', 'the first contract closed');
    assert.equal((await w.get(`/api/contracts/${s.proposedContract}`)).body.status, 'proposed', 'the second did not record its closing');
    assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id, p.intent]), [['organization', s.a.org.id, 'ending']], 'the end is pending');
    await close(w);

    w = await open(dir);
    await assertFollowed(w, s, bTreasury);
    await assertBooks(w, before);
  });

  it('bankruptcy, follow-up cut short: the next tick finishes it', async () => {
    const dir = tempDir('worldsim-saga-ending-');
    dirs.push(dir);
    const w = await open(dir);
    const s = await scene(w);
    // Spend it down so that the next day's upkeep bankrupts it.
    const treasury = (await w.get(`/api/organizations/${s.a.org.id}`)).body.treasury;
    expectStatus(await w.post('/api/quests', questBody(s.a.org.id, treasury), s.a.key), 201);
    const before = await mark(w);
    const bTreasury = (await w.get(`/api/organizations/${s.b.org.id}`)).body.treasury;
    const ask = w.services.entities.ask.bind(w.services.entities);
    const stub = sinon.stub(w.services.entities, 'ask').callsFake(((kind: string, id: string | number, command: { type: string }, timeout?: number) =>
      (command.type === 'freed' ? Promise.resolve(CRASH) : ask(kind as never, id, command as never, timeout))) as never);
    await w.tick();
    assert.equal((await w.get(`/api/organizations/${s.a.org.id}`)).body.status, 'bankrupt');
    assert.deepEqual((await pendingIntents(w)).map((p) => [p.kind, p.id]), [['organization', s.a.org.id]], 'its end is pending');
    stub.restore();
    await w.tick();
    assert.deepEqual(await pendingIntents(w), []);
    // Freed, it may be hired the same day by an organization of the world (docs/decisions.md, "The world's organizations").
    const freed = (await w.get(`/api/adventurers/${s.adventurer}`)).body;
    assert.ok(freed.status === 'available' || (freed.status === 'employed' && freed.organization_id !== s.a.org.id), JSON.stringify(freed));
    assert.equal((await w.get(`/api/quests/${s.ownQuest}`)).body.status, 'withdrawn');
    assert.deepEqual((await w.get(`/api/quests/${s.othersQuest}`)).body.sponsors, []);
    // A bankrupt member's alliance is its partner's to end (core rule 7); its contracts close with it all the same.
    assert.equal((await w.get('/api/alliances')).body.find((x: { id: number }) => x.id === s.alliance).status, 'active');
    await assertContractsClosed(w, s, 'went bankrupt');
    const b = (await w.get(`/api/organizations/${s.b.org.id}`)).body;
    assert.equal(b.treasury, bTreasury + 10 - 2 * b.daily_maintenance, 'its partner got its pledge back once (and paid two days of upkeep)');
    await assertBooks(w, before);
  });
});
