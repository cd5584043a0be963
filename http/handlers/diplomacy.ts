// Diplomacy and correspondence: contracts, alliances, trust, and messages.
import type { QueryName } from '../../actors/ports/store';
import { LIVE_CONTRACT_STATUSES } from '../../actors/contract/rules';
import type { OrganizationCommand } from '../../actors/organization/messages';
import { roadDays, travelDays, type RouteGraphNode } from '../../actors/organization/travel';
import {
  AllianceCreate, AlliancePath, AlliancesQuery, ContractCreate, ContractPath, ContractsQuery, MessageCreate, MessagesQuery, OrganizationAction, RelationshipsQuery
} from '../../codecs/requests';
import { LIVE_ALLIANCE, pairKey, trustPairId, trustPairOf, trustRowId } from '../../actors/relationship/rules';
import { JsonText } from '../read-cache';
import { controlledOrganization, organizationRow, plannedWhereItStands, proposalCounterparty, type OrganizationRow } from '../control';
import { notFoundError, unwrap } from '../errors';
import { JsonPage, mergedPageAfterLastId, Page, readNewestJsonPage, readNewestMergedJsonPage, readPage, scanMatching } from '../paging';
import { route } from '../route';
import type { Services } from '../services';

interface MessageRow { id: number | string; sent_day: number; deliver_day: number; recipient_id: number | null; sender_id: number | null }

const summary = (o: OrganizationRow | undefined) => (o ? { id: o.id, name: o.name, status: o.status, location_id: o.location_id, agent_id: o.agent_id } : null);


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

/**
 * A page of the relationships: they grow with the pairs that ever dealt, so they page like
 * the other listings; a pair's id is `<organization_id>-<other_organization_id>`, and
 * `after_id` names the last pair of the page before. Read from the `trust` rows (one per
 * organization and other it has a trust score with, in the order of the pairs' ids): a pair
 * whose two sides both have a score is listed once, from the lower id's side.
 */
async function relationshipsPage(s: Services, query: { limit: number; after_id?: string }): Promise<JsonPage> {
  const [a, b] = (query.after_id ?? '').split('-').map(Number);
  let after = query.after_id === undefined || !Number.isFinite(a) || !Number.isFinite(b) ? undefined : trustRowId(a, b);
  const items: string[] = [];
  let last = '';
  for (;;) {
    const rows = await s.read.listPageJson('trusts', undefined, after, query.limit + 1);
    const pairs = rows.map((r) => trustPairOf(r.id));
    // The higher id's side, when the lower one has a score too, was listed from there: those
    // other sides are read together (a store across the network answers them at once).
    const listedElsewhere = await Promise.all(pairs.map(([self, other]) => (self > other ? s.read.row('trust', trustRowId(other, self)).then((o) => o !== undefined) : false)));
    for (const [i, r] of rows.entries()) {
      const [self, other] = pairs[i];
      if (listedElsewhere[i]) continue;
      if (items.length === query.limit) return new JsonPage(new JsonText(`[${items.join(',')}]`), { after_id: last, limit: String(query.limit) }, items.length);
      items.push(r.doc);
      last = trustPairId(self, other);
    }
    if (rows.length < query.limit + 1) return new JsonPage(new JsonText(`[${items.join(',')}]`), null, items.length);
    after = rows[rows.length - 1].id;
  }
}

export interface PairRow { id: number; proposer_id: number; counterparty_id: number; status: string }

/** The named queries of each side of an organization's contracts or alliances (a row keeps its proposer in organization_id, its counterparty in agent_id), and of the live ones alone. */
const SIDES = {
  contracts: { every: ['contractsProposedBy', 'contractsOfferedTo'], live: ['liveContractsProposedBy', 'liveContractsOfferedTo'], liveStatuses: LIVE_CONTRACT_STATUSES },
  alliances: { every: ['alliancesProposedBy', 'alliancesOfferedTo'], live: ['liveAlliancesProposedBy', 'liveAlliancesOfferedTo'], liveStatuses: LIVE_ALLIANCE },
} as const satisfies Record<string, { every: readonly QueryName[]; live: readonly QueryName[]; liveStatuses: readonly string[] }>;

/**
 * A page of an organization's contracts or alliances, those it proposed and those offered to
 * it merged in id order, only those in `statuses` when given. Each side is read from after
 * `after_id` only until the page and one more are found; statuses that are all live are read
 * from the live ones' queries, so that the ended ones, which grow for ever, are not passed over.
 */
export async function pairsPageOf<T extends PairRow>(s: Services, kind: 'contracts' | 'alliances', organizationId: number, statuses: readonly string[] | undefined, query: { limit: number; after_id?: string }): Promise<Page<T>> {
  const side = SIDES[kind];
  const live = statuses !== undefined && statuses.every((x) => (side.liveStatuses as readonly string[]).includes(x));
  const keep = (row: T) => statuses === undefined || statuses.includes(row.status);
  const halves = await Promise.all((live ? side.live : side.every).map((name) => scanMatching(s.read, name, organizationId, query.after_id, query.limit + 1, keep)));
  return mergedPageAfterLastId(halves.map((half) => half.map((r) => r.doc)), query.limit);
}

/** The statuses of a contract or an alliance still in force. */
export const livePairStatuses = (kind: 'contracts' | 'alliances'): readonly string[] => SIDES[kind].liveStatuses;

/** How many live contracts or alliances an organization has, on either side. */
export async function livePairCount(s: Services, kind: 'contracts' | 'alliances', organizationId: number): Promise<number> {
  const counts = await Promise.all(SIDES[kind].live.map((name) => s.read.count(name, organizationId)));
  return counts.reduce((a, b) => a + b, 0);
}

/**
 * A contract or alliance listing, filtered: by organization (either side) and statuses.
 * Without a filter the page is read from the store as a page; with an organization, its
 * sides are read until the page is full; with statuses alone, a page of each.
 */
async function pairListing<T extends PairRow>(s: Services, kind: 'contracts' | 'alliances', query: { organization_id?: number; status?: readonly string[]; limit: number; after_id?: string }): Promise<Page<T>> {
  if (query.organization_id === undefined && query.status === undefined) return readPage<T>(s.read, kind, query);
  if (query.organization_id !== undefined) return pairsPageOf<T>(s, kind, query.organization_id, query.status, query);
  // A page of each status asked for, merged: no more rows read than the page needs.
  const inStatus = kind === 'alliances' ? 'alliancesInStatus' : 'contractsInStatus';
  const pages = await Promise.all([...new Set(query.status!)].map((status) => s.read.listPage<T>(inStatus, status, query.after_id, query.limit + 1)));
  return mergedPageAfterLastId(pages, query.limit);
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
    handle: ({ query }, s) => relationshipsPage(s, query),
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
      const mine = await s.read.ids('organizationsOfAgent', caller!.id);
      // For each organization: the private letters delivered to it, and everything it sent
      // (private letters, public broadcasts and rumors alike), read newest first as far as the page needs.
      return readNewestMergedJsonPage(s.read, mine.flatMap((id) => [
        { name: 'privateMessagesTo' as const, arg: Number(id), keep: (m: MessageRow) => m.deliver_day <= day },
        { name: 'messagesFrom' as const, arg: Number(id) },
      ]), query);
    },
  }),
  route({
    method: 'GET', path: '/api/messages/investigation', auth: 'spectator', query: MessagesQuery, summary: 'Every message, private and undelivered ones included (spectators).',
    handle: ({ query }, s) => readNewestJsonPage(s.read, 'messages', query),
  }),
];
