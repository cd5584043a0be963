// A world of an older version kept its contracts' rows in Cassandra without their status
// among the index columns (no query of contracts read a status then), so the live contracts
// of each side (`liveContractsProposedBy`, `liveContractsOfferedTo`), which an
// organization's answer lists, would miss the older rows. At start-up every live contract of
// such a world writes its row again, once, through its actor (command `record-row`,
// actors/once-per-world.ts); an ended one is never listed as live, so it needs nothing.
// The embedded store always kept the status; there the pass writes the same rows again.
import type { Entities } from '../ports/entities';
import type { Store } from '../ports/store';
import { askEachOncePerWorld } from '../once-per-world';
import { isLive } from './rules';

/** The setting that marks a world's live contracts' rows written. */
export const LIVE_CONTRACT_ROWS_WRITTEN = 'live_contract_rows_written';

/** Has every live contract write its row again (once per world); answers how many did. */
export function writeLiveContractRowsOnce(entities: Entities, store: Store, day: number): Promise<number> {
  return askEachOncePerWorld(store, LIVE_CONTRACT_ROWS_WRITTEN, day,
    async () => (await store.list('contracts', undefined, (c: { id: number; status: string }) => ({ id: c.id, status: c.status }))).filter(isLive).map((c) => c.id),
    (id) => entities.ask('contract', id, { type: 'record-row', day }),
    (id) => `contract ${id} could not write its row`);
}
