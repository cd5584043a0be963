import assert from 'assert/strict';
import { MAX_CATCH_UP_DAYS } from '../../actors/clock/rules';
import { organizationKind } from '../../actors/organization/actor';
import { compareIds } from '../../actors/ports/store';
import { trustPairOf, trustRowId } from '../../actors/relationship/rules';
import type { FoundCommand, Organization, OrganizationEvent, OrganizationState } from '../../actors/organization/messages';
import {
  DEFAULT_TREASURY, TREASURY_BOUNDS, checkControl, decideDay, decideDissolve, decideFound, decideRecordTrust, decideRetireController, decideUpdate, evolve, maintenanceCost, startingTreasury,
} from '../../actors/organization/rules';

const found = (over: Partial<FoundCommand> = {}): FoundCommand => ({
  type: 'found', id: 7, agent_id: 1, name: 'Lantern Co', kind: 'merchant company', location_id: 'emberfall',
  description: '', goals: '', motto: '', day: 1, ...over,
});

function apply(state: OrganizationState, d: { events: OrganizationEvent[] } | { refusal: unknown }): OrganizationState {
  assert.ok('events' in d, `expected events, got ${JSON.stringify(d)}`);
  return d.events.reduce(evolve, state);
}

const org = (over: Partial<Organization> = {}): Organization => ({ ...(apply(null, decideFound(null, found())) as Organization), ...over });

describe('organization rules', () => {
  describe('its trust as rows of their own (GET /api/relationships)', () => {
    it('records its trust when it has any, whatever its status, and changes nothing of its state; 404 for none', () => {
      const trusting = org({ trust: { '9': 12, '3': -4 }, status: 'dissolved' });
      const d = decideRecordTrust(trusting, 5);
      assert.deepEqual('events' in d && d.events, [{ type: 'trust-recorded', day: 5 }]);
      assert.equal(apply(trusting, d), trusting, 'the state is as it was');
      assert.deepEqual(decideRecordTrust(org(), 5), { events: [] }, 'no trust, nothing to write');
      assert.equal((decideRecordTrust(null, 5) as { refusal: { status: number } }).refusal.status, 404);
    });

    it('writes a row for each organization it scores, keyed so the rows sort by the pair, carrying the pair as the listing names it', () => {
      const o = org({ id: 12, trust: { '9': 12, '100': -4 } });
      const rows = organizationKind.eventRows!({ type: 'trust-recorded', day: 5 }, o);
      assert.deepEqual(rows.map((r) => [r.kind, r.id, r.organization_id, r.doc]), [
        ['trust', trustRowId(12, 9), 12, { id: '12-9', organization_id: 12, other_organization_id: 9, organization_ids: [12, 9], trust: 12 }],
        ['trust', trustRowId(12, 100), 12, { id: '12-100', organization_id: 12, other_organization_id: 100, organization_ids: [12, 100], trust: -4 }],
      ]);
      assert.deepEqual(trustPairOf(trustRowId(12, 100)), [12, 100]);
      const ids = [trustRowId(12, 100), trustRowId(9, 2), trustRowId(12, 9), trustRowId(100, 1)];
      assert.deepEqual([...ids].sort(compareIds), [trustRowId(9, 2), trustRowId(12, 9), trustRowId(12, 100), trustRowId(100, 1)], 'by the first id, then the other');
    });

    it('projects its trust rows when its trust moved, not on a write that left it as it was', () => {
      const before = org({ id: 12, trust: { '9': 12 } });
      const kinds = (rows: Array<{ kind: string }>) => rows.map((r) => r.kind);
      assert.ok(kinds(organizationKind.project(before)).includes('trust'), 'the first write of its life carries them');
      assert.ok(!kinds(organizationKind.project({ ...before, treasury: 1 }, before)).includes('trust'), 'the same trust: none');
      assert.deepEqual(kinds(organizationKind.project({ ...before, trust: { '9': 14 } }, before)).filter((k) => k === 'trust'), ['trust']);
    });
  });

  describe('a day it could not settle is caught up', () => {
    it('settles every day since the last one it settled, each with its upkeep, up to MAX_CATCH_UP_DAYS', () => {
      const s = org({ settled_day: 3, treasury: 100 });
      const d = decideDay(s, { day: 6, seed: 's', place: null });
      assert.ok('events' in d);
      assert.deepEqual(d.events.filter((e) => e.type === 'maintenance-paid').map((e) => e.day), [4, 5, 6]);
      const after = apply(s, d)!;
      assert.equal(after.treasury, 85);
      assert.equal(after.settled_day, 6);
      const far = decideDay(org({ settled_day: 1, treasury: 10_000 }), { day: 100, seed: 's', place: null });
      assert.ok('events' in far);
      assert.equal(far.events.filter((e) => e.type === 'maintenance-paid').length, MAX_CATCH_UP_DAYS);
      const broke = decideDay(org({ settled_day: 3, treasury: 7 }), { day: 6, seed: 's', place: null });
      assert.ok('events' in broke);
      assert.deepEqual(broke.events.filter((e) => e.type === 'maintenance-paid').map((e) => e.day), [4, 5], 'a bankruptcy on the way ends the catching up');
    });
  });

  describe('starting treasury from kind (core rule 4)', () => {
    it('derives the treasury from the words of the kind', () => {
      assert.equal(startingTreasury('Merchant Company'), 800);
      assert.equal(startingTreasury('mining union'), 700);
      assert.equal(startingTreasury('mercenary band'), 600);
      assert.equal(startingTreasury('temple'), 450);
      assert.equal(startingTreasury('wandering poets'), DEFAULT_TREASURY);
    });

    it('always lies within the bounds', () => {
      for (const kind of ['bank', 'cult', 'xyz', 'guild of smiths', 'a'.repeat(40), 'order-of-knights']) {
        const t = startingTreasury(kind);
        assert.ok(t >= TREASURY_BOUNDS.min && t <= TREASURY_BOUNDS.max, `${kind} -> ${t}`);
      }
    });

    it('never takes a treasury from an agent, even one that names a seeded amount', () => {
      const s = apply(null, decideFound(null, found({ kind: 'temple', seeded_treasury: 1_000_000 })));
      assert.equal(s!.treasury, 450);
    });

    it('gives a seeded organization (no agent) its seeded treasury', () => {
      const s = apply(null, decideFound(null, found({ agent_id: null, seeded_treasury: 20000 })));
      assert.equal(s!.treasury, 20000);
      assert.equal(s!.agent_id, null);
    });
  });

  describe('control (core rule 2)', () => {
    it('lets only the controlling agent update', () => {
      const s = org();
      assert.deepEqual(decideUpdate(s, { type: 'update', agent_id: 2, day: 2, changes: { motto: 'x' } }), { refusal: { status: 403, detail: 'organization 7 is not controlled by this agent' } });
      const after = apply(s, decideUpdate(s, { type: 'update', agent_id: 1, day: 2, changes: { motto: 'Onward', goals: null } }));
      assert.equal(after!.motto, 'Onward');
      assert.equal(after!.goals, '');
    });

    it('refuses every agent on a seeded organization', () => {
      const s = org({ agent_id: null });
      const d = decideDissolve(s, 1, 2);
      assert.ok('refusal' in d && d.refusal.status === 403);
    });

    it('refuses an unknown organization with 404 and an ended one with 409', () => {
      const missing = decideDissolve(null, 1, 2);
      assert.ok('refusal' in missing && missing.refusal.status === 404);
      const ended = decideDissolve(org({ status: 'bankrupt' }), 1, 2);
      assert.ok('refusal' in ended && ended.refusal.status === 409);
    });

    it('takes no command of an agent that retired, once marked; the mark is made once, and only for its controller', () => {
      const s = apply(org(), decideRetireController(org(), 1, 4));
      assert.equal(s!.controller_retired, true);
      for (const d of [decideUpdate(s, { type: 'update', agent_id: 1, day: 4, changes: { motto: 'x' } }), decideDissolve(s, 1, 4), checkControl(s, 1)!]) {
        assert.deepEqual(d, { refusal: { status: 403, detail: 'this agent has retired; its key can no longer change the world' } });
      }
      assert.equal(s!.status, 'active', 'the organization remains (core rule 25)');
      assert.deepEqual(decideRetireController(s, 1, 5), { events: [] }, 'marked once');
      assert.deepEqual(decideRetireController(org(), 2, 4), { events: [] }, 'another agent has nothing to mark here');
      assert.deepEqual(decideRetireController(org({ status: 'dissolved' }), 1, 4), { events: [] }, 'an ended organization takes nothing anyway');
      const missing = decideRetireController(null, 1, 4);
      assert.ok('refusal' in missing && missing.refusal.status === 404);
    });

    it('dissolves an active organization', () => {
      const s = apply(org(), decideDissolve(org(), 1, 5));
      assert.equal(s!.status, 'dissolved');
      assert.equal(s!.ended_day, 5);
    });
  });

  describe('maintenance (core rule 5)', () => {
    it('costs 5 plus 2 per employed adventurer plus 1 per worker', () => {
      assert.equal(maintenanceCost({ employees: [], workers: 0 }), 5);
      assert.equal(maintenanceCost({ employees: [1, 2, 3], workers: 0 }), 11);
      assert.equal(maintenanceCost({ employees: [1], workers: 4 }), 11);
    });

    it('is paid once per day', () => {
      const s = org({ treasury: 100 });
      const paid = apply(s, decideDay(s, { day: 2 }));
      assert.equal(paid!.treasury, 95);
      assert.equal(paid!.settled_day, 2);
      assert.deepEqual(decideDay(paid, { day: 2 }), { events: [] }, 'the same day again changes nothing');
      assert.equal(apply(paid, decideDay(paid, { day: 3 }))!.treasury, 90);
    });

    it('is paid in full when the treasury equals the cost', () => {
      const s = apply(org({ treasury: 5 }), decideDay(org({ treasury: 5 }), { day: 2 }));
      assert.equal(s!.treasury, 0);
      assert.equal(s!.status, 'active');
    });

    it('charges nothing to an ended organization', () => {
      assert.deepEqual(decideDay(org({ status: 'dissolved', treasury: 50 }), { day: 2 }), { events: [] });
    });
  });

  describe('bankruptcy (core rule 6)', () => {
    it('pays what it has, never goes below zero, loses reputation for the unpaid share and goes bankrupt', () => {
      const s = org({ treasury: 3, reputation: 10 });
      const d = decideDay(s, { day: 2 });
      assert.ok('events' in d);
      assert.deepEqual(d.events.map((e) => e.type), ['maintenance-paid', 'went-bankrupt']);
      const after = apply(s, d)!;
      assert.equal(after.treasury, 0);
      assert.equal(after.reputation, 8);
      assert.equal(after.status, 'bankrupt');
      assert.equal(after.ended_day, 2);
    });

    it('never takes reputation below zero', () => {
      const s = org({ treasury: 0, reputation: 1, employees: [1, 2, 3] });
      const after = apply(s, decideDay(s, { day: 2 }))!;
      assert.equal(after.reputation, 0);
      assert.equal(after.treasury, 0);
    });

    it('leaves a bankrupt organization unable to act', () => {
      const s = org({ status: 'bankrupt' });
      const d = decideUpdate(s, { type: 'update', agent_id: 1, day: 3, changes: { motto: 'again' } });
      assert.ok('refusal' in d && d.refusal.status === 409);
    });
  });
});
