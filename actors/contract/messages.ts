// What a contract actor is told, and what it records (core rule 21).
export interface ContractSpec {
  id: number;
  proposer_id: number;
  counterparty_id: number;
  title: string;
  terms: string;
  value: number;
  resource: string | null;
  quantity: number;
  /** The two organizations' names when proposed, so the history names them (older contracts have none). */
  proposer_name?: string;
  counterparty_name?: string;
}

export type ContractStatus = 'proposed' | 'accepted' | 'fulfilled' | 'rejected';

export interface Contract extends ContractSpec {
  status: ContractStatus;
  proposed_day: number;
  accepted_day: number | null;
  ended_day: number | null;
  fulfilled_by: number | null;
  /** True when the proposer withdrew it before acceptance: it then stands as rejected. */
  withdrawn?: boolean;
  /**
   * Why it was closed unfulfilled when one of its organizations ended (bankruptcy or
   * dissolution): it then stands as rejected, and nothing moved. Absent otherwise.
   */
  end_reason?: string | null;
  /** A fulfilment under way (kept out of the view): recorded before anything moves, cleared when it ends. */
  fulfilment?: Fulfilment | null;
  /** How many fulfilments it has begun: names each one's movements. */
  fulfilment_attempts?: number;
  /** A rejection under way (kept out of the view): recorded before either side's trust cools, cleared when it ends. */
  rejection?: { day: number; agent_id: number } | null;
}

/**
 * A fulfilment as decided once both sides were checked: who asked, where the goods change
 * hands, and its number (its movements are named `contract:<id>:<attempt>:...`). `undoing`
 * is set once the counterparty refused to pay: the goods go back and the fulfilment ends refused.
 */
export interface Fulfilment { attempt: number; day: number; agent_id: number; organization_id: number; location_id: string | null; undoing: boolean; reason?: string }

export interface ProposeContract { type: 'propose'; contract: ContractSpec; agent_id: number; day: number }
export interface ContractAction { type: 'accept' | 'reject' | 'withdraw' | 'fulfill'; organization_id: number; agent_id: number; day: number }
export interface ContractStatusCommand { type: 'status' }
/** Finish a fulfilment or rejection a crash cut short (actors/intents.ts); nothing when none is under way. */
export interface ContractResumeCommand { type: 'resume' }
/**
 * One of its organizations ended (the follow-up of its end, actors/organization/ending.ts):
 * a proposed or accepted contract closes with it, as rejected; nothing moves.
 */
export interface ContractPartyEnded { type: 'party-ended'; organization_id: number; how: 'bankruptcy' | 'dissolution'; day: number }
/** Write the contract's row again, as it stands (actors/contract/live-rows.ts): nothing else changes. */
export interface RecordContractRow { type: 'record-row'; day: number }
export type ContractCommand = ProposeContract | ContractAction | ContractStatusCommand | ContractResumeCommand | ContractPartyEnded | RecordContractRow;

export interface ContractProposed { type: 'proposed'; day: number; agent_id: number; contract: ContractSpec }
export interface ContractAccepted { type: 'accepted'; day: number; agent_id: number }
export interface ContractRejected { type: 'rejected'; day: number; agent_id: number }
/** The proposer took back a proposal nobody had accepted yet. */
export interface ContractWithdrawn { type: 'withdrawn'; day: number; agent_id: number }
export interface ContractFulfilled { type: 'fulfilled'; day: number; agent_id: number; organization_id: number }
export interface FulfilmentBegun { type: 'fulfilment-begun'; day: number; agent_id: number; fulfilment: Fulfilment }
/** The counterparty refused to pay after the goods were handed over: they go back. */
export interface FulfilmentUndoing { type: 'fulfilment-undoing'; day: number; agent_id: number; reason: string }
export interface FulfilmentAbandoned { type: 'fulfilment-abandoned'; day: number; agent_id: number; reason: string }
/** The intent of a rejection: the trust of each side cools (named movements), then the contract records `rejected`. */
export interface RejectionBegun { type: 'rejection-begun'; day: number; agent_id: number }
/** Closed unfulfilled because one of its organizations ended: it stands as rejected, with `end_reason`; no gold, goods or trust move. */
export interface ContractClosed { type: 'closed'; day: number; agent_id: null; organization_id: number; how: 'bankruptcy' | 'dissolution'; reason: string }
/** The row written again as the contract stands (nothing else changes). */
export interface ContractRowRecorded { type: 'row-recorded'; day: number; agent_id: null }
export type ContractEvent = ContractProposed | ContractAccepted | ContractRejected | ContractWithdrawn | ContractFulfilled | FulfilmentBegun | FulfilmentUndoing | FulfilmentAbandoned | RejectionBegun | ContractClosed | ContractRowRecorded;

export type ContractState = Contract | null;
