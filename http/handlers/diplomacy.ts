// Diplomacy and correspondence: contracts, alliances, trust, and messages.
import type { OrganizationCommand } from '../../actors/organization/messages';
import { roadDays, travelDays, type RouteGraphNode } from '../../actors/organization/travel';
import {
  AllianceCreate, AlliancePath, AlliancesQuery, ContractCreate, ContractPath, ContractsQuery, MessageCreate, MessagesQuery, OrganizationAction, RelationshipsQuery
} from '../../codecs/requests';
import { pairKey } from '../../actors/relationship/rules';
import { compareNewest } from '../../actors/ports/store';
import { controlledOrganization, organizationRow, plannedWhereItStands, proposalCounterparty, type OrganizationRow } from '../control';
import { notFoundError, unwrap } from '../errors';
import { offsetPageOf, Page, pageOf, pageOfOneMore, readNewestJsonPage, readPage } from '../paging';
import { route } from '../route';
import type { Services } from '../services';

interface MessageRow { id: number | string; sent_day: number; deliver_day: number; recipient_id: number | null; sender_id: number | null }

const summary = (o: OrganizationRow | undefined) => (o ? { id: o.id, name: o.name, status: o.status, location_id: o.location_id, agent_id: o.agent_id } : null);

/** Newest first, in the order the store's newest-first listings keep (compareNewest). */
const newestFirst = <T extends MessageRow>(rows: T[]) =>
  rows.map((m) => ({ m, id: m.id, day: m.sent_day })).sort(compareNewest).map((r) => r.m);

/**
 * Days a private message takes between two places: immediate in the same place, else the
 * road's days and the destination's danger, as a journey's (core rule 15). A message is no
 * journey: the travel establishments that speed journeys (establishments.ts travelCut)
 * do not speed it.
 */
export function deliveryDelay(places: RouteGraphNode[], from: string, to: string): number {
  if (from === to) return 0;
  const road = roadDays(places, from, to);
  const destination = places.find((p) => p.id === to);
  return road === null ? 30 : travelDays(road, destination?.danger ?? 0);
}

/** Trust scores between organizations, one record per pair that has any, in the order of the pair's ids. */
export async function relationships(s: Services) {
  // Only each organization's id and trust are kept of its row; pairs are looked up by id.
  const orgs = await s.read.list<{ id: number; trust: Record<string, number> }>('organizations', undefined, (o: OrganizationRow) => ({ id: o.id, trust: o.trust ?? {} }));
  const trustOf = new Map(orgs.map((o) => [o.id, o.trust]));
  const out: Array<{ id: string; organization_id: number; other_organization_id: number; organization_ids: number[]; trust: number }> = [];
  for (const o of orgs) {
    for (const [other, trust] of Object.entries(o.trust)) {
      const b = Number(other);
      if (o.id > b && trustOf.get(b)?.[String(o.id)] !== undefined) continue;
      out.push({ id: `${o.id}-${b}`, organization_id: o.id, other_organization_id: b, organization_ids: [o.id, b], trust });
    }
  }
  return out.sort((x, y) => x.organization_id - y.organization_id || x.other_organization_id - y.other_organization_id);
}

/**
 * A page of the relationships: they grow with the pairs that ever dealt, so they page like
 * the other listings; a pair's id is `<organization_id>-<other_organization_id>`, and
 * `after_id` names the last pair of the page before.
 */
export function relationshipsPage(rows: Array<{ organization_id: number; other_organization_id: number }>, query: { limit: number; after_id?: string }): Page<unknown> {
  const [a, b] = (query.after_id ?? '').split('-').map(Number);
  const from = query.after_id === undefined || !Number.isFinite(a) || !Number.isFinite(b) ? rows
    : rows.filter((r) => r.organization_id > a || (r.organization_id === a && r.other_organization_id > b));
  const items = from.slice(0, query.limit);
  const last = items[items.length - 1];
  return new Page(items, from.length > query.limit ? { after_id: `${last.organization_id}-${last.other_organization_id}`, limit: String(query.limit) } : null);
}

export interface PairRow { id: number; proposer_id: number; counterparty_id: number; status: string }

/** An organization's contracts or alliances, both the ones it proposed and the ones offered to it, in id order; only those in `statuses` when given. */
export async function pairsOf<T extends PairRow>(s: Services, kind: 'contracts' | 'alliances', organizationId: number, statuses?: readonly string[]): Promise<T[]> {
  const rows = kind === 'contracts'
    ? [...await s.read.list<T>('contractsProposedBy', organizationId), ...await s.read.list<T>('contractsOfferedTo', organizationId)]
    : [...await s.read.list<T>('alliancesProposedBy', organizationId), ...await s.read.list<T>('alliancesOfferedTo', organizationId)];
  return rows.filter((r) => statuses === undefined || statuses.includes(r.status)).sort((a, b) => a.id - b.id);
}

/**
 * A contract or alliance listing, filtered: by organization (either side) and statuses.
 * Without a filter the page is read from the store as a page; with one, the organization's
 * own rows (or the whole listing, for a status alone) are read and filtered.
 */
async function pairListing<T extends PairRow>(s: Services, kind: 'contracts' | 'alliances', query: { organization_id?: number; status?: readonly string[]; limit: number; after_id?: string }): Promise<Page<T>> {
  if (query.organization_id === undefined && query.status === undefined) return readPage<T>(s.read, kind, query);
  if (query.organization_id !== undefined) return pageOf(await pairsOf<T>(s, kind, query.organization_id, query.status), query);
  const statuses = query.status!;
  if (kind === 'alliances') {
    // A page of each status asked for, merged: no more rows read than the page needs.
    const pages = await Promise.all([...new Set(statuses)].map((status) => s.read.listPage<T>('alliancesInStatus', status, query.after_id, query.limit + 1)));
    return pageOfOneMore(pages.flat().sort((a, b) => a.id - b.id), query.limit, (last) => ({ after_id: String(last.id) }));
  }
  // A contract's status is not indexed in every store (docs/decisions.md): the listing is read and filtered.
  return pageOf((await s.read.list<T>(kind)).filter((r) => statuses.includes(r.status)), query);
}

/** One contract or alliance by its id, with its proposer and counterparty; 404 when there is none. */
async function onePair(s: Services, kind: 'contract' | 'alliance', id: number) {
  const row = await s.read.row<{ proposer_id: number; counterparty_id: number }>(kind, id);
  if (!row) throw notFoundError(`${kind} ${id} not found`);
  return { ...row, ...await withParties(s, row) };
}

const withParties = async (s: Services, c: { proposer_id: number; counterparty_id: number }) => ({
  proposer: summary(await s.read.row<OrganizationRow>('organization', c.proposer_id)),
  counterparty: summary(await s.read.row<OrganizationRow>('organization', c.counterparty_id)),
});

export const diplomacyRoutes = [
  route({
    method: 'POST', path: '/api/contracts', auth: 'agent', body: ContractCreate, success: 201,
    summary: 'Propose a contract. On fulfilment the counterparty pays the value to the proposer, who hands over the resource quantity.',
    async handle({ body, caller }, s) {
      const proposer = await controlledOrganization(s, body.proposer_id, caller);
      const counterparty = await proposalCounterparty(s, body.counterparty_id, 'contract');
      const id = await s.store.nextId('contract');
      // The names go with the contract so that its history names both sides.
      const contract = { id, ...body, proposer_name: proposer.name, counterparty_name: counterparty.name };
      return unwrap(await s.entities.ask('contract', id, { type: 'propose', contract, agent_id: caller!.id, day: await s.day() }));
    },
  }),
  ...(['accept', 'reject', 'withdraw', 'fulfill'] as const).map((verb) => route({
    method: 'POST', path: `/api/contracts/{contract_id}/${verb}`, auth: 'agent', params: ContractPath, body: OrganizationAction,
    summary: {
      accept: 'Accept a proposed contract (counterparty only).',
      reject: 'Reject a proposed contract (counterparty only); trust may suffer.',
      withdraw: 'Withdraw a contract you proposed, while nobody has accepted it (proposer only); it then stands as rejected, with withdrawn true.',
      fulfill: 'Fulfil an accepted contract: payment and goods move now, or nothing does. A resource contract may be fulfilled by either party while both stand at the same place (the goods change hands there); a service contract (no resource) only by the counterparty, who pays for the service received.',
    }[verb],
    async handle({ params, body, caller }, s) {
      if (!await s.read.row('contract', params.contract_id)) throw notFoundError(`contract ${params.contract_id} not found`);
      await controlledOrganization(s, body.organization_id, caller);
      return unwrap(await s.entities.ask('contract', params.contract_id, { type: verb, organization_id: body.organization_id, agent_id: caller!.id, day: await s.day() }));
    },
  })),
  route({
    method: 'GET', path: '/api/contracts', auth: 'none', summary: 'Contracts, optionally of one organization (either side) and in one status.',
    query: ContractsQuery,
    handle: ({ query }, s) => pairListing(s, 'contracts', query),
  }),
  route({
    method: 'GET', path: '/api/contracts/{contract_id}', auth: 'none', params: ContractPath, summary: 'A contract with its proposer and counterparty.',
    handle: ({ params }, s) => onePair(s, 'contract', params.contract_id),
  }),
  route({
    method: 'POST', path: '/api/alliances', auth: 'agent', body: AllianceCreate, success: 201,
    summary: 'Propose an alliance to another organization.',
    async handle({ body, caller }, s) {
      const proposer = await controlledOrganization(s, body.proposer_id, caller);
      const counterparty = await proposalCounterparty(s, body.counterparty_id, 'alliance');
      const id = await s.store.nextId('alliance');
      const alliance = { id, ...body, proposer_name: proposer.name, counterparty_name: counterparty.name };
      // The pair's relationship keeps one proposed or active alliance per pair, also under concurrent proposals.
      return unwrap(await s.entities.ask('relationship', pairKey(body.proposer_id, body.counterparty_id), { type: 'propose-alliance', alliance, agent_id: caller!.id, day: await s.day() }));
    },
  }),
  ...(['accept', 'end'] as const).map((verb) => route({
    method: 'POST', path: `/api/alliances/{alliance_id}/${verb}`, auth: 'agent', params: AlliancePath, body: OrganizationAction,
    summary: verb === 'accept' ? 'Accept a proposed alliance (counterparty only); trust improves.' : 'End an active alliance (either member), or end a proposed one: withdrawn by its proposer, declined by its counterparty (no trust moves).',
    async handle({ params, body, caller }, s) {
      if (!await s.read.row('alliance', params.alliance_id)) throw notFoundError(`alliance ${params.alliance_id} not found`);
      await controlledOrganization(s, body.organization_id, caller);
      return unwrap(await s.entities.ask('alliance', params.alliance_id, { type: verb, organization_id: body.organization_id, agent_id: caller!.id, day: await s.day() }));
    },
  })),
  route({
    method: 'GET', path: '/api/alliances', auth: 'none', summary: 'Alliances, optionally of one organization (either side) and in one status.',
    query: AlliancesQuery,
    async handle({ query }, s) {
      const page = await pairListing(s, 'alliances', query);
      return new Page(await Promise.all(page.items.map(async (a) => ({ ...a, ...await withParties(s, a) }))), page.next);
    },
  }),
  route({
    method: 'GET', path: '/api/alliances/{alliance_id}', auth: 'none', params: AlliancePath, summary: 'An alliance with its proposer and counterparty.',
    handle: ({ params }, s) => onePair(s, 'alliance', params.alliance_id),
  }),
  route({
    method: 'GET', path: '/api/relationships', auth: 'none', summary: 'Trust scores (-100..100) between organizations, one page at a time (`limit`, `after_id` = the last pair\'s id).',
    query: RelationshipsQuery,
    handle: async ({ query }, s) => relationshipsPage(await relationships(s), query),
  }),
  route({
    method: 'POST', path: '/api/messages', auth: 'agent', body: MessageCreate, success: 201,
    summary: 'Send a message: public (recipient_id null) 1 gold, private 2, rumor 3. Private mail between places arrives after the journey time.',
    async handle({ body, caller }, s) {
      // The organization answers with the message as its row shows it.
      return unwrap(await plannedWhereItStands(s, body.sender_id, caller, async (sender) => {
        const recipient = body.recipient_id === null ? null : await organizationRow(s, body.recipient_id);
        const day = await s.day();
        const id = await s.store.nextId('message');
        // Only a letter travels: the road graph is read for a recipient alone.
        const delay = recipient ? deliveryDelay(await s.read.list<RouteGraphNode>('locations'), sender.location_id, recipient.location_id) : 0;
        const command: OrganizationCommand = {
          type: 'send-message', agent_id: caller!.id, day,
          message: { id, recipient_id: body.recipient_id, body: body.body, kind: body.kind, deliver_day: day + delay, sender_location_id: sender.location_id, recipient_location_id: recipient?.location_id ?? null, recipient_name: recipient?.name ?? null },
        };
        return s.entities.ask('organization', body.sender_id, command);
      }));
    },
  }),
  route({
    method: 'GET', path: '/api/messages', auth: 'none', query: MessagesQuery, summary: 'Public broadcasts, rumors and chronicle reports, newest first.',
    handle: ({ query }, s) => readNewestJsonPage(s.read, 'publicMessages', query),
  }),
  route({
    method: 'GET', path: '/api/messages/inbox', auth: 'agent-read', query: MessagesQuery,
    summary: 'Correspondence of the organizations you control: private messages delivered to them, and everything they sent (private, public and rumors).',
    async handle({ query, caller }, s) {
      const day = await s.day();
      const mine = (await s.read.ids('organizationsOfAgent', caller!.id)).map(Number);
      const rows: MessageRow[] = [];
      for (const id of mine) {
        rows.push(...(await s.read.list<MessageRow>('privateMessagesTo', id)).filter((m) => m.deliver_day <= day));
        // Everything it sent: private letters, public broadcasts and rumors alike.
        rows.push(...await s.read.list<MessageRow>('messagesFrom', id));
      }
      const unique = [...new Map(rows.map((m) => [String(m.id), m])).values()];
      return offsetPageOf(newestFirst(unique), query);
    },
  }),
  route({
    method: 'GET', path: '/api/messages/investigation', auth: 'spectator', query: MessagesQuery, summary: 'Every message, private and undelivered ones included (spectators).',
    handle: ({ query }, s) => readNewestJsonPage(s.read, 'messages', query),
  }),
];
