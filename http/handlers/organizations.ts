// Organizations: found, revise, dissolve, list (active only) and detail.
import type { OrganizationCommand } from '../../actors/organization/messages';
import { OrganizationCreate, OrganizationPath, OrganizationUpdate, OrganizationViewQuery, OrganizationsQuery } from '../../codecs/requests';
import { completeEnding } from '../../actors/organization/ending';
import { organizationRow } from '../control';
import { notFoundError, unwrap } from '../errors';
import { readJsonPage } from '../paging';
import { route } from '../route';
import type { Services } from '../services';

/** A member without the record of their life (moments, party history, bonds), which grows every day. */
const briefMember = ({ moments: _m, party_history: _p, bonds: _b, ...member }: Record<string, unknown>) => member;

export async function organizationDetail(s: Services, id: number, members: 'full' | 'brief' = 'full') {
  const org = await s.read.row<Record<string, unknown>>('organization', id);
  if (!org) throw notFoundError(`organization ${id} not found`);
  const everyone = await s.read.list<Record<string, unknown>>('membersOf', id);
  return {
    ...org,
    members: members === 'brief' ? everyone.map(briefMember) : everyone,
    projects: await s.read.list('projectsOf', id),
    holdings: org.holdings ?? {},
    // A contract or alliance row keeps its proposer as organization and its counterparty in the agent_id column.
    contracts: [...await s.read.list('contractsProposedBy', id), ...await s.read.list('contractsOfferedTo', id)],
    alliances: [...await s.read.list('alliancesProposedBy', id), ...await s.read.list('alliancesOfferedTo', id)],
    parties: await s.read.list('partiesOf', id),
    establishments: await s.read.list('establishmentsOf', id),
  };
}

const ask = (s: Services, id: number, c: OrganizationCommand) => s.entities.ask('organization', id, c).then(unwrap);

export const organizationRoutes = [
  route({
    method: 'POST', path: '/api/organizations', auth: 'agent', body: OrganizationCreate, success: 201,
    summary: 'Found an organization (one active per agent). The world assigns its treasury from its kind.',
    async handle({ body, caller }, s) {
      if (!await s.read.row('location', body.location_id)) throw notFoundError(`location ${body.location_id} not found`);
      const id = await s.store.nextId('organization');
      return unwrap(await s.entities.ask('agent', caller!.id, {
        type: 'found-organization',
        organization: { id, name: body.name, kind: body.kind, location_id: body.location_id, description: body.description, goals: body.goals, motto: body.motto, day: await s.day() },
      }));
    },
  }),
  route({
    method: 'PATCH', path: '/api/organizations/{organization_id}', auth: 'agent', params: OrganizationPath, body: OrganizationUpdate,
    summary: "Revise an organization's description, goals or motto (null clears one).",
    async handle({ params, body, caller }, s) {
      await organizationRow(s, params.organization_id);
      return ask(s, params.organization_id, { type: 'update', agent_id: caller!.id, day: await s.day(), changes: body });
    },
  }),
  route({
    method: 'POST', path: '/api/organizations/{organization_id}/dissolve', auth: 'agent', params: OrganizationPath,
    summary: 'Dissolve an organization you control (core rule 7).',
    async handle({ params, caller }, s) {
      await organizationRow(s, params.organization_id);
      const day = await s.day();
      const dissolved = await ask(s, params.organization_id, { type: 'dissolve', agent_id: caller!.id, day });
      // The dissolution is durable and so is its intent: what follows it is finished now
      // or, should that fail part-way, at start-up or on the next tick (actors/intents.ts).
      await completeEnding(s.entities, s.read, params.organization_id, day, 'dissolution');
      return { ...(dissolved as object), ...await organizationDetail(s, params.organization_id) };
    },
  }),
  route({
    method: 'GET', path: '/api/organizations', auth: 'none', summary: 'Active organizations; filter by location_id (those standing there).',
    query: OrganizationsQuery,
    handle: ({ query }, s) => (query.location_id === undefined
      ? readJsonPage(s.read, 'activeOrganizations', query)
      : readJsonPage(s.read, 'activeOrganizationsAt', query, query.location_id)),
  }),
  route({
    method: 'GET', path: '/api/organizations/{organization_id}', auth: 'none', params: OrganizationPath, query: OrganizationViewQuery,
    summary: "An organization with members, projects, holdings, contracts and establishments (ended ones too); members=brief leaves out each member's moments, party history and bonds.",
    handle: ({ params, query }, s) => organizationDetail(s, params.organization_id, query.members),
  }),
];
