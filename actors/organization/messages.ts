// What an organization actor is told, and what it records.
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
}

export interface UpdateCommand {
  type: 'update';
  agent_id: number;
  day: number;
  changes: { description?: string | null; goals?: string | null; motto?: string | null };
}

export interface DissolveCommand { type: 'dissolve'; agent_id: number; day: number }
export interface StatusCommand { type: 'status' }
export interface DayBeganCommand { type: 'day-began'; day: number }

export type OrganizationCommand = FoundCommand | UpdateCommand | DissolveCommand | StatusCommand | DayBeganCommand;

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

export type OrganizationEvent = Founded | Updated | MaintenancePaid | WentBankrupt | Dissolved;

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
  /** The last day whose upkeep was settled: a repeated tick of the same day changes nothing. */
  settled_day: number;
}

export type OrganizationState = Organization | null;
