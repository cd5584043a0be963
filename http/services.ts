// What request handlers may use: the entities (to send commands to actors), the read model
// (to answer reads), and the service's configuration.
import type { Entities } from '../actors/ports/entities';
import type { ReadModel, Store } from '../actors/ports/store';

export interface Keys {
  admin: string;
  spectator: string;
}

export interface Services {
  entities: Entities;
  read: ReadModel;
  store: Store;
  keys: Keys;
  seed: string;
  /** The current world day, from the read model. */
  day(): Promise<number>;
}

export async function currentDay(read: ReadModel): Promise<number> {
  return (await read.row<{ day: number }>('world', 'world'))?.day ?? 0;
}
