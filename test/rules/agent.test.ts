import assert from 'assert/strict';
import type { AgentEvent, AgentState } from '../../actors/agent/messages';
import { decideFoldKey, decideFoundOrganization, decideOrganizationEnded, decideRegister, decideRetire, decideRetirementAnswer, evolve } from '../../actors/agent/rules';

const registered = (): AgentState => {
  const d = decideRegister(null, { type: 'register', id: 3, name: 'Ada', model: 'm', key_hash: 'h', day: 1 });
  assert.ok('events' in d);
  return d.events.reduce(evolve, null as AgentState);
};

const apply = (s: AgentState, d: { events: AgentEvent[] } | { refusal: unknown }) => {
  assert.ok('events' in d, JSON.stringify(d));
  return d.events.reduce(evolve, s);
};

describe('agent rules', () => {
  it('registers once', () => {
    const s = registered();
    assert.equal(s!.status, 'active');
    const again = decideRegister(s, { type: 'register', id: 3, name: 'Ada', model: 'm', key_hash: 'h', day: 1 });
    assert.ok('refusal' in again && again.refusal.status === 409);
  });

  describe('the folded hash of a key (http/key-in-text.ts)', () => {
    const fold = { type: 'fold-key', key_hash: 'h', folded_key_hash: 'folded:f' } as const;

    it('is kept once for a key registered without one, and only for the key\'s own hash', () => {
      const s = registered();
      assert.equal(s!.key_folded, false);
      const d = decideFoldKey(s, fold);
      assert.deepEqual(d, { events: [{ type: 'key-folded', agent_id: 3, folded_key_hash: 'folded:f' }] });
      const after = apply(s, d);
      assert.equal(after!.key_folded, true);
      assert.deepEqual(decideFoldKey(after, fold), { events: [] }, 'once');
      const stranger = decideFoldKey(s, { ...fold, key_hash: 'other' });
      assert.ok('refusal' in stranger && stranger.refusal.status === 403);
      const nobody = decideFoldKey(null, fold);
      assert.ok('refusal' in nobody && nobody.refusal.status === 404);
    });

    it('is kept from registration when the registration carries it', () => {
      const d = decideRegister(null, { type: 'register', id: 4, name: 'Bo', model: 'm', key_hash: 'h', folded_key_hash: 'folded:g', day: 1 });
      const s = apply(null, d);
      assert.equal(s!.key_folded, true);
      assert.deepEqual(decideFoldKey(s, fold), { events: [] });
    });
  });

  describe('one active organization (core rule 3)', () => {
    it('founds a first organization', () => {
      const s = apply(registered(), decideFoundOrganization(registered(), 10, false, 1));
      assert.equal(s!.current_organization_id, 10);
      assert.deepEqual(s!.organization_ids, [10]);
    });

    it('refuses a second while the first is active', () => {
      const s = apply(registered(), decideFoundOrganization(registered(), 10, false, 1));
      const d = decideFoundOrganization(s, 11, true, 2);
      assert.ok('refusal' in d);
      assert.equal(d.refusal.status, 409);
    });

    it('names no current organization once it has ended, and keeps it among those it founded', () => {
      const s = apply(registered(), decideFoundOrganization(registered(), 10, false, 1));
      const ended = apply(s, decideOrganizationEnded(s, 10, 4));
      assert.equal(ended!.current_organization_id, null);
      assert.deepEqual(ended!.organization_ids, [10]);
      assert.deepEqual(decideOrganizationEnded(ended, 10, 5), { events: [] }, 'told again, nothing changes');
      const next = apply(ended, decideFoundOrganization(ended, 11, false, 9));
      assert.deepEqual(decideOrganizationEnded(next, 10, 9), { events: [] }, 'the end of an older one leaves the new one current');
      assert.deepEqual(decideOrganizationEnded(null, 10, 9), { events: [] }, 'an unknown agent has nothing to change');
    });

    it('allows a new one once the first has ended', () => {
      const s = apply(registered(), decideFoundOrganization(registered(), 10, false, 1));
      const after = apply(s, decideFoundOrganization(s, 11, false, 9));
      assert.deepEqual(after!.organization_ids, [10, 11]);
      assert.equal(after!.current_organization_id, 11);
    });
  });

  describe('retirement (core rule 25)', () => {
    it('keeps the reason and blocks further actions', () => {
      const s = apply(registered(), decideRetire(registered(), 'I have finished my story.', 4));
      assert.equal(s!.status, 'retired');
      assert.equal(s!.retirement_reason, 'I have finished my story.');
      const d = decideFoundOrganization(s, 12, false, 5);
      assert.ok('refusal' in d && d.refusal.status === 403);
      const again = decideRetire(s, 'once more please', 5);
      assert.ok('refusal' in again && again.refusal.status === 403);
    });

    describe('with an organization: its intent first, retired once the organization marked it', () => {
      const founder = () => apply(registered(), decideFoundOrganization(registered(), 10, false, 1));
      const begun = () => apply(founder(), decideRetire(founder(), 'The story is told.', 4));

      it('records the intent, naming the organization to tell, and stays active until then', () => {
        const d = decideRetire(founder(), 'The story is told.', 4);
        assert.deepEqual(d, { events: [{ type: 'retirement-begun', day: 4, reason: 'The story is told.', organization_id: 10 }] });
        const s = begun();
        assert.equal(s!.status, 'active');
        assert.deepEqual(s!.retiring, { day: 4, reason: 'The story is told.', organization_id: 10 });
      });

      it('retires with the reason and day of its intent once the organization answered, or has no record of it', () => {
        for (const answer of [{ ok: true } as const, { ok: false, refusal: { status: 404, detail: 'organization not found' } } as const]) {
          const d = decideRetirementAnswer(begun(), answer);
          assert.deepEqual(d, { events: [{ type: 'retired', day: 4, reason: 'The story is told.' }] });
          const s = apply(begun(), d!);
          assert.equal(s!.status, 'retired');
          assert.equal(s!.retired_day, 4);
          assert.equal(s!.retiring, null);
        }
      });

      it('stays pending when the answer is unknown, and is not begun twice', () => {
        assert.equal(decideRetirementAnswer(begun(), { ok: false, refusal: { status: 503, detail: 'timeout' } }), null);
        assert.equal(decideRetirementAnswer(begun(), { ok: false, refusal: { status: 422, detail: 'the organization entity does not handle the command "retire-controller"' } }), null, 'never retired without the mark');
        assert.deepEqual(decideRetire(begun(), 'another reason here', 6), { events: [] }, 'the one under way is finished, with its own reason');
        assert.deepEqual(decideRetirementAnswer(registered(), { ok: true }), { events: [] }, 'nothing under way, nothing to record');
      });
    });
  });
});
