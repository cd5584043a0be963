// Issue 12, security: no live agent key reaches public text, whoever's it is and however
// it is written (other letter case, split by spaces, line breaks or punctuation, without
// its prefix). A refused text changes nothing; text that only looks like a key passes.
import assert from 'assert/strict';
import fs from 'fs';
import { hashKey, newAgentKey } from '../../http/auth';
import { candidateHashes, foldedKeyHash } from '../../http/key-in-text';
import { expectStatus, foundOrg, expect422At, historyCount } from '../support/http';
import { waitFor } from '../support/wait';
import { startTestWorld, type TestWorld } from '../support/world';

/** The key's 32 characters after `wsk_`, in groups of `n` joined by `sep`. */
const split = (key: string, n: number, sep: string) => `wsk_${key.slice(4).match(new RegExp(`.{1,${n}}`, 'g'))!.join(sep)}`;

describe('security: agent keys in public text', function () {
  this.timeout(60_000);
  let w: TestWorld;
  let sender: { key: string; org: { id: number } };
  let other: { id: number; key: string };

  before(async () => {
    w = await startTestWorld();
    sender = await foundOrg(w, 'Loose Lips Trading');
    other = await w.register('Victim Vera');
  });
  after(async () => { await w.close(); fs.rmSync(w.dataDir, { recursive: true, force: true }); });

  const publicMessages = async () => (await w.get('/api/messages')).body.length as number;
  const send = (text: string) => w.post('/api/messages', { sender_id: sender.org.id, recipient_id: null, body: text }, sender.key);

  const forms = (key: string, own: boolean): Array<[string, string]> => [
    ['verbatim', `look: ${key} !`],
    ['upper-cased', `LOOK: ${key.toUpperCase()}`],
    ['lower-cased', key.toLowerCase()],
    ['split by spaces', split(key, 4, ' ')],
    ['split by line breaks', split(key, 8, '\n')],
    ['split by hyphens and dots', split(key, 3, '-.')],
    ['with its prefix upper-cased and split', `W S K _ ${split(key, 5, ' ').slice(4)}`],
    ['without its prefix', `the part that matters is ${key.slice(4)}`],
    ['without its prefix, upper-cased', `the part that matters is ${key.slice(4).toUpperCase()}.`],
    // Split and without its prefix, a key is recognised only where it is known: the caller's own.
    ...(own ? [['without its prefix, upper-cased and split', key.slice(4).toUpperCase().match(/.{1,4}/g)!.join(' ')] as [string, string]] : []),
  ];

  for (const whose of ['the caller\'s own', 'another agent\'s'] as const) {
    it(`refuses ${whose} key in a public message in every recognisable form (422 at body.body), changing nothing`, async () => {
      const key = whose === 'another agent\'s' ? other.key : sender.key;
      const [messages, history, treasury] = [await publicMessages(), await historyCount(w), (await w.get(`/api/organizations/${sender.org.id}`)).body.treasury];
      for (const [form, text] of forms(key, whose !== 'another agent\'s')) {
        const r = await send(text);
        assert.equal(r.status, 422, `${form}: ${r.status} ${r.text}`);
        expect422At(r, ['body', 'body']);
        assert.equal(r.body.detail[0].type, 'api_key_in_text', form);
        assert.ok(!r.text.includes(key.slice(4)) && !r.text.toLowerCase().includes(key.slice(4).toLowerCase()), `${form}: the refusal does not echo the key`);
      }
      assert.equal(await publicMessages(), messages, 'no message was posted');
      assert.equal(await historyCount(w), history, 'no history');
      assert.equal((await w.get(`/api/organizations/${sender.org.id}`)).body.treasury, treasury, 'no gold charged');
    });
  }

  it('refuses another agent\'s key in an organization\'s motto and in a registration (a route without a key)', async () => {
    const motto = await w.call('PATCH', `/api/organizations/${sender.org.id}`, { key: sender.key, body: { motto: other.key.toUpperCase() } });
    expect422At(motto, ['body', 'motto']);
    const register = await w.post('/api/agents', { name: 'Copycat', model: split(other.key, 8, ' ') });
    expect422At(register, ['body', 'model']);
    const agents = (await w.get('/api/agents')).body as any;
    assert.ok(!JSON.stringify(agents).includes('Copycat'), 'nobody registered');
  });

  it('refuses an operator key (admin or spectator) as a word of public text, changing nothing; a mere likeness passes', async () => {
    const [messages, history] = [await publicMessages(), await historyCount(w)];
    const [admin, spectator] = [w.keys.admin!, w.keys.spectator!];
    for (const text of [`admin is ${admin}`, `"${spectator}".`, `the key:\n${admin},then`, `(${spectator})`]) {
      const r = await send(text);
      expect422At(r, ['body', 'body']);
      assert.equal(r.body.detail[0].type, 'api_key_in_text');
      assert.match(r.body.detail[0].msg, /operator key/);
      assert.ok(!r.text.includes(admin) && !r.text.includes(spectator), 'the refusal does not echo the key');
    }
    expect422At(await w.call('PATCH', `/api/organizations/${sender.org.id}`, { key: sender.key, body: { motto: `ask ${admin}` } }), ['body', 'motto']);
    assert.equal(await publicMessages(), messages, 'no message was posted');
    assert.equal(await historyCount(w), history, 'no history');
    for (const text of [`admin is ${admin.slice(0, -1)}`, `${admin}x`]) assert.equal((await send(text)).status, 201, text);
  });

  it('accepts text that only looks like a key: a key nobody holds, the word wsk, a long token', async () => {
    const unknown = newAgentKey();
    for (const text of [`not a real one: ${unknown}`, unknown.toUpperCase(), 'wsk wsk wsk_ and wskAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'x'.repeat(32)]) {
      const r = await send(text);
      assert.equal(r.status, 201, `${text}: ${r.text}`);
    }
  });

  it('recognises a key registered before folded hashes were kept: verbatim or split by spaces at once, in every form once it is used', async () => {
    // An agent as an older version registered it: only the hash of the key itself is kept.
    const key = newAgentKey();
    const id = await w.services.store.nextId('agent');
    const r = await w.services.entities.ask('agent', id, { type: 'register', id, name: 'Old Olga', model: 'old-model', key_hash: hashKey(key), day: await w.services.day() });
    assert.equal((r as { ok: boolean }).ok, true);
    assert.equal(await w.services.read.agentForKeyHash(foldedKeyHash(key)), undefined, 'no folded hash for it');
    expect422At(await send(`psst ${key}`), ['body', 'body']);
    expect422At(await send(split(key, 4, ' ')), ['body', 'body']);

    // Once the key is used, its folded hash is kept, and every form of it is recognised.
    assert.equal((await w.get('/api/agents/me', key)).status, 200);
    await waitFor(async () => await w.services.read.agentForKeyHash(foldedKeyHash(key)) !== undefined, 'the folded hash to be kept after the key is used', 5_000, 20);
    assert.equal(await w.services.read.agentForKeyHash(foldedKeyHash(key)), id);
    for (const [, text] of forms(key, false)) expect422At(await send(text), ['body', 'body']);
    assert.equal(await w.services.read.agentForKeyHash(hashKey(foldedKeyHash(key))), undefined);
    expectStatus(await w.get('/api/agents/me', foldedKeyHash(key)), 401);
  });

  it('keeps the number of lookups per text small', () => {
    // One key in a text: a handful of candidate hashes, not one per agent.
    assert.ok(candidateHashes(`hello ${newAgentKey()} there`).size <= 20);
    assert.ok(candidateHashes('wsk'.repeat(2000)).size <= 401, 'a text full of markers is cut off');
  });
});
