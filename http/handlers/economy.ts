// The economy: regional markets and trade, travel, workers, projects and production
// plans, establishments and the gaps of a place.
import type { QueryName } from '../../actors/ports/store';
import { own, setOwn } from '../../actors/own';
import type { TradeReceipt } from '../../actors/location/actor';
import type { OrganizationCommand } from '../../actors/organization/messages';
import { ESTABLISHMENT_FAMILIES, establishmentRole, travelCut, type EstablishmentLike } from '../../actors/organization/establishments';
import { roadDays, travelDays, type RouteGraphNode } from '../../actors/organization/travel';
import { travelPlan, type PlanPlace } from '../../actors/organization/travel-plan';
import type { Market } from '../../actors/location/market';
import type { LocationState } from '../../actors/location/messages';
import { quoteTrade } from '../../actors/location/rules';
import {
  EstablishmentsQuery, LocationPath, MarketQuery, ProjectCreate, ProjectPath, ResourcePath, TradeCreate, TradeQuoteQuery, TravelCreate, TravelPlanQuery, WorkerAction, PageQuery, ProjectsQuery
} from '../../codecs/requests';
import type { Caller } from '../auth';
import { controlledOrganization, plannedWhereItStands } from '../control';
import { conflictError, fromRefusal, notFoundError, unwrap } from '../errors';
import { readFilteredJsonPage, readJsonPage } from '../paging';
import { route } from '../route';
import type { Services } from '../services';

export const REFERENCE_MARKET = 'emberfall';

/** Days the travel establishments of a place take off a journey setting out from it (establishments.ts travelCut). */
const setOutCut = async (s: Services, locationId: string) => travelCut(await s.read.list<EstablishmentLike>('establishmentsAt', locationId), locationId);

interface OrgRow { id: number; location_id: string; status: string; travel: unknown; agent_id: number | null }
interface LocationRow extends RouteGraphNode { name: string; kind: string; has_market: boolean; monster_population: number; population: number }
interface MarketRow { resource: string; price: number; supply: number; location_id: string; base_price: number; usual_supply: number; price_factor?: number }

/**
 * A trade quote: the market's own rule (quoteTrade, as POST /api/trade applies it) over
 * the board as the read model holds it. What the market's day will do to it is not
 * foreseen: the quote holds until the board changes.
 */
async function tradeQuote(s: Services, locationId: string, resource: string, side: 'buy' | 'sell', quantity: number) {
  const l = await location(s, locationId);
  // As its board: a place where nobody lives has no market to quote (404).
  if (!l.has_market) throw notFoundError(`${l.name} has no market: nobody lives there`);
  const market: Market = {};
  for (const m of await s.read.list<MarketRow>('marketsAt', locationId)) {
    setOwn(market, m.resource, {
      resource: m.resource, target_supply: m.usual_supply, supply: m.supply, base_price: m.base_price, price: m.price,
      price_factor: m.price_factor ?? 1, production_factor: 0, per_person: 0,
    });
  }
  const place = { id: l.id, name: l.name, market } as unknown as LocationState;
  const d = quoteTrade(place, { type: 'trade', day: await s.day(), agent_id: 0, organization_id: 0, resource, side, quantity });
  // What does not exist is not found; a trade the market would refuse is quoted with the refusal it would meet.
  if ('refusal' in d && d.refusal.status !== 409) throw fromRefusal(d.refusal);
  const t = 'refusal' in d ? null : d.events[0] as { total: number; supply_after: number; price_after: number };
  const entry = own(market, resource)!;
  return {
    location_id: l.id, resource, side, quantity, possible: t !== null, refusal: 'refusal' in d ? d.refusal.detail : null,
    total: t?.total ?? null, average_price: t ? Math.round((t.total / quantity) * 10000) / 10000 : null,
    price_before: entry.price, supply_before: entry.supply, price_after: t?.price_after ?? null, supply_after: t?.supply_after ?? null, day: await s.day(),
    note: 'a quote: what this trade costs or fetches on the board as it stands now',
  };
}

async function location(s: Services, id: string): Promise<LocationRow> {
  const l = await s.read.row<LocationRow>('location', id);
  if (!l) throw notFoundError(`location ${id} not found`);
  return l;
}

/** Which board a reader sees: the location asked for; else the caller's organization's place; else the reference market. */
async function boardLocation(s: Services, locationId: string | undefined, caller: Caller | null): Promise<string> {
  if (locationId !== undefined) return locationId;
  if (caller) {
    const agent = await s.read.row<{ current_organization_id: number | null }>('agent', caller.id);
    const org = agent?.current_organization_id ? await s.read.row<OrgRow>('organization', agent.current_organization_id) : undefined;
    if (org && org.status === 'active') return org.location_id;
  }
  return REFERENCE_MARKET;
}

async function board(s: Services, locationId: string): Promise<MarketRow[]> {
  const l = await location(s, locationId);
  if (!l.has_market) throw notFoundError(`${l.name} has no market: nobody lives there`);
  return s.read.list<MarketRow>('marketsAt', locationId);
}

/**
 * What a unit of a resource is worth where it is made, for the cost of a project's output:
 * the base price of the local market, or, where nobody trades it, the dearest base price
 * of any market; null when no market trades it at all.
 */
export async function unitPrice(s: Services, locationId: string, resource: string): Promise<number | null> {
  const local = await s.read.row<MarketRow>('market', `${locationId}/${resource}`);
  if (local) return local.base_price;
  const elsewhere = (await s.read.list<MarketRow>('markets')).filter((m) => m.resource === resource).map((m) => m.base_price);
  return elsewhere.length ? Math.max(...elsewhere) : null;
}

const askOrg = (s: Services, id: number, c: OrganizationCommand) => s.entities.ask('organization', id, c).then(unwrap);

export const SERVICES = ['inn', 'smithy', 'healer', 'warehouse', 'watchtower'];
/** What an establishment of each service would do (its family's effect), or null for a service of no family (a name only). */
const SERVICE_EFFECTS = new Map(SERVICES.map((service) => {
  const role = establishmentRole(service);
  return [service, role === null ? null : ESTABLISHMENT_FAMILIES[role].effect];
}));
export const SCARCE_SUPPLY_RATIO = 0.5;
export const SCARCE_PRICE_RATIO = 1.5;
export const HIGH_DANGER = 30;

/** What a place lacks, as observed from the state of the world: never an instruction. */
export async function gapsOf(s: Services, id: string) {
  const l = await location(s, id);
  const observations: Array<Record<string, unknown>> = [];
  if (!l.has_market) {
    observations.push({ kind: 'no_market', detail: `nobody lives at ${l.name}, so nothing is traded there` });
  } else {
    // Scarce: thin against its own usual supply, or dear against the reference market.
    const reference = new Map((await s.read.list<MarketRow>('marketsAt', REFERENCE_MARKET)).map((m) => [m.resource, m.price]));
    for (const m of await s.read.list<MarketRow>('marketsAt', id)) {
      const referencePrice = reference.get(m.resource) ?? m.base_price;
      if (m.supply < m.usual_supply * SCARCE_SUPPLY_RATIO || m.price > m.base_price * 1.5 || m.price > referencePrice * SCARCE_PRICE_RATIO) {
        observations.push({ kind: 'scarce_resource', resource: m.resource, supply: m.supply, usual_supply: m.usual_supply, price: m.price, reference_price: referencePrice });
      }
    }
    const present = new Set((await s.read.list<{ kind: string }>('establishmentsAt', id)).map((e) => e.kind.toLowerCase()));
    for (const service of SERVICES) if (!present.has(service)) observations.push({ kind: 'missing_service', service, effect: SERVICE_EFFECTS.get(service) });
  }
  if (l.danger >= HIGH_DANGER) observations.push({ kind: 'high_danger', danger: l.danger, monster_population: l.monster_population });
  if (await s.read.count('activeOrganizationsAt', id) === 0) observations.push({ kind: 'no_organizations_present' });
  return { location_id: id, day: await s.day(), observations, note: 'observations of what this place lacks, not instructions' };
}

export const economyRoutes = [
  route({
    method: 'GET', path: '/api/market', auth: 'agent-optional', query: MarketQuery,
    summary: "A market board: location_id's, else (with X-Agent-Key) the one where your organization stands, else the reference market at emberfall.",
    handle: async ({ query, caller }, s) => board(s, await boardLocation(s, query.location_id, caller)),
  }),
  route({
    method: 'GET', path: '/api/market/{resource}', auth: 'agent-optional', params: ResourcePath, query: MarketQuery,
    summary: 'One resource on a market board (chosen as for GET /api/market).',
    async handle({ params, query, caller }, s) {
      const locationId = await boardLocation(s, query.location_id, caller);
      const entry = (await board(s, locationId)).find((m) => m.resource === params.resource);
      if (!entry) throw notFoundError(`${params.resource} is not traded at ${locationId}`);
      return entry;
    },
  }),
  route({
    method: 'GET', path: '/api/market/{resource}/quote', auth: 'agent-optional', params: ResourcePath, query: TradeQuoteQuery,
    summary: 'What buying or selling quantity of a resource would cost or fetch now (board chosen as for GET /api/market), by the rule POST /api/trade applies. Changes nothing.',
    handle: async ({ params, query, caller }, s) => tradeQuote(s, await boardLocation(s, query.location_id, caller), params.resource, query.side, query.quantity),
  }),
  route({
    method: 'GET', path: '/api/travel/plan', auth: 'none', query: TravelPlanQuery,
    summary: "A journey's plan before setting out: the route and the places it passes (without stopping), the danger of each road and place, the days (less days_saved by travel establishments where it sets out) and the arrival day. From from_id, else organization_id's place, else emberfall. Changes nothing.",
    async handle({ query }, s) {
      const org = query.organization_id === undefined ? null : (await s.read.row<OrgRow & { name: string }>('organization', query.organization_id)) ?? null;
      if (query.organization_id !== undefined && !org) throw notFoundError(`organization ${query.organization_id} not found`);
      // Without either, from where a new organization starts. A plan to where one stands is the empty journey.
      const from = query.from_id ?? org?.location_id ?? REFERENCE_MARKET;
      await location(s, from);
      const destination = await location(s, query.destination_id);
      const plan = travelPlan(await s.read.list<PlanPlace>('locations'), from, destination.id, await setOutCut(s, from));
      // A read: no way between two places is a plan that does not exist (POST /api/travel, an action, answers 409).
      if (!plan) throw notFoundError(`no road leads from ${from} to ${destination.id}`);
      const day = await s.day();
      const travel = org?.travel as { destination_id: string; arrives_day: number } | null | undefined;
      return {
        ...plan, day, arrives_day: day + plan.days,
        // Whether the organization could set out today (a journey, once begun, runs to its end).
        // A journey sets out from where the organization stands: a plan from elsewhere is not one it can make today.
        can_set_out: org === null ? null : org.status === 'active' && !travel && from === org.location_id && from !== destination.id,
        blocked_reason: org === null ? null : org.status !== 'active' ? `the organization is ${org.status}`
          : travel ? `already on the road to ${travel.destination_id} until day ${travel.arrives_day}`
            : from !== org.location_id ? `it stands at ${org.location_id}, not ${from}; a journey sets out from where it stands`
              : from === destination.id ? `already at ${destination.id}` : null,
      };
    },
  }),
  route({
    method: 'POST', path: '/api/trade', auth: 'agent', body: TradeCreate,
    summary: 'Buy or sell at the market where your organization stands; holdings, treasury, supply and price change at once.',
    async handle({ body, caller }, s) {
      const org = await controlledOrganization(s, body.organization_id, caller);
      return unwrap(await s.entities.ask<TradeReceipt, 'location'>('location', org.location_id, {
        type: 'trade', day: await s.day(), agent_id: caller!.id, organization_id: body.organization_id,
        resource: body.resource, side: body.side, quantity: body.quantity,
      }));
    },
  }),
  route({
    method: 'POST', path: '/api/travel', auth: 'agent', body: TravelCreate,
    summary: 'Set out for another location; the journey takes the road days plus one day per 20 danger of the destination, a day less from a place with a travel establishment (never under 1 day).',
    async handle({ body, caller }, s) {
      const destination = await location(s, body.destination_id);
      return unwrap(await plannedWhereItStands(s, body.organization_id, caller, async (org) => {
        const road = roadDays(await s.read.list<LocationRow>('locations'), org.location_id, destination.id);
        if (road === null && org.location_id !== destination.id) throw conflictError(`no road leads from ${org.location_id} to ${destination.id}`);
        return s.entities.ask('organization', body.organization_id, {
          type: 'travel', agent_id: caller!.id, day: await s.day(), destination_id: destination.id, from_id: org.location_id, days: travelDays(road ?? 0, destination.danger, await setOutCut(s, org.location_id)),
        });
      }));
    },
  }),
  ...(['hire', 'release'] as const).map((verb) => route({
    method: 'POST', path: `/api/workers/${verb}`, auth: 'agent', body: WorkerAction,
    summary: verb === 'hire' ? 'Hire workers: 25 gold each, then 1 gold a day each.' : 'Release workers.',
    async handle({ body, caller }, s) {
      await controlledOrganization(s, body.organization_id, caller);
      return askOrg(s, body.organization_id, { type: `${verb}-workers`, agent_id: caller!.id, day: await s.day(), quantity: body.quantity });
    },
  })),
  route({
    method: 'POST', path: '/api/projects', auth: 'agent', body: ProjectCreate, success: 201,
    summary: 'Start a project where your organization stands; the whole budget is reserved now. kind "production" with an output makes a production plan.',
    async handle({ body, caller }, s) {
      await controlledOrganization(s, body.owner_id, caller);
      await location(s, body.location_id);
      const { owner_id: ownerId, ...spec } = body;
      const id = await s.store.nextId('project');
      return askOrg(s, ownerId, {
        type: 'start-project', agent_id: caller!.id, day: await s.day(), project: { id, ...spec },
        unit_price: spec.output_resource === null ? null : await unitPrice(s, spec.location_id, spec.output_resource),
      });
    },
  }),
  route({
    method: 'POST', path: '/api/projects/{project_id}/cancel', auth: 'agent', params: ProjectPath,
    summary: 'Cancel an active project you own; half of its unused budget comes back.',
    async handle({ params, caller }, s) {
      const p = await s.read.row<{ owner_id: number }>('project', params.project_id);
      if (!p) throw notFoundError(`project ${params.project_id} not found`);
      await controlledOrganization(s, p.owner_id, caller);
      return askOrg(s, p.owner_id, { type: 'cancel-project', agent_id: caller!.id, day: await s.day(), project_id: params.project_id });
    },
  }),
  route({
    method: 'GET', path: '/api/projects', auth: 'none', summary: 'Every project; filter by location_id and status (active, completed or cancelled).',
    query: ProjectsQuery,
    async handle({ query }, s) {
      const here = query.location_id;
      type Row = { status: string; location_id: string };
      // An organization's projects (its active ones from their own query: the listing an
      // organization's answer links to), filtered by what else was asked, read until the page is full.
      if (query.organization_id !== undefined) {
        if (query.status === 'active' && here === undefined) return readJsonPage(s.read, 'activeProjectsOf', query, query.organization_id);
        return readFilteredJsonPage(s.read, query.status === 'active' ? 'activeProjectsOf' : 'projectsOf', query, query.organization_id,
          (p: Row) => (query.status === undefined || p.status === query.status) && (here === undefined || p.location_id === here));
      }
      // Pages read as pages where a named query holds the set; a place's ended projects from their status's, by place.
      if (query.status === undefined) return here === undefined ? readJsonPage(s.read, 'projects', query) : readJsonPage(s.read, 'projectsAt', query, here);
      if (here === undefined) return readJsonPage(s.read, 'projectsInStatus', query, query.status);
      if (query.status === 'active') return readJsonPage(s.read, 'activeProjectsAt', query, here);
      return readFilteredJsonPage(s.read, 'projectsInStatus', query, query.status, (p: Row) => p.location_id === here);
    },
  }),
  route({
    method: 'GET', path: '/api/production', auth: 'none', summary: 'Every production plan, with its workforce and whether it is staffed.',
    query: PageQuery,
    handle: ({ query }, s) => readJsonPage(s.read, 'productionPlans', query),
  }),
  route({
    method: 'GET', path: '/api/establishments', auth: 'none', query: EstablishmentsQuery,
    summary: 'Establishments, optionally at one location, of one organization and of one kind.',
    handle: async ({ query }, s) => {
      const [name, arg]: [QueryName, string | number | undefined] = query.organization_id !== undefined ? ['establishmentsOf', query.organization_id]
        : query.location_id !== undefined ? ['establishmentsAt', query.location_id] : ['establishments', undefined];
      // A kind (in any case), or a place beside an organization, is read until the page is full.
      if (query.kind === undefined && (query.organization_id === undefined || query.location_id === undefined)) return readJsonPage(s.read, name, query, arg);
      const kind = query.kind?.toLowerCase();
      return readFilteredJsonPage(s.read, name, query, arg, (e: { kind: string; location_id: string }) => (kind === undefined || e.kind.toLowerCase() === kind)
        && (query.location_id === undefined || e.location_id === query.location_id));
    },
  }),
  route({
    method: 'GET', path: '/api/locations/{location_id}/gaps', auth: 'none', params: LocationPath,
    summary: 'Observed gaps of a place: scarce resources, missing services, high danger.',
    handle: ({ params }, s) => gapsOf(s, params.location_id),
  }),
];
