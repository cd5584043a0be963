// What an adventurer actor is told, and what it records.
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

export interface Adventurer extends AdventurerSpec {
  status: 'available' | 'employed' | 'dead';
  organization_id: number | null;
  joined_day: number;
}

export interface SeedAdventurerCommand { type: 'seed'; adventurer: AdventurerSpec; day: number }
export interface AdventurerStatusCommand { type: 'status' }
export type AdventurerCommand = SeedAdventurerCommand | AdventurerStatusCommand;

export interface AdventurerAppeared { type: 'appeared'; day: number; adventurer: AdventurerSpec }
export type AdventurerEvent = AdventurerAppeared;

export type AdventurerState = Adventurer | null;
