// The organization actor: a thin shell around rules.ts.
import type { HistoryEntry, ProjectionRow } from '../../infra/store/ports';
import type { EntityKind } from '../entity';
import { RANK } from '../order';
import type { Organization, OrganizationCommand, OrganizationEvent, OrganizationState } from './messages';
import { decideDay, decideDissolve, decideFound, decideUpdate, evolve, maintenanceCost } from './rules';

export function organizationView(o: Organization) {
  return {
    id: o.id, name: o.name, kind: o.kind, location_id: o.location_id, description: o.description,
    goals: o.goals, motto: o.motto, treasury: o.treasury, reputation: o.reputation, status: o.status,
    agent_id: o.agent_id, travel: o.travel, founded_day: o.founded_day, ended_day: o.ended_day,
    holdings: o.holdings, workers: o.workers, employee_count: o.employees.length,
    daily_maintenance: maintenanceCost(o),
  };
}

export type OrganizationView = ReturnType<typeof organizationView>;

function chronicle(e: OrganizationEvent, after: OrganizationState): HistoryEntry[] {
  if (!after) return [];
  const base = { day: e.day, agent_id: after.agent_id, organization_ids: [after.id] };
  switch (e.type) {
    case 'founded':
      return [{ ...base, category: 'organization', summary: `${after.name}, a ${after.kind}, was founded at ${after.location_id} with ${e.treasury} gold`, data: { treasury: e.treasury } }];
    case 'updated':
      return [{ ...base, category: 'organization', summary: `${after.name} revised its ${Object.keys(e.changes).join(', ') || 'nothing'}`, data: { changes: e.changes } }];
    case 'maintenance-paid':
      return [{
        ...base, category: 'maintenance',
        summary: e.unpaid === 0
          ? `${after.name} paid ${e.paid} gold upkeep`
          : `${after.name} could pay only ${e.paid} of ${e.cost} gold upkeep and lost ${e.reputation_lost} reputation`,
        data: { cost: e.cost, paid: e.paid, unpaid: e.unpaid, reputation_lost: e.reputation_lost, treasury: after.treasury },
      }];
    case 'went-bankrupt':
      return [{ ...base, category: 'bankruptcy', summary: `${after.name} went bankrupt` }];
    case 'dissolved':
      return [{ ...base, agent_id: e.agent_id, category: 'organization', summary: `${after.name} was dissolved by its founder` }];
  }
}

function project(o: OrganizationState): ProjectionRow[] {
  if (!o) return [];
  return [{
    kind: 'organization', id: o.id, status: o.status, location_id: o.location_id,
    organization_id: o.id, agent_id: o.agent_id, doc: organizationView(o),
  }];
}

export const organizationKind: EntityKind<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  kind: 'organization',
  rank: RANK.organization,
  initialState: null,
  evolve,
  project,
  chronicle,
  view: (s) => (s ? organizationView(s) : null),
  handle(state, c) {
    switch (c.type) {
      case 'found': return decideFound(state, c);
      case 'update': return decideUpdate(state, c);
      case 'dissolve': return decideDissolve(state, c.agent_id, c.day);
      case 'day-began': return decideDay(state, c.day);
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'organization not found' } };
    }
  },
};
