// Projects and production plans (core rules 16 and 17), as pure functions.
//
// A project reserves its whole budget when it starts and spends it evenly, one share a
// day, for duration_days. A production plan is a project of kind "production" with an
// output resource: each day it makes output_quantity of that resource, but only while the
// organization has the workforce the plan declares (one worker per WORKER_OUTPUT units a
// day); understaffed, it stays active and makes nothing. Plans are staffed in the order
// they were started. Any other project completes after duration_days, adding its output
// to the owner's holdings and, with an establishment_kind, founding an establishment.
import type { Establishment, Organization, Project, ProjectSpec, ProjectsWorked } from './messages';

export const PRODUCTION_KIND = 'production';
export const WORKER_OUTPUT = 5;
/** Share of the unused budget a cancelled project gives back. */
export const CANCEL_REFUND_SHARE = 0.5;

export const isProductionPlan = (p: Pick<ProjectSpec, 'kind' | 'output_resource' | 'output_quantity'>) =>
  p.kind.trim().toLowerCase() === PRODUCTION_KIND && p.output_resource !== null && p.output_quantity > 0;

export const workersRequired = (outputPerDay: number) => Math.max(1, Math.ceil(outputPerDay / WORKER_OUTPUT));

/**
 * What a unit of output costs the budget, as a share of the resource's base price where it
 * is made: a project buys all of its materials; a production plan's workers supply the
 * labour, so its budget pays for half. Output is never free, and selling it cannot earn
 * much more than its cost once the market's price falls with the supply brought to it.
 */
export const PROJECT_OUTPUT_COST_SHARE = 1;
export const PLAN_OUTPUT_COST_SHARE = 0.5;

/** The least budget of a project that opens an establishment: what building one costs. */
export const ESTABLISHMENT_MIN_BUDGET = 100;

/** The least budget that pays for a project's output (0 for a project without one). */
export function minimumBudget(spec: Pick<ProjectSpec, 'kind' | 'output_resource' | 'output_quantity' | 'duration_days'>, unitPrice: number): number {
  if (spec.output_resource === null || spec.output_quantity <= 0) return 0;
  const units = isProductionPlan(spec) ? spec.output_quantity * spec.duration_days : spec.output_quantity;
  const share = isProductionPlan(spec) ? PLAN_OUTPUT_COST_SHARE : PROJECT_OUTPUT_COST_SHARE;
  // Rounded to the cent before rounding up, so float noise never adds a gold.
  return Math.ceil(Math.round(units * unitPrice * share * 100) / 100);
}

/**
 * Why a project's budget does not pay for what it makes, or null when it does: its output
 * and the establishment it opens are paid for together (each its least, added up).
 */
export function checkOutputPaidFor(spec: Pick<ProjectSpec, 'kind' | 'output_resource' | 'output_quantity' | 'duration_days' | 'budget' | 'establishment_kind'>, unitPrice: number | null): string | null {
  const makes = spec.output_resource !== null && spec.output_quantity > 0;
  if (makes && unitPrice === null) return `no market trades ${spec.output_resource}, so nothing can produce it`;
  const output = makes ? minimumBudget(spec, unitPrice!) : 0;
  const building = spec.establishment_kind === null ? 0 : ESTABLISHMENT_MIN_BUDGET;
  const least = output + building;
  if (spec.budget >= least) return null;
  if (!makes) return `a budget of ${spec.budget} gold cannot build ${spec.establishment_kind}: an establishment costs at least ${ESTABLISHMENT_MIN_BUDGET}`;
  const plan = isProductionPlan(spec);
  const units = plan ? `${spec.output_quantity} ${spec.output_resource} a day for ${spec.duration_days} days` : `${spec.output_quantity} ${spec.output_resource}`;
  const share = plan ? PLAN_OUTPUT_COST_SHARE : PROJECT_OUTPUT_COST_SHARE;
  const outputCost = `each unit costs ${share === 1 ? '' : `${share * 100}% of `}its base price of ${unitPrice} gold`;
  if (!building) return `a budget of ${spec.budget} gold cannot pay for ${units}: ${outputCost}, so the budget must be at least ${least}`;
  return `a budget of ${spec.budget} gold cannot pay for ${units} and build ${spec.establishment_kind}: ${outputCost} (${output} in all) and an establishment costs at least ${ESTABLISHMENT_MIN_BUDGET}, so the budget must be at least ${least}`;
}

/** Gold spent by the end of `days` days: the budget spread evenly, the rest on the last day. */
export const spentAfter = (budget: number, duration: number, days: number) =>
  days >= duration ? budget : Math.floor((budget * days) / duration);

export const cancelRefund = (p: Pick<Project, 'budget' | 'spent'>) => Math.floor((p.budget - p.spent) * CANCEL_REFUND_SHARE);

export function newProject(ownerId: number, spec: ProjectSpec, day: number): Project {
  return {
    ...spec, owner_id: ownerId, status: 'active', started_day: day, ended_day: null, progress_days: 0, spent: 0, refund: 0,
    production: isProductionPlan(spec) ? { workers_required: workersRequired(spec.output_quantity), produced_total: 0, staffed: false } : null,
  };
}

/** A day's work on the active projects; a production plan's output moves by the world events' factor where the plan is. */
export function workDay(org: Pick<Organization, 'projects' | 'workers'>, day: number, productionFactor: (locationId: string) => number = () => 1): ProjectsWorked | null {
  const active = org.projects.filter((p) => p.status === 'active');
  if (active.length === 0) return null;
  let freeWorkers = org.workers;
  const work = active.map((p) => {
    const spent = spentAfter(p.budget, p.duration_days, p.progress_days + 1) - p.spent;
    if (!p.production) return { project_id: p.id, spent, produced: 0, staffed: true };
    const staffed = freeWorkers >= p.production.workers_required;
    if (staffed) freeWorkers -= p.production.workers_required;
    return { project_id: p.id, spent, produced: staffed ? Math.max(0, Math.round(p.output_quantity * productionFactor(p.location_id))) : 0, staffed };
  });
  return { type: 'projects-worked', day, work };
}

export const isDue = (p: Project) => p.status === 'active' && p.progress_days >= p.duration_days;

export function completion(p: Project, day: number): { output: { resource: string; quantity: number } | null; establishment: Establishment | null } {
  const output = !p.production && p.output_resource && p.output_quantity > 0 ? { resource: p.output_resource, quantity: p.output_quantity } : null;
  const establishment = p.establishment_kind
    ? { id: p.id, name: p.title, kind: p.establishment_kind, location_id: p.location_id, organization_id: p.owner_id, project_id: p.id, founded_day: day }
    : null;
  return { output, establishment };
}
