// What a relationship actor is told, and what it records. A relationship is the pair of
// two organizations (keyed "<lower id>-<higher id>"); it owns the rule that a pair has at
// most one proposed or active alliance, so concurrent proposals cannot both pass.
import type { AllianceSpec } from '../alliance/messages';

export interface ProposeAllianceCommand { type: 'propose-alliance'; alliance: AllianceSpec; agent_id: number; day: number }
export type RelationshipCommand = ProposeAllianceCommand;

export interface AllianceOpened { type: 'alliance-opened'; day: number; organization_ids: [number, number]; alliance_id: number }
export type RelationshipEvent = AllianceOpened;

export interface Relationship {
  /** The two organizations, lower id first. */
  organization_ids: [number, number];
  /** The pair's latest alliance; whether it still binds them, the alliance itself knows. */
  alliance_id: number | null;
}
export type RelationshipState = Relationship | null;
