// Fair play as pure rules (docs/accounting.md): output is paid for, an ended
// organization keeps nothing, the founding allowance refills slowly, quest gold leaves its
// trust exactly, and an organization's own history entries account for its treasury.
import assert from 'assert/strict';
import fc from 'fast-check';
import { GRANT_REFILL_DAYS, decideBeginFounding, decideFoundOrganization, evolve as evolveAgent, grantShare } from '../../actors/agent/rules';
import type { AgentState } from '../../actors/agent/messages';
import { FLOWS, sumLedger, type LedgerLine } from '../../actors/ledger';
import type { PartyRecord } from '../../actors/adventurer/messages';
import { adventurerResting, lastQuestDay } from '../../actors/adventurer/rules';
import { organizationKind } from '../../actors/organization/actor';
import type { FoundCommand, Organization, OrganizationEvent, OrganizationState, ProjectSpec, QuestSettledCommand, TransferCommand } from '../../actors/organization/messages';
import {
  PLAN_OUTPUT_COST_SHARE, PROJECT_OUTPUT_COST_SHARE, WORKER_OUTPUT, checkOutputPaidFor, isProductionPlan, minimumBudget,
} from '../../actors/organization/projects';
import {
  decideDay, decideDissolve, decideFound, decideQuestSettled, decideSendMessage, decideStartProject, decideTransfer, decideWorkers, evolve, grantedTreasury,
  startingTreasury,
} from '../../actors/organization/rules';
import { WORLD_FUND, type Fund } from '../../actors/quest/messages';
import { payoutLedger, refunds, rewardPaid, totalReward } from '../../actors/quest/rules';

type D = { events: OrganizationEvent[] } | { refusal: { status: number; detail: string } };
const events = (d: D): OrganizationEvent[] => { assert.ok('events' in d, JSON.stringify(d)); return d.events; };
const apply = (s: OrganizationState, d: D): Organization => events(d).reduce(evolve, s) as Organization;

const foundCmd = (over: Partial<FoundCommand> = {}): FoundCommand => ({
  type: 'found', id: 9, agent_id: 1, name: 'Fair Trading Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1, ...over,
});
const founded = (over: Partial<Organization> = {}) => ({ ...apply(null, decideFound(null, foundCmd())), ...over });
const place = { kind: 'city', danger: 5 };
const day = (s: Organization, d: number) => apply(s, decideDay(s, { day: d, seed: 's', place }));

const spec = (over: Partial<ProjectSpec> = {}): ProjectSpec => ({
  id: 70, title: 'Works', kind: 'construction', description: 'honest works', location_id: 'emberfall', budget: 100, duration_days: 3,
  output_resource: 'ore', output_quantity: 10, establishment_kind: null, ...over,
});

describe('fair play (pure rules)', () => {
  describe('output is paid for (core rules 16 and 17)', () => {
    it('refuses a 1-gold project that would yield 10,000 ore, naming the budget it needs', () => {
      const d = decideStartProject(founded(), 1, 1, spec({ budget: 1, duration_days: 1, output_quantity: 10_000 }), 6);
      assert.ok('refusal' in d);
      assert.equal(d.refusal.status, 409);
      assert.match(d.refusal.detail, /at least 60000/);
    });

    it('refuses output of a resource no market trades', () => {
      const d = decideStartProject(founded(), 1, 1, spec({ output_resource: 'mithril' }), null);
      assert.ok('refusal' in d && /no market trades mithril/.test(d.refusal.detail));
    });

    it('a project that makes output and opens an establishment pays for both', () => {
      const both = spec({ kind: 'construction', output_resource: 'ore', output_quantity: 50, duration_days: 1, establishment_kind: 'inn' });
      const output = minimumBudget(both, 2);
      assert.equal(output, 100);
      for (const budget of [100, 199]) {
        const d = decideStartProject(founded(), 1, 1, { ...both, budget }, 2);
        assert.ok('refusal' in d && d.refusal.status === 409, `budget ${budget}: ${JSON.stringify(d)}`);
        assert.match(d.refusal.detail, /cannot pay for 50 ore and build inn: .* so the budget must be at least 200/);
      }
      assert.ok('events' in decideStartProject(founded(), 1, 1, { ...both, budget: 200 }, 2));
      const plan = spec({ kind: 'production', output_resource: 'ore', output_quantity: 5, duration_days: 20, establishment_kind: 'tavern', budget: 100 });
      const refused = decideStartProject(founded({ workers: 1 }), 1, 1, plan, 2);
      assert.ok('refusal' in refused && /\(100 in all\) .* at least 200/.test(refused.refusal.detail), JSON.stringify(refused));
    });

    it('a project without output may have any budget', () => {
      assert.equal(checkOutputPaidFor(spec({ output_resource: null, output_quantity: 0, budget: 1 }), null), null);
      assert.equal(minimumBudget(spec({ output_resource: 'ore', output_quantity: 0 }), 6), 0);
    });

    it('property: a project is accepted exactly when its budget pays for its output, and it never yields more than its budget bought', () => {
      fc.assert(fc.property(
        fc.boolean(), fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 2000 }).map((c) => c / 100),
        (plan, quantity, duration, budget, unitPrice) => {
          const p = spec({ kind: plan ? 'production' : 'construction', output_quantity: quantity, duration_days: duration, budget });
          const workers = Math.ceil(quantity / WORKER_OUTPUT);
          let s = founded({ treasury: 10_000_000, workers });
          const d = decideStartProject(s, 1, 1, p, unitPrice);
          const least = minimumBudget(p, unitPrice);
          const share = isProductionPlan(p) ? PLAN_OUTPUT_COST_SHARE : PROJECT_OUTPUT_COST_SHARE;
          if (budget < least) {
            assert.ok('refusal' in d, `budget ${budget} below ${least} must be refused`);
            return;
          }
          assert.ok('events' in d, `budget ${budget} at or above ${least} must be accepted: ${JSON.stringify(d)}`);
          s = apply(s, d);
          for (let t = 2; t <= duration + 2; t++) s = day(s, t);
          const made = s.holdings.ore ?? 0;
          assert.ok(made > 0, 'a paid-for project yields its output');
          assert.ok(made * unitPrice * share <= budget + 0.01, `${made} ore at ${unitPrice} (${share * 100}%) costs more than the budget ${budget}`);
        },
      ), { numRuns: 300 });
    });
  });

  describe('an ended organization keeps nothing (core rules 6 and 7)', () => {
    const rich = () => founded({ treasury: 640, holdings: { ore: 12, food: 3 }, workers: 4 });

    it('dissolving passes its gold and goods to the world and sends its workers home', () => {
      const d = events(decideDissolve(rich(), 1, 5));
      const forfeit = d.find((e) => e.type === 'estate-forfeited');
      assert.deepEqual(forfeit, { type: 'estate-forfeited', day: 5, gold: 640, holdings: { ore: 12, food: 3 }, workers: 4, reason: 'it was dissolved' });
      const after = d.reduce(evolve, rich() as OrganizationState) as Organization;
      assert.equal(after.status, 'dissolved');
      assert.equal(after.treasury, 0);
      assert.deepEqual(after.holdings, {});
      assert.equal(after.workers, 0);
    });

    it('bankruptcy does the same with what is left after the upkeep it could pay', () => {
      const poor = founded({ treasury: 3, holdings: { timber: 7 }, workers: 2 });
      const after = day(poor, 2);
      assert.equal(after.status, 'bankrupt');
      assert.equal(after.treasury, 0);
      assert.deepEqual(after.holdings, {});
      assert.equal(after.workers, 0);
    });

    it('gold that reaches it later passes to the world as it arrives', () => {
      const ended = apply(rich(), decideDissolve(rich(), 1, 5));
      const d = events(decideQuestSettled(ended, { type: 'quest-settled', day: 6, quest_id: 3, gold: 20, reputation: 0, trust: {}, party_id: null, dead: [], reason: 'refund' }));
      assert.deepEqual(d.map((e) => e.type), ['quest-settled', 'estate-forfeited']);
      assert.equal(d.reduce(evolve, ended as OrganizationState)!.treasury, 0);
    });

    it('an active organization that is paid keeps the gold', () => {
      const d = events(decideQuestSettled(rich(), { type: 'quest-settled', day: 6, quest_id: 3, gold: 20, reputation: 0, trust: {}, party_id: null, dead: [], reason: 'paid' }));
      assert.deepEqual(d.map((e) => e.type), ['quest-settled']);
    });
  });

  describe('reputation from quests', () => {
    const settled = (day: number, requester: number, reputation: number, n: number): QuestSettledCommand =>
      ({ type: 'quest-settled', day, quest_id: n, requester_id: requester, op: `quest:${n}:settled`, gold: 1, reputation, trust: {}, party_id: null, dead: [], reason: 'resolved' });

    it('grows from one requester\'s quests once a day: a friend\'s many quests in a day count once; another requester\'s, or the next day\'s, count', () => {
      let s = founded({ reputation: 10 });
      const settle = (c: QuestSettledCommand) => { s = apply(s, decideQuestSettled(s, c)); return s.reputation; };
      assert.equal(settle(settled(4, 7, 5, 1)), 15);
      assert.equal(settle(settled(4, 7, 5, 2)), 15, 'the same requester the same day: nothing more');
      assert.equal(settle(settled(4, 7, 2, 3)), 15, 'a partial success neither');
      assert.equal(settle(settled(4, 8, 5, 4)), 20, 'another requester counts');
      assert.equal(settle(settled(4, 7, -5, 5)), 15, 'a failure always costs');
      assert.equal(settle(settled(5, 7, 5, 6)), 20, 'the next day counts again');
      assert.deepEqual(s.quest_fame, { day: 5, from: [7] }, 'only today is kept');
      assert.equal(settle({ ...settled(5, 7, 5, 7), requester_id: undefined }), 25, 'a settlement recorded before requesters were carried counts as before');
    });
  });

  describe('an adventurer takes one quest a day, whatever party it is in', () => {
    const history = (...entries: Array<Partial<PartyRecord>>) => ({
      id: 12, name: 'Mira', party_history: entries.map((e) => ({ party_id: 1, organization_id: 2, quest_id: 3, outcome: 'full', day: 1, joined_day: 1, resolved_day: 1, ...e })),
    });
    it('one back from a quest today rests until tomorrow; one never sent, or back earlier, does not', () => {
      assert.equal(adventurerResting({ id: 12, party_history: [] }, 5), null);
      assert.equal(adventurerResting(history({ quest_id: null, outcome: null, resolved_day: null, day: 5 }), 5), null, 'joined a party today, never sent');
      assert.equal(adventurerResting(history({ resolved_day: 4, day: 4 }), 5), null);
      assert.equal(adventurerResting(history({ resolved_day: 4, day: 4 }, { party_id: 2, resolved_day: 5, day: 5 }), 5),
        'adventurer Mira came back from a quest on day 5; it sets out again on day 6 at the earliest, whatever party it is in');
      assert.equal(adventurerResting(history({ resolved_day: 5, day: 5 }, { party_id: 2, quest_id: null, outcome: null, resolved_day: null, day: 5 }), 6), null);
    });
    it('an entry of before resolved_day was kept counts from the day of its outcome', () => {
      const old = history({ resolved_day: undefined, day: 7 });
      assert.equal(lastQuestDay(old), 7);
      assert.match(adventurerResting(old, 7)!, /came back from a quest on day 7/);
    });
  });

  describe('trust from shared work (core rule 14)', () => {
    const fulfilled = (day: number, other: number, n: number, delta = 5): TransferCommand =>
      ({ type: 'transfer', day, reason: `contract ${n}`, gold: 1, holdings: {}, trust: { [String(other)]: delta }, op: `contract:${n}:0:paid`, work: true });
    const quest = (day: number, other: number, n: number, delta: number): QuestSettledCommand =>
      ({ type: 'quest-settled', day, quest_id: n, requester_id: other, op: `quest:${n}:settled`, gold: 1, reputation: 0, trust: { [String(other)]: delta }, party_id: null, dead: [], reason: 'resolved' });

    it('a fulfilled contract raises trust in an organization once a day: the same day\'s next contracts with it add nothing, another organization\'s or the next day\'s do', () => {
      let s = founded();
      const fulfil = (c: TransferCommand) => { s = apply(s, decideTransfer(s, c)); return s.trust; };
      assert.equal(fulfil(fulfilled(4, 7, 1))['7'], 5);
      for (let n = 2; n <= 12; n++) assert.equal(fulfil(fulfilled(4, 7, n))['7'], 5, `contract ${n} the same day: nothing more`);
      assert.equal(fulfil(fulfilled(4, 8, 13))['8'], 5, 'another organization counts');
      assert.equal(fulfil(fulfilled(4, 7, 14, -5))['7'], 0, 'a loss always counts');
      assert.equal(fulfil(fulfilled(5, 7, 15))['7'], 5, 'the next day counts again');
      assert.deepEqual(s.work_trust, { day: 5, with: [7] }, 'only today is kept');
    });

    it('quests count as the same shared work: a contract and a quest with one organization the same day raise trust once', () => {
      let s = founded();
      s = apply(s, decideQuestSettled(s, quest(6, 7, 1, 10)));
      assert.equal(s.trust['7'], 10);
      s = apply(s, decideTransfer(s, fulfilled(6, 7, 2)));
      s = apply(s, decideQuestSettled(s, quest(6, 7, 3, 10)));
      assert.equal(s.trust['7'], 10, 'nothing more the same day');
      s = apply(s, decideQuestSettled(s, quest(6, 7, 4, -5)));
      assert.equal(s.trust['7'], 5, 'a failed quest always costs');
    });

    it('trust moved outside shared work (an alliance\'s) is never held back, and does not hold back the day\'s work', () => {
      let s = founded();
      const alliance = (day: number, delta: number): TransferCommand => ({ type: 'transfer', day, reason: 'alliance', gold: 0, holdings: {}, trust: { '7': delta }, op: `alliance:1:${delta}` });
      s = apply(s, decideTransfer(s, alliance(3, 10)));
      s = apply(s, decideTransfer(s, fulfilled(3, 7, 1)));
      assert.equal(s.trust['7'], 15);
      s = apply(s, decideTransfer(s, { ...alliance(3, 10), op: 'alliance:2:10' }));
      assert.equal(s.trust['7'], 25);
    });

    it('property: however many contracts two organizations fulfil, trust from them grows by at most 5 a day', () => {
      fc.assert(fc.property(fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 20 }), (perDay) => {
        let s = founded();
        let n = 0;
        perDay.forEach((count, i) => { for (let k = 0; k < count; k++) s = apply(s, decideTransfer(s, fulfilled(i + 2, 7, ++n))); });
        assert.equal(s.trust['7'], Math.min(100, 5 * perDay.length));
      }));
    });
  });

  describe('the founding allowance (core rule 4)', () => {
    it('grants the whole amount first, then refills over GRANT_REFILL_DAYS from the previous founding', () => {
      assert.equal(grantShare(null, 10), 1);
      assert.equal(grantShare(10, 10), 0);
      assert.equal(grantShare(10, 10 + GRANT_REFILL_DAYS / 2), 0.5);
      assert.equal(grantShare(10, 10 + GRANT_REFILL_DAYS), 1);
      assert.equal(grantShare(10, 10 + 5 * GRANT_REFILL_DAYS), 1);
      assert.equal(grantedTreasury('merchant company', 0.5), 400);
      assert.equal(grantedTreasury('merchant company', 0), 0);
    });

    it('refuses a founding whose grant could not pay its first day of upkeep, naming the day from which it would, and records nothing', () => {
      let agent: AgentState = evolveAgent(null, { type: 'registered', day: 1, id: 3, name: 'A', model: 'm', key_hash: 'h' });
      agent = evolveAgent(agent, { type: 'organization-founded', day: 10, organization_id: 4, grant_share: 1 });
      const spec = (day: number, kind: string) => ({ id: 11, name: 'Again', kind, location_id: 'emberfall', description: '', goals: '', motto: '', day });
      const sameDay = decideBeginFounding(agent, spec(10, 'merchant company'), false);
      assert.ok('refusal' in sameDay && sameDay.refusal.status === 409, JSON.stringify(sameDay));
      assert.match(sameDay.refusal.detail, /granted only 0 gold .* on day 10\), less than its first day's upkeep of 5 gold: it would go bankrupt at once\. From day 11 it would be granted 8 gold/);
      // A temple's 450 refills more slowly in gold: 1 day gives 5.
      assert.match((decideBeginFounding(agent, spec(10, 'temple'), false) as { refusal: { detail: string } }).refusal.detail, /From day 11 it would be granted 5 gold/);
      const nextDay = decideBeginFounding(agent, spec(11, 'merchant company'), false);
      assert.ok('events' in nextDay && nextDay.events[0].type === 'founding-begun', JSON.stringify(nextDay));
      const first = decideBeginFounding(evolveAgent(null, { type: 'registered', day: 1, id: 5, name: 'B', model: 'm', key_hash: 'h2' }), spec(1, 'merchant company'), false);
      assert.ok('events' in first, 'a first founding is granted the whole amount');
    });

    it('the agent records each founding and the share granted', () => {
      let agent: AgentState = evolveAgent(null, { type: 'registered', day: 1, id: 3, name: 'A', model: 'm', key_hash: 'h' });
      const first = decideFoundOrganization(agent, 10, false, 4);
      assert.ok('events' in first);
      assert.equal((first.events[0] as { grant_share: number }).grant_share, 1);
      agent = first.events.reduce(evolveAgent, agent);
      const again = decideFoundOrganization(agent, 11, false, 4 + 9);
      assert.ok('events' in again);
      assert.equal((again.events[0] as { grant_share: number }).grant_share, 9 / GRANT_REFILL_DAYS);
    });

    it('property: however often an agent dissolves and founds again, the world grants at most one treasury per GRANT_REFILL_DAYS, plus the first', () => {
      fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 60 }), fc.constantFrom('merchant company', 'temple', 'band of mercenaries', 'poets'), (gaps, kind) => {
        let lastDay: number | null = null;
        let d = 1;
        let granted = 0;
        for (const gap of gaps) {
          d += gap;
          granted += grantedTreasury(kind, grantShare(lastDay, d));
          lastDay = d;
        }
        const span = d - 1 - gaps[0];
        assert.ok(granted <= startingTreasury(kind) * (1 + span / GRANT_REFILL_DAYS) + 1e-9, `granted ${granted} over ${span} days`);
      }), { numRuns: 300 });
    });
  });

  describe('quest gold leaves its trust exactly', () => {
    const fundsArb = fc.record({
      world: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: undefined }),
      requester: fc.integer({ min: 1, max: 5000 }),
      sponsors: fc.array(fc.record({ organization_id: fc.integer({ min: 10, max: 14 }), amount: fc.integer({ min: 1, max: 2000 }) }), { maxLength: 5 }),
    }).map(({ world, requester, sponsors }): Fund[] => [world !== undefined ? { organization_id: WORLD_FUND, amount: world } : { organization_id: 5, amount: requester }, ...sponsors]);

    it('property: every organization gets back or is paid exactly its share, the world adds only its own part, and the ledger names it so', () => {
      fc.assert(fc.property(fundsArb, fc.constantFrom('full', 'partial', 'failure', 'withdrawn'), (funds, outcome) => {
        const reward = totalReward({ funds });
        const paid = outcome === 'withdrawn' ? 0 : rewardPaid(outcome, reward);
        const acceptor = outcome === 'withdrawn' ? null : 20;
        const lines = payoutLedger(funds, paid, acceptor);
        const orgFunds = funds.filter((f) => f.organization_id !== WORLD_FUND).reduce((n, f) => n + f.amount, 0);
        const escrow = sumLedger(lines, (l) => l.flow === 'quest_escrow').gold;
        const world = sumLedger(lines, (l) => l.flow === 'world_reward').gold;
        assert.equal(escrow, orgFunds, 'every gold organizations put in trust leaves it');
        assert.ok(world >= 0 && world <= (funds[0].organization_id === WORLD_FUND ? funds[0].amount : 0), `the world adds only its own share: ${world}`);
        assert.equal(sumLedger(lines, (l) => l.organization_id === 20).gold, paid, 'the acceptor is paid exactly');
        for (const f of refunds(funds, reward - paid).filter((x) => x.organization_id !== WORLD_FUND)) {
          assert.equal(sumLedger(lines, (l) => l.organization_id === f.organization_id).gold, f.amount, `funder ${f.organization_id} gets its share back`);
        }
        assert.ok(lines.every((l) => l.organization_id !== WORLD_FUND), 'the world is never a line of the ledger');
      }), { numRuns: 500 });
    });
  });

  describe("an organization's own history accounts for its treasury and holdings", () => {
    type Step = { kind: 'workers' | 'message' | 'project' | 'plan' | 'day' | 'dissolve'; n: number };
    const stepArb: fc.Arbitrary<Step> = fc.record({ kind: fc.constantFrom('workers', 'message', 'project', 'plan', 'day', 'day', 'day', 'dissolve'), n: fc.nat(400) });

    it('property: summing the ledger lines of its history entries gives its treasury and holdings after any sequence of its own acts', () => {
      fc.assert(fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        const lines: LedgerLine[] = [];
        const record = (before: OrganizationState, es: OrganizationEvent[]) => {
          let s = before;
          for (const e of es) {
            const next = evolve(s, e);
            for (const h of organizationKind.chronicle(e, next, s)) lines.push(...((h.data?.ledger as LedgerLine[]) ?? []));
            s = next;
          }
          return s as Organization;
        };
        let s = record(null, events(decideFound(null, foundCmd({ kind: 'crafters guild' }))));
        let d = 1;
        let projectId = 100;
        for (const st of steps) {
          let decision: D;
          switch (st.kind) {
            case 'workers': decision = decideWorkers(s, { type: 'hire-workers', agent_id: 1, day: d, quantity: 1 + (st.n % 3) }); break;
            case 'message': decision = decideSendMessage(s, { type: 'send-message', agent_id: 1, day: d, message: { id: st.n, recipient_id: st.n % 2 ? 4 : null, body: 'hello', kind: st.n % 3 ? 'message' : 'rumor', deliver_day: d, sender_location_id: 'emberfall', recipient_location_id: null } }); break;
            case 'project': decision = decideStartProject(s, 1, d, spec({ id: projectId++, budget: 20 + (st.n % 100), output_quantity: 1 + (st.n % 5), duration_days: 1 + (st.n % 3) }), 4); break;
            case 'plan': decision = decideStartProject(s, 1, d, spec({ id: projectId++, kind: 'production', budget: 10 + st.n, output_quantity: 1 + (st.n % 7), duration_days: 1 + (st.n % 4) }), 2); break;
            case 'day': d += 1; decision = decideDay(s, { day: d, seed: 'x', place }); break;
            case 'dissolve': decision = decideDissolve(s, 1, d); break;
          }
          if ('events' in decision) s = record(s, decision.events);
        }
        const sum = sumLedger(lines);
        assert.equal(sum.gold, s.treasury, `ledger ${sum.gold} vs treasury ${s.treasury}`);
        assert.deepEqual(Object.fromEntries(Object.entries(sum.goods).filter(([, q]) => q !== 0)), s.holdings);
        for (const l of lines) assert.ok(l.flow in FLOWS, `named flow ${l.flow}`);
      }), { numRuns: 300 });
    });
  });
});
