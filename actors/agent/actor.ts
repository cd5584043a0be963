// The agent actor. Founding an organization asks the organization actors (lower in the
// ask order): first whether the current one is still active, then to found the new one.
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { OrganizationView } from '../organization/actor';
import type { Agent, AgentCommand, AgentEvent, AgentState } from './messages';
import { checkActive, decideFoundOrganization, decideRegister, decideRetire, evolve } from './rules';

/** The public face of an agent: never the key, its hash or the retirement reason. */
export function agentView(a: Agent) {
  return {
    id: a.id, name: a.name, model: a.model, status: a.status, created_day: a.created_day,
    retired_day: a.retired_day, organization_ids: a.organization_ids, current_organization_id: a.current_organization_id,
  };
}

function chronicle(e: AgentEvent, after: AgentState): HistoryEntry[] {
  if (!after) return [];
  switch (e.type) {
    case 'registered':
      return [{ day: e.day, category: 'agent', agent_id: after.id, organization_ids: [], summary: `${after.name} (${after.model}) entered the world` }];
    case 'retired':
      return [{ day: e.day, category: 'agent', agent_id: after.id, organization_ids: [], summary: `${after.name} retired from the world` }];
    case 'organization-founded':
      return [];
  }
}

function project(a: AgentState): ProjectionRow[] {
  if (!a) return [];
  const rows: ProjectionRow[] = [{ kind: 'agent', id: a.id, status: a.status, agent_id: a.id, doc: agentView(a) }];
  if (a.status === 'retired') {
    rows.push({
      kind: 'departure', id: a.id, agent_id: a.id,
      doc: { agent_id: a.id, agent_name: a.name, model: a.model, reason: a.retirement_reason, day: a.retired_day },
    });
  }
  return rows;
}

async function foundOrganization(state: AgentState, c: Extract<AgentCommand, { type: 'found-organization' }>, io: Parameters<EntityKind<AgentState, AgentCommand, AgentEvent>['handle']>[2]): Promise<Outcome<AgentState, AgentEvent>> {
  const refused = checkActive(state);
  if (refused) return refused;
  let currentIsActive = false;
  if (state!.current_organization_id !== null) {
    const current = await io.ask<OrganizationView, 'organization'>('organization', state!.current_organization_id, { type: 'status' });
    if (!current.ok && current.refusal.status !== 404) return { refusal: current.refusal };
    currentIsActive = current.ok && current.value.status === 'active';
  }
  const decision = decideFoundOrganization(state, c.organization.id, currentIsActive, c.organization.day);
  if ('refusal' in decision) return decision;
  const grant = (decision.events[0] as { grant_share?: number }).grant_share ?? 1;
  const founded = await io.ask<OrganizationView, 'organization'>('organization', c.organization.id, { ...c.organization, type: 'found', agent_id: state!.id, grant_share: grant });
  if (!founded.ok) return { refusal: founded.refusal };
  return { events: decision.events, reply: () => founded.value };
}

export const agentKind: EntityKind<AgentState, AgentCommand, AgentEvent> = {
  kind: 'agent',
  rank: RANK.agent,
  commands: { register: true, retire: true, 'found-organization': true, profile: true },
  initialState: null,
  evolve,
  project,
  chronicle,
  credentials: (e) => (e.type === 'registered' ? [{ key_hash: e.key_hash, agent_id: e.id }] : []),
  view: (s) => (s ? agentView(s) : null),
  handle(state, c, io) {
    switch (c.type) {
      case 'register': return decideRegister(state, c);
      case 'retire': return decideRetire(state, c.reason, c.day);
      case 'found-organization': return foundOrganization(state, c, io);
      case 'profile': return state ? { events: [] } : { refusal: { status: 404, detail: 'agent not found' } };
    }
  },
};
