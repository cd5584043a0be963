// Pure tests of the rules behind what an agent needs to decide (issue 13): a contract's
// withdrawal by its proposer, who fulfils a service contract, and the travel plan that
// quotes a journey with the journey's own rules.
import assert from 'assert/strict';
import type { Contract, ContractAction, ContractEvent, ContractSpec, ContractState } from '../../actors/contract/messages';
import * as contract from '../../actors/contract/rules';
import { roadDays, travelDays } from '../../actors/organization/travel';
import { quickestPath, travelPlan, type PlanPlace } from '../../actors/organization/travel-plan';
import { generateWorld } from '../../actors/world/generate';

type Decision = { events: ContractEvent[] } | { refusal: { status: number; detail: string } };
const eventsOf = (d: Decision): ContractEvent[] => {
  assert.ok('events' in d, `expected events, got ${JSON.stringify(d)}`);
  return d.events;
};
const statusOf = (d: Decision): number => {
  assert.ok('refusal' in d, `expected a refusal, got ${JSON.stringify(d)}`);
  assert.ok(d.refusal.detail.length > 0);
  return d.refusal.status;
};

const PROPOSER = 21;
const COUNTERPARTY = 22;
const spec = (over: Partial<ContractSpec> = {}): ContractSpec => ({
  id: 3, proposer_id: PROPOSER, counterparty_id: COUNTERPARTY, title: 'Night watch', terms: 'Keep watch on the warehouse.', value: 30, resource: null, quantity: 0, ...over,
});
const apply = (s: ContractState, d: Decision): Contract => eventsOf(d).reduce(contract.evolve, s) as Contract;
const act = (type: ContractAction['type'], organization_id: number, day = 4): ContractAction => ({ type, organization_id, agent_id: 1, day });
const proposed = (over: Partial<ContractSpec> = {}) => apply(null, contract.decidePropose(null, spec(over), 1, 2));
const accepted = (over: Partial<ContractSpec> = {}) => { const p = proposed(over); return apply(p, contract.decideAction(p, act('accept', COUNTERPARTY))); };

describe('rules of what an agent needs to decide', () => {
  describe('withdrawing a contract', () => {
    it('lets the proposer withdraw a proposed contract: it stands as rejected, withdrawn', () => {
      const p = proposed();
      const events = eventsOf(contract.decideAction(p, act('withdraw', PROPOSER, 6)));
      assert.deepEqual(events, [{ type: 'withdrawn', day: 6, agent_id: 1 }]);
      const w = apply(p, { events });
      assert.equal(w.status, 'rejected');
      assert.equal(w.withdrawn, true);
      assert.equal(w.ended_day, 6);
    });

    it('refuses anyone but the proposer (403) and any state but proposed (409)', () => {
      assert.equal(statusOf(contract.decideAction(proposed(), act('withdraw', COUNTERPARTY))), 403);
      assert.equal(statusOf(contract.decideAction(proposed(), act('withdraw', 99))), 403);
      assert.equal(statusOf(contract.decideAction(accepted(), act('withdraw', PROPOSER))), 409);
      const w = proposed();
      const withdrawn = apply(w, contract.decideAction(w, act('withdraw', PROPOSER)));
      assert.equal(statusOf(contract.decideAction(withdrawn, act('withdraw', PROPOSER))), 409);
      assert.equal(statusOf(contract.decideAction(withdrawn, act('accept', COUNTERPARTY))), 409);
      assert.equal(statusOf(contract.decideAction(null, act('withdraw', PROPOSER))), 404);
    });
  });

  describe('fulfilling a service contract', () => {
    it('is for the counterparty, who pays for the service received', () => {
      const events = eventsOf(contract.decideAction(accepted(), act('fulfill', COUNTERPARTY, 7)));
      assert.deepEqual(events, [{ type: 'fulfilled', day: 7, agent_id: 1, organization_id: COUNTERPARTY }]);
    });

    it('is refused to the proposer, the side paid: a rule of the contract, not a missing right (409)', () => {
      assert.equal(statusOf(contract.decideAction(accepted(), act('fulfill', PROPOSER))), 409);
      assert.equal(statusOf(contract.decideBeginFulfilment(accepted(), act('fulfill', PROPOSER), null)), 409);
    });

    it('leaves a resource contract to either side, since the goods move in the same step', () => {
      for (const by of [PROPOSER, COUNTERPARTY]) {
        assert.equal(eventsOf(contract.decideAction(accepted({ resource: 'ore', quantity: 4 }), act('fulfill', by))).length, 1);
      }
    });
  });

  describe('the travel plan', () => {
    const places = generateWorld('agent-aids').locations as unknown as PlanPlace[];

    it('takes as many days as the journey, between every pair of places', () => {
      for (const from of places) {
        for (const to of places) {
          if (from.id === to.id) continue;
          const plan = travelPlan(places, from.id, to.id)!;
          assert.ok(plan, `${from.id} -> ${to.id}`);
          assert.equal(plan.days, travelDays(roadDays(places, from.id, to.id)!, to.danger), `${from.id} -> ${to.id}`);
          assert.equal(plan.legs.reduce((n, l) => n + l.distance_days, 0), plan.road_days, 'the legs add up to the road');
          assert.equal(plan.path[0], from.id);
          assert.equal(plan.path[plan.path.length - 1], to.id);
          assert.deepEqual(plan.passes_through, plan.path.slice(1, -1));
        }
      }
    });

    it('names the places passed and the worst danger on the way', () => {
      const plan = travelPlan(places, 'emberfall', 'sunken-crypt')!;
      assert.deepEqual(plan.path, ['emberfall', 'greenhollow', 'whisperwood', 'sunken-crypt']);
      assert.equal(plan.max_danger, Math.max(...plan.legs.flatMap((l) => [l.road_danger, l.place_danger])));
    });

    it('takes off the days a travel establishment where it sets out saves, as the journey does', () => {
      const plain = travelPlan(places, 'emberfall', 'sunken-crypt')!;
      const quick = travelPlan(places, 'emberfall', 'sunken-crypt', 1)!;
      assert.equal(plain.days_saved, 0);
      assert.equal(quick.days_saved, 1);
      assert.equal(quick.days, plain.days - 1);
      assert.equal(quick.days, quick.road_days + quick.danger_days - quick.days_saved);
      assert.equal(quick.days, travelDays(roadDays(places, 'emberfall', 'sunken-crypt')!, plain.legs[plain.legs.length - 1].place_danger, 1));
      assert.equal(travelPlan(places, 'emberfall', 'emberfall', 1)!.days, 0, 'no journey to where one stands');
    });

    it('is empty for where one stands, and null where no road leads', () => {
      assert.equal(travelPlan(places, 'emberfall', 'emberfall')!.days, 0);
      const island: PlanPlace = { id: 'isle', name: 'Isle', danger: 0, routes: [] };
      assert.equal(travelPlan([...places, island], 'emberfall', 'isle'), null);
      assert.equal(quickestPath([...places, island], 'isle', 'emberfall'), null);
    });
  });
});
