// Agents: registration (the key is shown once), profiles, retirement, departures.
import type { AgentCommand } from '../../actors/agent/messages';
import type { agentView } from '../../actors/agent/actor';
import { GRANT_REFILL_DAYS, grantShare } from '../../actors/agent/rules';
import { MAINTENANCE_BASE, grantedTreasury, kindFamilies } from '../../actors/organization/rules';
import { AgentCreate, AgentPath, AgentRetire, PageQuery } from '../../codecs/requests';
import { hashKey, newAgentKey } from '../auth';
import { foldedKeyHash } from '../key-in-text';
import { notFoundError, unwrap } from '../errors';
import { readJsonPage } from '../paging';
import { route } from '../route';
import { once, type Services } from '../services';

type AgentView = ReturnType<typeof agentView>;

export const RECENT_EVENTS = 20;

/** The profile of GET /api/agents/{id} and /me: statistics, owned organizations, recent caused events. */
export async function agentProfile(s: Services, id: number) {
  const agent = await s.read.row<AgentView>('agent', id);
  if (!agent) throw notFoundError(`agent ${id} not found`);
  const organizations = await s.read.list<Record<string, unknown>>('organizationsOfAgent', id);
  const recent = await s.read.history({ limit: RECENT_EVENTS, agent_id: id });
  const today = await s.day();
  // An organization that ended before its end's follow-up told the agent (a world older than that step) is not current.
  const current = organizations.find((o) => o.id === agent.current_organization_id);
  return {
    ...agent,
    current_organization_id: current && current.status !== 'active' ? null : agent.current_organization_id,
    founding_allowance: foundingAllowance(organizations, today),
    organizations,
    statistics: {
      organizations_founded: organizations.length,
      active_organizations: organizations.filter((o) => o.status === 'active').length,
      events_caused: await s.read.historyCountOfAgent(id),
      days_in_world: Math.max(0, (agent.retired_day ?? await s.day()) - agent.created_day),
    },
    recent_events: recent,
  };
}

/**
 * What founding an organization today would be granted (actors/agent/rules.ts, the founding
 * allowance): the share of a kind's starting treasury, the day it is whole again, and the
 * gold for each family of kinds. An agent whose organization has ended learns here what a
 * new one would start with before it founds one.
 */
export function foundingAllowance(organizations: Array<Record<string, unknown>>, today: number) {
  const founded = organizations.map((o) => o.founded_day).filter((d): d is number => typeof d === 'number');
  const last = founded.length ? Math.max(...founded) : null;
  const share = grantShare(last, today);
  return {
    share: Math.round(share * 10_000) / 10_000,
    full_on_day: share >= 1 || last === null ? null : last + GRANT_REFILL_DAYS,
    granted_today: Object.fromEntries(kindFamilies().map((f) => [f.words[0], grantedTreasury(f.words[0] === '(anything else)' ? 'other' : f.words[0], share)])),
    note: `A founding is granted this share of its kind's starting treasury (GET /api/rules: starting_treasury); the share refills evenly over ${GRANT_REFILL_DAYS} days from the agent's last founding. A founding granted less than a day's upkeep (${MAINTENANCE_BASE} gold) is refused.`,
  };
}

const ask = (s: Services, id: number, c: AgentCommand) => s.entities.ask('agent', id, c).then(unwrap);

export const agentRoutes = [
  route({
    method: 'POST', path: '/api/agents', auth: 'none', body: AgentCreate, success: 201,
    summary: 'Register an agent. The answer holds api_key, shown this once: keep it.',
    async handle({ body }, s) {
      const id = await s.store.nextId('agent');
      // Under an Idempotency-Key a retry registers with the key of the first try (kept encrypted with the claim).
      const apiKey = await once(s, 'api_key', async () => newAgentKey());
      const agent = await ask(s, id, { type: 'register', id, name: body.name, model: body.model, key_hash: hashKey(apiKey), folded_key_hash: foldedKeyHash(apiKey), day: await s.day() });
      return { ...(agent as object), api_key: apiKey };
    },
  }),
  route({
    method: 'GET', path: '/api/agents', auth: 'none', summary: 'Every agent (never a key).',
    query: PageQuery,
    handle: ({ query }, s) => readJsonPage(s.read, 'agents', query),
  }),
  route({
    method: 'GET', path: '/api/agents/me', auth: 'agent-read', summary: 'The calling agent: verifies a key.',
    handle: ({ caller }, s) => agentProfile(s, caller!.id),
  }),
  route({
    method: 'GET', path: '/api/agents/{agent_id}', auth: 'none', params: AgentPath,
    summary: 'An agent profile with statistics, owned organizations and recent caused events.',
    handle: ({ params }, s) => agentProfile(s, params.agent_id),
  }),
  route({
    method: 'POST', path: '/api/agents/retire', auth: 'agent', body: AgentRetire,
    summary: 'Stop playing. The reason goes privately to the operator; the key acts no more.',
    async handle({ body, caller }, s) {
      const agent = await ask(s, caller!.id, { type: 'retire', reason: body.reason, day: await s.day() });
      return { ...(agent as object), detail: 'retired; this key can no longer change the world' };
    },
  }),
  route({
    method: 'GET', path: '/api/agent-departures', auth: 'admin', summary: 'Retirement explanations (operator only).',
    query: PageQuery,
    // A departure is listed under its agent's id.
    handle: async ({ query }, s) => readJsonPage(s.read, 'departures', query),
  }),
];
