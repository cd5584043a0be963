// Worlds older than the `trust` rows (actors/organization/actor.ts trustRows) kept each
// organization's trust only in its own row, and GET /api/relationships read every
// organization for it. At start-up each organization of such a world that has trust
// writes its rows once, through its actor (actors/once-per-world.ts); a world made since
// writes them as its trust changes.
import type { Entities } from '../ports/entities';
import type { Store } from '../ports/store';
import { askEachOncePerWorld } from '../once-per-world';

/** The setting that marks a world's trust rows written. */
export const TRUST_ROWS_WRITTEN = 'trust_rows_written';

/** Has every organization with trust write its trust rows (once per world); answers how many did. */
export function writeTrustRowsOnce(entities: Entities, store: Store, day: number): Promise<number> {
  const trusting = async () => (await store.list<{ id: number; scores: number }>('organizations', undefined, (o: { id: number; trust?: Record<string, number> }) => ({ id: o.id, scores: Object.keys(o.trust ?? {}).length })))
    .filter((o) => o.scores > 0);
  return askEachOncePerWorld(store, TRUST_ROWS_WRITTEN, day, trusting,
    (o) => entities.ask('organization', o.id, { type: 'record-trust', day }),
    (o) => `organization ${o.id} could not write its trust rows`);
}
