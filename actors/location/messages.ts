// What a location actor is told, and what it records. A location owns its place in the
// world (danger, population, monsters, routes); its regional market joins it later.
export interface Route { destination_id: string; distance_days: number; danger: number }

export interface LocationSpec {
  id: string;
  name: string;
  kind: string;
  description: string;
  danger: number;
  population: number;
  monster_population: number;
  routes: Route[];
}

export interface SeedLocationCommand { type: 'seed'; location: LocationSpec; day: number }
export interface LocationStatusCommand { type: 'status' }
export type LocationCommand = SeedLocationCommand | LocationStatusCommand;

export interface LocationSeeded { type: 'seeded'; day: number; location: LocationSpec }
export type LocationEvent = LocationSeeded;

export type LocationState = LocationSpec | null;
