// What a relationship actor is told, and what it records. A relationship is the pair of
// two organizations (keyed "<lower id>-<higher id>"); it owns the rule that a pair has at
// most one proposed or active alliance, so concurrent proposals cannot both pass.
import type { AllianceSpec } from '../alliance/messages';

export interface ProposeAllianceCommand { type: 'propose-alliance'; alliance: AllianceSpec; agent_id: number; day: number }
/** Finish a proposal a crash cut short (actors/intents.ts); nothing when none is under way. */
export interface RelationshipResumeCommand { type: 'resume' }
export type RelationshipCommand = ProposeAllianceCommand | RelationshipResumeCommand;

export interface AllianceOpened { type: 'alliance-opened'; day: number; organization_ids: [number, number]; alliance_id: number }
/** The intent of a proposal the pair allows: the alliance is asked to be proposed next, then alliance-opened. */
export interface AllianceOpening { type: 'alliance-opening'; day: number; organization_ids: [number, number]; alliance: AllianceSpec; agent_id: number }
/** The alliance refused to be proposed: the pair is as it was. */
export interface AllianceOpeningAbandoned { type: 'alliance-opening-abandoned'; day: number; organization_ids: [number, number]; reason: string }
export type RelationshipEvent = AllianceOpened | AllianceOpening | AllianceOpeningAbandoned;

export interface Relationship {
  /** The two organizations, lower id first. */
  organization_ids: [number, number];
  /** The pair's latest alliance; whether it still binds them, the alliance itself knows. */
  alliance_id: number | null;
  /** A proposal under way: recorded before the alliance is asked, cleared when it ends. */
  opening?: { alliance: AllianceSpec; agent_id: number; day: number } | null;
}
export type RelationshipState = Relationship | null;
