// What an alliance actor is told, and what it records (core rule 22).
/** The names are the two organizations' when proposed, so the history names them (older alliances have none). */
export interface AllianceSpec { id: number; proposer_id: number; counterparty_id: number; terms: string; proposer_name?: string; counterparty_name?: string }
export type AllianceStatus = 'proposed' | 'active' | 'ended';
export interface Alliance extends AllianceSpec {
  status: AllianceStatus;
  proposed_day: number;
  accepted_day: number | null;
  ended_day: number | null;
  ended_by: number | null;
  end_reason: string | null;
  /** An acceptance or an end by a member under way: recorded before trust moves, cleared when it ends. */
  changing?: Change | null;
}

/** An acceptance or an end by a member, decided; the trust of each side moves under the name `alliance:<id>:<accepted|ended>`. */
export interface Change { change: 'accept' | 'end'; organization_id: number; agent_id: number; day: number }

export interface ProposeAlliance { type: 'propose'; alliance: AllianceSpec; agent_id: number; day: number }
export interface AllianceAction { type: 'accept' | 'end'; organization_id: number; agent_id: number; day: number }
/** A member has ended (bankruptcy or dissolution): the alliance ends with it. */
export interface AllianceMemberEnded { type: 'member-ended'; organization_id: number; day: number }
export interface AllianceStatusCommand { type: 'status' }
/** Finish an acceptance or end a crash cut short (actors/intents.ts); nothing when none is under way. */
export interface AllianceResumeCommand { type: 'resume' }
export type AllianceCommand = ProposeAlliance | AllianceAction | AllianceMemberEnded | AllianceStatusCommand | AllianceResumeCommand;

export interface AllianceProposed { type: 'proposed'; day: number; agent_id: number; alliance: AllianceSpec }
export interface AllianceAccepted { type: 'accepted'; day: number; agent_id: number }
export interface AllianceEnded { type: 'ended'; day: number; agent_id: number | null; organization_id: number; reason: string }
/** The intent of an acceptance or an end by a member: the trust of each side moves next, then accepted or ended. */
export interface AllianceChangeBegun { type: 'change-begun'; day: number; agent_id: number; changing: Change }
export type AllianceEvent = AllianceProposed | AllianceAccepted | AllianceEnded | AllianceChangeBegun;
export type AllianceState = Alliance | null;
