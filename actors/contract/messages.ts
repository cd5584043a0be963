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
}

export type ContractStatus = 'proposed' | 'accepted' | 'fulfilled' | 'rejected';

export interface Contract extends ContractSpec {
  status: ContractStatus;
  proposed_day: number;
  accepted_day: number | null;
  ended_day: number | null;
  fulfilled_by: number | null;
}

export interface ProposeContract { type: 'propose'; contract: ContractSpec; agent_id: number; day: number }
export interface ContractAction { type: 'accept' | 'reject' | 'fulfill'; organization_id: number; agent_id: number; day: number }
export interface ContractStatusCommand { type: 'status' }
export type ContractCommand = ProposeContract | ContractAction | ContractStatusCommand;

export interface ContractProposed { type: 'proposed'; day: number; agent_id: number; contract: ContractSpec }
export interface ContractAccepted { type: 'accepted'; day: number; agent_id: number }
export interface ContractRejected { type: 'rejected'; day: number; agent_id: number }
export interface ContractFulfilled { type: 'fulfilled'; day: number; agent_id: number; organization_id: number }
export type ContractEvent = ContractProposed | ContractAccepted | ContractRejected | ContractFulfilled;

export type ContractState = Contract | null;
