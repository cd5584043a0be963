// What an organization actor is told, and what it records.
import type { Applied } from '../applied';
import type { OrganizationModifiers } from '../world-event/effects';
export interface FoundCommand {
  type: 'found';
  id: number;
  agent_id: number | null;
  name: string;
  kind: string;
  location_id: string;
  description: string;
  goals: string;
  motto: string;
  day: number;
  /** Only the world generator sets this, for seeded organizations; agents never can. */
  seeded_treasury?: number;
  /** The share of the kind's starting treasury the world grants (the founder's allowance, 0..1); 1 when absent. */
  grant_share?: number;
}

export interface UpdateCommand {
  type: 'update';
  agent_id: number;
  day: number;
  changes: { description?: string | null; goals?: string | null; motto?: string | null };
}

export interface DissolveCommand { type: 'dissolve'; agent_id: number; day: number }
export interface StatusCommand { type: 'status' }
/** Facts about the place the organization stands, read by the daily fan-out. */
export interface PlaceFacts { kind: string; danger: number }
/** What active world events do to an organization's day (production_at is absent from an older version's command). */
export type DayModifiers = Omit<OrganizationModifiers, 'production_at'> & Partial<Pick<OrganizationModifiers, 'production_at'>>;
export interface DayBeganCommand { type: 'day-began'; day: number; seed: string; place: PlaceFacts | null; modifiers?: DayModifiers }
/**
 * `days` were worked out (roads, danger, establishments) from `from_id`, where the sender read
 * that the organization stands: it sets out only if it stands there still (absent in commands
 * of before it was carried).
 */
export interface TravelCommand { type: 'travel'; agent_id: number; day: number; destination_id: string; days: number; from_id?: string }
export interface SettleTradeCommand {
  type: 'settle-trade'; agent_id: number; day: number; location_id: string;
  resource: string; side: 'buy' | 'sell'; quantity: number; gold: number;
  /** The market's price after the trade (for the history). */
  price_after?: number;
  /** The market's number for this trade: each is settled once (the market's retried saga). */
  serial?: number;
}
export interface WorkersCommand { type: 'hire-workers' | 'release-workers'; agent_id: number; day: number; quantity: number }

export interface ProjectSpec {
  id: number;
  title: string;
  kind: string;
  description: string;
  location_id: string;
  budget: number;
  duration_days: number;
  output_resource: string | null;
  output_quantity: number;
  establishment_kind: string | null;
}
/**
 * unit_price: the base price of the output resource where the project works (or the dearest
 * base price of any market where nobody trades there); null when no market trades it.
 */
export interface StartProjectCommand { type: 'start-project'; agent_id: number; day: number; project: ProjectSpec; unit_price: number | null }
export interface CancelProjectCommand { type: 'cancel-project'; agent_id: number; day: number; project_id: number }

export interface EmployCommand {
  type: 'employ' | 'unemploy'; agent_id: number; day: number; adventurer_id: number;
  /** Names this hiring or release: one already applied is not applied again (the adventurer's retried saga). */
  op?: string;
  /** The hiring fee the adventurer asks (absent: none), and its name for the history. */
  fee?: number;
  adventurer_name?: string;
  /** A release the adventurer asks itself, its career over: no agent's, and none need agree (a member away with its party still comes home first). */
  career_over?: boolean;
}
export interface FormPartyCommand { type: 'form-party'; agent_id: number; day: number; party_id: number; name: string }
/** `op` names this joining: one already applied is not applied again (the adventurer's retried saga). */
export interface AddPartyMemberCommand { type: 'add-party-member'; agent_id: number; day: number; party_id: number; adventurer_id: number; op?: string }
/**
 * `op` names this dispatch: one already applied is not applied again (the quest's retried
 * saga). `members`: the members the quest checked and records as the party it sends; the
 * party must have exactly these (a member released or added meanwhile refuses the dispatch).
 * The quest always sends them; without them the party is sent as it is.
 */
export interface DispatchPartyCommand { type: 'dispatch-party'; agent_id: number; day: number; party_id: number; quest_id: number; location_id: string; op?: string; quest_title?: string; members?: number[] }
/** Gold set aside for a quest: its reward, or a sponsorship. Only the quest can give it back. */
/** `op` names this reservation: one already applied is not applied again (the quest's retried saga). */
export interface ReserveGoldCommand { type: 'reserve-gold'; agent_id: number | null; day: number; amount: number; quest_id: number; purpose: 'reward' | 'sponsorship'; op?: string; quest_title?: string }
/** What the organization brings to a quest's requirements. */
export interface QuestStandingCommand { type: 'quest-standing'; agent_id: number; requester_id: number }
/** A quest's consequences for this organization: gold, reputation, trust, and its party coming home. */
export interface QuestSettledCommand {
  type: 'quest-settled';
  day: number;
  quest_id: number;
  /** The quest's title, so the history names it (settlements recorded before it was carried have none). */
  quest_title?: string;
  gold: number;
  /** Where the gold comes from: the organizations' gold the quest held in trust, or the world's share of a world-funded reward. */
  flows?: Array<{ flow: 'quest_escrow' | 'world_reward'; gold: number }>;
  /** Names this settlement: one already applied is not applied again (a retried resolution pays nobody twice). */
  op?: string;
  reputation: number;
  /** The quest's requester: reputation from one requester's quests is gained once a day (absent in older records). */
  requester_id?: number;
  trust: Record<string, number>;
  party_id: number | null;
  dead: number[];
  reason: string;
}

export interface MessageSpec {
  id: number;
  recipient_id: number | null;
  body: string;
  kind: 'message' | 'rumor';
  deliver_day: number;
  sender_location_id: string;
  recipient_location_id: string | null;
  /** The recipient's name when sent, so the history names it (older messages have none). */
  recipient_name?: string | null;
}
export interface SendMessageCommand { type: 'send-message'; agent_id: number; day: number; message: MessageSpec }
/**
 * A movement of gold, goods and trust decided elsewhere (a contract, an alliance). It is
 * refused, changing nothing, if it would take the treasury or a holding below zero, or if
 * the organization has ended and `even_if_ended` is not set.
 */
export interface TransferCommand {
  type: 'transfer';
  day: number;
  reason: string;
  gold: number;
  holdings: Record<string, number>;
  trust: Record<string, number>;
  even_if_ended?: boolean;
  /** Goods change hands in person: the organization must stand still (not on the road), at this place when one is named. */
  in_person?: { location_id: string | null };
  /** Names this movement: one already applied is not applied again (a retried fulfilment pays nobody twice). */
  op?: string;
  /** Trust earned by shared work (a fulfilled contract): a gain toward one organization counts once a day (absent: an alliance's, always counted). */
  work?: boolean;
}

/** Would this transfer be accepted now? Answers without recording anything (a contract checks both sides before moving anything). */
export interface CheckTransferCommand extends Omit<TransferCommand, 'type'> { type: 'check-transfer' }

/** The follow-up of its end is done (actors/organization/ending.ts): its intent ends. */
export interface EndingFollowedCommand { type: 'ending-followed'; day: number }

/**
 * Write its trust toward each other organization as rows of their own (a world of an older
 * version kept trust only in the organization's row; actors/organization/trust-rows.ts).
 */
export interface RecordTrustCommand { type: 'record-trust'; day: number }

/** Does this agent control this active organization? (asked before acting in its name elsewhere) */
export interface ControlCommand { type: 'control'; agent_id: number }
/** Its agent is retiring: from now on no command of that agent is taken (asked by the agent, actors/agent/actor.ts). */
export interface RetireControllerCommand { type: 'retire-controller'; agent_id: number; day: number }

export type OrganizationCommand =
  | ControlCommand | RetireControllerCommand | EndingFollowedCommand | SendMessageCommand | TransferCommand | CheckTransferCommand | RecordTrustCommand
  | FoundCommand | UpdateCommand | DissolveCommand | StatusCommand | DayBeganCommand | TravelCommand
  | SettleTradeCommand | WorkersCommand | StartProjectCommand | CancelProjectCommand | EmployCommand | FormPartyCommand
  | AddPartyMemberCommand | DispatchPartyCommand | ReserveGoldCommand | QuestStandingCommand | QuestSettledCommand;

export interface Founded {
  type: 'founded';
  day: number;
  id: number;
  agent_id: number | null;
  name: string;
  kind: string;
  location_id: string;
  description: string;
  goals: string;
  motto: string;
  treasury: number;
  reputation: number;
}

export interface Updated {
  type: 'updated';
  day: number;
  agent_id: number;
  changes: { description?: string; goals?: string; motto?: string };
}

/** What its income establishments paid it today (organization/establishments.ts). */
export interface EstablishmentIncome { type: 'establishment-income'; day: number; gold: number }

export interface MaintenancePaid {
  type: 'maintenance-paid';
  day: number;
  cost: number;
  paid: number;
  unpaid: number;
  reputation_lost: number;
}

export interface WentBankrupt { type: 'went-bankrupt'; day: number }
export interface Dissolved { type: 'dissolved'; day: number; agent_id: number }
export interface ControllerRetired { type: 'controller-retired'; day: number; agent_id: number }

export interface TravelStarted { type: 'travel-started'; day: number; agent_id: number; destination_id: string; arrives_day: number }
export interface Arrived { type: 'arrived'; day: number; location_id: string }
export interface TradeSettled {
  type: 'trade-settled'; day: number; agent_id: number; location_id: string;
  resource: string; side: 'buy' | 'sell'; quantity: number; gold: number; price_after?: number; serial?: number;
}
export interface WorkersHired { type: 'workers-hired'; day: number; agent_id: number; quantity: number; cost: number }
export interface WorkersReleased { type: 'workers-released'; day: number; agent_id: number; quantity: number }
export interface WorkersLost { type: 'workers-lost'; day: number; quantity: number; location_id: string }
export interface ProjectStarted { type: 'project-started'; day: number; agent_id: number; project: ProjectSpec; workers_required: number | null }
export interface ProjectCancelled { type: 'project-cancelled'; day: number; agent_id: number | null; project_id: number; refund: number; reason: string }
/** One day of work on every active project: what each spent and, for plans, produced. */
export interface ProjectsWorked {
  type: 'projects-worked';
  day: number;
  work: Array<{ project_id: number; spent: number; produced: number; staffed: boolean }>;
}
export interface ProjectCompleted { type: 'project-completed'; day: number; project_id: number; output: { resource: string; quantity: number } | null; establishment: Establishment | null }

export interface AdventurerEmployed { type: 'adventurer-employed'; day: number; agent_id: number; adventurer_id: number; op?: string; fee?: number; adventurer_name?: string }
export interface AdventurerLeft { type: 'adventurer-left'; day: number; agent_id: number; adventurer_id: number; op?: string }
export interface PartyFormed { type: 'party-formed'; day: number; agent_id: number; party_id: number; name: string }
export interface PartyMemberAdded { type: 'party-member-added'; day: number; agent_id: number; party_id: number; adventurer_id: number; op?: string }
/** `quest_title` names the quest in the history (older events have none: the history then says "quest N"). */
export interface PartyDispatched { type: 'party-dispatched'; day: number; agent_id: number; party_id: number; quest_id: number; op?: string; quest_title?: string }
export interface GoldReserved { type: 'gold-reserved'; day: number; agent_id: number | null; amount: number; quest_id: number; purpose: 'reward' | 'sponsorship'; op?: string; quest_title?: string }
export interface QuestSettled extends Omit<QuestSettledCommand, 'type'> { type: 'quest-settled' }

export interface MessageSent { type: 'message-sent'; day: number; agent_id: number; message: MessageSpec; cost: number }
export interface Transferred extends Omit<TransferCommand, 'type' | 'even_if_ended' | 'in_person'> { type: 'transferred' }
/** An ended organization's gold and goods pass to the world; so does anything that reaches it later. Its workers go home. */
export interface EstateForfeited { type: 'estate-forfeited'; day: number; gold: number; holdings: Record<string, number>; workers: number; reason: string }

/** What follows its end (its adventurers, quests, pledges, contracts, alliances) is done. */
export interface EndingFollowed { type: 'ending-followed'; day: number }

/** Its trust was written as rows of their own (RecordTrustCommand); the state is as it was. */
export interface TrustRecorded { type: 'trust-recorded'; day: number }

export type OrganizationEvent =
  | EndingFollowed | TrustRecorded | ControllerRetired | MessageSent | Transferred | EstateForfeited
  | AdventurerEmployed | AdventurerLeft | PartyFormed | PartyMemberAdded | PartyDispatched | GoldReserved | QuestSettled
  | Founded | Updated | EstablishmentIncome | MaintenancePaid | WentBankrupt | Dissolved | TravelStarted | Arrived | TradeSettled
  | WorkersHired | WorkersReleased | WorkersLost | ProjectStarted | ProjectCancelled | ProjectsWorked | ProjectCompleted;

export interface Establishment {
  id: number;
  name: string;
  kind: string;
  location_id: string;
  organization_id: number;
  project_id: number;
  founded_day: number;
}

export interface Party {
  id: number;
  name: string;
  organization_id: number;
  members: number[];
  /** formed and dispatched are the states of the specification; disbanded (kept only in the organization's own state) marks a party of an ended organization. */
  status: 'formed' | 'dispatched' | 'disbanded';
  quest_id: number | null;
  formed_day: number;
  /** The day it came back from its last quest: it sets out again the next day at the earliest. */
  returned_day?: number;
}

export interface Project extends ProjectSpec {
  owner_id: number;
  status: 'active' | 'cancelled' | 'completed';
  started_day: number;
  ended_day: number | null;
  progress_days: number;
  spent: number;
  refund: number;
  /** Set for a production plan: the workforce it declares and what it has made. */
  production: { workers_required: number; produced_total: number; staffed: boolean } | null;
}

export type OrganizationStatus = 'active' | 'bankrupt' | 'dissolved';

export interface Travel {
  destination_id: string;
  departed_day: number;
  arrives_day: number;
}

export interface Organization {
  id: number;
  name: string;
  kind: string;
  location_id: string;
  description: string;
  goals: string;
  motto: string;
  treasury: number;
  reputation: number;
  status: OrganizationStatus;
  agent_id: number | null;
  travel: Travel | null;
  founded_day: number;
  ended_day: number | null;
  holdings: Record<string, number>;
  workers: number;
  employees: number[];
  projects: Project[];
  establishments: Establishment[];
  parties: Party[];
  /** Trust toward other organizations, -100..100 (core rule 14); absent means 0. */
  trust: Record<string, number>;
  /** The last day whose upkeep was settled: a repeated tick of the same day changes nothing. */
  settled_day: number;
  /** Settlements and transfers already applied, by name, with their days (actors/applied.ts; absent in records from before they were named). */
  applied_ops?: Applied<string>;
  /** The number of the last trade settled with each market (absent before trades were numbered). */
  trades_settled?: Record<string, number>;
  /** The requesters whose quests raised its reputation today (decideQuestSettled; absent until one did). */
  quest_fame?: { day: number; from: number[] };
  /** The organizations whose shared work (a contract, a quest) raised its trust in them today (absent until one did). */
  work_trust?: { day: number; with: number[] };
  /** Its agent has retired: the organization takes none of that agent's commands (absent until then). */
  controller_retired?: boolean;
  /** It has ended and what follows its end is not yet done (absent in records from before this was kept). */
  ending_pending?: boolean;
}

export type OrganizationState = Organization | null;
