// The organization's rules as pure functions: decide (state + command -> events or a
// refusal) and evolve (state + event -> state). Core rules 2-7 of the specification.
import { accept, conflict, forbidden, notFound, type Decision } from '../result';
import type {
  FoundCommand, Organization, OrganizationEvent, OrganizationState, UpdateCommand,
} from './messages';

export const MAINTENANCE_BASE = 5;
export const MAINTENANCE_PER_ADVENTURER = 2;
export const WORKER_UPKEEP = 1;
export const STARTING_REPUTATION = 10;
export const TREASURY_BOUNDS = { min: 300, max: 1000 } as const;

/**
 * Starting treasury by kind (core rule 4): the kind's words pick a family; an unknown
 * kind gets the default. The result always lies within TREASURY_BOUNDS.
 */
const KIND_FAMILIES: Array<{ words: string[]; treasury: number }> = [
  { words: ['merchant', 'trade', 'trading', 'company', 'bank', 'caravan', 'market', 'guild', 'consortium'], treasury: 800 },
  { words: ['craft', 'crafters', 'smith', 'workshop', 'mine', 'mining', 'lumber', 'farm', 'builders', 'artisans'], treasury: 700 },
  { words: ['mercenary', 'mercenaries', 'adventurers', 'adventuring', 'guard', 'knights', 'militia', 'band', 'warband', 'order'], treasury: 600 },
  { words: ['temple', 'church', 'cult', 'monastery', 'academy', 'college', 'library', 'scholars', 'circle', 'druids'], treasury: 450 },
];
export const DEFAULT_TREASURY = 500;

export function startingTreasury(kind: string): number {
  const words = kind.toLowerCase().split(/[^a-z]+/).filter(Boolean);
  const family = KIND_FAMILIES.find((f) => words.some((w) => f.words.includes(w)));
  const amount = family ? family.treasury : DEFAULT_TREASURY;
  return Math.min(TREASURY_BOUNDS.max, Math.max(TREASURY_BOUNDS.min, amount));
}

export const kindFamilies = () => [...KIND_FAMILIES.map((f) => ({ ...f })), { words: ['(anything else)'], treasury: DEFAULT_TREASURY }];

/** Daily upkeep (core rule 5 and rule 16): 5, plus 2 per living employed adventurer, plus 1 per worker. */
export function maintenanceCost(org: Pick<Organization, 'employees' | 'workers'>): number {
  return MAINTENANCE_BASE + MAINTENANCE_PER_ADVENTURER * org.employees.length + WORKER_UPKEEP * org.workers;
}

const isEnded = (org: Organization) => org.status !== 'active';

/** The refusals every mutation shares: it exists, the caller controls it, it has not ended. */
export function checkControl(state: OrganizationState, agentId: number): Decision<never> | null {
  if (!state) return notFound('organization not found');
  if (state.agent_id === null || state.agent_id !== agentId) {
    return forbidden(`organization ${state.id} is not controlled by this agent`);
  }
  if (isEnded(state)) return conflict(`organization ${state.id} is ${state.status} and can take no further actions`);
  return null;
}

export function decideFound(state: OrganizationState, c: FoundCommand): Decision<OrganizationEvent> {
  if (state) return conflict(`organization ${c.id} already exists`);
  return accept({
    type: 'founded', day: c.day, id: c.id, agent_id: c.agent_id, name: c.name, kind: c.kind,
    location_id: c.location_id, description: c.description, goals: c.goals, motto: c.motto,
    treasury: c.agent_id === null && c.seeded_treasury !== undefined ? c.seeded_treasury : startingTreasury(c.kind),
    reputation: STARTING_REPUTATION,
  });
}

export function decideUpdate(state: OrganizationState, c: UpdateCommand): Decision<OrganizationEvent> {
  const refused = checkControl(state, c.agent_id);
  if (refused) return refused;
  const changes: { description?: string; goals?: string; motto?: string } = {};
  // null clears a field; an absent field stays as it is.
  for (const k of ['description', 'goals', 'motto'] as const) {
    const v = c.changes[k];
    if (v !== undefined) changes[k] = v ?? '';
  }
  return accept({ type: 'updated', day: c.day, agent_id: c.agent_id, changes });
}

export function decideDissolve(state: OrganizationState, agentId: number, day: number): Decision<OrganizationEvent> {
  const refused = checkControl(state, agentId);
  if (refused) return refused;
  return accept({ type: 'dissolved', day, agent_id: agentId });
}

/**
 * The day's upkeep. An organization that can pay, pays. One that cannot pays what it has
 * (the treasury never goes below zero), loses one reputation per unpaid gold, and goes
 * bankrupt (core rules 5 and 6). A day already settled is not settled again.
 */
export function decideDay(state: OrganizationState, day: number): Decision<OrganizationEvent> {
  if (!state || isEnded(state) || state.settled_day >= day) return accept();
  const cost = maintenanceCost(state);
  if (state.treasury >= cost) {
    return accept({ type: 'maintenance-paid', day, cost, paid: cost, unpaid: 0, reputation_lost: 0 });
  }
  const paid = state.treasury;
  const unpaid = cost - paid;
  const reputationLost = Math.min(state.reputation, unpaid);
  return accept(
    { type: 'maintenance-paid', day, cost, paid, unpaid, reputation_lost: reputationLost },
    { type: 'went-bankrupt', day },
  );
}

export function evolve(state: OrganizationState, e: OrganizationEvent): OrganizationState {
  if (e.type === 'founded') {
    return {
      id: e.id, name: e.name, kind: e.kind, location_id: e.location_id, description: e.description,
      goals: e.goals, motto: e.motto, treasury: e.treasury, reputation: e.reputation, status: 'active',
      agent_id: e.agent_id, travel: null, founded_day: e.day, ended_day: null, holdings: {}, workers: 0,
      employees: [], settled_day: e.day,
    };
  }
  if (!state) return state;
  switch (e.type) {
    case 'updated':
      return { ...state, ...e.changes };
    case 'maintenance-paid':
      return {
        ...state,
        treasury: Math.max(0, state.treasury - e.paid),
        reputation: Math.max(0, state.reputation - e.reputation_lost),
        settled_day: e.day,
      };
    case 'went-bankrupt':
      return { ...state, status: 'bankrupt', ended_day: e.day, travel: null };
    case 'dissolved':
      return { ...state, status: 'dissolved', ended_day: e.day, travel: null };
  }
}
