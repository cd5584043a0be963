// Worlds older than the `trust` rows (actors/organization/actor.ts trustRows) kept each
// organization's trust only in its own row, and GET /api/relationships read every
// organization for it. At start-up each organization of such a world that has trust
// writes its rows once, through its actor (so nothing it writes meanwhile is overwritten),
// once per world; a world made since writes them as its trust changes.
import { forEachLimited } from '../concurrency';
import type { Entities } from '../ports/entities';
import type { Store } from '../ports/store';

/** The setting that marks a world's trust rows written. */
export const TRUST_ROWS_WRITTEN = 'trust_rows_written';

/** Organizations recording their trust at once (each is one write). */
const AT_ONCE = 16;

/** Has every organization with trust write its trust rows (once per world); answers how many did. */
export async function writeTrustRowsOnce(entities: Entities, store: Store, day: number): Promise<number> {
  if (await store.setting(TRUST_ROWS_WRITTEN)) return 0;
  const trusting = (await store.list<{ id: number; scores: number }>('organizations', undefined, (o: { id: number; trust?: Record<string, number> }) => ({ id: o.id, scores: Object.keys(o.trust ?? {}).length })))
    .filter((o) => o.scores > 0);
  await forEachLimited(trusting, AT_ONCE, async (o) => {
    const r = await entities.ask('organization', o.id, { type: 'record-trust', day });
    // Not marked written: the next start tries again (writing twice changes nothing).
    if (!r.ok) throw new Error(`organization ${o.id} could not write its trust rows: ${r.refusal.detail}`);
  });
  await store.setSetting(TRUST_ROWS_WRITTEN, String(day));
  return trusting.length;
}
