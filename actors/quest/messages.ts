import type { LedgerLine } from '../ledger';

// What a quest actor is told, and what it records.
export interface QuestSpec {
  id: number;
  title: string;
  description: string;
  requester_id: number;
  location_id: string;
  reward: number;
  deadline_days: number | null;
  minimum_strength: number;
  minimum_reputation: number;
  minimum_relationship: number;
  /** The requester's name when posted, so the history names it (older quests have none). */
  requester_name?: string;
}

export interface Fund { organization_id: number; amount: number }
/** The funder id of gold that came from the world: refunds to it simply return to the world. */
export const WORLD_FUND = 0;

export type QuestOutcome = 'full' | 'partial' | 'failure';

/** What the quest's resolution did: kept on the quest for everyone to read. */
export interface Resolution {
  outcome: QuestOutcome;
  reason: string;
  party_strength: number;
  /** The danger the party met: the expected danger with the spread drawn (DANGER_SPREAD). */
  effective_danger: number;
  /** The danger as the party could foresee it: the place's danger lowered by its cautious members. */
  expected_danger?: number;
  reward_paid: number;
  refunded: number;
  experience: number;
  casualties: number[];
  injured: number[];
  monsters_change: number;
}

export interface Quest extends Omit<QuestSpec, 'deadline_days'> {
  /** posting: its reward is being set aside (no row, no history until it is posted). */
  status: 'posting' | 'open' | 'accepted' | 'resolved' | 'withdrawn';
  /** Whose gold backs the reward: the requester first, then every sponsor. */
  funds: Fund[];
  deadline_day: number | null;
  posted_day: number;
  posted_by_agent_id: number | null;
  accepted_organization_id: number | null;
  accepted_day: number | null;
  party_id: number | null;
  party_members: number[];
  resolved_day: number | null;
  outcome: QuestOutcome | null;
  resolution: Resolution | null;
  withdrawn_reason: string | null;
  /** A resolution or withdrawal under way: recorded before anyone is asked, cleared when it ends. */
  closing?: Closing | null;
  /** Organizations that accepted it and let the acceptance lapse: they may not accept it again. */
  lapsed_by?: number[];
  /** An ended sponsor's pledge on its way back: recorded before the sponsor is paid, cleared when it ends. */
  pledge_return?: PledgeReturn | null;
  /** Gold being set aside for it (its reward as it is posted, or a pledge): recorded before the organization is asked. */
  reserving?: Reservation | null;
  /** How many reservations it has begun: names each one's operation. */
  reservations?: number;
  /** A party being sent: recorded before its organization is asked, cleared when it ends. */
  dispatching?: Dispatching | null;
  /** How many dispatches it has begun: names each one's operation. */
  dispatches?: number;
}

/** world_funded: the reward comes from the world itself (a world event's quest), not from the requester. */
export interface PostCommand { type: 'post'; quest: QuestSpec; agent_id: number | null; day: number; world_funded?: boolean }
export interface SponsorCommand { type: 'sponsor'; organization_id: number; amount: number; agent_id: number; day: number }
export interface AcceptCommand { type: 'accept'; organization_id: number; agent_id: number; day: number; seed: string }
export interface DispatchCommand { type: 'dispatch'; party_id: number; organization_id: number; agent_id: number; day: number; seed: string }
export interface CompleteCommand { type: 'complete'; agent_id: number; day: number; seed: string }
export interface CancelCommand { type: 'cancel'; agent_id: number; day: number }
/** An organization involved in the quest has ended (bankruptcy or dissolution). */
export interface OrganizationEndedCommand { type: 'organization-ended'; organization_id: number; day: number }
/** A sponsor has ended: its pledge goes back to it (core rule 6), and the reward shrinks by as much. */
export interface SponsorEndedCommand { type: 'sponsor-ended'; organization_id: number; day: number }
/** The world's seed draws the fates of a party its deadline or acceptance overtakes. */
export interface QuestDayCommand { type: 'day-began'; day: number; seed: string }
export interface QuestStatusCommand { type: 'status' }
/** Finish a posting, sponsorship, resolution, withdrawal or pledge return a crash cut short (actors/intents.ts); nothing when none is under way. */
export interface QuestResumeCommand { type: 'resume' }

export type QuestCommand =
  | QuestResumeCommand | PostCommand | SponsorCommand | AcceptCommand | DispatchCommand | CompleteCommand | CancelCommand
  | OrganizationEndedCommand | SponsorEndedCommand | QuestDayCommand | QuestStatusCommand;

export interface Posted { type: 'posted'; day: number; quest: QuestSpec; agent_id: number | null; world_funded?: boolean }
export interface Sponsored { type: 'sponsored'; day: number; organization_id: number; amount: number; agent_id: number; organization_name?: string }
export interface Accepted { type: 'accepted'; day: number; organization_id: number; agent_id: number; organization_name?: string }
export interface Dispatched { type: 'dispatched'; day: number; party_id: number; members: number[]; agent_id: number; party_name?: string; organization_name?: string }
/** payments: where the quest's gold went (absent in records from before the ledger). */
export interface Resolved { type: 'resolved'; day: number; agent_id: number | null; resolution: Resolution; payments?: LedgerLine[] }
export interface Withdrawn { type: 'withdrawn'; day: number; agent_id: number | null; reason: string; payments?: LedgerLine[] }
/** lapsed_organization_id: the organization whose acceptance lapsed (ACCEPTANCE_DAYS), which may not accept it again. */
export interface Reopened { type: 'reopened'; day: number; reason: string; lapsed_organization_id?: number }
export interface SponsorshipRefunded { type: 'sponsorship-refunded'; day: number; organization_id: number; amount: number; organization_name?: string }

/** An organization's share of a quest's end: gold (and where it comes from), reputation, trust, its party home, its dead. */
export interface SettlementPart {
  gold: number;
  flows: Array<{ flow: 'quest_escrow' | 'world_reward'; gold: number }>;
  reputation: number;
  trust: Record<string, number>;
  party_id: number | null;
  dead: number[];
}

/**
 * A resolution or withdrawal, decided whole (the fates drawn once) and recorded before
 * anyone is asked: each member's outcome, the monsters slain, each organization's
 * settlement (named `op`), and the event that ends it once every step is done.
 */
export interface Closing {
  end: Resolved | Withdrawn;
  outcomes: Array<{ adventurer_id: number; outcome: QuestOutcome; experience: number; injury_days: number; died: boolean; bonds: Record<string, number> }>;
  monsters: { location_id: string; change: number } | null;
  settlements: Array<{ organization_id: number; part: SettlementPart }>;
  reason: string;
  op: string;
}
export interface ClosingBegun { type: 'closing-begun'; day: number; closing: Closing }

/** What an ended sponsor gets back (its pledges to this quest), named `op` so it is paid once. */
/** `organization_name` names the sponsor in the history (intents recorded before it was carried have none). */
export interface PledgeReturn { day: number; organization_id: number; amount: number; op: string; organization_name?: string }
/** The intent of returning an ended sponsor's pledge; it ends with sponsorship-refunded. */
export interface PledgeReturnBegun { type: 'pledge-return-begun'; day: number; pledge_return: PledgeReturn }

/**
 * Gold an organization sets aside for the quest: the reward of a quest being posted (with
 * the quest to post) or a sponsor's pledge, named `op` so the organization sets it aside once.
 */
export interface Reservation {
  purpose: 'reward' | 'sponsorship'; organization_id: number; amount: number; agent_id: number | null; day: number; op: string; quest?: QuestSpec;
  /** The sponsor's name, for the history (intents recorded before it was carried have none). */
  organization_name?: string;
}
/** The intent of a posting or a sponsorship; it ends with posted or sponsored, or reservation-abandoned when the organization refused. */
export interface ReservationBegun { type: 'reservation-begun'; day: number; reservation: Reservation }
export interface ReservationAbandoned { type: 'reservation-abandoned'; day: number; quest_id: number; reason: string }

/**
 * A party's dispatch, decided once every check passed: the party and its members, whether
 * the quest is accepted on the way, and the name of the organization's side (`op`).
 */
/** `party_name` and `organization_name` name them in the history (intents recorded before they were carried have none). */
export interface Dispatching { party_id: number; organization_id: number; agent_id: number; day: number; members: number[]; accepting: boolean; op: string; party_name?: string; organization_name?: string }
/** The intent of a dispatch; it ends with dispatched (after accepted when accepting), or dispatch-abandoned when the organization refused. */
export interface DispatchBegun { type: 'dispatch-begun'; day: number; dispatching: Dispatching }
export interface DispatchAbandoned { type: 'dispatch-abandoned'; day: number; reason: string }

export type QuestEvent =
  | Posted | Sponsored | Accepted | Dispatched | Resolved | Withdrawn | Reopened | SponsorshipRefunded | ClosingBegun | PledgeReturnBegun
  | ReservationBegun | ReservationAbandoned | DispatchBegun | DispatchAbandoned;
export type QuestState = Quest | null;
