// Idempotency-Key over HTTP: the same key and request within 24 hours answers the first
// answer (status and body) and acts once, also when the twins race or when the first
// attempt stopped between acting and keeping its answer; another request under the key is
// refused with 422; a key is its caller's; no header, no change; a bad header is a 422.
import assert from 'assert/strict';
import crypto from 'crypto';
import { expect422At, foundOrg, historyCount, orgOf } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS } from '../../http/idempotency';

describe('Idempotency-Key over HTTP', () => {
  let w: TestWorld;
  let key: string;
  let orgId: number;
  let n = 0;
  const newKey = () => `key-${process.pid}-${++n}-${Math.random().toString(36).slice(2)}`;
  const trade = (body: Record<string, unknown>, idem?: string, agentKey = key) =>
    w.call('POST', '/api/trade', { key: agentKey, body, headers: idem === undefined ? {} : { 'idempotency-key': idem } });
  const buy = (quantity = 3) => ({ organization_id: orgId, resource: 'food', side: 'buy', quantity });
  const trades = async () => (await w.get(`/api/events?organization_id=${orgId}&category=trade&limit=100`)).body.length;

  before(async () => {
    w = await startTestWorld({ nodes: 1 }); // one node: the tests move this process's clock
    const a = await foundOrg(w, 'Once Only Traders', 'merchant company');
    key = a.key;
    orgId = a.org.id;
  });
  after(async () => { await w.close(); });
  afterEach(() => { w.services.now = () => Date.now(); });

  it('answers a repeated trade with the first answer, and trades once', async () => {
    const k = newKey();
    const treasury = (await orgOf(w, orgId)).treasury;
    const before = await trades();
    const first = await trade(buy(), k);
    assert.equal(first.status, 200, first.text);
    const again = await trade(buy(), k);
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text, 'the same body, byte for byte');
    const third = await w.call('POST', '/api/trade', { key, body: JSON.stringify(buy(), null, 2), headers: { 'idempotency-key': k } });
    assert.equal(third.text, first.text, 'spacing does not make another request');
    assert.equal(await trades(), before + 1, 'one trade in the history');
    assert.equal((await orgOf(w, orgId)).treasury, treasury - first.body.trade.total, 'paid once');
  });

  it('says when an answer is given again', async () => {
    const k = newKey();
    const first = await fetch(`${w.url}/api/trade`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-agent-key': key, 'idempotency-key': k }, body: JSON.stringify(buy(1)) });
    assert.equal(first.headers.get('idempotent-replayed'), null);
    await first.text();
    const again = await fetch(`${w.url}/api/trade`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-agent-key': key, 'idempotency-key': k }, body: JSON.stringify(buy(1)) });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    await again.text();
  });

  it('takes only a random UUID as the key of a registration, which has no agent key to scope it (422 otherwise, nothing registered)', async () => {
    const agents = (await w.get('/api/agents')).body.length;
    const body = { name: 'Guessable Key', model: 'test-model' };
    for (const k of ['agent-registration', newKey(), '00000000-0000-0000-0000-000000000000', '6f1c2d3e-4b5a-1c7d-8e9f-0a1b2c3d4e5f']) {
      const r = await w.call('POST', '/api/agents', { body, headers: { 'idempotency-key': k } });
      assert.equal(r.status, 422, `${k}: ${r.text}`);
      assert.deepEqual(r.body.detail.map((d: { loc: string[]; type: string }) => [d.loc, d.type]), [[['header', 'idempotency-key'], 'string_pattern_mismatch']]);
      assert.match(r.body.detail[0].msg, /random UUID/);
      assert.equal(r.text.includes('wsk_'), false, 'no key given');
    }
    assert.equal((await w.get('/api/agents')).body.length, agents, 'nobody registered');
    // An agent's own routes keep taking any printable key: the agent's key scopes it.
    const own = await w.call('POST', '/api/agents', { body, headers: { 'idempotency-key': crypto.randomUUID().toUpperCase() } });
    assert.equal(own.status, 201, own.text);
  });

  it('founds an organization and registers an agent once, answering the same record and key', async () => {
    const k = crypto.randomUUID();
    const agents = (await w.get('/api/agents')).body.length;
    const body = { name: 'Twice Sent', model: 'test-model' };
    const first = await w.call('POST', '/api/agents', { body, headers: { 'idempotency-key': k } });
    assert.equal(first.status, 201, first.text);
    const again = await w.call('POST', '/api/agents', { body, headers: { 'idempotency-key': k } });
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, first.body, 'the same agent and the same api_key');
    assert.equal((await w.get('/api/agents')).body.length, agents + 1);
    const agentKey = first.body.api_key as string;
    assert.equal((await w.get('/api/agents/me', agentKey)).status, 200, 'the key given again works');

    const orgBody = { name: 'Founded Once', kind: 'merchant company' };
    const founded = await w.call('POST', '/api/organizations', { key: agentKey, body: orgBody, headers: { 'idempotency-key': k } });
    assert.equal(founded.status, 201, founded.text);
    const refounded = await w.call('POST', '/api/organizations', { key: agentKey, body: orgBody, headers: { 'idempotency-key': k } });
    assert.equal(refounded.status, 201);
    assert.deepEqual(refounded.body, founded.body);
    const mine = (await w.get('/api/organizations')).body.filter((o: { agent_id: number }) => o.agent_id === first.body.id);
    assert.equal(mine.length, 1, 'one organization');
    const foundings = (await w.get(`/api/events?agent_id=${first.body.id}&limit=100`)).body.filter((e: { summary: string }) => /Founded Once/.test(e.summary));
    assert.ok(foundings.length >= 1);
    assert.equal(new Set(foundings.map((e: { id: number }) => e.id)).size, foundings.length);
    const history = await historyCount(w);
    await w.call('POST', '/api/organizations', { key: agentKey, body: orgBody, headers: { 'idempotency-key': k } });
    assert.equal(await historyCount(w), history, 'a third try adds nothing to the history');
  });

  it('remembers a refusal: the same request gets the same 409, even once it would succeed', async () => {
    const k = newKey();
    const r = await trade({ organization_id: orgId, resource: 'food', side: 'sell', quantity: 100_000 }, k);
    assert.equal(r.status, 409, r.text);
    const again = await trade({ organization_id: orgId, resource: 'food', side: 'sell', quantity: 100_000 }, k);
    assert.equal(again.status, 409);
    assert.equal(again.text, r.text);
  });

  it('refuses another body, route or query under the same key with 422, and acts on neither', async () => {
    const k = newKey();
    assert.equal((await trade(buy(2), k)).status, 200);
    const before = await trades();
    const treasury = (await orgOf(w, orgId)).treasury;
    const other = await trade(buy(4), k);
    expect422At(other, ['header', 'idempotency-key']);
    const item = other.body.detail.find((d: { loc: string[] }) => d.loc[1] === 'idempotency-key');
    assert.equal(item.type, 'idempotency_key_reused');
    assert.match(item.msg, /different request/);
    const route = await w.call('POST', '/api/suggestions', { key, body: { title: 'A title here', body: 'A body for the suggestion', category: 'feature' }, headers: { 'idempotency-key': k } });
    expect422At(route, ['header', 'idempotency-key']);
    assert.equal(await trades(), before);
    assert.equal((await orgOf(w, orgId)).treasury, treasury);
  });

  it('keeps each caller\'s keys apart: another agent under the same key acts for itself', async () => {
    const k = newKey();
    const other = await foundOrg(w, 'Other Holders', 'merchant company');
    const mine = await trade(buy(1), k);
    const theirs = await trade({ organization_id: other.org.id, resource: 'food', side: 'buy', quantity: 1 }, k, other.key);
    assert.equal(mine.status, 200);
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal(theirs.body.trade.organization_id ?? other.org.id, other.org.id);
    assert.notEqual(theirs.text, mine.text);
  });

  it('acts once when twins race: every one gets the same answer', async () => {
    const k = newKey();
    const before = await trades();
    const treasury = (await orgOf(w, orgId)).treasury;
    const answers = await Promise.all(Array.from({ length: 6 }, () => trade(buy(2), k)));
    for (const a of answers) {
      assert.equal(a.status, 200, a.text);
      assert.equal(a.text, answers[0].text);
    }
    assert.equal(await trades(), before + 1);
    assert.equal((await orgOf(w, orgId)).treasury, treasury - answers[0].body.trade.total);
  });

  it('changes nothing without the header: two trades are two trades', async () => {
    const before = await trades();
    const a = await trade(buy(1));
    const b = await trade(buy(1));
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(await trades(), before + 2);
  });

  it('refuses a key that is empty, longer than 255 characters or not printable ASCII with 422, acting on nothing', async () => {
    const before = await trades();
    for (const bad of ['', 'k'.repeat(256), 'tab\there']) {
      const r = await trade(buy(1), bad);
      expect422At(r, ['header', 'idempotency-key']);
    }
    assert.equal((await trade(buy(1), 'k'.repeat(255))).status, 200, '255 characters are fine');
    assert.equal(await trades(), before + 1);
  });

  it('forgets a key after 24 hours: the same request then acts again', async () => {
    const k = newKey();
    const before = await trades();
    const first = await trade(buy(1), k);
    w.services.now = () => Date.now() + IDEMPOTENCY_TTL_MS - 60_000;
    assert.equal((await trade(buy(1), k)).text, first.text, 'still remembered just before');
    assert.equal(await trades(), before + 1);
    w.services.now = () => Date.now() + IDEMPOTENCY_TTL_MS + 1_000;
    const later = await trade(buy(1), k);
    assert.equal(later.status, 200);
    assert.notEqual(later.text, first.text);
    assert.equal(await trades(), before + 2);
  });

  it('acts once when the first attempt stopped between acting and keeping its answer', async () => {
    const idem = w.services.store.idempotency;
    const complete = idem.complete;
    const k = newKey();
    const before = await trades();
    const treasury = (await orgOf(w, orgId)).treasury;
    idem.complete = async () => false; // the answer is lost, as if the service stopped before keeping it
    let first;
    try {
      first = await trade(buy(2), k);
    } finally {
      idem.complete = complete;
    }
    assert.equal(first.status, 200);
    w.services.now = () => Date.now() + IDEMPOTENCY_LEASE_MS + 1_000; // the lost attempt's lease has run out
    const retry = await trade(buy(2), k);
    assert.equal(retry.status, 200, retry.text);
    assert.deepEqual(retry.body, first.body, 'the location answers its first answer for the same command id');
    assert.equal(await trades(), before + 1);
    assert.equal((await orgOf(w, orgId)).treasury, treasury - first.body.trade.total);

    // The same for a founding: the organization id taken the first time is noted with the claim.
    const agent = await w.register();
    const k2 = newKey();
    idem.complete = async () => false;
    let founded;
    try {
      w.services.now = () => Date.now();
      founded = await w.call('POST', '/api/organizations', { key: agent.key, body: { name: 'Lost Answer Guild', kind: 'merchant company' }, headers: { 'idempotency-key': k2 } });
    } finally {
      idem.complete = complete;
    }
    assert.equal(founded.status, 201, founded.text);
    w.services.now = () => Date.now() + IDEMPOTENCY_LEASE_MS + 1_000;
    const again = await w.call('POST', '/api/organizations', { key: agent.key, body: { name: 'Lost Answer Guild', kind: 'merchant company' }, headers: { 'idempotency-key': k2 } });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body, founded.body);
    const theirs = (await w.get('/api/organizations')).body.filter((o: { agent_id: number }) => o.agent_id === agent.id);
    assert.equal(theirs.length, 1);
  });

  it('acts once for actions whose last step records nothing (a check after their writes): a pledge, a hiring, an acceptance', async () => {
    const idem = w.services.store.idempotency;
    const complete = idem.complete;
    // Each first attempt loses its answer, as if the service stopped before keeping it; each retry comes after the lease.
    const lost = async (path: string, body: Record<string, unknown>, agentKey: string, k: string) => {
      idem.complete = async () => false;
      w.services.now = () => Date.now();
      try {
        return await w.call('POST', path, { key: agentKey, body, headers: { 'idempotency-key': k } });
      } finally {
        idem.complete = complete;
        w.services.now = () => Date.now() + IDEMPOTENCY_LEASE_MS + 1_000;
      }
    };
    const again = (path: string, body: Record<string, unknown>, agentKey: string, k: string) =>
      w.call('POST', path, { key: agentKey, body, headers: { 'idempotency-key': k } });
    const giver = await foundOrg(w, 'Twice Asked Givers', 'merchant company');
    const patron = await foundOrg(w, 'Twice Asked Patrons', 'merchant company');
    const band = await foundOrg(w, 'Twice Asked Band', 'mercenary band');
    const quest = (await w.post('/api/quests', { title: 'Rats in the cellar', description: 'They are everywhere.', requester_id: giver.org.id, location_id: giver.org.location_id, reward: 30 }, giver.key)).body;

    const pledge = { organization_id: patron.org.id, amount: 25 };
    const k1 = newKey();
    const first = await lost(`/api/quests/${quest.id}/sponsors`, pledge, patron.key, k1);
    assert.equal(first.status, 201, first.text);
    const retry = await again(`/api/quests/${quest.id}/sponsors`, pledge, patron.key, k1);
    assert.equal(retry.status, 201, retry.text);
    assert.deepEqual(retry.body, first.body, 'the quest answers its first answer for the same command id');
    assert.equal((await w.get(`/api/quests/${quest.id}`)).body.reward, 55, 'pledged once');
    assert.equal((await orgOf(w, patron.org.id)).treasury, patron.org.treasury - 25, 'paid once');

    const adventurer = (await w.get('/api/adventurers')).body.find((a: { status: string }) => a.status === 'available');
    const hire = { organization_id: band.org.id, adventurer_id: adventurer.id };
    const k2 = newKey();
    const hired = await lost('/api/adventurers/hire', hire, band.key, k2);
    assert.equal(hired.status, 200, hired.text);
    const hiredAgain = await again('/api/adventurers/hire', hire, band.key, k2);
    assert.equal(hiredAgain.status, 200, hiredAgain.text);
    assert.deepEqual(hiredAgain.body, hired.body);

    const k3 = newKey();
    const accepted = await lost(`/api/quests/${quest.id}/accept`, { organization_id: band.org.id }, band.key, k3);
    assert.equal(accepted.status, 200, accepted.text);
    const acceptedAgain = await again(`/api/quests/${quest.id}/accept`, { organization_id: band.org.id }, band.key, k3);
    assert.equal(acceptedAgain.status, 200, acceptedAgain.text);
    assert.deepEqual(acceptedAgain.body, accepted.body);
    w.services.now = () => Date.now();
  });
});
