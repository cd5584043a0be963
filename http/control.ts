// Endpoint rule 1: every mutation naming an organization (organization_id, proposer_id,
// owner_id, requester_id, sender_id) is refused unless the caller controls it. Checked
// here first, from the read model (an organization's controller never changes), so a
// stranger gets 403 before learning anything about the state of the world. The actors
// check again when they act.
import type { Result } from '../actors/result';
import type { Caller } from './auth';
import { conflictError, forbiddenError, notFoundError } from './errors';
import type { Services } from './services';

export interface OrganizationRow {
  id: number;
  name: string;
  location_id: string;
  status: string;
  agent_id: number | null;
  travel: { destination_id: string; arrives_day: number } | null;
  trust: Record<string, number>;
}

export async function organizationRow(s: Services, id: number): Promise<OrganizationRow> {
  const org = await s.read.row<OrganizationRow>('organization', id);
  if (!org) throw notFoundError(`organization ${id} not found`);
  return org;
}

/**
 * The counterparty of a proposal (a contract, an alliance). An organization whose agent has
 * retired stays active, but nobody may answer for it any more (its agent's key changes
 * nothing), so a proposal to it would wait until its proposer withdrew it: refused at once
 * (409), before anything is recorded. The world's own organizations decline proposals on
 * their next turn (actors/organization/policy.ts).
 */
export async function proposalCounterparty(s: Services, id: number, what: 'contract' | 'alliance'): Promise<OrganizationRow> {
  const org = await organizationRow(s, id);
  if (org.agent_id !== null && org.agent_id > 0 && (await s.read.row<{ status: string }>('agent', org.agent_id))?.status === 'retired') {
    throw conflictError(`organization ${id} (${org.name}) has no one to answer ${what === 'contract' ? 'a contract' : 'an alliance'}: its agent has retired`);
  }
  return org;
}

export async function controlledOrganization(s: Services, id: number, caller: Caller | null): Promise<OrganizationRow> {
  const org = await organizationRow(s, id);
  if (!caller || org.agent_id !== caller.id) throw forbiddenError(`organization ${id} is not controlled by this agent`);
  return org;
}

/**
 * An action planned from where the organization's row says it stands (a journey's days, a
 * letter's delivery day), sent with that place, which the organization checks. During the
 * tick in which it arrives, the row may still name the place it has just left; the
 * organization then refuses (409) and the action is planned once more from its row as it is
 * after that answer (an answer waits for the writes it reflects, the arrival's among them).
 */
export async function plannedWhereItStands<T>(s: Services, id: number, caller: Caller | null, act: (org: OrganizationRow) => Promise<Result<T>>): Promise<Result<T>> {
  const org = await controlledOrganization(s, id, caller);
  const first = await act(org);
  if (first.ok || first.refusal.status !== 409) return first;
  const now = await controlledOrganization(s, id, caller);
  return now.location_id === org.location_id ? first : act(now);
}
