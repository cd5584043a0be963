// The agent actor. Founding an organization asks the organization actors (lower in the
// ask order): first whether the current one is still active, then to found the new one.
// Retiring asks its organization to take no more of its commands before it records it.
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { OrganizationView } from '../organization/actor';
import type { Agent, AgentCommand, AgentEvent, AgentState } from './messages';
import { checkActive, decideBeginFounding, decideFoldKey, decideFoundingAnswer, decideOrganizationEnded, decideRegister, decideRetire, decideRetirementAnswer, evolve } from './rules';
import type { Refusal } from '../result';
import { intentEnded, intentRow } from '../intents';

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
    case 'founding-begun':
    case 'founding-abandoned':
      return []; // the organization's record tells the founding
    case 'retirement-begun':
      return []; // told when it ends
    case 'key-folded':
    case 'organization-left':
      return []; // the organization's record tells its end
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

type IO = Parameters<EntityKind<AgentState, AgentCommand, AgentEvent>['handle']>[2];

/**
 * Founding an organization, a saga: the agent checks its side (and asks whether its
 * current organization is still active), records its intent (`founding-begun`), then
 * asks the organization to exist, and records how it ended. A crash between the steps
 * leaves the intent, which `resume` finishes; the organization founds once (asked again,
 * it answers the organization it already is).
 */
async function foundOrganization(state: AgentState, c: Extract<AgentCommand, { type: 'found-organization' }>, io: IO): Promise<Outcome<AgentState, AgentEvent>> {
  const refused = checkActive(state);
  if (refused) return refused;
  // A founding or retirement a crash cut short is finished first; this one is then decided afresh.
  const pending = underWay(state, io);
  if (pending) return finishFirst(pending, (s) => foundOrganization(s, c, io));
  let currentIsActive = false;
  if (state!.current_organization_id !== null) {
    const current = await io.ask<OrganizationView, 'organization'>('organization', state!.current_organization_id, { type: 'status' });
    if (!current.ok && current.refusal.status !== 404) return { refusal: current.refusal };
    currentIsActive = current.ok && current.value.status === 'active';
  }
  const decision = decideBeginFounding(state, c.organization, currentIsActive);
  if ('refusal' in decision) return decision;
  return { events: decision.events, andThen: (s) => continueFounding(s, io) };
}

/** The founding under way: the organization is asked to exist, and the agent records the end. */
async function continueFounding(state: AgentState, io: IO): Promise<Outcome<AgentState, AgentEvent>> {
  const f = state?.founding;
  if (!f) return { events: [] };
  const founded = await io.ask<OrganizationView, 'organization'>('organization', f.organization.id, { ...f.organization, type: 'found' });
  const decision = decideFoundingAnswer(state, founded);
  if (decision === null) return { refusal: (founded as { refusal: Refusal }).refusal }; // unknown: the intent stays
  if ('refusal' in decision) return decision;
  if (!founded.ok) return { events: decision.events, refusal: founded.refusal };
  return { events: decision.events, reply: () => founded.value };
}

/**
 * Retiring, a saga: the agent records its intent (`retirement-begun`), asks its
 * organization to take no more of its commands (`retire-controller`), then records its
 * retirement. Every command the organization took for this key is therefore on record
 * before the retirement, and none is taken after it: a request the HTTP layer let through
 * just before is refused 403 by the organization. A crash between the steps leaves the
 * intent, which `resume` finishes (the organization marks once). An agent with no
 * organization retires at once; a founding a crash cut short is finished first.
 */
async function retire(state: AgentState, c: Extract<AgentCommand, { type: 'retire' }>, io: IO): Promise<Outcome<AgentState, AgentEvent>> {
  const refused = checkActive(state);
  if (refused) return refused;
  if (state!.founding) return finishFirst(continueFounding(state, io), (s) => retire(s, c, io));
  const decision = decideRetire(state, c.reason, c.day);
  if ('refusal' in decision) return decision;
  return { events: decision.events, andThen: (s) => continueRetirement(s, io) };
}

/** The retirement under way: the organization marks the agent, then the agent records it. */
async function continueRetirement(state: AgentState, io: IO): Promise<Outcome<AgentState, AgentEvent>> {
  const r = state?.retiring;
  if (!r) return { events: [] };
  const marked = await io.ask<unknown, 'organization'>('organization', r.organization_id, { type: 'retire-controller', agent_id: state!.id, day: r.day });
  const decision = decideRetirementAnswer(state, marked);
  if (decision === null) return { refusal: (marked as { refusal: Refusal }).refusal }; // unknown: the intent stays
  return decision;
}

type Step = Promise<Outcome<AgentState, AgentEvent>>;

/** The rest of an action a crash cut short (a founding, a retirement), or null when none is under way. */
function underWay(state: AgentState, io: IO): Step | null {
  if (state?.founding) return continueFounding(state, io);
  if (state?.retiring) return continueRetirement(state, io);
  return null;
}

/** Finishes an action under way, then goes on with `next` (a refusal that recorded nothing is the answer). */
async function finishFirst(pending: Step, next: (s: AgentState) => Step): Step {
  const done = await pending;
  if ('refusal' in done && !done.events?.length) return done;
  return { events: done.events ?? [], andThen: next };
}

/** Whatever a crash left under way, each action in turn. */
function resume(state: AgentState, io: IO): Step {
  const pending = underWay(state, io);
  return pending ? finishFirst(pending, (s) => resume(s, io)) : Promise.resolve({ events: [] });
}

export const agentKind: EntityKind<AgentState, AgentCommand, AgentEvent> = {
  kind: 'agent',
  rank: RANK.agent,
  commands: { register: true, retire: true, 'found-organization': true, profile: true, resume: true, 'fold-key': true, 'own-organization-ended': true },
  initialState: null,
  evolve,
  project,
  chronicle,
  // A founding or a retirement is an intent until it ends (actors/intents.ts).
  eventRows: (e, after) => {
    if (!after) return [];
    if (e.type === 'founding-begun') return [intentRow({ kind: 'agent', id: after.id, intent: 'founding', day: e.day, organization_id: e.organization.id })];
    if (e.type === 'organization-founded' || e.type === 'founding-abandoned') return [intentEnded('agent', after.id)];
    if (e.type === 'retirement-begun') return [intentRow({ kind: 'agent', id: after.id, intent: 'retirement', day: e.day, organization_id: e.organization_id })];
    if (e.type === 'retired') return [intentEnded('agent', after.id)];
    return [];
  },
  // The folded hash is a credential of its own kind (prefixed, so no key's hash can equal it): it finds the agent, it never authenticates.
  credentials: (e) => {
    if (e.type === 'registered') return [{ key_hash: e.key_hash, agent_id: e.id }, ...(e.folded_key_hash ? [{ key_hash: e.folded_key_hash, agent_id: e.id }] : [])];
    if (e.type === 'key-folded') return [{ key_hash: e.folded_key_hash, agent_id: e.agent_id }];
    return [];
  },
  view: (s) => (s ? agentView(s) : null),
  handle(state, c, io) {
    switch (c.type) {
      case 'register': return decideRegister(state, c);
      case 'retire': return retire(state, c, io);
      case 'found-organization': return foundOrganization(state, c, io);
      case 'profile': return state ? { events: [] } : { refusal: { status: 404, detail: 'agent not found' } };
      case 'resume': return resume(state, io);
      case 'fold-key': return decideFoldKey(state, c);
      case 'own-organization-ended': return decideOrganizationEnded(state, c.organization_id, c.day);
    }
  },
};
