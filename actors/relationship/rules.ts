// The relationship's rules: the key of a pair, and whether a new alliance may be proposed.
import { accept, conflict, type Decision } from '../result';
import type { RelationshipEvent, RelationshipState } from './messages';

/** The key of the pair, whichever side proposes. */
export const pairKey = (a: number, b: number) => (a < b ? `${a}-${b}` : `${b}-${a}`);

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
    return conflict(`organizations ${pair[0]} and ${pair[1]} already have a ${latest.status} alliance (alliance ${latest.id}); end it before proposing another`);
  }
  return accept({ type: 'alliance-opened', day, organization_ids: pair, alliance_id: spec.id });
}

export function evolve(_state: RelationshipState, e: RelationshipEvent): RelationshipState {
  return { organization_ids: e.organization_ids, alliance_id: e.alliance_id };
}
