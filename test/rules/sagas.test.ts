// The pure rules of the actions that span actors (actors/intents.ts): the intent each
// initiating actor records, how it ends once the lower actor answered, and the lower
// actor's side that changes nothing when asked again.
import assert from 'assert/strict';
import type { AgentEvent, AgentState } from '../../actors/agent/messages';
import { decideBeginFounding, decideFoundingAnswer, decideRegister, evolve as evolveAgent } from '../../actors/agent/rules';
import type { Adventurer, AdventurerEvent, AdventurerState } from '../../actors/adventurer/messages';
import { decideBeginEmployment, decideBeginJoining, decideEmploymentAnswer, decideJoiningAnswer, decideQuestOutcome, evolve as evolveAdventurer } from '../../actors/adventurer/rules';
import type { Closing, Quest, QuestEvent, QuestState } from '../../actors/quest/messages';
import { decideBeginDispatch, decideBeginPosting, decideBeginSponsoring, decideDispatchAnswer, decidePledgeReturn, decidePost, decideReservationAnswer, evolve as evolveQuest } from '../../actors/quest/rules';
import { arrivedToday, postedToday } from '../../actors/world/quest-board';
import type { Alliance, AllianceState } from '../../actors/alliance/messages';
import { decideBeginChange, decideChangeDone, decidePropose as decideProposeAlliance, evolve as evolveAlliance, trustOp } from '../../actors/alliance/rules';
import type { RelationshipState } from '../../actors/relationship/messages';
import { decideBeginOpening, decideOpeningAnswer, evolve as evolveRelationship } from '../../actors/relationship/rules';
import type { FoundCommand, Organization, OrganizationEvent, OrganizationState } from '../../actors/organization/messages';
import { decideAddPartyMember, decideDispatchParty, decideDay, decideDissolve, decideEmploy, decideEndingFollowed, decideFound, decideQuestSettled, decideReserveGold, decideSettleTrade, evolve as evolveOrganization } from '../../actors/organization/rules';
import type { LocationEvent, LocationState, TradeCommand } from '../../actors/location/messages';
import { decideAddRoute, decideBeginTrade, decideDay as decideLocationDay, decideMonstersChanged, decideSeed, decideTradeAnswer, evolve as evolveLocation } from '../../actors/location/rules';
import { generateWorld } from '../../actors/world/generate';
import { questKind } from '../../actors/quest/actor';
import { organizationKind } from '../../actors/organization/actor';
import { evolve as evolveWorldEvent, type WorldEventSpec } from '../../actors/world-event/actor';
import type { ContractEvent, ContractState } from '../../actors/contract/messages';
import { decideAction, decideBeginFulfilment, decideBeginRejection, decidePropose, evolve as evolveContract, fulfilmentOp } from '../../actors/contract/rules';

type D<E> = { events: E[] } | { refusal: { status: number; detail: string } };
const eventsOf = <E>(d: D<E> | null): E[] => {
  assert.ok(d && 'events' in d, `expected events, got ${JSON.stringify(d)}`);
  return d.events;
};
const refused = { ok: false as const, refusal: { status: 409, detail: 'no' } };
const unknown = { ok: false as const, refusal: { status: 503, detail: 'the world could not finish this action in time' } };

describe('rules of actions that span actors', () => {
  describe("an organization's end", () => {
    const found: FoundCommand = { type: 'found', id: 7, agent_id: 1, name: 'Lantern Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
    const org = () => eventsOf(decideFound(null, found)).reduce<OrganizationState>(evolveOrganization, null) as Organization;

    it('is pending from the dissolution until the follow-up is recorded, once', () => {
      const ended = eventsOf(decideDissolve(org(), 1, 4)).reduce<OrganizationState>(evolveOrganization, org());
      assert.equal(ended!.ending_pending, true);
      const followed = eventsOf(decideEndingFollowed(ended, 4));
      assert.deepEqual(followed, [{ type: 'ending-followed', day: 4 }]);
      const done = followed.reduce(evolveOrganization, ended);
      assert.equal(done!.ending_pending, false);
      assert.deepEqual(eventsOf(decideEndingFollowed(done, 5)), [], 'reported again, it changes nothing');
      assert.deepEqual(eventsOf(decideEndingFollowed(org(), 5)), [], 'an active organization has nothing to follow up');
      assert.equal(decideEndingFollowed(null, 5).hasOwnProperty('refusal'), true);
    });

    it('is pending after a bankruptcy too', () => {
      const poor = { ...org(), treasury: 0 };
      const events = eventsOf(decideDay(poor, { day: 2 }));
      assert.ok(events.some((e) => e.type === 'went-bankrupt'));
      assert.equal(events.reduce<OrganizationState>(evolveOrganization, poor)!.ending_pending, true);
    });

    it('founds once: asked again by the same founding it answers what it is; anything else is refused', () => {
      const o = org();
      assert.deepEqual(eventsOf(decideFound(o, found)), []);
      for (const other of [{ agent_id: 2 }, { day: 2 }, { name: 'Another Co' }, { agent_id: null }]) {
        const d = decideFound(o, { ...found, ...other });
        assert.ok('refusal' in d && d.refusal.status === 409, JSON.stringify(other));
      }
    });

    it('applies a named hiring or release once', () => {
      const o = org();
      const employ = { type: 'employ' as const, agent_id: 1, day: 2, adventurer_id: 30, op: 'adventurer:30:employment:1' };
      const hired = eventsOf(decideEmploy(o, employ)).reduce<OrganizationState>(evolveOrganization, o);
      assert.deepEqual(hired!.employees, [30]);
      assert.deepEqual(eventsOf(decideEmploy(hired, employ)), [], 'the same operation again changes nothing');
      const unnamed = decideEmploy(hired, { ...employ, op: undefined });
      assert.ok('refusal' in unnamed && unnamed.refusal.status === 409, 'an unnamed second hiring is refused as before');
      const release = { ...employ, type: 'unemploy' as const, op: 'adventurer:30:employment:2' };
      const left = eventsOf(decideEmploy(hired, release)).reduce<OrganizationState>(evolveOrganization, hired);
      assert.deepEqual(left!.employees, []);
      assert.deepEqual(eventsOf(decideEmploy(left, release)), []);
    });

    it('takes the hiring fee the adventurer asks, once, and refuses a hiring it cannot pay for', () => {
      const o = org()!;
      const employ = { type: 'employ' as const, agent_id: 1, day: 2, adventurer_id: 30, op: 'adventurer:30:employment:1', fee: 40, adventurer_name: 'Wren' };
      const events = eventsOf(decideEmploy(o, employ));
      assert.deepEqual(events, [{ type: 'adventurer-employed', day: 2, agent_id: 1, adventurer_id: 30, op: 'adventurer:30:employment:1', fee: 40, adventurer_name: 'Wren' }]);
      const hired = events.reduce<OrganizationState>(evolveOrganization, o)!;
      assert.equal(hired.treasury, o.treasury - 40);
      assert.deepEqual(eventsOf(decideEmploy(hired, employ)), [], 'asked again (a retried saga), it charges nothing more');
      const poor = { ...o, treasury: 39 };
      const refused = decideEmploy(poor, employ);
      assert.ok('refusal' in refused && refused.refusal.status === 409 && /hiring Wren costs 40 gold but .* has 39/.test(refused.refusal.detail), JSON.stringify(refused));
      assert.deepEqual(eventsOf(decideEmploy({ ...o, treasury: 40 }, employ)).length, 1, 'the whole treasury may go to the fee');
    });

    it('adds a named party member once, also once the party has set out', () => {
      const o = eventsOf(decideEmploy(org(), { type: 'employ', agent_id: 1, day: 2, adventurer_id: 30 })).reduce<OrganizationState>(evolveOrganization, org());
      const formed = evolveOrganization(o, { type: 'party-formed', day: 2, agent_id: 1, party_id: 3, name: 'The Few' });
      const add = { type: 'add-party-member' as const, agent_id: 1, day: 2, party_id: 3, adventurer_id: 30, op: 'adventurer:30:party:1' };
      const added = eventsOf(decideAddPartyMember(formed, add)).reduce<OrganizationState>(evolveOrganization, formed);
      assert.deepEqual(added!.parties[0].members, [30]);
      assert.deepEqual(eventsOf(decideAddPartyMember(added, add)), [], 'the same joining again changes nothing');
      const away = evolveOrganization(added, { type: 'party-dispatched', day: 3, agent_id: 1, party_id: 3, quest_id: 8 });
      assert.deepEqual(eventsOf(decideAddPartyMember(away, add)), [], 'nor once the party has set out');
      const other = decideAddPartyMember(away, { ...add, op: 'adventurer:30:party:2' });
      assert.ok('refusal' in other && other.refusal.status === 409, 'another joining is decided as before');
      const ended = eventsOf(decideDissolve(added, 1, 4)).reduce<OrganizationState>(evolveOrganization, added);
      const late = decideAddPartyMember(ended, { ...add, op: 'adventurer:30:party:2' });
      assert.ok('refusal' in late && late.refusal.status === 409, 'an ended organization refuses a new joining');
    });

    it('releases a member of a party at home, which leaves the party too, and refuses one whose party is away on a quest until it is back', () => {
      const o = [30, 31].reduce<OrganizationState>((s, a) => eventsOf(decideEmploy(s, { type: 'employ', agent_id: 1, day: 2, adventurer_id: a })).reduce<OrganizationState>(evolveOrganization, s), org());
      let party = evolveOrganization(o, { type: 'party-formed', day: 2, agent_id: 1, party_id: 3, name: 'The Few' });
      for (const a of [30, 31]) party = eventsOf(decideAddPartyMember(party, { type: 'add-party-member', agent_id: 1, day: 2, party_id: 3, adventurer_id: a })).reduce<OrganizationState>(evolveOrganization, party);
      const release = (adventurer: number) => ({ type: 'unemploy' as const, agent_id: 1, day: 3, adventurer_id: adventurer, adventurer_name: `Wren ${adventurer}` });
      const atHome = eventsOf(decideEmploy(party, release(31))).reduce<OrganizationState>(evolveOrganization, party)!;
      assert.deepEqual(atHome.employees, [30]);
      assert.deepEqual(atHome.parties[0].members, [30], 'it left the party with the organization');
      const away = evolveOrganization(atHome, { type: 'party-dispatched', day: 3, agent_id: 1, party_id: 3, quest_id: 8 });
      const refusedAway = decideEmploy(away, release(30));
      assert.ok('refusal' in refusedAway && refusedAway.refusal.status === 409, JSON.stringify(refusedAway));
      assert.match(refusedAway.refusal.detail, /Wren 30 is away with the party "The Few" on quest 8; it can be released once the party is back/);
      const back = eventsOf(decideQuestSettled(away, { type: 'quest-settled', day: 4, quest_id: 8, gold: 0, reputation: 0, trust: {}, party_id: 3, dead: [], reason: 'resolved' })).reduce<OrganizationState>(evolveOrganization, away);
      const released = eventsOf(decideEmploy(back, release(30))).reduce<OrganizationState>(evolveOrganization, back)!;
      assert.deepEqual(released.employees, []);
      assert.deepEqual(released.parties[0].members, []);
    });

    it("takes a named pledge return once, and an ended organization's passes to the world", () => {
      const ended = eventsOf(decideDissolve(org(), 1, 4)).reduce<OrganizationState>(evolveOrganization, org()) as Organization;
      const back = { type: 'quest-settled' as const, day: 4, quest_id: 8, gold: 15, flows: [{ flow: 'quest_escrow' as const, gold: 15 }], op: 'quest:8:pledge-returned', reputation: 0, trust: {}, party_id: null, dead: [], reason: 'pledge returned' };
      const events = eventsOf(decideQuestSettled(ended, back));
      assert.deepEqual(events.map((e) => e.type), ['quest-settled', 'estate-forfeited']);
      const after = events.reduce<OrganizationState>(evolveOrganization, ended);
      assert.equal(after!.treasury, 0);
      assert.deepEqual(eventsOf(decideQuestSettled(after, back)), [], 'asked again, it pays nothing twice');
    });
  });

  describe('trade (location)', () => {
    const town = (): LocationState => {
      const { profile, ...spec } = generateWorld('sagas').locations.find((l) => l.id === 'emberfall')!;
      return eventsOf(decideSeed(null, { type: 'seed', location: spec, profile, day: 1 })).reduce<LocationState>(evolveLocation, null);
    };
    const buy: TradeCommand = { type: 'trade', day: 2, agent_id: 1, organization_id: 7, resource: 'food', side: 'buy', quantity: 5 };

    it('records the quote as its intent, numbered, leaving the market as it is', () => {
      const begun = eventsOf(decideBeginTrade(town(), buy)) as LocationEvent[];
      assert.equal(begun.length, 1);
      assert.equal(begun[0].type, 'trade-begun');
      const s = begun.reduce(evolveLocation, town());
      assert.equal(s!.pending_trade!.serial, 1);
      assert.equal(s!.pending_trade!.quantity, 5);
      assert.deepEqual(s!.market, town()!.market, 'the supply moves only when the trade is recorded');
      const done = eventsOf(decideTradeAnswer(s, { ok: true })).reduce(evolveLocation, s);
      assert.equal(done!.pending_trade, null);
      assert.equal(done!.market!.food.supply, town()!.market!.food.supply - 5);
      const second = eventsOf(decideBeginTrade(done, buy)) as LocationEvent[];
      assert.equal((second[0] as { trade: { serial: number } }).trade.serial, 2, 'each trade has a number of its own');
    });

    it('records the trade against the supply as it is when it ends (a day may have passed)', () => {
      const t = town()!;
      const short: LocationState = { ...t, market: { ...t.market!, food: { ...t.market!.food, supply: t.market!.food.supply / 2 } } };
      const s = eventsOf(decideBeginTrade(short, buy)).reduce(evolveLocation, short);
      const dayLater = eventsOf(decideLocationDay(s, 2, 0)).reduce(evolveLocation, s);
      assert.notEqual(dayLater!.market!.food.supply, s!.market!.food.supply);
      const done = eventsOf(decideTradeAnswer(dayLater, { ok: true })).reduce(evolveLocation, dayLater);
      assert.ok(Math.abs(done!.market!.food.supply - (dayLater!.market!.food.supply - 5)) < 1e-9);
    });

    it('is abandoned on a refusal (wholly undone) or stays pending when the outcome is unknown', () => {
      const s = eventsOf(decideBeginTrade(town(), buy)).reduce(evolveLocation, town());
      const undone = eventsOf(decideTradeAnswer(s, refused)).reduce(evolveLocation, s);
      assert.equal(undone!.pending_trade, null);
      assert.deepEqual(undone!.market, town()!.market);
      assert.equal(decideTradeAnswer(s, unknown), null);
      assert.deepEqual(eventsOf(decideTradeAnswer(town(), { ok: true })), []);
    });

    it('is settled by the organization once, also after it has ended', () => {
      const found: FoundCommand = { type: 'found', id: 7, agent_id: 1, name: 'Lantern Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
      const o = eventsOf(decideFound(null, found)).reduce<OrganizationState>(evolveOrganization, null);
      const settle = { type: 'settle-trade' as const, agent_id: 1, day: 2, location_id: 'emberfall', resource: 'food', side: 'buy' as const, quantity: 5, gold: 12, serial: 3 };
      const paid = eventsOf(decideSettleTrade(o, settle)).reduce<OrganizationState>(evolveOrganization, o);
      assert.equal(paid!.treasury, o!.treasury - 12);
      assert.deepEqual(eventsOf(decideSettleTrade(paid, settle)), [], 'asked again, it changes nothing');
      const ended = eventsOf(decideDissolve(paid, 1, 3)).reduce<OrganizationState>(evolveOrganization, paid);
      assert.deepEqual(eventsOf(decideSettleTrade(ended, settle)), [], 'even once it has ended: the market may still record it');
      const next = decideSettleTrade(ended, { ...settle, serial: 4 });
      assert.ok('refusal' in next && next.refusal.status === 409, 'a new trade of an ended organization is refused');
      const elsewhere = decideSettleTrade(paid, { ...settle, location_id: 'greenhollow', serial: 3 });
      assert.ok('refusal' in elsewhere && /trades only where it stands/.test(elsewhere.refusal.detail), 'another market\'s numbers are its own: decided afresh');
    });
  });

  describe("a quest's resolution", () => {
    it('keeps the closing it decided until its end is recorded', () => {
      const posted = decidePost(null, { id: 5, title: 'Clear the fields', description: 'd', requester_id: 7, location_id: 'greenhollow', reward: 40, deadline_days: null, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: 0 }, 1, 1);
      const q = eventsOf(posted as D<QuestEvent>).reduce<QuestState>(evolveQuest, null);
      const closing: Closing = {
        end: { type: 'withdrawn', day: 2, agent_id: 1, reason: 'withdrawn by the requester', payments: [] }, outcomes: [], monsters: null,
        settlements: [{ organization_id: 7, part: { gold: 40, flows: [{ flow: 'quest_escrow', gold: 40 }], reputation: 0, trust: {}, party_id: null, dead: [] } }],
        reason: 'withdrawn by the requester', op: 'quest:5:withdrawn',
      };
      const begun = evolveQuest(q, { type: 'closing-begun', day: 2, closing });
      assert.deepEqual(begun!.closing, closing);
      assert.equal(begun!.status, 'open', 'still open until the end is recorded');
      const ended = evolveQuest(begun, closing.end);
      assert.equal(ended!.closing, null);
      assert.equal(ended!.status, 'withdrawn');
    });

    it('each member takes the outcome of a quest once', () => {
      const a = evolveAdventurer(null, { type: 'appeared', day: 1, adventurer: { id: 30, name: 'Wren', strength: 12, level: 1, experience: 0, traits: ['brave'] } });
      const outcome = { type: 'quest-outcome' as const, day: 3, quest_id: 5, quest_title: 'Clear the fields', outcome: 'full' as const, experience: 25, injury_days: 0, died: false, bonds: {} };
      const after = eventsOf(decideQuestOutcome(a, outcome)).reduce<AdventurerState>(evolveAdventurer, a);
      assert.equal(after!.experience, 25);
      assert.deepEqual(eventsOf(decideQuestOutcome(after, outcome)), [], 'asked again, it changes nothing');
      assert.equal(eventsOf(decideQuestOutcome(after, { ...outcome, quest_id: 6 })).length, 1, 'another quest is another outcome');
    });

    it("changes a place's monsters once per quest", () => {
      const { profile, ...spec } = generateWorld('sagas').locations.find((l) => l.id === 'greenhollow')!;
      const place = eventsOf(decideSeed(null, { type: 'seed', location: spec, profile, day: 1 })).reduce<LocationState>(evolveLocation, null);
      const slain = { type: 'monsters-changed' as const, day: 3, change: -5, quest_id: 5 };
      const after = eventsOf(decideMonstersChanged(place, slain)).reduce<LocationState>(evolveLocation, place);
      assert.equal(after!.monster_population, place!.monster_population - 5);
      assert.deepEqual(eventsOf(decideMonstersChanged(after, slain)), []);
      assert.equal(eventsOf(decideMonstersChanged(after, { ...slain, quest_id: 6 })).length, 1);
    });
  });

  describe("a contract's fulfilment", () => {
    const accepted = (): ContractState => [
      ...eventsOf(decidePropose(null, { id: 9, proposer_id: 1, counterparty_id: 2, title: 't', terms: 'terms', value: 30, resource: 'food', quantity: 5 }, 1, 1)),
      { type: 'accepted', day: 1, agent_id: 2 } as ContractEvent,
    ].reduce<ContractState>(evolveContract, null);
    const fulfil = { type: 'fulfill' as const, organization_id: 1, agent_id: 1, day: 3 };

    it('records a numbered intent, still accepted until the end is recorded; each attempt names its movements anew', () => {
      const begun = eventsOf(decideBeginFulfilment(accepted(), fulfil, 'emberfall'));
      const s = begun.reduce(evolveContract, accepted());
      assert.deepEqual(s!.fulfilment, { attempt: 1, day: 3, agent_id: 1, organization_id: 1, location_id: 'emberfall', undoing: false });
      assert.equal(s!.status, 'accepted');
      const undoing = evolveContract(s, { type: 'fulfilment-undoing', day: 3, agent_id: 1, reason: 'short of gold' });
      assert.equal(undoing!.fulfilment!.undoing, true, 'the goods go back, also after a crash');
      const abandoned = evolveContract(undoing, { type: 'fulfilment-abandoned', day: 3, agent_id: 1, reason: 'short of gold' });
      assert.equal(abandoned!.fulfilment, null);
      assert.equal(abandoned!.status, 'accepted');
      const again = eventsOf(decideBeginFulfilment(abandoned, fulfil, 'emberfall')).reduce(evolveContract, abandoned);
      assert.equal(again!.fulfilment!.attempt, 2);
      assert.notEqual(fulfilmentOp(9, 1, 'delivered'), fulfilmentOp(9, 2, 'delivered'));
      const done = evolveContract(again, { type: 'fulfilled', day: 3, agent_id: 1, organization_id: 1 });
      assert.equal(done!.fulfilment, null);
      assert.equal(done!.status, 'fulfilled');
    });

    it('refuses as before, recording nothing', () => {
      const d = decideBeginFulfilment(accepted(), { ...fulfil, organization_id: 3 }, null);
      assert.ok('refusal' in d && d.refusal.status === 403);
    });
  });

  describe("a contract's rejection", () => {
    const proposed = (): ContractState => eventsOf(decidePropose(null, { id: 9, proposer_id: 1, counterparty_id: 2, title: 't', terms: 'terms', value: 30, resource: null, quantity: 0 }, 1, 1)).reduce<ContractState>(evolveContract, null);
    const reject = { type: 'reject' as const, organization_id: 2, agent_id: 2, day: 3 };

    it('records its intent, still proposed until the rejection is recorded', () => {
      const begun = eventsOf(decideBeginRejection(proposed(), reject));
      assert.deepEqual(begun, [{ type: 'rejection-begun', day: 3, agent_id: 2 }]);
      const s = begun.reduce(evolveContract, proposed());
      assert.deepEqual(s!.rejection, { day: 3, agent_id: 2 });
      assert.equal(s!.status, 'proposed');
      const done = eventsOf(decideAction(proposed(), reject)).reduce(evolveContract, s);
      assert.equal(done!.status, 'rejected');
      assert.equal(done!.rejection, null);
    });

    it('refuses as before, recording nothing', () => {
      const byProposer = decideBeginRejection(proposed(), { ...reject, organization_id: 1 });
      assert.ok('refusal' in byProposer && byProposer.refusal.status === 403);
      const rejected = eventsOf(decideAction(proposed(), reject)).reduce(evolveContract, proposed());
      const again = decideBeginRejection(rejected, reject);
      assert.ok('refusal' in again && again.refusal.status === 409);
    });
  });

  describe('posting and sponsoring a quest (quest)', () => {
    const spec = { id: 8, title: 'Clear the road', description: 'd', requester_id: 1, location_id: 'emberfall', reward: 20, deadline_days: 10, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: -100 };

    it('is posting (no row, no history) until the reward is set aside; abandoned, it is as if it never was', () => {
      const begun = eventsOf(decideBeginPosting(null, spec, 3, 2));
      assert.deepEqual(begun, [{ type: 'reservation-begun', day: 2, reservation: { purpose: 'reward', organization_id: 1, amount: 20, agent_id: 3, day: 2, op: 'quest:8:reserved:1', quest: spec } }]);
      const s = begun.reduce<QuestState>(evolveQuest, null) as Quest;
      assert.equal(s.status, 'posting');
      const posted = eventsOf(decideReservationAnswer(s, { ok: true })).reduce<QuestState>(evolveQuest, s) as Quest;
      assert.deepEqual({ ...posted, reservations: undefined }, { ...(eventsOf(decidePost(null, spec, 3, 2)).reduce<QuestState>(evolveQuest, null) as Quest), reservations: undefined }, 'posted as it would have been at once');
      assert.equal(posted.reserving, undefined);
      const abandoned = eventsOf(decideReservationAnswer(s, refused));
      assert.deepEqual(abandoned, [{ type: 'reservation-abandoned', day: 2, quest_id: 8, reason: 'no' }]);
      assert.equal(abandoned.reduce<QuestState>(evolveQuest, s), null, 'wholly undone');
      assert.equal(decideReservationAnswer(s, unknown), null, 'pending while the outcome is unknown');
      const again = decideBeginPosting(posted, spec, 3, 2);
      assert.ok('refusal' in again && again.refusal.status === 409, 'an existing quest is not posted again');
    });

    it('names each sponsorship anew; abandoned, the quest is as it was', () => {
      const open = eventsOf(decidePost(null, spec, 3, 2)).reduce<QuestState>(evolveQuest, null);
      const first = eventsOf(decideBeginSponsoring(open, 5, 10, 4, 3));
      assert.deepEqual(first, [{ type: 'reservation-begun', day: 3, reservation: { purpose: 'sponsorship', organization_id: 5, amount: 10, agent_id: 4, day: 3, op: 'quest:8:reserved:1' } }]);
      const s = first.reduce(evolveQuest, open);
      assert.equal(s!.reward, 20, 'the pledge counts once it is set aside');
      const sponsored = eventsOf(decideReservationAnswer(s, { ok: true })).reduce(evolveQuest, s) as Quest;
      assert.equal(sponsored.reward, 30);
      assert.equal(sponsored.reserving, null);
      const second = eventsOf(decideBeginSponsoring(sponsored, 5, 10, 4, 3));
      assert.equal((second[0] as { reservation: { op: string } }).reservation.op, 'quest:8:reserved:2');
      const undone = eventsOf(decideReservationAnswer(second.reduce(evolveQuest, sponsored), refused)).reduce(evolveQuest, second.reduce(evolveQuest, sponsored)) as Quest;
      assert.deepEqual(undone.funds, sponsored.funds);
      assert.equal(undone.reserving, null);
      const closed = decideBeginSponsoring(evolveQuest(sponsored, { type: 'withdrawn', day: 4, agent_id: 3, reason: 'x' }), 5, 10, 4, 4);
      assert.ok('refusal' in closed && closed.refusal.status === 409, 'refuses as before, recording nothing');
    });

    it('names the sponsor in the history when its name was kept on the intent, by id in older records', () => {
      const open = eventsOf(decidePost(null, { ...spec, requester_name: 'Ashvale' }, 3, 2)).reduce<QuestState>(evolveQuest, null);
      const told = (name?: string) => {
        const s = eventsOf(decideBeginSponsoring(open, 5, 10, 4, 3, name)).reduce(evolveQuest, open);
        const [e] = eventsOf(decideReservationAnswer(s, { ok: true }));
        return questKind.chronicle!(e, evolveQuest(s, e), s).map((h) => h.summary);
      };
      assert.deepEqual(told('Lantern Co'), ['Lantern Co pledged 10 gold to "Clear the road"; the reward is now 30']);
      assert.deepEqual(told(), ['Organization 5 pledged 10 gold to "Clear the road"; the reward is now 30']);
    });

    it('the organization sets a named reservation aside once, whatever happened since', () => {
      const found: FoundCommand = { type: 'found', id: 1, agent_id: 3, name: 'Lantern Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
      const o = eventsOf(decideFound(null, found)).reduce<OrganizationState>(evolveOrganization, null) as Organization;
      const reserve = { type: 'reserve-gold' as const, agent_id: 3, day: 2, amount: 20, quest_id: 8, purpose: 'reward' as const, op: 'quest:8:reserved:1' };
      const after = eventsOf(decideReserveGold(o, reserve)).reduce<OrganizationState>(evolveOrganization, o);
      assert.equal(after!.treasury, o.treasury - 20);
      assert.deepEqual(eventsOf(decideReserveGold(after, reserve)), []);
      const ended = eventsOf(decideDissolve(after, 3, 3)).reduce<OrganizationState>(evolveOrganization, after);
      assert.deepEqual(eventsOf(decideReserveGold(ended, reserve)), [], 'done, also once it has ended');
      const other = decideReserveGold(ended, { ...reserve, op: 'quest:8:reserved:2' });
      assert.ok('refusal' in other && other.refusal.status === 409);
    });
  });

  describe('dispatching a party (quest)', () => {
    const spec = { id: 8, title: 'Clear the road', description: 'd', requester_id: 1, location_id: 'emberfall', reward: 20, deadline_days: null, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: -100 };
    const open = () => eventsOf(decidePost(null, spec, 3, 2)).reduce<QuestState>(evolveQuest, null);
    const sending = { party_id: 4, organization_id: 7, agent_id: 5, day: 3, members: [30, 31], accepting: true };

    it('records a named intent; the quest is accepted and the party on it only once the end is recorded', () => {
      const begun = eventsOf(decideBeginDispatch(open(), sending));
      assert.deepEqual(begun, [{ type: 'dispatch-begun', day: 3, dispatching: { ...sending, op: 'quest:8:dispatch:1' } }]);
      const s = begun.reduce(evolveQuest, open()) as Quest;
      assert.equal(s.status, 'open');
      assert.equal(s.party_id, null);
      const end = eventsOf(decideDispatchAnswer(s, { ok: true }));
      assert.deepEqual(end.map((e) => e.type), ['accepted', 'dispatched']);
      const done = end.reduce(evolveQuest, s) as Quest;
      assert.equal(done.status, 'accepted');
      assert.equal(done.accepted_organization_id, 7);
      assert.deepEqual(done.party_members, [30, 31]);
      assert.equal(done.dispatching, null);
      const undone = eventsOf(decideDispatchAnswer(s, refused)).reduce(evolveQuest, s) as Quest;
      assert.deepEqual({ ...undone, dispatching: undefined, dispatches: undefined }, { ...(open() as Quest), dispatching: undefined, dispatches: undefined }, 'wholly undone');
      assert.equal(decideDispatchAnswer(s, unknown), null);
      assert.equal((eventsOf(decideBeginDispatch(undone, sending))[0] as { dispatching: { op: string } }).dispatching.op, 'quest:8:dispatch:2', 'a new name for each');
    });

    it('the organization sends a named dispatch once, also once the party is home', () => {
      const found: FoundCommand = { type: 'found', id: 7, agent_id: 5, name: 'Band', kind: 'adventurers band', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
      let o = eventsOf(decideFound(null, found)).reduce<OrganizationState>(evolveOrganization, null);
      o = eventsOf(decideEmploy(o, { type: 'employ', agent_id: 5, day: 2, adventurer_id: 30 })).reduce<OrganizationState>(evolveOrganization, o);
      o = evolveOrganization(o, { type: 'party-formed', day: 2, agent_id: 5, party_id: 4, name: 'The Few' });
      o = evolveOrganization(o, { type: 'party-member-added', day: 2, agent_id: 5, party_id: 4, adventurer_id: 30 });
      const send = { type: 'dispatch-party' as const, agent_id: 5, day: 3, party_id: 4, quest_id: 8, location_id: 'emberfall', op: 'quest:8:dispatch:1' };
      const away = eventsOf(decideDispatchParty(o, send)).reduce<OrganizationState>(evolveOrganization, o);
      assert.equal(away!.parties[0].status, 'dispatched');
      assert.deepEqual(eventsOf(decideDispatchParty(away, send)), []);
      const home = evolveOrganization(away, { type: 'quest-settled', day: 4, quest_id: 8, gold: 0, flows: [], reputation: 0, trust: {}, party_id: 4, dead: [], reason: 'quest full', op: 'quest:8:resolved' });
      assert.deepEqual(eventsOf(decideDispatchParty(home, send)), [], 'not sent again once it is home');
    });

    it('the organization sends only the party the quest checked: a member released or added since is a 409 and nothing is sent', () => {
      const found: FoundCommand = { type: 'found', id: 7, agent_id: 5, name: 'Band', kind: 'adventurers band', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
      let o = eventsOf(decideFound(null, found)).reduce<OrganizationState>(evolveOrganization, null);
      for (const id of [30, 31]) {
        o = eventsOf(decideEmploy(o, { type: 'employ', agent_id: 5, day: 2, adventurer_id: id })).reduce<OrganizationState>(evolveOrganization, o);
      }
      o = evolveOrganization(o, { type: 'party-formed', day: 2, agent_id: 5, party_id: 4, name: 'The Few' });
      for (const id of [30, 31]) o = evolveOrganization(o, { type: 'party-member-added', day: 2, agent_id: 5, party_id: 4, adventurer_id: id });
      const send = { type: 'dispatch-party' as const, agent_id: 5, day: 3, party_id: 4, quest_id: 8, location_id: 'emberfall', op: 'quest:8:dispatch:1' };
      // The quest saw 30 and 31; 30 was released in between.
      const released = evolveOrganization(o, { type: 'adventurer-left', day: 3, agent_id: 5, adventurer_id: 30 });
      const refused = decideDispatchParty(released, { ...send, members: [30, 31] });
      assert.ok('refusal' in refused);
      assert.equal(refused.refusal.status, 409);
      assert.match(refused.refusal.detail, /party The Few changed while it was being sent \(its members are now 31\); dispatch it again/);
      // The quest saw 31 alone; 30 joined in between.
      assert.equal((decideDispatchParty(o, { ...send, members: [31] }) as { refusal: { status: number } }).refusal.status, 409);
      // The same members in another order, or a command without them: sent.
      assert.equal(eventsOf(decideDispatchParty(o, { ...send, members: [31, 30] }))[0].type, 'party-dispatched');
      assert.equal(eventsOf(decideDispatchParty(o, send))[0].type, 'party-dispatched');
    });

    it('names the party, its organization and the quest in the history; older records without the names read by id', () => {
      // The quest's side: the names kept on the intent go on accepted and dispatched.
      const named = eventsOf(decideBeginDispatch(open(), { ...sending, party_name: 'The Few', organization_name: 'Band' })).reduce(evolveQuest, open()) as Quest;
      const end = eventsOf(decideDispatchAnswer(named, { ok: true }));
      const told = (es: QuestEvent[], from: QuestState) => {
        const out: string[] = [];
        let q = from;
        for (const e of es) { const next = evolveQuest(q, e); out.push(...questKind.chronicle!(e, next, q).map((h) => h.summary)); q = next; }
        return out;
      };
      assert.deepEqual(told(end, named), ['Band accepted "Clear the road"', 'The party "The Few" of Band set out on "Clear the road" at emberfall']);
      const old = eventsOf(decideBeginDispatch(open(), sending)).reduce(evolveQuest, open()) as Quest;
      assert.deepEqual(told(eventsOf(decideDispatchAnswer(old, { ok: true })), old), ['Organization 7 accepted "Clear the road"', 'Party 4 set out on "Clear the road" at emberfall']);

      // The organization's side: the quest's title, carried on the command, names it; the id stays in data.
      const found: FoundCommand = { type: 'found', id: 7, agent_id: 5, name: 'Band', kind: 'adventurers band', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
      let o = eventsOf(decideFound(null, found)).reduce<OrganizationState>(evolveOrganization, null);
      o = evolveOrganization(o, { type: 'party-formed', day: 2, agent_id: 5, party_id: 4, name: 'The Few' });
      const history = (before: OrganizationState, es: OrganizationEvent[]) => {
        const out: Array<{ summary: string; data?: Record<string, unknown> }> = [];
        let st = before;
        for (const e of es) { const next = evolveOrganization(st, e); out.push(...organizationKind.chronicle!(e, next, st)); st = next; }
        return out;
      };
      const reserve = { type: 'reserve-gold' as const, agent_id: 5, day: 2, amount: 20, quest_id: 8, purpose: 'reward' as const, op: 'quest:8:reserved:1' };
      const [withTitle] = history(o, eventsOf(decideReserveGold(o, { ...reserve, quest_title: 'Clear the road' })));
      assert.equal(withTitle.summary, 'Band set aside 20 gold for the reward of "Clear the road"');
      assert.equal(withTitle.data!.quest_id, 8);
      assert.equal(history(o, eventsOf(decideReserveGold(o, reserve)))[0].summary, 'Band set aside 20 gold for the reward of quest 8', 'an older event reads by id');
      const settle = { type: 'quest-settled' as const, day: 4, quest_id: 8, gold: 20, flows: [{ flow: 'quest_escrow' as const, gold: 20 }], reputation: 0, trust: {}, party_id: null, dead: [], reason: 'quest full', op: 'quest:8:resolved' };
      assert.equal(history(o, eventsOf(decideQuestSettled(o, { ...settle, quest_title: 'Clear the road' })))[0].summary, 'Band received 20 gold from "Clear the road" (quest full)');
      assert.equal(history(o, eventsOf(decideQuestSettled(o, settle)))[0].summary, 'Band received 20 gold from quest 8 (quest full)');
      o = evolveOrganization(o, { type: 'party-member-added', day: 2, agent_id: 5, party_id: 4, adventurer_id: 30 });
      const send = { type: 'dispatch-party' as const, agent_id: 5, day: 3, party_id: 4, quest_id: 8, location_id: 'emberfall', op: 'quest:8:dispatch:1' };
      const [dispatched] = history(o, eventsOf(decideDispatchParty(o, { ...send, quest_title: 'Clear the road' })));
      assert.equal(dispatched.summary, 'Band dispatched the party "The Few" on "Clear the road"');
      assert.equal(dispatched.data!.quest_id, 8);
      assert.equal(history(o, eventsOf(decideDispatchParty(o, send)))[0].summary, 'Band dispatched the party "The Few" on quest 8');
    });
  });

  describe("an alliance's proposal (relationship), acceptance and end (alliance)", () => {
    const spec = { id: 3, proposer_id: 7, counterparty_id: 5, terms: 'Together on the roads.' };

    it('a proposal is an intent of the pair until the alliance answers; abandoned, the pair is as it was', () => {
      const begun = eventsOf(decideBeginOpening(null, spec, null, 2, 1));
      assert.deepEqual(begun, [{ type: 'alliance-opening', day: 2, organization_ids: [5, 7], alliance: spec, agent_id: 1 }]);
      const s = begun.reduce<RelationshipState>(evolveRelationship, null);
      assert.equal(s!.alliance_id, null);
      const opened = eventsOf(decideOpeningAnswer(s, { ok: true })).reduce<RelationshipState>(evolveRelationship, s);
      assert.deepEqual(opened, { organization_ids: [5, 7], alliance_id: 3 });
      assert.equal(eventsOf(decideOpeningAnswer(s, refused)).reduce<RelationshipState>(evolveRelationship, s), null, 'wholly undone');
      assert.equal(decideOpeningAnswer(s, unknown), null);
      const again = eventsOf(decideBeginOpening(opened, { ...spec, id: 4 }, { id: 3, status: 'ended' }, 5, 1)).reduce<RelationshipState>(evolveRelationship, opened);
      const back = eventsOf(decideOpeningAnswer(again, refused)).reduce<RelationshipState>(evolveRelationship, again);
      assert.deepEqual(back, { ...opened, opening: null }, 'a pair with an alliance keeps it');
    });

    it('the alliance proposed again by the same proposal answers what it is', () => {
      const a = eventsOf(decideProposeAlliance(null, spec, 1, 2)).reduce<AllianceState>(evolveAlliance, null);
      assert.deepEqual(eventsOf(decideProposeAlliance(a, spec, 1, 2)), []);
    });

    it('an acceptance or end is recorded as an intent, named, and is done only once recorded', () => {
      const a = eventsOf(decideProposeAlliance(null, spec, 1, 2)).reduce<AllianceState>(evolveAlliance, null);
      const accept = { type: 'accept' as const, organization_id: 5, agent_id: 2, day: 3 };
      const s = eventsOf(decideBeginChange(a, accept)).reduce<AllianceState>(evolveAlliance, a) as Alliance;
      assert.equal(s.status, 'proposed');
      assert.deepEqual(s.changing, { change: 'accept', organization_id: 5, agent_id: 2, day: 3 });
      const active = eventsOf(decideChangeDone(s)).reduce<AllianceState>(evolveAlliance, s) as Alliance;
      assert.equal(active.status, 'active');
      assert.equal(active.changing, null);
      assert.deepEqual(eventsOf(decideChangeDone(active)), [], 'nothing under way: nothing to record');
      assert.notEqual(trustOp(3, 'accept'), trustOp(3, 'end'));
      const refusedEnd = decideBeginChange(active, { ...accept, type: 'end', organization_id: 9 });
      assert.ok('refusal' in refusedEnd && refusedEnd.refusal.status === 403, 'refuses as before, recording nothing');
    });
  });

  describe("the world's initiative taken again", () => {
    it('posts nothing more for a seeded organization that posted today, or whose posting is under way', () => {
      const quests = [
        { requester_id: 1, posted_day: 5, world_funded: false },
        { requester_id: 2, posted_day: 4, world_funded: false },
        { requester_id: 3, posted_day: 5, world_funded: true },
      ];
      const pending = [{ kind: 'quest', intent: 'posting', day: 5, organization_id: 4 }, { kind: 'quest', intent: 'sponsorship', day: 5, organization_id: 2 }];
      assert.deepEqual([1, 2, 3, 4].map((id) => postedToday(id, 5, quests, pending)), [true, false, false, true]);
      assert.equal(postedToday(4, 6, quests, pending), false, 'a posting of another day is not this day\'s');
    });

    it("knows today's newcomer", () => {
      assert.equal(arrivedToday(5, [{ joined_day: 1 }, { joined_day: 5 }]), true);
      assert.equal(arrivedToday(5, [{ joined_day: 1 }, { joined_day: 4 }]), false);
    });
  });

  describe("a quest's return of an ended sponsor's pledge", () => {
    const spec = { id: 8, title: 'Clear the road', description: 'd', requester_id: 1, location_id: 'emberfall', reward: 20, deadline_days: null, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: -100 };
    const sponsored = (): QuestState => [
      ...eventsOf(decidePost(null, spec, 1, 1)),
      { type: 'sponsored', day: 1, organization_id: 5, amount: 10, agent_id: 3 },
      { type: 'sponsored', day: 2, organization_id: 5, amount: 5, agent_id: 3 },
      { type: 'sponsored', day: 2, organization_id: 6, amount: 7, agent_id: 4 },
    ].reduce<QuestState>((q, e) => evolveQuest(q, e as QuestEvent), null);

    it('records what goes back (every pledge of the sponsor), named, before the sponsor is paid', () => {
      const begun = eventsOf(decidePledgeReturn(sponsored(), 5, 4));
      assert.deepEqual(begun, [{ type: 'pledge-return-begun', day: 4, pledge_return: { day: 4, organization_id: 5, amount: 15, op: 'quest:8:pledge-returned' } }]);
      const s = begun.reduce(evolveQuest, sponsored()) as Quest;
      assert.equal(s.reward, 42, 'the reward holds the pledge until it is returned');
      const done = evolveQuest(s, { type: 'sponsorship-refunded', day: 4, organization_id: 5, amount: 15 }) as Quest;
      assert.equal(done.pledge_return, null);
      assert.equal(done.reward, 27);
      assert.deepEqual(done.funds, [{ organization_id: 1, amount: 20 }, { organization_id: 6, amount: 7 }]);
    });

    it('returns nothing twice, nor from a quest that is over', () => {
      const done = [...eventsOf(decidePledgeReturn(sponsored(), 5, 4)), { type: 'sponsorship-refunded', day: 4, organization_id: 5, amount: 15 } as QuestEvent].reduce(evolveQuest, sponsored());
      assert.deepEqual(eventsOf(decidePledgeReturn(done, 5, 4)), []);
      const withdrawn = evolveQuest(sponsored(), { type: 'withdrawn', day: 3, agent_id: 1, reason: 'withdrawn by the requester' });
      assert.deepEqual(eventsOf(decidePledgeReturn(withdrawn, 5, 4)), [], 'its withdrawal paid the pledge back');
      assert.deepEqual(eventsOf(decidePledgeReturn(null, 5, 4)), []);
    });

    it('names the sponsor whose pledge went back when its name was kept on the intent, by id in older records', () => {
      const named = eventsOf(decidePledgeReturn(sponsored(), 5, 4, 'Lantern Co'));
      assert.equal((named[0] as { pledge_return: { organization_name?: string } }).pledge_return.organization_name, 'Lantern Co');
      const s = named.reduce(evolveQuest, sponsored());
      const refund = (p: { organization_name?: string }): QuestEvent => ({ type: 'sponsorship-refunded', day: 4, organization_id: 5, amount: 15, ...(p.organization_name ? { organization_name: p.organization_name } : {}) });
      const e = refund((s as Quest).pledge_return!);
      assert.deepEqual(questKind.chronicle!(e, evolveQuest(s, e), s).map((h) => h.summary), ['The 15 gold Lantern Co pledged to "Clear the road" went back to it as it ended; the reward is now 27']);
      const old = eventsOf(decidePledgeReturn(sponsored(), 5, 4)).reduce(evolveQuest, sponsored());
      const e2 = refund((old as Quest).pledge_return!);
      assert.match(questKind.chronicle!(e2, evolveQuest(old, e2), old)[0].summary, /^The 15 gold organization 5 pledged/);
    });
  });

  describe("a world event's beginning", () => {
    const spec: WorldEventSpec = { id: 4, title: 'A New Harbour', description: 'd', duration_days: 3, effects: [], quest: null, location: null };

    it('is beginning (no row, no history) until it has begun; abandoned, it is as if it never was', () => {
      const beginning = evolveWorldEvent(null, { type: 'beginning', day: 2, event: spec, introduced: [] });
      assert.equal(beginning!.status, 'beginning');
      const began = evolveWorldEvent(beginning, { type: 'began', day: 2, event: spec, quest_id: null, location_id: null, introduced: [] });
      assert.equal(began!.status, 'active');
      assert.equal(began!.ends_day, 5);
      assert.equal(evolveWorldEvent(beginning, { type: 'beginning-abandoned', day: 2, id: 4, reason: 'no' }), null);
    });

    it('asks steps that change nothing when asked again: the same road, the same quest posted by the world', () => {
      const { profile, ...place } = generateWorld('sagas').locations.find((l) => l.id === 'emberfall')!;
      const town = eventsOf(decideSeed(null, { type: 'seed', location: place, profile, day: 1 })).reduce<LocationState>(evolveLocation, null);
      const road = { destination_id: 'stormwatch', distance_days: 2, danger: 12 };
      const withRoad = eventsOf(decideAddRoute(town, road, 2)).reduce<LocationState>(evolveLocation, town);
      assert.deepEqual(eventsOf(decideAddRoute(withRoad, road, 2)), []);
      assert.equal(eventsOf(decideAddRoute(withRoad, { ...road, distance_days: 3 }, 2)).length, 1, 'another road to the same place replaces it');
      const quest = { id: 5, title: 'Clear the coast road', description: 'd', requester_id: 1, location_id: 'stormwatch', reward: 500, deadline_days: null, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: 0 };
      const posted = eventsOf(decidePost(null, quest, null, 2, true) as D<QuestEvent>).reduce<QuestState>(evolveQuest, null);
      assert.deepEqual(eventsOf(decidePost(posted, quest, null, 2, true) as D<QuestEvent>), []);
      const byAgent = decidePost(posted, quest, 3, 2, false);
      assert.ok('refusal' in byAgent && byAgent.refusal.status === 409, 'anyone else posting the same id is refused as before');
    });
  });

  describe('founding (agent)', () => {
    const agent = () => eventsOf(decideRegister(null, { type: 'register', id: 3, name: 'Ada', model: 'm', key_hash: 'h', day: 1 })).reduce<AgentState>(evolveAgent, null);
    const spec = { id: 10, name: 'Ada & Co', kind: 'guild', location_id: 'emberfall', description: '', goals: '', motto: '', day: 4 };

    it('records its intent, with the organization to found and the grant, before anything else', () => {
      const begun = eventsOf(decideBeginFounding(agent(), spec, false));
      assert.deepEqual(begun, [{ type: 'founding-begun', day: 4, organization: { ...spec, agent_id: 3, grant_share: 1 }, grant_share: 1 }]);
      const s = begun.reduce(evolveAgent, agent());
      assert.deepEqual(s!.founding, { organization: { ...spec, agent_id: 3, grant_share: 1 }, grant_share: 1 });
      assert.equal(s!.current_organization_id, null, 'the organization is not its own yet');
    });

    it('refuses as before, recording nothing', () => {
      const d = decideBeginFounding(agent(), spec, true);
      assert.ok('refusal' in d && d.refusal.status === 409);
    });

    it('ends founded, abandoned on a refusal, or stays pending when the outcome is unknown', () => {
      const s = eventsOf(decideBeginFounding(agent(), spec, false)).reduce(evolveAgent, agent());
      const founded = eventsOf(decideFoundingAnswer(s, { ok: true }));
      assert.deepEqual(founded, [{ type: 'organization-founded', day: 4, organization_id: 10, grant_share: 1 }]);
      const done = founded.reduce<AgentState>(evolveAgent, s);
      assert.equal(done!.founding, null);
      assert.equal(done!.current_organization_id, 10);
      assert.deepEqual(eventsOf(decideFoundingAnswer(done, { ok: true })), [], 'nothing under way: nothing to record');
      const abandoned = eventsOf(decideFoundingAnswer(s, refused)) as AgentEvent[];
      assert.deepEqual(abandoned, [{ type: 'founding-abandoned', day: 4, organization_id: 10, reason: 'no' }]);
      const undone = abandoned.reduce<AgentState>(evolveAgent, s);
      assert.deepEqual({ ...undone, founding: undefined }, { ...agent(), founding: undefined }, 'wholly undone');
      assert.equal(decideFoundingAnswer(s, unknown), null);
    });
  });

  describe('hiring and release (adventurer)', () => {
    const adventurer = (): AdventurerState => evolveAdventurer(null, { type: 'appeared', day: 1, adventurer: { id: 30, name: 'Wren', strength: 12, level: 1, experience: 0, traits: ['brave'] } });
    const hire = { type: 'hire' as const, organization_id: 7, agent_id: 1, day: 3 };

    it('names each hiring or release it begins', () => {
      const first = eventsOf(decideBeginEmployment(adventurer(), hire));
      assert.deepEqual(first, [{ type: 'employment-begun', day: 3, change: 'hire', organization_id: 7, agent_id: 1, op: 'adventurer:30:employment:1', fee: 20 }], 'a hiring names its fee');
      const hired = [...first, ...eventsOf(decideEmploymentAnswer(first.reduce(evolveAdventurer, adventurer()), { ok: true }))].reduce(evolveAdventurer, adventurer()) as Adventurer;
      assert.equal(hired.status, 'employed');
      assert.equal(hired.employment, null);
      const release = eventsOf(decideBeginEmployment(hired, { ...hire, type: 'release' }));
      assert.equal((release[0] as { op: string }).op, 'adventurer:30:employment:2', 'a new name for each');
      assert.equal((release[0] as { fee?: number }).fee, undefined, 'a release costs nothing');
      const released = [...release, ...eventsOf(decideEmploymentAnswer(release.reduce(evolveAdventurer, hired), { ok: true }))].reduce<AdventurerState>(evolveAdventurer, hired);
      assert.equal(released!.status, 'available');
    });

    it('begins the release of a party member (its organization says whether the party is at home), and leaves the party when released', () => {
      const member = { ...(adventurer() as Adventurer), status: 'employed' as const, organization_id: 7, party_id: 3 };
      const begun = eventsOf(decideBeginEmployment(member, { ...hire, type: 'release' }));
      assert.equal(begun[0].type, 'employment-begun');
      const released = [...begun, ...eventsOf(decideEmploymentAnswer(begun.reduce(evolveAdventurer, member), { ok: true }))].reduce<AdventurerState>(evolveAdventurer, member) as Adventurer;
      assert.equal(released.status, 'available');
      assert.equal(released.party_id, null);
    });

    it('refuses as before, recording nothing', () => {
      const employed = { ...(adventurer() as Adventurer), status: 'employed' as const, organization_id: 8 };
      const d = decideBeginEmployment(employed, hire);
      assert.ok('refusal' in d && d.refusal.status === 409);
    });

    it('ends abandoned on a refusal (wholly undone) or stays pending when the outcome is unknown', () => {
      const s = eventsOf(decideBeginEmployment(adventurer(), hire)).reduce(evolveAdventurer, adventurer());
      const abandoned = eventsOf(decideEmploymentAnswer(s, refused)) as AdventurerEvent[];
      assert.deepEqual(abandoned, [{ type: 'employment-abandoned', day: 3, organization_id: 7, reason: 'no' }]);
      const undone = abandoned.reduce<AdventurerState>(evolveAdventurer, s) as Adventurer;
      assert.equal(undone.status, 'available');
      assert.equal(undone.employment, null);
      assert.equal(decideEmploymentAnswer(s, unknown), null);
      assert.deepEqual(eventsOf(decideEmploymentAnswer(adventurer(), { ok: true })), [], 'nothing under way: nothing to record');
    });
  });

  describe('joining a party (adventurer)', () => {
    const employed = (): Adventurer => ({ ...(evolveAdventurer(null, { type: 'appeared', day: 1, adventurer: { id: 30, name: 'Wren', strength: 12, level: 1, experience: 0, traits: ['brave'] } }) as Adventurer), status: 'employed', organization_id: 7 });
    const join = { type: 'join-party' as const, party_id: 3, party_name: 'The Few', organization_id: 7, agent_id: 1, day: 3 };

    it('records its intent, naming the organization\'s side, and is in the party only once it is recorded', () => {
      const begun = eventsOf(decideBeginJoining(employed(), join));
      assert.deepEqual(begun, [{ type: 'joining-begun', day: 3, party_id: 3, party_name: 'The Few', organization_id: 7, agent_id: 1, op: 'adventurer:30:party:1' }]);
      const s = begun.reduce<AdventurerState>(evolveAdventurer, employed()) as Adventurer;
      assert.equal(s.party_id, null, 'not yet in the party');
      const joined = eventsOf(decideJoiningAnswer(s, { ok: true })).reduce<AdventurerState>(evolveAdventurer, s) as Adventurer;
      assert.equal(joined.party_id, 3);
      assert.equal(joined.joining, null);
      assert.equal(joined.party_history.length, 1);
      const left = { ...joined, party_id: null };
      assert.equal((eventsOf(decideBeginJoining(left, join))[0] as { op: string }).op, 'adventurer:30:party:2', 'a new name for each');
    });

    it('refuses as before, recording nothing', () => {
      const d = decideBeginJoining({ ...employed(), organization_id: 8 }, join);
      assert.ok('refusal' in d && d.refusal.status === 403);
      const injured = decideBeginJoining({ ...employed(), injured_until: 9 }, join);
      assert.ok('refusal' in injured && injured.refusal.status === 409);
    });

    it('ends abandoned on a refusal (wholly undone) or stays pending when the outcome is unknown', () => {
      const s = eventsOf(decideBeginJoining(employed(), join)).reduce<AdventurerState>(evolveAdventurer, employed());
      const abandoned = eventsOf(decideJoiningAnswer(s, refused)) as AdventurerEvent[];
      assert.deepEqual(abandoned, [{ type: 'joining-abandoned', day: 3, party_id: 3, organization_id: 7, reason: 'no' }]);
      const undone = abandoned.reduce<AdventurerState>(evolveAdventurer, s) as Adventurer;
      assert.deepEqual({ ...undone, joining: undefined, party_joinings: undefined }, { ...employed(), joining: undefined, party_joinings: undefined }, 'wholly undone');
      assert.equal(decideJoiningAnswer(s, unknown), null);
      assert.deepEqual(eventsOf(decideJoiningAnswer(employed(), { ok: true })), [], 'nothing under way: nothing to record');
    });
  });
});
