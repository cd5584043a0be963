import assert from 'assert/strict';
import type { FoundCommand, Organization, OrganizationEvent, OrganizationState, ProjectSpec } from '../../actors/organization/messages';
import { CANCEL_REFUND_SHARE, WORKER_OUTPUT, spentAfter, workersRequired } from '../../actors/organization/projects';
import {
  WORKER_HIRE_PRICE, decideCancelProject, decideDay, decideDissolve, decideFound, decideSettleTrade, decideStartProject, decideTravel,
  decideWorkers, evolve, workersLost,
} from '../../actors/organization/rules';
import { DANGER_PER_DAY, roadDays, travelDays } from '../../actors/organization/travel';
import { generateWorld } from '../../actors/world/generate';

type D = { events: OrganizationEvent[] } | { refusal: { status: number; detail: string } };
const apply = (s: OrganizationState, d: D): Organization => {
  assert.ok('events' in d, JSON.stringify(d));
  return d.events.reduce(evolve, s) as Organization;
};
const refusal = (d: D) => { assert.ok('refusal' in d, 'expected a refusal'); return d.refusal.status; };

const founded = (over: Partial<Organization> = {}): Organization => {
  const c: FoundCommand = { type: 'found', id: 3, agent_id: 1, name: 'Hearth Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
  return { ...apply(null, decideFound(null, c)), ...over };
};

/** The base price of the output resource where the tests' projects work. */
const PRICE = 1;

const spec = (over: Partial<ProjectSpec> = {}): ProjectSpec => ({
  id: 40, title: 'Sawmill', kind: 'construction', description: 'a mill by the river', location_id: 'emberfall',
  budget: 100, duration_days: 4, output_resource: null, output_quantity: 0, establishment_kind: null, ...over,
});

const day = (s: Organization, d: number, place: { kind: string; danger: number } | null = { kind: 'city', danger: 5 }) => apply(s, decideDay(s, { day: d, seed: 'x', place }));

describe('economy rules of an organization', () => {
  describe('travel (core rule 18)', () => {
    const places = generateWorld('t').locations;

    it('takes the quickest chain of routes', () => {
      assert.equal(roadDays(places, 'emberfall', 'greenhollow'), 2);
      assert.equal(roadDays(places, 'emberfall', 'whisperwood'), 3);
      assert.equal(roadDays(places, 'emberfall', 'emberfall'), 0);
      assert.equal(roadDays([{ id: 'a', danger: 0, routes: [] }, { id: 'b', danger: 0, routes: [] }], 'a', 'b'), null);
    });

    it('adds a day for every DANGER_PER_DAY of destination danger, rounded up', () => {
      assert.equal(travelDays(2, 0), 2);
      assert.equal(travelDays(2, 1), 3);
      assert.equal(travelDays(2, DANGER_PER_DAY), 3);
      assert.equal(travelDays(2, DANGER_PER_DAY + 1), 4);
      assert.ok(travelDays(2, 80) > travelDays(2, 10), 'a more dangerous destination takes longer');
    });

    it('blocks a second journey until arrival and moves the organization on arrival', () => {
      const s = apply(founded(), decideTravel(founded(), { type: 'travel', agent_id: 1, day: 1, destination_id: 'greenhollow', days: 3 }));
      assert.equal(s.travel!.arrives_day, 4);
      assert.equal(refusal(decideTravel(s, { type: 'travel', agent_id: 1, day: 2, destination_id: 'ironcrag', days: 3 })), 409);
      const d3 = day(day(s, 2), 3);
      assert.equal(d3.location_id, 'emberfall');
      const d4 = day(d3, 4);
      assert.equal(d4.location_id, 'greenhollow');
      assert.equal(d4.travel, null);
    });

    it('refuses a journey to where it already is', () => {
      assert.equal(refusal(decideTravel(founded(), { type: 'travel', agent_id: 1, day: 1, destination_id: 'emberfall', days: 0 })), 409);
    });

    it('sets out only from the place the journey was planned from: an arrival since makes it another journey (409)', () => {
      const there = day(day(day(apply(founded(), decideTravel(founded(), { type: 'travel', agent_id: 1, day: 1, destination_id: 'greenhollow', days: 3 })), 2), 3), 4);
      assert.equal(there.location_id, 'greenhollow');
      // Planned from the row of before the arrival: from emberfall back to emberfall, a day.
      const stale = decideTravel(there, { type: 'travel', agent_id: 1, day: 4, destination_id: 'emberfall', days: 1, from_id: 'emberfall' });
      assert.deepEqual(stale, { refusal: { status: 409, detail: 'Hearth Co stands at greenhollow now, not at emberfall, where the journey was planned from' } });
      const planned = apply(there, decideTravel(there, { type: 'travel', agent_id: 1, day: 4, destination_id: 'emberfall', days: 3, from_id: 'greenhollow' }));
      assert.equal(planned.travel!.arrives_day, 7);
      // A command of before from_id was carried sets out as it always did.
      assert.equal(apply(there, decideTravel(there, { type: 'travel', agent_id: 1, day: 4, destination_id: 'emberfall', days: 3 })).travel!.arrives_day, 7);
    });
  });

  describe('trade settlement', () => {
    const trade = { type: 'settle-trade' as const, agent_id: 1, day: 1, location_id: 'emberfall', resource: 'food' };

    it('pays for a buy and adds the goods', () => {
      const s = apply(founded(), decideSettleTrade(founded(), { ...trade, side: 'buy', quantity: 10, gold: 25 }));
      assert.equal(s.treasury, 800 - 25);
      assert.equal(s.holdings.food, 10);
    });

    it('refuses a buy beyond the treasury, a sale beyond holdings, another place, the road and another agent', () => {
      assert.equal(refusal(decideSettleTrade(founded(), { ...trade, side: 'buy', quantity: 10, gold: 801 })), 409);
      assert.equal(refusal(decideSettleTrade(founded(), { ...trade, side: 'sell', quantity: 1, gold: 2 })), 409);
      assert.equal(refusal(decideSettleTrade(founded(), { ...trade, location_id: 'ironcrag', side: 'buy', quantity: 1, gold: 2 })), 409);
      const moving = founded({ travel: { destination_id: 'ironcrag', departed_day: 1, arrives_day: 5 } });
      assert.equal(refusal(decideSettleTrade(moving, { ...trade, side: 'buy', quantity: 1, gold: 2 })), 409);
      assert.equal(refusal(decideSettleTrade(founded(), { ...trade, agent_id: 2, side: 'buy', quantity: 1, gold: 2 })), 403);
    });

    it('pays the seller and removes the goods, leaving no empty holding', () => {
      const s = apply(founded({ holdings: { food: 5 } }), decideSettleTrade(founded({ holdings: { food: 5 } }), { ...trade, side: 'sell', quantity: 5, gold: 9 }));
      assert.equal(s.treasury, 809);
      assert.deepEqual(s.holdings, {});
    });
  });

  describe('workers (core rule 16)', () => {
    it('cost 25 gold each to hire and 1 gold a day each', () => {
      const s = apply(founded(), decideWorkers(founded(), { type: 'hire-workers', agent_id: 1, day: 1, quantity: 4 }));
      assert.equal(s.treasury, 800 - 4 * WORKER_HIRE_PRICE);
      assert.equal(day(s, 2).treasury, 800 - 100 - 5 - 4);
    });

    it('cannot be hired beyond the treasury or released beyond those employed', () => {
      assert.equal(refusal(decideWorkers(founded({ treasury: 49 }), { type: 'hire-workers', agent_id: 1, day: 1, quantity: 2 })), 409);
      assert.equal(refusal(decideWorkers(founded({ workers: 1 }), { type: 'release-workers', agent_id: 1, day: 1, quantity: 2 })), 409);
    });

    it('are lost only in dangerous wilderness, more often where danger is higher', () => {
      const always = () => 0;
      const never = () => 0.999;
      assert.equal(workersLost(10, { kind: 'city', danger: 100 }, always), 0);
      assert.equal(workersLost(10, { kind: 'wilderness', danger: 50 }, never), 0);
      assert.equal(workersLost(10, { kind: 'wilderness', danger: 50 }, always), 10);
      let seq = 0;
      const even = () => ((seq++ % 100) + 0.5) / 100;
      seq = 0; const low = workersLost(100, { kind: 'wilderness', danger: 10 }, even);
      seq = 0; const high = workersLost(100, { kind: 'dungeon', danger: 90 }, even);
      assert.ok(high > low, `${high} > ${low}`);
    });
  });

  describe('projects (core rule 17)', () => {
    it('reserve their whole budget at once', () => {
      const s = apply(founded(), decideStartProject(founded(), 1, 1, spec(), PRICE));
      assert.equal(s.treasury, 700);
      assert.equal(s.projects[0].status, 'active');
    });

    it('are refused beyond the treasury or away from where the organization stands', () => {
      assert.equal(refusal(decideStartProject(founded({ treasury: 99 }), 1, 1, spec(), PRICE)), 409);
      assert.equal(refusal(decideStartProject(founded(), 1, 1, spec({ location_id: 'ironcrag' }), PRICE)), 409);
    });

    it('progress once a day and complete with their output and establishment', () => {
      let s = apply(founded(), decideStartProject(founded(), 1, 1, spec({ budget: 130, output_resource: 'timber', output_quantity: 30, establishment_kind: 'sawmill' }), PRICE));
      for (let d = 2; d <= 4; d++) {
        s = day(s, d);
        assert.equal(s.projects[0].progress_days, d - 1);
        assert.equal(s.projects[0].status, 'active');
      }
      s = day(s, 5);
      assert.equal(s.projects[0].status, 'completed');
      assert.equal(s.projects[0].spent, 130);
      assert.equal(s.holdings.timber, 30);
      assert.deepEqual(s.establishments.map((e) => [e.name, e.kind, e.location_id]), [['Sawmill', 'sawmill', 'emberfall']]);
    });

    it('return half of the unused budget when cancelled by the owner', () => {
      let s = apply(founded(), decideStartProject(founded(), 1, 1, spec(), PRICE));
      s = day(s, 2);
      assert.equal(s.projects[0].spent, spentAfter(100, 4, 1));
      const before = s.treasury;
      s = apply(s, decideCancelProject(s, 1, 2, 40));
      assert.equal(s.treasury, before + Math.floor((100 - 25) * CANCEL_REFUND_SHARE));
      assert.equal(s.projects[0].status, 'cancelled');
      assert.equal(refusal(decideCancelProject(s, 1, 2, 40)), 409);
      assert.equal(refusal(decideCancelProject(s, 1, 2, 99)), 404);
      assert.equal(refusal(decideCancelProject(s, 2, 2, 40)), 403);
    });

    it('are cancelled without refund when the organization is dissolved or goes bankrupt', () => {
      const s = apply(founded(), decideStartProject(founded(), 1, 1, spec(), PRICE));
      assert.equal(apply(s, decideDissolve(s, 1, 2)).projects[0].status, 'cancelled');
      const poor = apply(founded({ treasury: 103 }), decideStartProject(founded({ treasury: 103 }), 1, 1, spec(), PRICE));
      const broke = day(poor, 2);
      assert.equal(broke.status, 'bankrupt');
      assert.equal(broke.projects[0].status, 'cancelled');
      assert.equal(broke.treasury, 0);
    });
  });

  describe('production plans (core rule 16)', () => {
    const plan = spec({ id: 41, kind: 'production', output_resource: 'ore', output_quantity: 12, duration_days: 30, budget: 180 });

    it('declare one worker per WORKER_OUTPUT units a day', () => {
      assert.equal(workersRequired(12), Math.ceil(12 / WORKER_OUTPUT));
      const s = apply(founded(), decideStartProject(founded(), 1, 1, plan, PRICE));
      assert.equal(s.projects[0].production!.workers_required, 3);
    });

    it('produce nothing while understaffed, and stay active', () => {
      let s = apply(founded({ workers: 2 }), decideStartProject(founded({ workers: 2 }), 1, 1, plan, PRICE));
      s = day(s, 2);
      assert.equal(s.holdings.ore, undefined);
      assert.equal(s.projects[0].status, 'active');
      assert.equal(s.projects[0].production!.staffed, false);
    });

    it('produce their output each day with the workforce present', () => {
      let s = apply(founded({ workers: 3 }), decideStartProject(founded({ workers: 3 }), 1, 1, plan, PRICE));
      s = day(day(s, 2), 3);
      assert.equal(s.holdings.ore, 24);
      assert.equal(s.projects[0].production!.produced_total, 24);
    });

    it('share the workforce in the order the plans began', () => {
      let s = founded({ workers: 3 });
      s = apply(s, decideStartProject(s, 1, 1, plan, PRICE));
      s = apply(s, decideStartProject(s, 1, 1, { ...plan, id: 42, output_resource: 'food', output_quantity: 5 }, PRICE));
      s = day(s, 2);
      assert.equal(s.holdings.ore, 12);
      assert.equal(s.holdings.food, undefined);
    });
  });
});
