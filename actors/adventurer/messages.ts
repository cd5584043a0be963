// What an adventurer actor is told, and what it records.
import type { Applied } from '../applied';

export const TRAITS = ['brave', 'reckless', 'cautious', 'patient', 'loyal', 'curious'] as const;
export type Trait = (typeof TRAITS)[number];

export interface AdventurerSpec {
  id: number;
  name: string;
  strength: number;
  level: number;
  experience: number;
  traits: Trait[];
}

/** An important moment kept on the profile (core rule 13). */
export interface Moment { day: number; kind: 'joined' | 'employed' | 'released' | 'party' | 'quest' | 'injured' | 'recovered' | 'died' | 'level'; text: string }

/**
 * One quest of a party, or a party joined and not yet sent. `joined_day` is when the
 * adventurer joined the party, `resolved_day` when the quest ended; `day` is the latest
 * of the two (the day of the quest's outcome once there is one).
 */
export interface PartyRecord {
  party_id: number; organization_id: number; quest_id: number | null; outcome: string | null; day: number;
  joined_day?: number | null; resolved_day?: number | null;
}

export interface Adventurer extends AdventurerSpec {
  status: 'available' | 'employed' | 'dead';
  organization_id: number | null;
  party_id: number | null;
  /** The day an injury heals; null when unhurt. */
  injured_until: number | null;
  joined_day: number;
  quests_completed: number;
  /** Bond strength with other adventurers: positive is friendship, negative resentment. */
  bonds: Record<string, number>;
  moments: Moment[];
  party_history: PartyRecord[];
  /** A hiring or release under way: recorded before the organization is asked, cleared when it ends. */
  employment?: Omit<EmploymentBegun, 'type'> | null;
  /** The quests whose outcome it has taken, with their days (actors/applied.ts; absent in records from before this was kept). */
  quests_endured?: Applied<number>;
  /** How many hirings and releases it has begun: names each one's operation. */
  employment_changes?: number;
  /** The day its career ends (careerDays): from then on, once out of work, it leaves the living. */
  career_end_day?: number;
  /** Joining a party under way: recorded before the organization is asked, cleared when it ends. */
  joining?: Omit<JoiningBegun, 'type'> | null;
  /** How many party joinings it has begun: names each one's operation. */
  party_joinings?: number;
}

export interface SeedAdventurerCommand { type: 'seed'; adventurer: AdventurerSpec; day: number }
export interface AdventurerStatusCommand { type: 'status' }
/** organization_name: the organization's name, so the history and the adventurer's moments name it. */
export interface HireCommand { type: 'hire' | 'release'; organization_id: number; agent_id: number; day: number; organization_name?: string }
export interface JoinPartyCommand { type: 'join-party'; party_id: number; party_name: string; organization_id: number; agent_id: number; day: number }
/** The consequences of a resolved quest for one member, decided by the quest. */
export interface QuestOutcomeCommand {
  type: 'quest-outcome';
  day: number;
  quest_id: number;
  quest_title: string;
  outcome: 'full' | 'partial' | 'failure';
  experience: number;
  injury_days: number;
  died: boolean;
  bonds: Record<string, number>;
}
/** Its organization has ended (bankruptcy or dissolution): the adventurer is free again. */
export interface FreedCommand { type: 'freed'; organization_id: number; day: number; reason: string }
export interface AdventurerDayCommand { type: 'day-began'; day: number }
/** Finish a hiring, release or party joining a crash cut short (actors/intents.ts); nothing when none is under way. */
export interface AdventurerResumeCommand { type: 'resume' }
/**
 * Write its row again, so that it carries the due day of its career's end (a world of an
 * older version gave an employed adventurer's row none; actors/adventurer/career-due-days.ts).
 */
export interface RecordDueDayCommand { type: 'record-due-day'; day: number }

export type AdventurerCommand =
  | SeedAdventurerCommand | AdventurerStatusCommand | HireCommand | JoinPartyCommand | QuestOutcomeCommand | FreedCommand | AdventurerDayCommand | AdventurerResumeCommand
  | RecordDueDayCommand;

export interface AdventurerAppeared { type: 'appeared'; day: number; adventurer: AdventurerSpec }
export interface Hired { type: 'hired'; day: number; organization_id: number; agent_id: number; organization_name?: string }
export interface Released { type: 'released'; day: number; organization_id: number; agent_id: number | null; reason: string; organization_name?: string }
export interface JoinedParty { type: 'joined-party'; day: number; party_id: number; party_name: string; organization_id: number; agent_id: number }
export interface QuestEndured {
  type: 'quest-endured'; day: number; quest_id: number; quest_title: string; outcome: 'full' | 'partial' | 'failure';
  experience: number; levels_gained: number; strength_gained: number; injury_days: number; died: boolean; bonds: Record<string, number>;
}
export interface Recovered { type: 'recovered'; day: number }
/** Its career over and out of work (or just gone from its organization, `organization_id`), it dies of old age. */
export interface AgedOut { type: 'aged-out'; day: number; organization_id?: number }

/**
 * The intent of a hiring or release, recorded before the organization is asked: the
 * organization's side is named `op`, so asked again it changes nothing. It ends with
 * hired or released, or with employment-abandoned when the organization refused.
 */
export interface EmploymentBegun {
  type: 'employment-begun'; day: number; change: 'hire' | 'release'; organization_id: number; agent_id: number; op: string; organization_name?: string;
  /** A hiring's fee (rules.ts hiringFee), fixed when the hiring begins; absent in hirings recorded before fees. */
  fee?: number;
  /** A release the adventurer began itself, its career over (rules.ts decideRetirement): no agent's; it then dies of old age. */
  career_over?: true;
}
export interface EmploymentAbandoned { type: 'employment-abandoned'; day: number; organization_id: number; reason: string }

/**
 * The intent of joining a party, recorded before the organization is asked: the
 * organization's side (the member added) is named `op`, so asked again it changes nothing.
 * It ends with joined-party, or with joining-abandoned when the organization refused.
 */
export interface JoiningBegun { type: 'joining-begun'; day: number; party_id: number; party_name: string; organization_id: number; agent_id: number; op: string }
export interface JoiningAbandoned { type: 'joining-abandoned'; day: number; party_id: number; organization_id: number; reason: string }

/** Its row was written again (RecordDueDayCommand); the state is as it was. */
export interface DueDayRecorded { type: 'due-day-recorded'; day: number }

export type AdventurerEvent =
  | DueDayRecorded | AdventurerAppeared | Hired | Released | JoinedParty | QuestEndured | Recovered | AgedOut | EmploymentBegun | EmploymentAbandoned | JoiningBegun | JoiningAbandoned;

export type AdventurerState = Adventurer | null;
