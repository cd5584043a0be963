// Adventurers for hire, parties, and quests.
import type { QueryName } from '../../actors/ports/store';
import type { QuestCommand } from '../../actors/quest/messages';
import type { Trait } from '../../actors/adventurer/messages';
import { HIRING_FEE_BASE, HIRING_FEE_PER_LEVEL } from '../../actors/adventurer/rules';
import { DANGER_SPREAD, checkRequirements, effectiveDanger, outcomeFor, outcomeOdds, partyStrength, rewardPaid, type Place } from '../../actors/quest/rules';
import {
  HireCreate, OrganizationAction, PartyCreate, PartyDispatch, PartyMemberCreate, PartyPath, QuestCreate, QuestOddsQuery, QuestPath, QuestSponsorCreate, QuestsQuery, PartiesQuery
} from '../../codecs/requests';
import { controlledOrganization } from '../control';
import { notFoundError, unwrap } from '../errors';
import { readFilteredJsonPage, readJsonPage } from '../paging';
import { route } from '../route';
import type { Services } from '../services';

async function mustExist(s: Services, kind: string, id: number | string, what = kind): Promise<void> {
  await rowOf(s, kind, id, what);
}

/** A row by kind and id, or 404. */
async function rowOf(s: Services, kind: string, id: number | string, what = kind): Promise<unknown> {
  const row = await s.read.row(kind, id);
  if (!row) throw notFoundError(`${what} ${id} not found`);
  return row;
}

interface QuestRow { id: number; status: string; location_id: string; requester_id: number; reward: number; minimum_strength: number; minimum_reputation: number; minimum_relationship: number; accepted_organization_id: number | null; party_id: number | null }
interface MemberRow { id: number; name: string; strength: number; traits: Trait[]; status: string; injured_until: number | null }

/**
 * A party's odds against a quest, as it stands today: the strength and effective danger the
 * resolution would weigh (the quest's own rules), the outcome they give, the gold it pays,
 * and whether the requirements of dispatch hold. A read: nothing changes.
 */
async function questOdds(s: Services, questId: number, partyId: number) {
  const quest = await s.read.row<QuestRow>('quest', questId);
  if (!quest) throw notFoundError(`quest ${questId} not found`);
  const party = await s.read.row<{ id: number; organization_id: number; members: number[]; status: string }>('party', partyId);
  if (!party) throw notFoundError(`party ${partyId} not found`);
  const place = await s.read.row<Place & { id: string }>('location', quest.location_id);
  if (!place) throw notFoundError(`location ${quest.location_id} not found`);
  const org = await s.read.row<{ reputation: number; trust: Record<string, number> }>('organization', party.organization_id);
  const day = await s.day();
  // As the resolution counts them: the living members.
  const members = (await Promise.all(party.members.map((id) => s.read.row<MemberRow>('adventurer', id)))).filter((m): m is MemberRow => !!m && m.status !== 'dead');
  const strength = partyStrength(members, place);
  const danger = effectiveDanger(members, place);
  const outcome = outcomeFor(strength, danger);
  const injured = members.filter((m) => m.injured_until !== null && m.injured_until > day).map((m) => m.id);
  const unmet = checkRequirements(quest as never, { strength, reputation: org?.reputation ?? 0, trust: org?.trust?.[String(quest.requester_id)] ?? 0 });
  const chances = outcomeOdds(strength, danger);
  return {
    quest_id: quest.id, quest_status: quest.status, party_id: party.id, organization_id: party.organization_id, location_id: quest.location_id, day,
    party_strength: strength, danger: place.danger, effective_danger: danger, outcome, reward: quest.reward, reward_paid: rewardPaid(outcome, quest.reward),
    chances,
    requirements_met: unmet === null, unmet_requirements: unmet, injured_members: injured,
    note: (unmet === null ? '' : `this party would be refused at dispatch (${unmet}); `)
      + `a quote for today: outcome and reward_paid are what this party meets at the expected danger (effective_danger); the danger it meets is drawn within ${DANGER_SPREAD * 100}% either side of it, so chances gives the share of draws that end full, partial or failure. Danger may change before then`,
  };
}

const askQuest = (s: Services, id: number, c: QuestCommand) => s.entities.ask('quest', id, c).then(unwrap);

export const questRoutes = [
  ...(['hire', 'release'] as const).map((verb) => route({
    method: 'POST', path: `/api/adventurers/${verb}`, auth: 'agent', body: HireCreate,
    summary: verb === 'hire' ? `Hire an available adventurer: its hiring_fee now (${HIRING_FEE_BASE} gold plus ${HIRING_FEE_PER_LEVEL} a level above the first), then 2 gold a day while employed, until its career_end_day: then it leaves of its own accord once home (not while away on a quest) and dies of old age; past it, nobody can hire it (409).` : 'Release one of your adventurers; a member of a party leaves the party too, but not while the party is away on a quest (409).',
    async handle({ body, caller }, s) {
      const org = await controlledOrganization(s, body.organization_id, caller);
      await mustExist(s, 'adventurer', body.adventurer_id);
      return unwrap(await s.entities.ask('adventurer', body.adventurer_id, { type: verb, organization_id: body.organization_id, organization_name: org.name, agent_id: caller!.id, day: await s.day() }));
    },
  })),
  route({
    method: 'POST', path: '/api/parties', auth: 'agent', body: PartyCreate, success: 201,
    summary: 'Form a party of your organization.',
    async handle({ body, caller }, s) {
      await controlledOrganization(s, body.organization_id, caller);
      const id = await s.store.nextId('party');
      unwrap(await s.entities.ask('organization', body.organization_id, { type: 'form-party', agent_id: caller!.id, day: await s.day(), party_id: id, name: body.name }));
      return s.read.row('party', id);
    },
  }),
  route({
    method: 'POST', path: '/api/parties/{party_id}/members', auth: 'agent', params: PartyPath, body: PartyMemberCreate,
    summary: 'Add one of your employed, living, uninjured adventurers (one party at a time each).',
    async handle({ params, body, caller }, s) {
      const party = await s.read.row<{ organization_id: number; name: string }>('party', params.party_id);
      if (!party) throw notFoundError(`party ${params.party_id} not found`);
      await controlledOrganization(s, party.organization_id, caller);
      await mustExist(s, 'adventurer', body.adventurer_id);
      unwrap(await s.entities.ask('adventurer', body.adventurer_id, {
        type: 'join-party', party_id: params.party_id, party_name: party.name, organization_id: party.organization_id, agent_id: caller!.id, day: await s.day(),
      }));
      return s.read.row('party', params.party_id);
    },
  }),
  route({
    method: 'POST', path: '/api/parties/{party_id}/dispatch', auth: 'agent', params: PartyPath, body: PartyDispatch,
    summary: "Send a formed party on a quest; your organization must stand at the quest's location and meet its requirements.",
    async handle({ params, body, caller }, s) {
      const party = await s.read.row<{ organization_id: number }>('party', params.party_id);
      if (!party) throw notFoundError(`party ${params.party_id} not found`);
      await controlledOrganization(s, party.organization_id, caller);
      await mustExist(s, 'quest', body.quest_id);
      await askQuest(s, body.quest_id, { type: 'dispatch', party_id: params.party_id, organization_id: party.organization_id, agent_id: caller!.id, day: await s.day(), seed: s.seed });
      return s.read.row('party', params.party_id);
    },
  }),
  route({
    method: 'GET', path: '/api/parties', auth: 'none', summary: 'Formed and dispatched parties, optionally of one organization.',
    query: PartiesQuery,
    handle: ({ query }, s) => (query.organization_id === undefined ? readJsonPage(s.read, 'parties', query) : readJsonPage(s.read, 'partiesOf', query, query.organization_id)),
  }),
  route({
    method: 'GET', path: '/api/parties/{party_id}', auth: 'none', params: PartyPath, summary: 'A party: its organization, members, status and the quest it is on.',
    handle: ({ params }, s) => rowOf(s, 'party', params.party_id),
  }),
  route({
    method: 'POST', path: '/api/quests', auth: 'agent', body: QuestCreate, success: 201,
    summary: "Post a quest for your organization; the reward is reserved from the requester's treasury at once.",
    async handle({ body, caller }, s) {
      await controlledOrganization(s, body.requester_id, caller);
      await mustExist(s, 'location', body.location_id);
      const id = await s.store.nextId('quest');
      return askQuest(s, id, { type: 'post', quest: { id, ...body }, agent_id: caller!.id, day: await s.day() });
    },
  }),
  route({
    method: 'POST', path: '/api/quests/{quest_id}/sponsors', auth: 'agent', params: QuestPath, body: QuestSponsorCreate, success: 201,
    summary: 'Pledge gold to an open quest: it is reserved now and raises the reward; refunded if the quest is withdrawn.',
    async handle({ params, body, caller }, s) {
      await mustExist(s, 'quest', params.quest_id);
      await controlledOrganization(s, body.organization_id, caller);
      return askQuest(s, params.quest_id, { type: 'sponsor', organization_id: body.organization_id, amount: body.amount, agent_id: caller!.id, day: await s.day() });
    },
  }),
  route({
    method: 'POST', path: '/api/quests/{quest_id}/accept', auth: 'agent', params: QuestPath, body: OrganizationAction,
    summary: 'Accept an open quest whose requirements your organization meets.',
    async handle({ params, body, caller }, s) {
      await mustExist(s, 'quest', params.quest_id);
      await controlledOrganization(s, body.organization_id, caller);
      return askQuest(s, params.quest_id, { type: 'accept', organization_id: body.organization_id, agent_id: caller!.id, day: await s.day(), seed: s.seed });
    },
  }),
  route({
    method: 'POST', path: '/api/quests/{quest_id}/cancel', auth: 'agent', params: QuestPath,
    summary: 'Withdraw an open quest you requested; the reward and every sponsorship are refunded.',
    async handle({ params, caller }, s) {
      const quest = await s.read.row<{ requester_id: number }>('quest', params.quest_id);
      if (!quest) throw notFoundError(`quest ${params.quest_id} not found`);
      await controlledOrganization(s, quest.requester_id, caller);
      return askQuest(s, params.quest_id, { type: 'cancel', agent_id: caller!.id, day: await s.day() });
    },
  }),
  route({
    method: 'POST', path: '/api/quests/{quest_id}/complete', auth: 'agent', params: QuestPath,
    summary: 'Resolve an accepted quest with its dispatched party: full, partial or failure by strength against danger.',
    async handle({ params, caller }, s) {
      const quest = await s.read.row<{ accepted_organization_id: number | null }>('quest', params.quest_id);
      if (!quest) throw notFoundError(`quest ${params.quest_id} not found`);
      if (quest.accepted_organization_id !== null) await controlledOrganization(s, quest.accepted_organization_id, caller);
      return askQuest(s, params.quest_id, { type: 'complete', agent_id: caller!.id, day: await s.day(), seed: s.seed });
    },
  }),
  route({
    method: 'GET', path: '/api/quests', auth: 'none',
    summary: 'Open, accepted and resolved quests (withdrawn ones only when asked for by status); filter by status, location_id, requester_id, min_reward and max_reward.',
    query: QuestsQuery,
    async handle({ query }, s) {
      const narrowed = query.requester_id !== undefined || query.min_reward !== undefined || query.max_reward !== undefined;
      // Pages read as pages where a named query holds exactly the set asked for, so that a
      // status's page is read without the world's other quests (resolved ones grow for ever).
      if (!narrowed && query.location_id === undefined) {
        return query.status === undefined ? readJsonPage(s.read, 'questsListed', query) : readJsonPage(s.read, 'questsInStatus', query, query.status);
      }
      if (!narrowed && query.status === 'open') return readJsonPage(s.read, 'openQuestsAt', query, query.location_id);
      // Otherwise the named query that holds the fewest rows around the set, read in order only
      // until the page is full: a live status's (few at any time), else the requester's quests,
      // a status's or a place's (in each of which most rows match).
      const live = query.status === 'open' || query.status === 'accepted';
      const [name, arg]: [QueryName, string | number | undefined] = live ? ['questsInStatus', query.status]
        : query.requester_id !== undefined ? ['questsRequestedBy', query.requester_id]
          : query.status !== undefined ? ['questsInStatus', query.status]
            : query.location_id !== undefined ? ['questsAt', query.location_id] : ['questsListed', undefined];
      return readFilteredJsonPage(s.read, name, query, arg, (q: QuestRow) => (query.status === undefined ? q.status !== 'withdrawn' : q.status === query.status)
        && (query.location_id === undefined || q.location_id === query.location_id)
        && (query.requester_id === undefined || q.requester_id === query.requester_id)
        && (query.min_reward === undefined || q.reward >= query.min_reward)
        && (query.max_reward === undefined || q.reward <= query.max_reward));
    },
  }),
  route({
    method: 'GET', path: '/api/quests/{quest_id}/odds', auth: 'none', params: QuestPath, query: QuestOddsQuery,
    summary: "A party's odds against a quest before dispatching: party strength against effective danger, the outcome and gold that gives today, and whether the requirements hold. Changes nothing.",
    handle: ({ params, query }, s) => questOdds(s, params.quest_id, query.party_id),
  }),
  route({
    method: 'GET', path: '/api/quests/{quest_id}', auth: 'none', params: QuestPath, summary: 'A quest in detail (any status).',
    handle: ({ params }, s) => rowOf(s, 'quest', params.quest_id),
  }),
];
