// The relationship's rules: the key of a pair, and whether a new alliance may be proposed.
import { accept, conflict, type Decision } from '../result';
import type { AllianceSpec } from '../alliance/messages';
import type { RelationshipEvent, RelationshipState } from './messages';

/** The key of the pair, whichever side proposes. */
export const pairKey = (a: number, b: number) => (a < b ? `${a}-${b}` : `${b}-${a}`);

/**
 * The read-model id of one organization's trust toward another (a `trust` row, written by
 * the organization whose trust it is): `trust:<self>:<other>`, both ids zero-padded, so the
 * rows' order by id (an id that is not all digits sorts by its text, compareIds; it starts
 * with a letter, so SQLite's integer value of it is 0 as compareIds ranks it) is the order
 * of the pairs, by the first id then the other. The row's document carries the pair's
 * public id, `<organization_id>-<other_organization_id>`.
 */
export const trustRowId = (self: number, other: number) => `trust:${String(self).padStart(TRUST_ID_DIGITS, '0')}:${String(other).padStart(TRUST_ID_DIGITS, '0')}`;
const TRUST_ID_DIGITS = 15;

/** The public id of one organization's trust toward another, as GET /api/relationships names a pair (and its `after_id`). */
export const trustPairId = (self: number, other: number) => `${self}-${other}`;

/** The two organizations of a trust row's id (trustRowId): its own, then the other. */
export const trustPairOf = (rowId: string): [number, number] => {
  const [, self, other] = rowId.split(':');
  return [Number(self), Number(other)];
};

export const LIVE_ALLIANCE = ['proposed', 'active'];

/**
 * A new alliance may be proposed unless the pair's latest one is still proposed or
 * active. `latestStatus` is what that alliance says of itself (null when there is none).
 */
export function decideProposeAlliance(
  state: RelationshipState, spec: { id: number; proposer_id: number; counterparty_id: number }, latest: { id: number; status: string } | null, day: number,
): Decision<RelationshipEvent> {
  const pair: [number, number] = [Math.min(spec.proposer_id, spec.counterparty_id), Math.max(spec.proposer_id, spec.counterparty_id)];
  if (latest && LIVE_ALLIANCE.includes(latest.status)) {
    return conflict(`organizations ${pair[0]} and ${pair[1]} already have a ${latest.status} alliance (alliance ${latest.id}); end it first (POST /api/alliances/${latest.id}/end; either of the two may end a proposed one)`);
  }
  return accept({ type: 'alliance-opened', day, organization_ids: pair, alliance_id: spec.id });
}

/** The intent of a proposal the pair allows: decided as before, recorded before the alliance is asked. */
export function decideBeginOpening(
  state: RelationshipState, spec: AllianceSpec, latest: { id: number; status: string } | null, day: number, agentId: number,
): Decision<RelationshipEvent> {
  const d = decideProposeAlliance(state, spec, latest, day);
  if ('refusal' in d) return d;
  const pair: [number, number] = [Math.min(spec.proposer_id, spec.counterparty_id), Math.max(spec.proposer_id, spec.counterparty_id)];
  return accept({ type: 'alliance-opening', day, organization_ids: pair, alliance: spec, agent_id: agentId });
}

/** How a proposal under way ends once the alliance answered: opened, abandoned when it refused, or pending (null) when unknown. */
export function decideOpeningAnswer(state: RelationshipState, answer: { ok: true } | { ok: false; refusal: { status: number; detail: string } }): Decision<RelationshipEvent> | null {
  const o = state?.opening;
  if (!o) return accept();
  if (!answer.ok) {
    if (answer.refusal.status === 503) return null;
    return accept({ type: 'alliance-opening-abandoned', day: o.day, organization_ids: state!.organization_ids, reason: answer.refusal.detail });
  }
  return accept({ type: 'alliance-opened', day: o.day, organization_ids: state!.organization_ids, alliance_id: o.alliance.id });
}

export function evolve(state: RelationshipState, e: RelationshipEvent): RelationshipState {
  switch (e.type) {
    case 'alliance-opened': return { organization_ids: e.organization_ids, alliance_id: e.alliance_id };
    case 'alliance-opening': return { organization_ids: e.organization_ids, alliance_id: state?.alliance_id ?? null, opening: { alliance: e.alliance, agent_id: e.agent_id, day: e.day } };
    // A pair that had no alliance before goes back to having no record (the read model then answers for older alliances).
    case 'alliance-opening-abandoned': return state && state.alliance_id !== null ? { ...state, opening: null } : null;
  }
}
