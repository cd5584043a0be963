// The alliance's state machine: proposed -> active (accepted by the counterparty) -> ended
// (by either side, or when a member ends).
import { accept, conflict, forbidden, notFound, type Decision } from '../result';
import type { AllianceAction, AllianceEvent, AllianceSpec, AllianceState } from './messages';

/** The name under which an acceptance or an end moves one side's trust: once per alliance each. */
export const trustOp = (allianceId: number, change: 'accept' | 'end') => `alliance:${allianceId}:${change === 'accept' ? 'accepted' : 'ended'}`;

export const TRUST_ON_ALLIANCE = 10;
export const TRUST_ON_BREAK = -5;
/** An alliance ended sooner than this after its acceptance takes back all the trust it brought. */
export const ALLIANCE_SETTLING_DAYS = 30;

/**
 * What ending an alliance does to each side's trust: an alliance that lasted
 * ALLIANCE_SETTLING_DAYS leaves some trust behind (TRUST_ON_ALLIANCE + TRUST_ON_BREAK); one
 * ended sooner leaves none, so making and breaking alliances over and over raises no trust.
 */
export const breakTrust = (acceptedDay: number | null, day: number) =>
  acceptedDay !== null && day - acceptedDay < ALLIANCE_SETTLING_DAYS ? -TRUST_ON_ALLIANCE : TRUST_ON_BREAK;

export function decidePropose(state: AllianceState, spec: AllianceSpec, agentId: number, day: number): Decision<AllianceEvent> {
  // Asked again by the proposal that created it (the relationship's retried saga), it answers what it is.
  if (state && state.proposed_day === day && state.proposer_id === spec.proposer_id && state.counterparty_id === spec.counterparty_id && state.terms === spec.terms) return accept();
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
  // A proposal no one answers would bind the pair for good (one proposed or active alliance
  // a pair): its proposer may withdraw it and its counterparty decline it. Nothing was given, so no trust moves.
  if (state.status === 'proposed') {
    return accept({ type: 'ended', day: c.day, agent_id: c.agent_id, organization_id: c.organization_id, reason: c.organization_id === state.proposer_id ? 'the proposal was withdrawn' : 'the proposal was declined' });
  }
  if (state.status !== 'active') return conflict(`alliance ${state.id} is ${state.status}; only a proposed or active alliance can be ended`);
  return accept({ type: 'ended', day: c.day, agent_id: c.agent_id, organization_id: c.organization_id, reason: 'ended by a member' });
}

/**
 * The intent of an acceptance or an end the member may make: decided as before, recorded
 * first. A proposal withdrawn or declined moves no trust: it ends at once, with no intent.
 */
export function decideBeginChange(state: AllianceState, c: AllianceAction): Decision<AllianceEvent> {
  const d = decideAction(state, c);
  if ('refusal' in d || state!.status === 'proposed' && c.type === 'end') return d;
  return accept({ type: 'change-begun', day: c.day, agent_id: c.agent_id, changing: { change: c.type, organization_id: c.organization_id, agent_id: c.agent_id, day: c.day } });
}

/** The end of a change under way, once the trust of both sides has moved. */
export function decideChangeDone(state: AllianceState): Decision<AllianceEvent> {
  const ch = state?.changing;
  if (!ch) return accept();
  return ch.change === 'accept'
    ? accept({ type: 'accepted', day: ch.day, agent_id: ch.agent_id })
    : accept({ type: 'ended', day: ch.day, agent_id: ch.agent_id, organization_id: ch.organization_id, reason: 'ended by a member' });
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
    case 'change-begun': return { ...state, changing: e.changing };
    case 'accepted': return { ...state, status: 'active', accepted_day: e.day, changing: null };
    case 'ended': return { ...state, status: 'ended', ended_day: e.day, ended_by: e.organization_id, end_reason: e.reason, changing: null };
  }
}
