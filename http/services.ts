// What request handlers may use: the entities (to send commands to actors), the read model
// (to answer reads), and the service's configuration.
import type { Entities } from '../actors/ports/entities';
import type { ReadModel, Store } from '../actors/ports/store';

/** The SHA-256 hashes (hex) of the operator keys: the keys themselves are not kept. */
export interface OperatorKeyHashes {
  admin: string;
  spectator: string;
}

export interface Services {
  entities: Entities;
  read: ReadModel;
  store: Store;
  operatorKeyHashes: OperatorKeyHashes;
  seed: string;
  /** The current world day, from the read model. */
  day(): Promise<number>;
  /** Real seconds a world day lasts on the background clock (WORLD_DAY_SECONDS); 0 or absent when it is off. */
  daySeconds?: number;
  /** The time (ms since the epoch) remembered answers of Idempotency-Keys are dated and expire by. */
  now(): number;
  /**
   * Under an Idempotency-Key: the value this request made under `name` the first time it
   * was tried (kept, encrypted, with its claim), or `make()`'s, kept for a retry. Absent
   * outside one; use `once(services, ...)`.
   */
  once?<T>(name: string, make: () => Promise<T>): Promise<T>;
}

/** A value a retried request must make the same way (a new agent's key): see Services.once. */
export function once<T>(services: Services, name: string, make: () => Promise<T>): Promise<T> {
  return services.once ? services.once(name, make) : make();
}

export async function currentDay(read: ReadModel): Promise<number> {
  return (await read.row<{ day: number }>('world', 'world'))?.day ?? 0;
}
