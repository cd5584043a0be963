// The contract's state machine: proposed -> accepted -> fulfilled, or proposed -> rejected
// (by the counterparty, or withdrawn by the proposer), or proposed or accepted -> rejected
// when one of its organizations ends (closed unfulfilled, with `end_reason`; nothing moves). Payment happens only on fulfilment:
// the counterparty pays the value to the proposer, and a resource contract moves its
// quantity from proposer to counterparty in the same step. A service contract (no
// resource) is fulfilled by the counterparty alone: fulfilling it is paying for a service
// received, so the side being paid cannot collect without delivering.
import { accept, conflict, forbidden, notFound, type Decision } from '../result';
import type { Contract, ContractAction, ContractEvent, ContractSpec, ContractState } from './messages';

export const TRUST_ON_FULFIL = 5;
export const TRUST_ON_REJECT = -5;

export function decidePropose(state: ContractState, spec: ContractSpec, agentId: number, day: number): Decision<ContractEvent> {
  if (state) return conflict(`contract ${spec.id} already exists`);
  if (spec.proposer_id === spec.counterparty_id) return conflict('an organization cannot sign a contract with itself');
  if ((spec.resource === null) !== (spec.quantity === 0)) {
    return conflict('a resource contract names both a resource and a quantity above 0; a plain contract names neither');
  }
  return accept({ type: 'proposed', day, agent_id: agentId, contract: spec });
}

/** The statuses of a contract still in force. */
export const LIVE_CONTRACT_STATUSES = ['proposed', 'accepted'] as const;
/** A contract still in force: proposed or accepted. */
export const isLive = (c: { status: string }) => (LIVE_CONTRACT_STATUSES as readonly string[]).includes(c.status);

/** Why a contract closes with an organization that ended: "organization 5 (Borin Smithy) went bankrupt". */
export function endReason(c: Pick<Contract, 'proposer_id' | 'proposer_name' | 'counterparty_name'>, organizationId: number, how: 'bankruptcy' | 'dissolution'): string {
  const name = organizationId === c.proposer_id ? c.proposer_name : c.counterparty_name;
  return `organization ${organizationId}${name ? ` (${name})` : ''} ${how === 'bankruptcy' ? 'went bankrupt' : 'was dissolved'}`;
}

/**
 * The refusal of an action on a contract no longer in the state it needs. One closed
 * because an organization ended says so, so that the survivor knows why.
 */
function notNow(state: Contract, verb: string, needed: string): Decision<ContractEvent> {
  if (state.end_reason) {
    return conflict(`contract ${state.id} was closed unfulfilled on day ${state.ended_day} because ${state.end_reason}; it stands as rejected and can no longer be ${verb}`);
  }
  return conflict(`contract ${state.id} is ${state.status}; only ${needed} contract can be ${verb}`);
}

/**
 * One of its organizations ended: a proposed or accepted contract closes with it, as
 * rejected, with the reason; no gold, goods or trust move. A contract that is no longer
 * live, or does not involve that organization, is left as it is (asked again, nothing changes).
 */
export function decidePartyEnded(state: ContractState, organizationId: number, how: 'bankruptcy' | 'dissolution', day: number): Decision<ContractEvent> {
  if (!state || !isLive(state)) return accept();
  if (organizationId !== state.proposer_id && organizationId !== state.counterparty_id) return accept();
  return accept({ type: 'closed', day, agent_id: null, organization_id: organizationId, how, reason: endReason(state, organizationId, how) });
}

/** A live contract writes its row again (a world of an older version: actors/contract/live-rows.ts); an ended or unknown one has nothing to write. */
export function decideRecordRow(state: ContractState, day: number): Decision<ContractEvent> {
  return state && isLive(state) ? accept({ type: 'row-recorded', day, agent_id: null }) : accept();
}

/** Who may do what, in which state. The organization's control by the agent is checked by the organization. */
export function decideAction(state: ContractState, c: ContractAction): Decision<ContractEvent> {
  if (!state) return notFound('contract not found');
  const involved = c.organization_id === state.proposer_id || c.organization_id === state.counterparty_id;
  switch (c.type) {
    case 'accept':
    case 'reject':
      if (c.organization_id !== state.counterparty_id) return forbidden(`only the counterparty, organization ${state.counterparty_id}, may ${c.type} this contract`);
      if (state.status !== 'proposed') return notNow(state, `${c.type}ed`, 'a proposed');
      return accept(c.type === 'accept' ? { type: 'accepted', day: c.day, agent_id: c.agent_id } : { type: 'rejected', day: c.day, agent_id: c.agent_id });
    case 'withdraw':
      if (c.organization_id !== state.proposer_id) return forbidden(`only the proposer, organization ${state.proposer_id}, may withdraw this contract`);
      if (state.status !== 'proposed') return notNow(state, 'withdrawn', 'a proposed');
      return accept({ type: 'withdrawn', day: c.day, agent_id: c.agent_id });
    case 'fulfill':
      if (!involved) return forbidden(`organization ${c.organization_id} is not a party to contract ${state.id}`);
      if (state.status !== 'accepted') return notNow(state, 'fulfilled', 'an accepted');
      if (state.resource === null && c.organization_id !== state.counterparty_id) {
        // The caller controls an involved organization (the spec's condition); this is a rule of the contract, so 409.
        return conflict(`contract ${state.id} is a service contract: only the counterparty, organization ${state.counterparty_id}, fulfils it, by paying once the service is delivered`);
      }
      return accept({ type: 'fulfilled', day: c.day, agent_id: c.agent_id, organization_id: c.organization_id });
  }
}

/** The intent of a fulfilment both sides were checked for: numbered, with the place where the goods change hands. */
export function decideBeginFulfilment(state: ContractState, c: ContractAction, locationId: string | null): Decision<ContractEvent> {
  const d = decideAction(state, c);
  if ('refusal' in d) return d;
  const attempt = (state!.fulfilment_attempts ?? 0) + 1;
  return accept({ type: 'fulfilment-begun', day: c.day, agent_id: c.agent_id, fulfilment: { attempt, day: c.day, agent_id: c.agent_id, organization_id: c.organization_id, location_id: locationId, undoing: false } });
}

/** The intent of a rejection the counterparty may make: decided as before, recorded first. */
export function decideBeginRejection(state: ContractState, c: ContractAction): Decision<ContractEvent> {
  const d = decideAction(state, c);
  if ('refusal' in d) return d;
  return accept({ type: 'rejection-begun', day: c.day, agent_id: c.agent_id });
}

/** The names of a fulfilment's movements: each applied once. */
export const fulfilmentOp = (contractId: number, attempt: number, step: 'delivered' | 'paid' | 'received' | 'returned') => `contract:${contractId}:${attempt}:${step}`;

export function evolve(state: ContractState, e: ContractEvent): ContractState {
  if (e.type === 'proposed') return { ...e.contract, status: 'proposed', proposed_day: e.day, accepted_day: null, ended_day: null, fulfilled_by: null };
  if (!state) return state;
  switch (e.type) {
    case 'accepted': return { ...state, status: 'accepted', accepted_day: e.day };
    case 'rejected': return { ...state, status: 'rejected', ended_day: e.day, rejection: null };
    case 'rejection-begun': return { ...state, rejection: { day: e.day, agent_id: e.agent_id } };
    case 'withdrawn': return { ...state, status: 'rejected', ended_day: e.day, withdrawn: true };
    case 'fulfilled': return { ...state, status: 'fulfilled', ended_day: e.day, fulfilled_by: e.organization_id, fulfilment: null };
    case 'fulfilment-begun': return { ...state, fulfilment: e.fulfilment, fulfilment_attempts: e.fulfilment.attempt };
    case 'fulfilment-undoing': return state.fulfilment ? { ...state, fulfilment: { ...state.fulfilment, undoing: true, reason: e.reason } } : state;
    case 'fulfilment-abandoned': return { ...state, fulfilment: null };
    case 'closed': return { ...state, status: 'rejected', ended_day: e.day, end_reason: e.reason };
    case 'row-recorded': return state;
  }
}
