// What request handlers may use: the region (to send commands to actors), the read model
// (to answer reads), and the service's configuration.
import type { Region } from '../actors/region';
import type { ReadModel, Store } from '../infra/store/ports';

export interface Keys {
  admin: string;
  spectator: string;
}

export interface Services {
  region: Region;
  read: ReadModel;
  store: Store;
  keys: Keys;
  seed: string;
  /** The current world day, from the read model. */
  day(): number;
}

export function currentDay(read: ReadModel): number {
  return read.row<{ day: number }>('world', 'world')?.day ?? 0;
}
