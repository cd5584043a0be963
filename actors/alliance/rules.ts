// The alliance's state machine: proposed -> active (accepted by the counterparty) -> ended
// (by either side, or when a member ends).
import { accept, conflict, forbidden, notFound, type Decision } from '../result';
import type { AllianceAction, AllianceEvent, AllianceSpec, AllianceState } from './messages';

export const TRUST_ON_ALLIANCE = 10;
export const TRUST_ON_BREAK = -5;

export function decidePropose(state: AllianceState, spec: AllianceSpec, agentId: number, day: number): Decision<AllianceEvent> {
  if (state) return conflict(`alliance ${spec.id} already exists`);
  if (spec.proposer_id === spec.counterparty_id) return conflict('an organization cannot ally with itself');
  return accept({ type: 'proposed', day, agent_id: agentId, alliance: spec });
}

export function decideAction(state: AllianceState, c: AllianceAction): Decision<AllianceEvent> {
  if (!state) return notFound('alliance not found');
  if (c.type === 'accept') {
    if (c.organization_id !== state.counterparty_id) return forbidden(`only the counterparty, organization ${state.counterparty_id}, may accept this alliance`);
    if (state.status !== 'proposed') return conflict(`alliance ${state.id} is ${state.status}; only a proposed alliance can be accepted`);
    return accept({ type: 'accepted', day: c.day, agent_id: c.agent_id });
  }
  if (c.organization_id !== state.proposer_id && c.organization_id !== state.counterparty_id) {
    return forbidden(`organization ${c.organization_id} is not a member of alliance ${state.id}`);
  }
  if (state.status !== 'active') return conflict(`alliance ${state.id} is ${state.status}; only an active alliance can be ended`);
  return accept({ type: 'ended', day: c.day, agent_id: c.agent_id, organization_id: c.organization_id, reason: 'ended by a member' });
}

export function decideMemberEnded(state: AllianceState, organizationId: number, day: number): Decision<AllianceEvent> {
  if (!state || state.status === 'ended') return accept();
  if (organizationId !== state.proposer_id && organizationId !== state.counterparty_id) return accept();
  return accept({ type: 'ended', day, agent_id: null, organization_id: organizationId, reason: 'a member organization ended' });
}

export function evolve(state: AllianceState, e: AllianceEvent): AllianceState {
  if (e.type === 'proposed') return { ...e.alliance, status: 'proposed', proposed_day: e.day, accepted_day: null, ended_day: null, ended_by: null, end_reason: null };
  if (!state) return state;
  switch (e.type) {
    case 'accepted': return { ...state, status: 'active', accepted_day: e.day };
    case 'ended': return { ...state, status: 'ended', ended_day: e.day, ended_by: e.organization_id, end_reason: e.reason };
  }
}
