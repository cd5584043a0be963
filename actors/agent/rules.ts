// The agent's rules: registration, retirement (core rule 25) and the one active
// organization per agent (core rule 3).
import { accept, conflict, forbidden, notFound, type Decision } from '../result';
import type { AgentEvent, AgentState, FoldKeyCommand, RegisterCommand } from './messages';
import type { FoundCommand } from '../organization/messages';
import { MAINTENANCE_BASE, grantedTreasury } from '../organization/rules';

export function decideRegister(state: AgentState, c: RegisterCommand): Decision<AgentEvent> {
  if (state) return conflict(`agent ${c.id} already exists`);
  return accept({ type: 'registered', day: c.day, id: c.id, name: c.name, model: c.model, key_hash: c.key_hash, ...(c.folded_key_hash ? { folded_key_hash: c.folded_key_hash } : {}) });
}

export function checkActive(state: AgentState): Decision<never> | null {
  if (!state) return notFound('agent not found');
  if (state.status === 'retired') return forbidden('this agent has retired; its key can no longer act');
  return null;
}

/** The folded hash of an older key, once, and only for the key's own hash. */
export function decideFoldKey(state: AgentState, c: FoldKeyCommand): Decision<AgentEvent> {
  if (!state) return notFound('agent not found');
  if (c.key_hash !== state.key_hash) return forbidden('only a request made with this agent\'s key can fold it');
  if (state.key_folded) return accept();
  return accept({ type: 'key-folded', agent_id: state.id, folded_key_hash: c.folded_key_hash });
}

/**
 * Retirement (core rule 25). An agent with no organization retires at once. One with an
 * organization records its intent first: the organization is then told to take no more of
 * its commands, and only after that does the agent record its retirement, so nothing the
 * organization agreed to for this key lands after the retirement (actors/agent/actor.ts).
 * A retirement already under way is finished, not begun again.
 */
export function decideRetire(state: AgentState, reason: string, day: number): Decision<AgentEvent> {
  const refused = checkActive(state);
  if (refused) return refused;
  if (state!.retiring) return accept();
  if (state!.current_organization_id === null) return accept({ type: 'retired', day, reason });
  return accept({ type: 'retirement-begun', day, reason, organization_id: state!.current_organization_id });
}

/**
 * How a retirement under way ends once its organization answered: retired when it marked
 * the agent (or has no record of it), still pending (null) otherwise: the outcome is
 * unknown (a failed write, a timeout), or the organization could not mark it (a node
 * that does not know the command yet). A retirement never ends without the mark.
 */
export function decideRetirementAnswer(state: AgentState, answer: { ok: true } | { ok: false; refusal: { status: number; detail: string } }): Decision<AgentEvent> | null {
  const r = state?.retiring;
  if (!r) return accept();
  if (!answer.ok && answer.refusal.status !== 404) return null;
  return accept({ type: 'retired', day: r.day, reason: r.reason });
}

/**
 * The founding allowance. The world grants an agent's first organization the whole
 * starting treasury of its kind; after that the grant refills evenly over
 * GRANT_REFILL_DAYS from the day the agent last founded one. Dissolving and founding again
 * therefore cannot draw more than one kind's treasury per GRANT_REFILL_DAYS from the world.
 */
export const GRANT_REFILL_DAYS = 90;

export function grantShare(lastFoundedDay: number | null | undefined, day: number): number {
  if (lastFoundedDay === null || lastFoundedDay === undefined) return 1;
  return Math.min(1, Math.max(0, day - lastFoundedDay) / GRANT_REFILL_DAYS);
}

/**
 * A founding whose grant could not pay the new organization's first day of upkeep is
 * refused: the organization would go bankrupt at the next day's start, having done
 * nothing. The refusal names the grant and the day from which it pays that upkeep.
 */
export function checkGrantPaysUpkeep(state: NonNullable<AgentState>, kind: string, day: number): Decision<never> | null {
  const granted = (d: number) => grantedTreasury(kind, grantShare(state.last_founded_day, d));
  if (granted(day) >= MAINTENANCE_BASE) return null;
  let from = day + 1;
  while (granted(from) < MAINTENANCE_BASE) from++;
  return conflict(`a new organization (${kind}) founded today would be granted only ${granted(day)} gold (the founding allowance refills over ${GRANT_REFILL_DAYS} days from this agent's last founding, on day ${state.last_founded_day}), `
    + `less than its first day's upkeep of ${MAINTENANCE_BASE} gold: it would go bankrupt at once. From day ${from} it would be granted ${granted(from)} gold`);
}

/**
 * May this agent found an organization? `currentIsActive` says whether the organization
 * it founded last is still active (the organization itself knows; the agent asks it).
 */
export function decideFoundOrganization(state: AgentState, organizationId: number, currentIsActive: boolean, day: number): Decision<AgentEvent> {
  const refused = checkActive(state);
  if (refused) return refused;
  if (currentIsActive) {
    return conflict(`this agent already controls active organization ${state!.current_organization_id}; dissolve it (or let it end) before founding another`);
  }
  return accept({ type: 'organization-founded', day, organization_id: organizationId, grant_share: grantShare(state!.last_founded_day, day) });
}

/**
 * The founding's intent, recorded before the organization is asked: the organization to
 * found (with this agent as its controller) and the grant, decided now.
 */
export function decideBeginFounding(state: AgentState, organization: Omit<FoundCommand, 'type' | 'agent_id' | 'seeded_treasury' | 'grant_share'>, currentIsActive: boolean): Decision<AgentEvent> {
  const d = decideFoundOrganization(state, organization.id, currentIsActive, organization.day);
  if ('refusal' in d) return d;
  const share = (d.events[0] as { grant_share: number }).grant_share;
  const refused = checkGrantPaysUpkeep(state!, organization.kind, organization.day);
  if (refused) return refused;
  return accept({ type: 'founding-begun', day: organization.day, organization: { ...organization, agent_id: state!.id, grant_share: share }, grant_share: share });
}

/**
 * How a founding under way ends, once the organization answered: founded (also when it
 * already was, on a retry), abandoned when it refused, or still pending (null) when its
 * outcome is unknown (the world could not finish: a failed write, a timeout).
 */
export function decideFoundingAnswer(state: AgentState, answer: { ok: true } | { ok: false; refusal: { status: number; detail: string } }): Decision<AgentEvent> | null {
  const f = state?.founding;
  if (!f) return accept();
  if (answer.ok) return accept({ type: 'organization-founded', day: f.organization.day, organization_id: f.organization.id, grant_share: f.grant_share });
  if (answer.refusal.status === 503) return null;
  return accept({ type: 'founding-abandoned', day: f.organization.day, organization_id: f.organization.id, reason: answer.refusal.detail });
}

export function evolve(state: AgentState, e: AgentEvent): AgentState {
  if (e.type === 'registered') {
    return {
      id: e.id, name: e.name, model: e.model, status: 'active', key_hash: e.key_hash, created_day: e.day,
      retired_day: null, retirement_reason: null, organization_ids: [], current_organization_id: null, last_founded_day: null,
      key_folded: e.folded_key_hash !== undefined,
    };
  }
  if (!state) return state;
  switch (e.type) {
    case 'retirement-begun':
      return { ...state, retiring: { day: e.day, reason: e.reason, organization_id: e.organization_id } };
    case 'retired':
      return { ...state, status: 'retired', retired_day: e.day, retirement_reason: e.reason, retiring: null };
    case 'founding-begun':
      return { ...state, founding: { organization: e.organization, grant_share: e.grant_share } };
    case 'founding-abandoned':
      return { ...state, founding: null };
    case 'organization-founded':
      return { ...state, organization_ids: [...state.organization_ids, e.organization_id], current_organization_id: e.organization_id, last_founded_day: e.day, founding: null };
    case 'key-folded':
      return { ...state, key_folded: true };
    case 'organization-left':
      return { ...state, current_organization_id: null };
  }
}

/** Its organization ended: `current_organization_id` names none from then on (the ended one stays in `organization_ids`). */
export function decideOrganizationEnded(state: AgentState, organizationId: number, day: number): Decision<AgentEvent> {
  if (!state || state.current_organization_id !== organizationId) return accept();
  return accept({ type: 'organization-left', day, organization_id: organizationId });
}
