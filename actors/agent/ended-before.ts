// Worlds older than the step that tells an agent its organization ended (the end's
// follow-up, actors/organization/ending.ts) kept, on agents whose organization had ended,
// that organization as `current_organization_id`. At start-up such agents are told now, once
// per world: every listing and profile then says they have no current organization.
import type { Entities } from '../ports/entities';
import type { Store } from '../ports/store';
import { askEachOncePerWorld } from '../once-per-world';

/** The setting that marks the agents of such a world told. */
export const AGENTS_TOLD_OF_ENDS = 'agents_told_of_ended_organizations';

/** Tells every agent whose current organization has ended that it did (once per world); answers how many were told. */
export function tellAgentsOfEarlierEnds(entities: Entities, store: Store, day: number): Promise<number> {
  const stale = async () => {
    const ended = new Set((await store.list<{ id: number; status: string }>('organizations', undefined, (o: { id: number; status: string }) => ({ id: o.id, status: o.status })))
      .filter((o) => o.status !== 'active').map((o) => o.id));
    return ended.size === 0 ? []
      : (await store.list<{ id: number; current_organization_id: number | null }>('agents', undefined, (a: { id: number; current_organization_id: number | null }) => ({ id: a.id, current_organization_id: a.current_organization_id })))
        .filter((a) => a.current_organization_id !== null && ended.has(a.current_organization_id));
  };
  return askEachOncePerWorld(store, AGENTS_TOLD_OF_ENDS, day, stale,
    (a) => entities.ask('agent', a.id, { type: 'own-organization-ended', organization_id: a.current_organization_id!, day }),
    (a) => `agent ${a.id} could not be told its organization ended`);
}
