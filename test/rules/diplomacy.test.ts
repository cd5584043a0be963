// Pure tests of the diplomacy rules: the contract and alliance state machines (core rules
// 21 and 22), message costs and delivery delays (core rule 15), and the modifiers of
// world events (core rule 23).
import assert from 'assert/strict';
import type { AllianceAction, AllianceEvent, AllianceSpec, AllianceState, Alliance } from '../../actors/alliance/messages';
import * as alliance from '../../actors/alliance/rules';
import type { Contract, ContractAction, ContractEvent, ContractSpec, ContractState, ContractStatus } from '../../actors/contract/messages';
import * as contract from '../../actors/contract/rules';
import { contractKind } from '../../actors/contract/actor';
import * as relationship from '../../actors/relationship/rules';
import type { FoundCommand, MessageSpec, Organization, OrganizationEvent, OrganizationState } from '../../actors/organization/messages';
import { MESSAGE_COST, decideFound, decideSendMessage, decideTransfer, evolve as evolveOrg, messageCost } from '../../actors/organization/rules';
import { generateWorld } from '../../actors/world/generate';
import { decideEnd, evolve as evolveEvent, type WorldEvent, type WorldEventState } from '../../actors/world-event/actor';
import { NO_LOCATION_MODIFIERS, RATE_FACTOR_MAX, isForest, locationModifiers, organizationModifiers, productionFactorAt, rateFactor, type Effect } from '../../actors/world-event/effects';
import { deliveryDelay } from '../../http/handlers/diplomacy';

type Refusable<E> = { events: E[] } | { refusal: { status: number; detail: string } };

const eventsOf = <E>(d: Refusable<E>): E[] => {
  assert.ok('events' in d, `expected events, got ${JSON.stringify(d)}`);
  return d.events;
};
const refusalOf = <E>(d: Refusable<E>): number => {
  assert.ok('refusal' in d, `expected a refusal, got ${JSON.stringify(d)}`);
  assert.equal(typeof d.refusal.detail, 'string');
  assert.ok(d.refusal.detail.length > 0, 'a refusal explains itself');
  return d.refusal.status;
};

// ---------------------------------------------------------------- contracts

const PROPOSER = 11;
const COUNTERPARTY = 12;
const STRANGER = 13;

const contractSpec = (over: Partial<ContractSpec> = {}): ContractSpec => ({
  id: 7, proposer_id: PROPOSER, counterparty_id: COUNTERPARTY, title: 'Grain for the winter', terms: 'Twenty sacks of grain delivered to the hall.',
  value: 120, resource: 'food', quantity: 20, ...over,
});

const applyContract = (s: ContractState, d: Refusable<ContractEvent>): Contract => eventsOf(d).reduce(contract.evolve, s) as Contract;

const proposedContract = (over: Partial<ContractSpec> = {}): Contract => applyContract(null, contract.decidePropose(null, contractSpec(over), 1, 3));

const act = (type: ContractAction['type'], organization_id: number, day = 4): ContractAction => ({ type, organization_id, agent_id: 2, day });

function contractIn(status: ContractStatus): Contract {
  const p = proposedContract();
  if (status === 'proposed') return p;
  if (status === 'rejected') return applyContract(p, contract.decideAction(p, act('reject', COUNTERPARTY)));
  const a = applyContract(p, contract.decideAction(p, act('accept', COUNTERPARTY)));
  if (status === 'accepted') return a;
  return applyContract(a, contract.decideAction(a, act('fulfill', PROPOSER, 5)));
}

describe('diplomacy rules', () => {
  describe('contract proposal (core rule 21)', () => {
    it('records a proposed contract with every term and no payment yet', () => {
      const c = proposedContract();
      assert.deepEqual(c, {
        ...contractSpec(), status: 'proposed', proposed_day: 3, accepted_day: null, ended_day: null, fulfilled_by: null,
      });
    });

    it('emits exactly one proposed event carrying the spec, day and agent', () => {
      const events = eventsOf(contract.decidePropose(null, contractSpec(), 9, 3));
      assert.deepEqual(events, [{ type: 'proposed', day: 3, agent_id: 9, contract: contractSpec() }]);
    });

    it('accepts a plain contract with neither resource nor quantity', () => {
      const c = proposedContract({ resource: null, quantity: 0 });
      assert.equal(c.status, 'proposed');
      assert.equal(c.resource, null);
      assert.equal(c.quantity, 0);
    });

    it('refuses a second proposal for an existing contract, a contract with oneself, and half a resource term', () => {
      assert.equal(refusalOf(contract.decidePropose(proposedContract(), contractSpec(), 1, 3)), 409);
      assert.equal(refusalOf(contract.decidePropose(null, contractSpec({ counterparty_id: PROPOSER }), 1, 3)), 409);
      assert.equal(refusalOf(contract.decidePropose(null, contractSpec({ resource: 'food', quantity: 0 }), 1, 3)), 409);
      assert.equal(refusalOf(contract.decidePropose(null, contractSpec({ resource: null, quantity: 5 }), 1, 3)), 409);
    });
  });

  describe('contract transitions (part 3)', () => {
    const statuses: ContractStatus[] = ['proposed', 'accepted', 'fulfilled', 'rejected'];

    it('moves proposed -> accepted when the counterparty accepts', () => {
      const p = contractIn('proposed');
      const events = eventsOf(contract.decideAction(p, act('accept', COUNTERPARTY, 6)));
      assert.deepEqual(events, [{ type: 'accepted', day: 6, agent_id: 2 }]);
      const a = applyContract(p, { events });
      assert.equal(a.status, 'accepted');
      assert.equal(a.accepted_day, 6);
      assert.equal(a.ended_day, null);
    });

    it('moves proposed -> rejected when the counterparty rejects', () => {
      const p = contractIn('proposed');
      const events = eventsOf(contract.decideAction(p, act('reject', COUNTERPARTY, 6)));
      assert.deepEqual(events, [{ type: 'rejected', day: 6, agent_id: 2 }]);
      const r = applyContract(p, { events });
      assert.equal(r.status, 'rejected');
      assert.equal(r.ended_day, 6);
      assert.equal(r.accepted_day, null);
    });

    for (const by of [PROPOSER, COUNTERPARTY]) {
      it(`moves accepted -> fulfilled when ${by === PROPOSER ? 'the proposer' : 'the counterparty'} fulfils`, () => {
        const a = contractIn('accepted');
        const events = eventsOf(contract.decideAction(a, act('fulfill', by, 8)));
        assert.deepEqual(events, [{ type: 'fulfilled', day: 8, agent_id: 2, organization_id: by }]);
        const f = applyContract(a, { events });
        assert.equal(f.status, 'fulfilled');
        assert.equal(f.ended_day, 8);
        assert.equal(f.fulfilled_by, by);
        assert.equal(f.value, 120, 'the terms do not change on fulfilment');
      });
    }

    it('lets only the counterparty accept or reject (403), whatever the state', () => {
      for (const status of statuses) {
        for (const type of ['accept', 'reject'] as const) {
          for (const who of [PROPOSER, STRANGER]) {
            assert.equal(refusalOf(contract.decideAction(contractIn(status), act(type, who))), 403, `${type} by ${who} when ${status}`);
          }
        }
      }
    });

    it('accepts or rejects only a proposed contract (409 otherwise)', () => {
      for (const status of ['accepted', 'fulfilled', 'rejected'] as const) {
        for (const type of ['accept', 'reject'] as const) {
          assert.equal(refusalOf(contract.decideAction(contractIn(status), act(type, COUNTERPARTY))), 409, `${type} when ${status}`);
        }
      }
    });

    it('fulfils only an accepted contract (409 when proposed, rejected or fulfilled)', () => {
      for (const status of ['proposed', 'rejected', 'fulfilled'] as const) {
        for (const by of [PROPOSER, COUNTERPARTY]) {
          assert.equal(refusalOf(contract.decideAction(contractIn(status), act('fulfill', by))), 409, `fulfil by ${by} when ${status}`);
        }
      }
    });

    it('refuses fulfilment by an uninvolved organization with 403 in every state', () => {
      for (const status of statuses) {
        assert.equal(refusalOf(contract.decideAction(contractIn(status), act('fulfill', STRANGER))), 403, status);
      }
    });

    it('answers 404 for every action on a contract that does not exist', () => {
      for (const type of ['accept', 'reject', 'fulfill'] as const) {
        assert.equal(refusalOf(contract.decideAction(null, act(type, COUNTERPARTY))), 404);
      }
    });

    it('ignores a later event on a contract that never existed', () => {
      assert.equal(contract.evolve(null, { type: 'accepted', day: 2, agent_id: 1 }), null);
    });

    it('moves trust up on fulfilment and down on rejection', () => {
      assert.equal(contract.TRUST_ON_FULFIL, 5);
      assert.equal(contract.TRUST_ON_REJECT, -5);
    });
  });

  describe('a contract asked to write its row again (a world of an older version: actors/contract/live-rows.ts)', () => {
    it('writes it when live, with nothing else changed; an ended or unknown contract writes nothing', () => {
      for (const status of ['proposed', 'accepted'] as const) {
        const live = contractIn(status);
        const events = eventsOf(contract.decideRecordRow(live, 9));
        assert.deepEqual(events, [{ type: 'row-recorded', day: 9, agent_id: null }], status);
        assert.deepEqual(applyContract(live, { events }), live, 'the contract as it was');
        assert.deepEqual(contractKind.project(applyContract(live, { events })), contractKind.project(live), 'the same row');
      }
      for (const status of ['fulfilled', 'rejected'] as const) assert.deepEqual(eventsOf(contract.decideRecordRow(contractIn(status), 9)), [], status);
      assert.deepEqual(eventsOf(contract.decideRecordRow(null, 9)), [], 'no contract');
      assert.deepEqual(contractKind.chronicle({ type: 'row-recorded', day: 9, agent_id: null }, contractIn('proposed'), contractIn('proposed')), [], 'no history line');
    });
  });

  describe('a contract whose organization ended (core rules 6, 7 and 21)', () => {
    const partyEnded = (s: ContractState, organizationId: number, how: 'bankruptcy' | 'dissolution' = 'bankruptcy', day = 9) => contract.decidePartyEnded(s, organizationId, how, day);

    for (const status of ['proposed', 'accepted'] as const) {
      for (const [who, how] of [[PROPOSER, 'bankruptcy'], [COUNTERPARTY, 'dissolution']] as const) {
        it(`closes ${status === 'accepted' ? 'an' : 'a'} ${status} contract as rejected when its ${who === PROPOSER ? 'proposer goes bankrupt' : 'counterparty is dissolved'}, with the reason; nothing else changes`, () => {
          const live = contractIn(status);
          const events = eventsOf(partyEnded(live, who, how, 9));
          const reason = `organization ${who} ${how === 'bankruptcy' ? 'went bankrupt' : 'was dissolved'}`;
          assert.deepEqual(events, [{ type: 'closed', day: 9, agent_id: null, organization_id: who, how, reason }]);
          const closed = applyContract(live, { events });
          assert.equal(closed.status, 'rejected', 'the only closing word besides fulfilled');
          assert.equal(closed.ended_day, 9);
          assert.equal(closed.end_reason, reason);
          assert.equal(closed.fulfilled_by, null);
          assert.equal(closed.withdrawn, undefined, 'it was not withdrawn');
          assert.equal(closed.accepted_day, live.accepted_day);
          assert.deepEqual({ ...closed, status: live.status, ended_day: null, end_reason: undefined }, { ...live, end_reason: undefined }, 'terms and days as they were');
        });
      }
    }

    it('names the organization by the name it had when the contract was proposed', () => {
      const named = proposedContract({ proposer_name: 'Borin Smithy', counterparty_name: 'Aurelia House' });
      assert.equal(applyContract(named, partyEnded(named, PROPOSER, 'bankruptcy')).end_reason, 'organization 11 (Borin Smithy) went bankrupt');
      assert.equal(applyContract(named, partyEnded(named, COUNTERPARTY, 'dissolution')).end_reason, 'organization 12 (Aurelia House) was dissolved');
    });

    it('changes nothing when asked again, for a fulfilled or rejected contract, for an organization not in it, or for no contract', () => {
      const closed = applyContract(contractIn('accepted'), partyEnded(contractIn('accepted'), PROPOSER));
      assert.equal(closed.status, 'rejected');
      assert.deepEqual(eventsOf(partyEnded(closed, PROPOSER)), [], 'asked again');
      assert.deepEqual(eventsOf(partyEnded(closed, COUNTERPARTY, 'dissolution')), [], 'the other side ending later');
      for (const status of ['fulfilled', 'rejected'] as const) assert.deepEqual(eventsOf(partyEnded(contractIn(status), PROPOSER)), [], status);
      assert.deepEqual(eventsOf(partyEnded(contractIn('accepted'), STRANGER)), [], 'a stranger');
      assert.deepEqual(eventsOf(partyEnded(null, PROPOSER)), [], 'no contract');
    });

    it('refuses every later action with 409 saying it was closed because the organization ended (403 to a stranger as before)', () => {
      for (const status of ['proposed', 'accepted'] as const) {
        const closed = applyContract(contractIn(status), partyEnded(contractIn(status), PROPOSER, 'bankruptcy', 9));
        for (const [type, who] of [['accept', COUNTERPARTY], ['reject', COUNTERPARTY], ['fulfill', COUNTERPARTY], ['fulfill', PROPOSER], ['withdraw', PROPOSER]] as const) {
          const d = contract.decideAction(closed, act(type, who, 10));
          assert.equal(refusalOf(d), 409, `${type} by ${who} when it was ${status}`);
          const detail = (d as { refusal: { detail: string } }).refusal.detail;
          assert.match(detail, /contract 7 was closed unfulfilled on day 9 because organization 11 went bankrupt/, detail);
          assert.match(detail, /stands as rejected/, detail);
        }
        assert.equal(refusalOf(contract.decideAction(closed, act('fulfill', STRANGER))), 403);
      }
      // A contract rejected by its counterparty is refused as before.
      assert.match((contract.decideAction(contractIn('rejected'), act('accept', COUNTERPARTY)) as { refusal: { detail: string } }).refusal.detail, /is rejected; only a proposed contract can be accepted/);
    });
  });

  // ---------------------------------------------------------------- alliances

  describe('alliances (core rule 22)', () => {
    const spec = (over: Partial<AllianceSpec> = {}): AllianceSpec => ({ id: 3, proposer_id: PROPOSER, counterparty_id: COUNTERPARTY, terms: 'Mutual defence of the eastern roads.', ...over });
    const applyAlliance = (s: AllianceState, d: Refusable<AllianceEvent>): Alliance => eventsOf(d).reduce(alliance.evolve, s) as Alliance;
    const aAct = (type: AllianceAction['type'], organization_id: number, day = 4): AllianceAction => ({ type, organization_id, agent_id: 2, day });
    const proposed = () => applyAlliance(null, alliance.decidePropose(null, spec(), 1, 2));
    const active = () => applyAlliance(proposed(), alliance.decideAction(proposed(), aAct('accept', COUNTERPARTY)));
    const ended = () => applyAlliance(active(), alliance.decideAction(active(), aAct('end', PROPOSER, 6)));

    it('records a proposed alliance', () => {
      assert.deepEqual(proposed(), {
        ...spec(), status: 'proposed', proposed_day: 2, accepted_day: null, ended_day: null, ended_by: null, end_reason: null,
      });
    });

    it('refuses a proposal that exists, or with oneself; the same proposal asked again (a retried saga) answers what it is', () => {
      assert.equal(refusalOf(alliance.decidePropose(proposed(), spec(), 1, 3)), 409);
      assert.equal(refusalOf(alliance.decidePropose(proposed(), spec({ terms: 'Other terms entirely.' }), 1, 2)), 409);
      assert.deepEqual(eventsOf(alliance.decidePropose(proposed(), spec(), 1, 2)), []);
      assert.equal(refusalOf(alliance.decidePropose(null, spec({ counterparty_id: PROPOSER }), 1, 2)), 409);
    });

    it('lets a pair propose a new alliance only while its latest one is neither proposed nor active (the relationship decides)', () => {
      const pair = relationship.evolve(null, { type: 'alliance-opened', day: 2, organization_ids: [PROPOSER, COUNTERPARTY].sort((a, b) => a - b) as [number, number], alliance_id: 3 });
      for (const status of ['proposed', 'active']) {
        assert.equal(refusalOf(relationship.decideProposeAlliance(pair, spec({ id: 4 }), { id: 3, status }, 5)), 409, status);
        assert.equal(refusalOf(relationship.decideProposeAlliance(pair, spec({ id: 4, proposer_id: COUNTERPARTY, counterparty_id: PROPOSER }), { id: 3, status }, 5)), 409, `${status}, the other way round`);
      }
      const opened = eventsOf(relationship.decideProposeAlliance(pair, spec({ id: 4 }), { id: 3, status: 'ended' }, 5));
      assert.deepEqual(opened, [{ type: 'alliance-opened', day: 5, organization_ids: [Math.min(PROPOSER, COUNTERPARTY), Math.max(PROPOSER, COUNTERPARTY)], alliance_id: 4 }]);
      assert.equal(relationship.evolve(pair, opened[0])!.alliance_id, 4);
      assert.equal(eventsOf(relationship.decideProposeAlliance(null, spec(), null, 2)).length, 1, 'a pair with no alliance yet may propose');
      assert.equal(relationship.pairKey(7, 3), relationship.pairKey(3, 7));
    });

    it('moves proposed -> active when the counterparty accepts', () => {
      const events = eventsOf(alliance.decideAction(proposed(), aAct('accept', COUNTERPARTY, 5)));
      assert.deepEqual(events, [{ type: 'accepted', day: 5, agent_id: 2 }]);
      const a = applyAlliance(proposed(), { events });
      assert.equal(a.status, 'active');
      assert.equal(a.accepted_day, 5);
    });

    it('lets only the counterparty accept (403) and only while proposed (409)', () => {
      assert.equal(refusalOf(alliance.decideAction(proposed(), aAct('accept', PROPOSER))), 403);
      assert.equal(refusalOf(alliance.decideAction(proposed(), aAct('accept', STRANGER))), 403);
      assert.equal(refusalOf(alliance.decideAction(active(), aAct('accept', COUNTERPARTY))), 409);
      assert.equal(refusalOf(alliance.decideAction(ended(), aAct('accept', COUNTERPARTY))), 409);
    });

    for (const by of [PROPOSER, COUNTERPARTY]) {
      it(`moves active -> ended when ${by === PROPOSER ? 'the proposer' : 'the counterparty'} ends it`, () => {
        const events = eventsOf(alliance.decideAction(active(), aAct('end', by, 7)));
        assert.equal(events.length, 1);
        const e = applyAlliance(active(), { events });
        assert.equal(e.status, 'ended');
        assert.equal(e.ended_day, 7);
        assert.equal(e.ended_by, by);
        assert.equal(typeof e.end_reason, 'string');
      });
    }

    it('ends a proposed or active alliance (409 once ended), only by a member (403); a proposal is withdrawn or declined at once, with no intent', () => {
      const withdrawn = eventsOf(alliance.decideBeginChange(proposed(), aAct('end', PROPOSER)));
      assert.deepEqual(withdrawn.map((e) => [e.type, (e as { reason?: string }).reason]), [['ended', 'the proposal was withdrawn']]);
      const declined = eventsOf(alliance.decideBeginChange(proposed(), aAct('end', COUNTERPARTY)));
      assert.deepEqual(declined.map((e) => [e.type, (e as { reason?: string }).reason]), [['ended', 'the proposal was declined']]);
      assert.equal(applyAlliance(proposed(), { events: declined }).status, 'ended');
      assert.deepEqual(eventsOf(alliance.decideBeginChange(active(), aAct('end', COUNTERPARTY))).map((e) => e.type), ['change-begun'], 'an active alliance ends by a saga (trust moves)');
      assert.equal(refusalOf(alliance.decideAction(proposed(), aAct('end', STRANGER))), 403);
      assert.equal(refusalOf(alliance.decideAction(ended(), aAct('end', COUNTERPARTY))), 409);
      assert.equal(refusalOf(alliance.decideAction(active(), aAct('end', STRANGER))), 403);
      assert.equal(refusalOf(alliance.decideAction(null, aAct('end', PROPOSER))), 404);
      assert.equal(refusalOf(alliance.decideAction(null, aAct('accept', COUNTERPARTY))), 404);
    });

    it('ends an alliance whose member ended, whether proposed or active, and leaves others alone', () => {
      for (const a of [proposed(), active()]) {
        const events = eventsOf(alliance.decideMemberEnded(a, COUNTERPARTY, 9));
        assert.deepEqual(events, [{ type: 'ended', day: 9, agent_id: null, organization_id: COUNTERPARTY, reason: 'a member organization ended' }]);
        const e = applyAlliance(a, { events });
        assert.equal(e.status, 'ended');
        assert.equal(e.ended_by, COUNTERPARTY);
      }
      assert.deepEqual(eventsOf(alliance.decideMemberEnded(active(), STRANGER, 9)), []);
      assert.deepEqual(eventsOf(alliance.decideMemberEnded(ended(), PROPOSER, 9)), []);
      assert.deepEqual(eventsOf(alliance.decideMemberEnded(null, PROPOSER, 9)), []);
    });

    it('raises trust on acceptance and lowers it on a break', () => {
      assert.ok(alliance.TRUST_ON_ALLIANCE > 0);
      assert.ok(alliance.TRUST_ON_BREAK < 0);
      assert.equal(alliance.TRUST_ON_ALLIANCE, 10);
      assert.equal(alliance.TRUST_ON_BREAK, -5);
    });

    it('takes back all the trust it brought when ended within ALLIANCE_SETTLING_DAYS, so alliances cannot be cycled for trust', () => {
      assert.equal(alliance.ALLIANCE_SETTLING_DAYS, 30);
      assert.equal(alliance.breakTrust(5, 5), -10, 'ended the day it was made: back to where it was');
      assert.equal(alliance.breakTrust(5, 34), -10);
      assert.equal(alliance.breakTrust(5, 35), -5, 'after 30 days, some trust stays');
      let trust = 0;
      for (let cycle = 0; cycle < 12; cycle++) trust += alliance.TRUST_ON_ALLIANCE + alliance.breakTrust(cycle, cycle);
      assert.equal(trust, 0, 'twelve quick cycles: nothing gained');
    });
  });

  // ---------------------------------------------------------------- messages and transfers

  describe('messages (core rule 15)', () => {
    const found = (treasury: number): Organization => {
      const c: FoundCommand = { type: 'found', id: 5, agent_id: 1, name: 'Quill & Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 };
      const o = eventsOf(decideFound(null, c)).reduce(evolveOrg, null as OrganizationState) as Organization;
      return { ...o, treasury };
    };
    const message = (over: Partial<MessageSpec> = {}): MessageSpec => ({
      id: 1, recipient_id: null, body: 'Hear ye', kind: 'message', deliver_day: 2, sender_location_id: 'emberfall', recipient_location_id: null, ...over,
    });
    const send = (o: Organization, m: MessageSpec, agent = 1) => decideSendMessage(o, { type: 'send-message', agent_id: agent, day: 2, message: m });

    it('costs 1 for a public message, 2 for a private one and 3 for a rumor, public or private', () => {
      assert.deepEqual(MESSAGE_COST, { public: 1, private: 2, rumor: 3 });
      assert.equal(messageCost({ kind: 'message', recipient_id: null }), 1);
      assert.equal(messageCost({ kind: 'message', recipient_id: 4 }), 2);
      assert.equal(messageCost({ kind: 'rumor', recipient_id: null }), 3);
      assert.equal(messageCost({ kind: 'rumor', recipient_id: 4 }), 3);
    });

    it('charges the sender exactly the cost', () => {
      for (const [m, cost] of [[message(), 1], [message({ recipient_id: 4 }), 2], [message({ kind: 'rumor' }), 3]] as const) {
        const events = eventsOf<OrganizationEvent>(send(found(10), m));
        assert.equal(events.length, 1);
        assert.equal((events[0] as { cost: number }).cost, cost);
        const after = events.reduce(evolveOrg, found(10) as OrganizationState) as Organization;
        assert.equal(after.treasury, 10 - cost);
      }
    });

    it('sends when the treasury equals the cost and refuses one gold short (409)', () => {
      assert.equal((eventsOf<OrganizationEvent>(send(found(2), message({ recipient_id: 4 }))).reduce(evolveOrg, found(2) as OrganizationState) as Organization).treasury, 0);
      assert.equal(refusalOf(send(found(1), message({ recipient_id: 4 }))), 409);
      assert.equal(refusalOf(send(found(2), message({ kind: 'rumor' }))), 409);
      assert.equal(refusalOf(send(found(0), message())), 409);
    });

    it('refuses a letter whose delivery was worked out from a place the sender has left since (409); a public message or rumor goes at once from anywhere', () => {
      const arrived = { ...found(10), location_id: 'greenhollow' };
      const r = send(arrived, message({ recipient_id: 4, sender_location_id: 'emberfall' }));
      assert.deepEqual(r, { refusal: { status: 409, detail: 'Quill & Co stands at greenhollow now, not at emberfall, where its letter\'s delivery was worked out from' } });
      assert.equal(eventsOf<OrganizationEvent>(send(arrived, message({ sender_location_id: 'emberfall' }))).length, 1);
      assert.equal(eventsOf<OrganizationEvent>(send(arrived, message({ kind: 'rumor', sender_location_id: 'emberfall' }))).length, 1);
    });

    it('refuses another agent (403), a private message to oneself (409) and an unknown sender (404)', () => {
      assert.equal(refusalOf(send(found(50), message(), 2)), 403);
      assert.equal(refusalOf(send(found(50), message({ recipient_id: 5 }))), 409);
      assert.equal(refusalOf(decideSendMessage(null, { type: 'send-message', agent_id: 1, day: 2, message: message() })), 404);
    });

    it('delivers at once in the same place, else after the road days plus one day per 20 danger of the destination', () => {
      const places = generateWorld('test-seed').locations;
      assert.equal(deliveryDelay(places, 'emberfall', 'emberfall'), 0);
      assert.equal(deliveryDelay(places, 'emberfall', 'greenhollow'), 2 + Math.ceil(15 / 20));
      assert.equal(deliveryDelay(places, 'emberfall', 'ironcrag'), 4 + Math.ceil(25 / 20));
      assert.equal(deliveryDelay(places, 'greenhollow', 'emberfall'), 2 + Math.ceil(5 / 20));
      // greenhollow -> whisperwood -> sunken-crypt: 1 + 2 road days, danger 60
      assert.equal(deliveryDelay(places, 'greenhollow', 'sunken-crypt'), 3 + 3);
    });

    it('takes 30 days where no road leads at all', () => {
      const islands = [
        { id: 'north', danger: 10, routes: [] },
        { id: 'south', danger: 90, routes: [] },
      ];
      assert.equal(deliveryDelay(islands, 'north', 'south'), 30);
      assert.equal(deliveryDelay(islands, 'north', 'north'), 0);
    });
  });

  describe('transfers between organizations (contract and alliance settlement)', () => {
    const org = (over: Partial<Organization> = {}): Organization => ({
      id: 5, name: 'Quill & Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '',
      treasury: 100, reputation: 10, status: 'active', agent_id: 1, travel: null, founded_day: 1, ended_day: null,
      holdings: { food: 10 }, workers: 0, employees: [], projects: [], establishments: [], parties: [], trust: {}, settled_day: 1, ...over,
    });
    const transfer = (o: OrganizationState, gold: number, holdings: Record<string, number>, trust: Record<string, number> = {}, evenIfEnded = false) =>
      decideTransfer(o, { type: 'transfer', day: 3, reason: 'contract 1', gold, holdings, trust, even_if_ended: evenIfEnded });

    it('moves gold, goods and trust together', () => {
      const after = eventsOf<OrganizationEvent>(transfer(org(), -100, { food: -10, ore: 4 }, { 6: 5 })).reduce(evolveOrg, org() as OrganizationState) as Organization;
      assert.equal(after.treasury, 0);
      assert.deepEqual(after.holdings, { ore: 4 });
      assert.deepEqual(after.trust, { 6: 5 });
    });

    it('refuses, changing nothing, what would take gold or goods below zero', () => {
      assert.equal(refusalOf(transfer(org(), -101, {})), 409);
      assert.equal(refusalOf(transfer(org(), 0, { food: -11 })), 409);
      assert.equal(refusalOf(transfer(org(), 0, { ore: -1 })), 409);
    });

    it('refuses an ended organization unless told to settle anyway, and an unknown one', () => {
      assert.equal(refusalOf(transfer(org({ status: 'dissolved' }), 5, {})), 409);
      // Settled anyway, what reaches an ended organization passes to the world at once.
      const ended = org({ status: 'dissolved', treasury: 0, holdings: {} });
      const events = eventsOf<OrganizationEvent>(transfer(ended, 5, { ore: 2 }, {}, true));
      assert.deepEqual(events.map((e) => e.type), ['transferred', 'estate-forfeited']);
      assert.deepEqual(events[1], { type: 'estate-forfeited', day: (events[1] as { day: number }).day, gold: 5, holdings: { ore: 2 }, workers: 0, reason: 'it reached the organization after its end' });
      const after = events.reduce(evolveOrg, ended as OrganizationState) as Organization;
      assert.equal(after.treasury, 0);
      assert.deepEqual(after.holdings, {});
      assert.deepEqual(eventsOf<OrganizationEvent>(transfer(ended, 0, {}, { 6: -5 }, true)).map((e) => e.type), ['transferred'], 'trust alone forfeits nothing');
      assert.equal(refusalOf(transfer(null, 5, {})), 404);
    });

    it('keeps trust within -100..100', () => {
      const high = eventsOf<OrganizationEvent>(transfer(org({ trust: { 6: 98 } }), 0, {}, { 6: 10 })).reduce(evolveOrg, org({ trust: { 6: 98 } }) as OrganizationState) as Organization;
      assert.equal(high.trust['6'], 100);
      const low = eventsOf<OrganizationEvent>(transfer(org({ trust: { 6: -97 } }), 0, {}, { 6: -5 })).reduce(evolveOrg, org({ trust: { 6: -97 } }) as OrganizationState) as Organization;
      assert.equal(low.trust['6'], -100);
    });
  });

  // ---------------------------------------------------------------- world events

  describe('world event modifiers (core rule 23)', () => {
    const effect = (kind: Effect['kind'], value: number, over: Partial<Effect> = {}): Effect => ({ kind, value, resource: null, location_id: null, price: null, ...over });
    const places = generateWorld('test-seed').locations;
    const place = (id: string) => places.find((p) => p.id === id)!;

    it('knows a forest from its kind or from the words of a wilderness', () => {
      assert.equal(isForest(place('whisperwood')), true);
      assert.equal(isForest(place('ashen-moors')), false);
      assert.equal(isForest(place('emberfall')), false);
      assert.equal(isForest(place('sunken-crypt')), false, 'a dungeon beneath a forest is not a forest');
      assert.equal(isForest({ id: 'x', name: 'X', kind: 'forest', description: 'bare' }), true);
    });

    it('changes nothing without active events', () => {
      assert.deepEqual(locationModifiers([], place('emberfall')), NO_LOCATION_MODIFIERS);
      assert.deepEqual(organizationModifiers([], 'emberfall'), { maintenance: 0, production: 0, production_at: {} });
    });

    it('raises the danger of forests only, unless a place is named', () => {
      const e = [effect('forest_danger_modifier', 20)];
      assert.equal(locationModifiers(e, place('whisperwood')).danger, 20);
      assert.equal(locationModifiers(e, place('ashen-moors')).danger, 0);
      assert.equal(locationModifiers(e, place('emberfall')).danger, 0);
      assert.equal(locationModifiers([effect('forest_danger_modifier', 15, { location_id: 'ashen-moors' })], place('ashen-moors')).danger, 15);
      assert.equal(locationModifiers([effect('forest_danger_modifier', 15, { location_id: 'ashen-moors' })], place('whisperwood')).danger, 0);
    });

    it('turns percentages into factors, summing effects and never going below zero', () => {
      const m = locationModifiers([
        effect('monster_growth_modifier', 100), effect('monster_growth_modifier', 50),
        effect('population_growth_modifier', -30), effect('production_modifier', -250),
      ], place('emberfall'));
      assert.equal(m.monster_growth, 2.5);
      assert.equal(m.population_growth, 0.7);
      assert.equal(m.production, 0);
    });

    it('moves a rate at most RATE_FACTOR_MAX times its usual, however large the modifier', () => {
      const m = locationModifiers([
        effect('monster_growth_modifier', 1_000_000), effect('population_growth_modifier', 1_000_000), effect('production_modifier', 1_000_000),
      ], place('emberfall'));
      assert.deepEqual([m.monster_growth, m.population_growth, m.production], [RATE_FACTOR_MAX, RATE_FACTOR_MAX, RATE_FACTOR_MAX]);
      assert.equal(RATE_FACTOR_MAX, 5);
      assert.equal(rateFactor(400), 5);
      assert.equal(rateFactor(399), 4.99);
      assert.equal(rateFactor(-1_000), 0);
    });

    it('applies market price factors by resource, or to all resources (adding to a single resource\'s), only where aimed', () => {
      const e = [effect('market_price_modifier', 50, { resource: 'food', location_id: 'emberfall' }), effect('market_price_modifier', -20)];
      assert.deepEqual(locationModifiers(e, place('emberfall')).prices, { food: 1.3, '*': 0.8 });
      assert.deepEqual(locationModifiers(e.slice(0, 1), place('emberfall')).prices, { food: 1.5 });
      assert.deepEqual(locationModifiers(e, place('ironcrag')).prices, { '*': 0.8 });
    });

    it('gives organizations their maintenance modifier by where they stand, and production modifiers by where they aim', () => {
      const e = [effect('maintenance_modifier', 20, { location_id: 'emberfall' }), effect('production_modifier', -40), effect('maintenance_modifier', 3)];
      assert.deepEqual(organizationModifiers(e, 'emberfall'), { maintenance: 23, production: -40, production_at: { '*': -40 } });
      assert.deepEqual(organizationModifiers(e, 'greenhollow'), { maintenance: 3, production: -40, production_at: { '*': -40 } });
    });

    it('works a production plan by the modifiers where the plan is, wherever its owner stands', () => {
      const e = [effect('production_modifier', 300, { location_id: 'greenhollow' }), effect('production_modifier', -50, { location_id: 'emberfall' }), effect('production_modifier', 10)];
      const m = organizationModifiers(e, 'greenhollow');
      assert.equal(productionFactorAt(m, 'emberfall'), 0.6, 'the plan at emberfall: -50% there and +10% everywhere');
      assert.equal(productionFactorAt(m, 'greenhollow'), 4.1);
      assert.equal(productionFactorAt(m, 'ironcrag'), 1.1);
      assert.equal(productionFactorAt(undefined, 'ironcrag'), 1);
      assert.deepEqual(organizationModifiers(e, 'ironcrag').production_at, m.production_at, 'the same for an owner anywhere');
      // A command of an older version carries only the sum where the owner stands, and is worked by it.
      assert.equal(productionFactorAt({ maintenance: 0, production: 310 }, 'emberfall'), 4.1);
    });

    it('ignores a resource introduction in the daily modifiers (it acts once, when the event begins)', () => {
      assert.deepEqual(locationModifiers([effect('resource_introduction', 50, { resource: 'spice' })], place('emberfall')), NO_LOCATION_MODIFIERS);
    });
  });

  describe('world event lifetime', () => {
    const began = (day: number, duration: number): WorldEvent => evolveEvent(null, {
      type: 'began', day, event: { id: 1, title: 'Long winter', description: 'Snow closes the passes.', duration_days: duration, effects: [], quest: null, location: null },
      quest_id: null, location_id: null, introduced: [],
    }) as WorldEvent;

    it('runs from its start for duration_days and expires on its last day', () => {
      const e = began(4, 3);
      assert.equal(e.status, 'active');
      assert.equal(e.ends_day, 7);
      assert.deepEqual(eventsOf(decideEnd(e, 5, false)), []);
      assert.deepEqual(eventsOf(decideEnd(e, 6, false)), []);
      const expired = eventsOf(decideEnd(e, 7, false));
      assert.deepEqual(expired, [{ type: 'expired', day: 7, early: false }]);
      const after = expired.reduce(evolveEvent, e as WorldEventState) as WorldEvent;
      assert.equal(after.status, 'expired');
      assert.equal(after.ended_day, 7);
      assert.equal(after.ended_early, false);
    });

    it('ends early when the operator says so, once', () => {
      const e = began(4, 30);
      const events = eventsOf(decideEnd(e, 5, true));
      assert.deepEqual(events, [{ type: 'expired', day: 5, early: true }]);
      const after = events.reduce(evolveEvent, e as WorldEventState) as WorldEvent;
      assert.equal(after.ended_early, true);
      assert.equal(refusalOf(decideEnd(after, 6, true)), 409);
      assert.equal(refusalOf(decideEnd(null, 6, true)), 404);
    });
  });
});
