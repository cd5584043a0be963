// Organizations: found, revise, dissolve, list (active only) and detail.
import type { OrganizationCommand } from '../../actors/organization/messages';
import { organizationModifiers, type Effect } from '../../actors/world-event/effects';
import { maintenanceWith } from '../../actors/organization/rules';
import { standsAtDayStart } from '../../actors/organization/travel';
import { OrganizationCreate, OrganizationPath, OrganizationUpdate, OrganizationViewQuery, OrganizationsQuery, PLACE_LIMIT_DEFAULT } from '../../codecs/requests';
import type { QueryName } from '../../actors/ports/store';
import { livePairCount, livePairStatuses, type PairRow, pairsPageOf } from './diplomacy';
import { completeEnding } from '../../actors/organization/ending';
import { organizationRow } from '../control';
import { notFoundError, unwrap } from '../errors';
import { type Listed, nextPageUrl, Page, readJsonPage, readPage } from '../paging';
import { route } from '../route';
import type { Services } from '../services';

/** A member without the record of their life (moments, party history, bonds), which grows every day. */
const briefMember = ({ moments: _m, party_history: _p, bonds: _b, ...member }: Record<string, unknown>) => member;


/** How an organization's answer shows its lists (docs/decisions.md, "An organization answers what it has now"). */
export interface OrganizationView { members: 'full' | 'brief'; limit: number }
const DEFAULT_VIEW: OrganizationView = { members: 'full', limit: PLACE_LIMIT_DEFAULT };

/** One list of the answer: its first page, how many there are in all, and the listing that goes on from it. */
interface ListOf { name: string; counted: string; page: Page; count: number; listing: string }

/** A list read as the first page of a named query, each item given its `shape`; the count is read only when more follows. */
async function namedList(s: Services, name: string, counted: string, query: QueryName, id: number, limit: number, listing: string, shape?: (item: Listed) => unknown): Promise<ListOf> {
  const read = await readPage<Listed>(s.read, query, { limit }, id);
  const page = shape ? new Page(read.items.map(shape), read.next) : read;
  return { name, counted, page, count: page.next ? await s.read.count(query, id) : page.items.length, listing };
}

/** The live contracts or alliances of either side, the first page of them merged; counted only when more follows. */
async function livePairs(s: Services, kind: 'contracts' | 'alliances', counted: string, id: number, limit: number): Promise<ListOf> {
  const statuses = livePairStatuses(kind);
  const page = await pairsPageOf<PairRow & Listed>(s, kind, id, statuses, { limit });
  return { name: kind, counted, page, count: page.next ? await livePairCount(s, kind, id) : page.items.length, listing: `/api/${kind}?organization_id=${id}&status=${statuses.join(',')}` };
}

/** Where an organization stands and what it owes a day, as its row keeps them. */
type UpkeepRow = { daily_maintenance: number; location_id: string; travel: { destination_id: string; arrives_day: number } | null };

/**
 * What the next day's upkeep comes to as the world stands now: `daily_maintenance` with the
 * maintenance modifiers of the world events active where the organization will stand as
 * that day begins, as the day charges it (actors/clock/daily.ts). An event that begins or
 * ends meanwhile changes it.
 */
async function maintenanceDue(s: Services, org: UpkeepRow): Promise<number> {
  const events = await s.read.list<{ effects: Effect[] }>('activeWorldEvents', undefined, (e) => ({ effects: e.effects }));
  if (!events.length) return org.daily_maintenance;
  const tomorrow = (await s.day()) + 1;
  return maintenanceWith(org.daily_maintenance, organizationModifiers(events.flatMap((e) => e.effects), standsAtDayStart(org, tomorrow)));
}

/**
 * An organization and what it has now: its living members, active projects, live contracts
 * and alliances, parties and establishments, each list at most `limit` long in id order,
 * with how many there are in all and, for a list cut short, the listing that goes on from it.
 * What has ended (a fulfilled contract, a completed project, a dead member) is in the listings.
 */
export async function organizationDetail(s: Services, id: number, view: OrganizationView = DEFAULT_VIEW) {
  const org = await s.read.row<Record<string, unknown>>('organization', id);
  if (!org) throw notFoundError(`organization ${id} not found`);
  const { limit } = view;
  const lists = await Promise.all([
    namedList(s, 'members', 'member_count', 'employeesOf', id, limit, `/api/adventurers?organization_id=${id}&status=employed`, view.members === 'brief' ? briefMember : undefined),
    namedList(s, 'projects', 'project_count', 'activeProjectsOf', id, limit, `/api/projects?organization_id=${id}&status=active`),
    livePairs(s, 'contracts', 'contract_count', id, limit),
    livePairs(s, 'alliances', 'alliance_count', id, limit),
    namedList(s, 'parties', 'party_count', 'partiesOf', id, limit, `/api/parties?organization_id=${id}`),
    namedList(s, 'establishments', 'establishment_count', 'establishmentsOf', id, limit, `/api/establishments?organization_id=${id}`),
  ]);
  return {
    ...org,
    ...(org.status === 'active' ? { maintenance_due: await maintenanceDue(s, org as UpkeepRow) } : {}),
    holdings: org.holdings ?? {},
    ...Object.fromEntries(lists.map((l) => [l.name, l.page.items])),
    ...Object.fromEntries(lists.map((l) => [l.counted, l.count])),
    more: Object.fromEntries(lists.filter((l) => l.page.next).map((l) => [l.name, nextPageUrl(l.listing, l.page.next!)])),
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
    summary: 'Dissolve an organization you control (the dissolution rule of GET /api/rules).',
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
    summary: "An organization with what it has now: its living members, holdings, active projects, live contracts and alliances, parties and establishments, each list at most limit long (in id order), with how many there are in all and, for a list cut short, the listing that goes on from it; members=brief leaves out each member's moments, party history and bonds.",
    handle: ({ params, query }, s) => organizationDetail(s, params.organization_id, query),
  }),
];
