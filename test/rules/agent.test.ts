import assert from 'assert/strict';
import type { AgentEvent, AgentState } from '../../actors/agent/messages';
import { decideFoundOrganization, decideRegister, decideRetire, evolve } from '../../actors/agent/rules';

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
  });
});
