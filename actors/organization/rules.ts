// The organization's rules as pure functions: decide (state + command -> events or a
// refusal) and evolve (state + event -> state). Core rules 2-7 of the specification.
import { own } from '../own';
import { establishmentIncome } from './establishments';
import { hasApplied, withApplied } from '../applied';
import { rng } from '../random';
import { accept, conflict, forbidden, notFound, refuse, type Decision } from '../result';
import type {
  AddPartyMemberCommand, DispatchPartyCommand, EmployCommand, FormPartyCommand, QuestSettledCommand, ReserveGoldCommand,
  CheckTransferCommand, DayBeganCommand, SendMessageCommand, TransferCommand, FoundCommand, Organization, OrganizationEvent, OrganizationState, ProjectSpec, SettleTradeCommand,
  TravelCommand, UpdateCommand, WorkersCommand,
} from './messages';
import { MAX_CATCH_UP_DAYS } from '../clock/rules';
import { productionFactorAt } from '../world-event/effects';
import { WORLD_ACTOR } from './policy';
import { cancelRefund, checkOutputPaidFor, completion, isDue, isProductionPlan, newProject, workDay, workersRequired } from './projects';

export const MAINTENANCE_BASE = 5;
export const MAINTENANCE_PER_ADVENTURER = 2;
export const WORKER_UPKEEP = 1;
export const STARTING_REPUTATION = 10;
export const WORKER_HIRE_PRICE = 25;
/** In wilderness and dungeons each worker is lost with probability danger / WORKER_LOSS_DIVISOR each day. */
export const WORKER_LOSS_DIVISOR = 500;
export const WILD_KINDS = ['wilderness', 'dungeon'];
/** Message costs (core rule 15): public 1, private 2, rumor 3. */
export const MESSAGE_COST = { public: 1, private: 2, rumor: 3 } as const;

export const messageCost = (m: { kind: 'message' | 'rumor'; recipient_id: number | null }) =>
  (m.kind === 'rumor' ? MESSAGE_COST.rumor : m.recipient_id === null ? MESSAGE_COST.public : MESSAGE_COST.private);

export function decideSendMessage(state: OrganizationState, c: SendMessageCommand): Decision<OrganizationEvent> {
  const refused = checkControl(state, c.agent_id);
  if (refused) return refused;
  if (c.message.recipient_id === state!.id) return conflict('an organization cannot send a private message to itself');
  // A letter's delivery day was worked out from where the sender read it stands: an arrival since changes that.
  if (c.message.recipient_id !== null && c.message.sender_location_id !== state!.location_id) {
    return conflict(`${state!.name} stands at ${state!.location_id} now, not at ${c.message.sender_location_id}, where its letter's delivery was worked out from`);
  }
  const cost = messageCost(c.message);
  if (state!.treasury < cost) return conflict(`this message costs ${cost} gold but ${state!.name} has ${state!.treasury}`);
  return accept({ type: 'message-sent', day: c.day, agent_id: c.agent_id, message: c.message, cost });
}

/** A named settlement or transfer this organization has already applied. */
const applied = (org: Organization, op: string | undefined) => hasApplied(org.applied_ops, op);

export function decideTransfer(state: OrganizationState, c: TransferCommand | CheckTransferCommand): Decision<OrganizationEvent> {
  if (!state) return notFound('organization not found');
  if (applied(state, c.op)) return accept();
  if (isEnded(state) && !c.even_if_ended) return conflict(`${state.name} is ${state.status} and can take part in nothing more`);
  if (!Number.isFinite(c.gold) || !Object.values(c.holdings).every(Number.isFinite)) return refuse(422, 'an amount of gold or goods that is not a number moves nothing');
  if (c.in_person) {
    if (state.travel) return conflict(`${state.name} is on the road to ${state.travel.destination_id} until day ${state.travel.arrives_day}; goods change hands only where both parties stand`);
    if (c.in_person.location_id !== null && state.location_id !== c.in_person.location_id) {
      return conflict(`${state.name} stands at ${state.location_id}, not at ${c.in_person.location_id}; goods change hands only where both parties stand`);
    }
  }
  if (state.treasury + c.gold < 0) return conflict(`${state.name} has ${state.treasury} gold, short of the ${-c.gold} needed`);
  for (const [resource, delta] of Object.entries(c.holdings)) {
    const held = own(state.holdings, resource) ?? 0;
    if (held + delta < 0) return conflict(`${state.name} holds ${held} ${resource}, short of the ${-delta} needed`);
  }
  if (c.type === 'check-transfer') return accept();
  const { type: _t, even_if_ended: _e, in_person: _p, ...rest } = c;
  const trust = c.work ? earnedTrust(state, c.trust, c.day) : c.trust;
  return withEstateSettled(state, [{ type: 'transferred', ...rest, trust }], c.day, 'it reached the organization after its end');
}
export const TREASURY_BOUNDS = { min: 300, max: 1000 } as const;

/**
 * Starting treasury by kind (core rule 4): the kind's words pick a family; an unknown
 * kind gets the default. The result always lies within TREASURY_BOUNDS.
 */
const KIND_FAMILIES: Array<{ words: string[]; treasury: number }> = [
  { words: ['merchant', 'trade', 'trading', 'company', 'bank', 'caravan', 'market', 'guild', 'consortium'], treasury: 800 },
  { words: ['craft', 'crafters', 'smith', 'workshop', 'mine', 'mining', 'lumber', 'farm', 'builders', 'artisans'], treasury: 700 },
  { words: ['mercenary', 'mercenaries', 'adventurers', 'adventuring', 'guard', 'knights', 'militia', 'band', 'warband', 'order'], treasury: 600 },
  { words: ['temple', 'church', 'cult', 'monastery', 'academy', 'college', 'library', 'scholars', 'circle', 'druids'], treasury: 450 },
];
export const DEFAULT_TREASURY = 500;

export function startingTreasury(kind: string): number {
  // The first word of the kind that names a family decides ("temple order" is a temple).
  const words = kind.toLowerCase().split(/[^a-z]+/).filter(Boolean);
  const word = words.find((w) => KIND_FAMILIES.some((f) => f.words.includes(w)));
  const family = KIND_FAMILIES.find((f) => word !== undefined && f.words.includes(word));
  const amount = family ? family.treasury : DEFAULT_TREASURY;
  return Math.min(TREASURY_BOUNDS.max, Math.max(TREASURY_BOUNDS.min, amount));
}

/** The gold the world grants a new organization: the kind's starting treasury times the founder's allowance (0..1). */
export const grantedTreasury = (kind: string, share: number) => Math.floor(startingTreasury(kind) * Math.min(1, Math.max(0, share)));

export const kindFamilies = () => [...KIND_FAMILIES.map((f) => ({ ...f })), { words: ['(anything else)'], treasury: DEFAULT_TREASURY }];

/** The upkeep a day charges: the organization's own cost plus the world events' maintenance modifiers where it stands, never below 0. */
export const maintenanceWith = (cost: number, modifiers?: { maintenance: number }) => Math.max(0, cost + (modifiers?.maintenance ?? 0));

/** Daily upkeep (core rule 5 and rule 16): 5, plus 2 per living employed adventurer, plus 1 per worker. */
export function maintenanceCost(org: Pick<Organization, 'employees' | 'workers'>): number {
  return MAINTENANCE_BASE + MAINTENANCE_PER_ADVENTURER * org.employees.length + WORKER_UPKEEP * org.workers;
}

const isEnded = (org: Organization) => org.status !== 'active';

/**
 * The refusals every mutation shares: it exists, the caller controls it, it has not ended.
 * An organization no agent controls is moved only by the world's policy (WORLD_ACTOR).
 */
export function checkControl(state: OrganizationState, agentId: number, op?: string): Decision<never> | null {
  if (!state) return notFound('organization not found');
  if (state.agent_id === null ? agentId !== WORLD_ACTOR : state.agent_id !== agentId) {
    return forbidden(`organization ${state.id} is not controlled by this agent`);
  }
  // A step of a saga it already applied (named `op`) is answered as applied even after its agent
  // retired: its asker would otherwise undo a step the organization keeps.
  if (state.controller_retired && !applied(state, op)) return forbidden(RETIRED);
  if (isEnded(state)) {
    return conflict(`organization ${state.id} is ${state.status} and can take no further actions`
      + (state.agent_id === null ? '' : `; its agent may found a new organization (POST /api/organizations), and GET /api/agents/me says what the founding would be granted`));
  }
  return null;
}

const RETIRED = 'this agent has retired; its key can no longer change the world';

/**
 * Its agent is retiring: the organization marks it, and takes none of its commands after
 * that. Anything it agreed to before is on record before the agent records its retirement.
 * Marked once; an ended organization, or one the agent does not control, has nothing to mark.
 */
export function decideRetireController(state: OrganizationState, agentId: number, day: number): Decision<OrganizationEvent> {
  if (!state) return notFound('organization not found');
  if (state.agent_id !== agentId || state.controller_retired || isEnded(state)) return accept();
  return accept({ type: 'controller-retired', day, agent_id: agentId });
}

export function decideFound(state: OrganizationState, c: FoundCommand): Decision<OrganizationEvent> {
  // Asked again by the founding that created it (a retried saga), it answers what it is.
  if (state && c.agent_id !== null && state.agent_id === c.agent_id && state.founded_day === c.day && state.name === c.name) return accept();
  if (state) return conflict(`organization ${c.id} already exists`);
  return accept({
    type: 'founded', day: c.day, id: c.id, agent_id: c.agent_id, name: c.name, kind: c.kind,
    location_id: c.location_id, description: c.description, goals: c.goals, motto: c.motto,
    treasury: c.agent_id === null && c.seeded_treasury !== undefined ? c.seeded_treasury : grantedTreasury(c.kind, c.grant_share ?? 1),
    reputation: STARTING_REPUTATION,
  });
}

export function decideUpdate(state: OrganizationState, c: UpdateCommand): Decision<OrganizationEvent> {
  const refused = checkControl(state, c.agent_id);
  if (refused) return refused;
  const changes: { description?: string; goals?: string; motto?: string } = {};
  // null clears a field; an absent field stays as it is.
  for (const k of ['description', 'goals', 'motto'] as const) {
    const v = c.changes[k];
    if (v !== undefined && (v ?? '') !== state![k]) changes[k] = v ?? '';
  }
  if (Object.keys(changes).length === 0) return accept();
  return accept({ type: 'updated', day: c.day, agent_id: c.agent_id, changes });
}

/** Refusals shared by actions that need the organization standing still at a place. */
function checkStanding(org: Organization): Decision<never> | null {
  if (org.travel) return conflict(`${org.name} is on the road to ${org.travel.destination_id} until day ${org.travel.arrives_day}`);
  return null;
}

export function decideTravel(state: OrganizationState, c: TravelCommand): Decision<OrganizationEvent> {
  const refused = checkControl(state, c.agent_id);
  if (refused) return refused;
  const org = state!;
  if (org.travel) return conflict(`${org.name} is already travelling to ${org.travel.destination_id} and arrives on day ${org.travel.arrives_day}; a second journey waits for arrival`);
  if (org.location_id === c.destination_id) return conflict(`${org.name} is already at ${c.destination_id}`);
  // The journey was planned from where the sender read it stands: an arrival since (the day's tick) makes that another journey.
  if (c.from_id !== undefined && org.location_id !== c.from_id) return conflict(`${org.name} stands at ${org.location_id} now, not at ${c.from_id}, where the journey was planned from`);
  return accept({ type: 'travel-started', day: c.day, agent_id: c.agent_id, destination_id: c.destination_id, arrives_day: c.day + c.days });
}

export function decideSettleTrade(state: OrganizationState, c: SettleTradeCommand): Decision<OrganizationEvent> {
  // A trade of this market already settled (asked again by its retried saga) changes nothing, even if the organization has ended since.
  if (state && c.serial !== undefined && (own(state.trades_settled, c.location_id) ?? 0) >= c.serial) return accept();
  const refused = checkControl(state, c.agent_id) ?? checkStanding(state!);
  if (refused) return refused;
  const org = state!;
  if (!Number.isFinite(c.gold) || !Number.isFinite(c.quantity)) return refuse(422, 'a trade whose gold or quantity is not a number settles nothing');
  if (org.location_id !== c.location_id) return conflict(`${org.name} stands at ${org.location_id}, not ${c.location_id}; it trades only where it stands`);
  if (c.side === 'buy' && org.treasury < c.gold) {
    return conflict(`buying ${c.quantity} ${c.resource} costs ${c.gold} gold but ${org.name} has ${org.treasury}`);
  }
  const held = own(org.holdings, c.resource) ?? 0;
  if (c.side === 'sell' && held < c.quantity) {
    return conflict(`${org.name} holds ${held} ${c.resource}, fewer than the ${c.quantity} offered`);
  }
  const { type: _t, ...rest } = c;
  return accept({ type: 'trade-settled', ...rest });
}

export function decideWorkers(state: OrganizationState, c: WorkersCommand): Decision<OrganizationEvent> {
  const refused = checkControl(state, c.agent_id);
  if (refused) return refused;
  const org = state!;
  if (c.type === 'hire-workers') {
    const cost = c.quantity * WORKER_HIRE_PRICE;
    if (org.treasury < cost) return conflict(`hiring ${c.quantity} workers costs ${cost} gold but ${org.name} has ${org.treasury}`);
    return accept({ type: 'workers-hired', day: c.day, agent_id: c.agent_id, quantity: c.quantity, cost });
  }
  if (org.workers < c.quantity) return conflict(`${org.name} has ${org.workers} workers, fewer than the ${c.quantity} to release`);
  return accept({ type: 'workers-released', day: c.day, agent_id: c.agent_id, quantity: c.quantity });
}

export function decideStartProject(state: OrganizationState, agentId: number, day: number, spec: ProjectSpec, unitPrice: number | null): Decision<OrganizationEvent> {
  const refused = checkControl(state, agentId) ?? checkStanding(state!);
  if (refused) return refused;
  const org = state!;
  if (org.location_id !== spec.location_id) return conflict(`${org.name} stands at ${org.location_id}; it can start projects only where it stands, not at ${spec.location_id}`);
  const unpaid = checkOutputPaidFor(spec, unitPrice);
  if (unpaid) return conflict(unpaid);
  if (org.treasury < spec.budget) return conflict(`the budget of ${spec.budget} gold is reserved at once, but ${org.name} has ${org.treasury}`);
  return accept({ type: 'project-started', day, agent_id: agentId, project: spec, workers_required: isProductionPlan(spec) ? workersRequired(spec.output_quantity) : null });
}

export function decideCancelProject(state: OrganizationState, agentId: number, day: number, projectId: number): Decision<OrganizationEvent> {
  const refused = checkControl(state, agentId);
  if (refused) return refused;
  const project = state!.projects.find((p) => p.id === projectId);
  if (!project) return notFound(`project ${projectId} not found`);
  if (project.status !== 'active') return conflict(`project ${projectId} is ${project.status}; only an active project can be cancelled`);
  return accept({ type: 'project-cancelled', day, agent_id: agentId, project_id: projectId, refund: cancelRefund(project), reason: 'cancelled by its owner' });
}

export function decideEmploy(state: OrganizationState, c: EmployCommand): Decision<OrganizationEvent> {
  // An adventurer whose career is over leaves of its own accord: no agent's say is asked.
  const ownAccord = c.type === 'unemploy' && c.career_over === true;
  const refused = ownAccord ? (state ? null : notFound('organization not found')) : checkControl(state, c.agent_id, c.op);
  if (refused) return refused;
  if (applied(state!, c.op)) return accept();
  const employed = state!.employees.includes(c.adventurer_id);
  const op = c.op === undefined ? {} : { op: c.op };
  if (c.type === 'employ') {
    if (employed) return conflict(`adventurer ${c.adventurer_id} already works for ${state!.name}`);
    const fee = c.fee ?? 0;
    if (state!.treasury < fee) return conflict(`hiring ${c.adventurer_name ?? `adventurer ${c.adventurer_id}`} costs ${fee} gold but ${state!.name} has ${state!.treasury}`);
    return accept({ type: 'adventurer-employed', day: c.day, agent_id: c.agent_id, adventurer_id: c.adventurer_id, ...op, ...(fee ? { fee } : {}), ...(c.adventurer_name === undefined ? {} : { adventurer_name: c.adventurer_name }) });
  }
  if (!employed) return forbidden(`adventurer ${c.adventurer_id} is not a member of ${state!.name}`);
  // A member of a party at home leaves the party too; one away on a quest comes back first.
  const away = state!.parties.find((p) => p.status === 'dispatched' && p.members.includes(c.adventurer_id));
  if (away) return conflict(`${c.adventurer_name ?? `adventurer ${c.adventurer_id}`} is away with the party "${away.name}" on quest ${away.quest_id}; it can be released once the party is back`);
  return accept({ type: 'adventurer-left', day: c.day, agent_id: c.agent_id, adventurer_id: c.adventurer_id, ...op });
}

export function decideFormParty(state: OrganizationState, c: FormPartyCommand): Decision<OrganizationEvent> {
  return checkControl(state, c.agent_id) ?? accept({ type: 'party-formed', day: c.day, agent_id: c.agent_id, party_id: c.party_id, name: c.name });
}

export function decideAddPartyMember(state: OrganizationState, c: AddPartyMemberCommand): Decision<OrganizationEvent> {
  const refused = checkControl(state, c.agent_id, c.op);
  if (refused) return refused;
  // Asked again by the same joining (a retried saga), it changes nothing, even once the party has set out.
  if (applied(state!, c.op)) return accept();
  const party = state!.parties.find((p) => p.id === c.party_id);
  if (!party) return notFound(`party ${c.party_id} does not belong to ${state!.name}`);
  if (party.status !== 'formed') return conflict(`party ${party.name} is away on quest ${party.quest_id}; members join only while it is formed`);
  if (!state!.employees.includes(c.adventurer_id)) return forbidden(`adventurer ${c.adventurer_id} is not a member of ${state!.name}`);
  const op = c.op === undefined ? {} : { op: c.op };
  return accept({ type: 'party-member-added', day: c.day, agent_id: c.agent_id, party_id: c.party_id, adventurer_id: c.adventurer_id, ...op });
}

/**
 * Why a party may not set out on `day` for having come back from a quest that day or later,
 * or null. A quest is a day's work at least: the same adventurers cannot take quest after
 * quest in one day (the organization's dispatch, the quest's own check, the world's policy).
 */
export function partyResting(party: { name?: string; returned_day?: number }, day: number, called: string | number): string | null {
  if (party.returned_day === undefined || party.returned_day < day) return null;
  return `party ${party.name ?? called} came back from a quest on day ${party.returned_day}; it sets out again on day ${party.returned_day + 1} at the earliest`;
}

export function decideDispatchParty(state: OrganizationState, c: DispatchPartyCommand): Decision<OrganizationEvent> {
  const refused = checkControl(state, c.agent_id, c.op);
  if (refused) return refused;
  // Asked again by the same dispatch (the quest's retried saga), it changes nothing, even once the party is home.
  if (applied(state!, c.op)) return accept();
  const poor = checkStanding(state!);
  if (poor) return poor;
  const org = state!;
  const party = org.parties.find((p) => p.id === c.party_id);
  if (!party) return notFound(`party ${c.party_id} does not belong to ${org.name}`);
  if (party.status !== 'formed') return conflict(`party ${party.name} is already dispatched to quest ${party.quest_id}`);
  if (party.members.length === 0) return conflict(`party ${party.name} has no members`);
  // The quest records the members it checked: a release or a new member since then would leave
  // an adventurer on a quest it is not on, or on one its party is not on.
  if (c.members && !sameMembers(party.members, c.members)) {
    return conflict(`party ${party.name} changed while it was being sent (its members are now ${party.members.join(', ') || 'none'}); dispatch it again`);
  }
  const resting = partyResting(party, c.day, c.party_id);
  if (resting) return conflict(resting);
  if (org.location_id !== c.location_id) {
    return conflict(`${org.name} stands at ${org.location_id}; it must be at the quest's location ${c.location_id} to dispatch a party there`);
  }
  const op = c.op === undefined ? {} : { op: c.op };
  return accept({ type: 'party-dispatched', day: c.day, agent_id: c.agent_id, party_id: c.party_id, quest_id: c.quest_id, ...op, ...titled(c) });
}

/** Whether two lists of adventurers hold the same ones. */
const sameMembers = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((m) => b.includes(m));

/** The quest's title, when the quest told it, so the history names the quest. */
const titled = (c: { quest_title?: string }) => (c.quest_title === undefined ? {} : { quest_title: c.quest_title });

/** Gold set aside for a quest. The world (agent_id null) may reserve only from seeded organizations. */
export function decideReserveGold(state: OrganizationState, c: ReserveGoldCommand): Decision<OrganizationEvent> {
  if (!state) return notFound('organization not found');
  // Asked again by the same reservation (the quest's retried saga), it is done, whatever happened since.
  if (applied(state, c.op)) return accept();
  if (c.agent_id !== null) {
    const refused = checkControl(state, c.agent_id);
    if (refused) return refused;
  } else if (state.agent_id !== null || isEnded(state)) {
    return forbidden(`organization ${state.id} cannot be made to pay by the world`);
  }
  if (state.treasury < c.amount) {
    return conflict(`${c.purpose === 'reward' ? 'the reward' : 'the sponsorship'} of ${c.amount} gold must be backed by the treasury, but ${state.name} has ${state.treasury}`);
  }
  const op = c.op === undefined ? {} : { op: c.op };
  return accept({ type: 'gold-reserved', day: c.day, agent_id: c.agent_id, amount: c.amount, quest_id: c.quest_id, purpose: c.purpose, ...op, ...titled(c) });
}

/** A quest's consequences apply to any organization, ended or not: gold is never lost on the way. */
export function decideQuestSettled(state: OrganizationState, c: QuestSettledCommand): Decision<OrganizationEvent> {
  if (!state) return notFound('organization not found');
  if (applied(state, c.op)) return accept();
  const { type: _t, ...rest } = c;
  const reputation = famed(state, c.requester_id, c.day) ? Math.min(0, c.reputation) : c.reputation;
  return withEstateSettled(state, [{ type: 'quest-settled', ...rest, reputation, trust: earnedTrust(state, c.trust, c.day) }], c.day, 'it reached the organization after its end');
}

/**
 * Trust earned by shared work (a fulfilled contract, a quest done for or by another
 * organization): a gain toward an organization whose work already raised trust today
 * counts nothing, so trust grows with days of work together, not with how many 1-gold
 * contracts two friends can fulfil in one. A loss always counts.
 */
function earnedTrust(org: Organization, trust: Record<string, number>, day: number): Record<string, number> {
  const today = ofDay(org.work_trust?.day, org.work_trust?.with, day);
  if (!Object.entries(trust).some(([other, delta]) => delta > 0 && today.includes(Number(other)))) return trust;
  return Object.fromEntries(Object.entries(trust).map(([other, delta]) => [other, delta > 0 && today.includes(Number(other)) ? 0 : delta]));
}

const withWorkTrust = (org: Organization, trust: Record<string, number>, day: number) => {
  const gained = Object.entries(trust).filter(([, delta]) => delta > 0).map(([other]) => Number(other));
  return gained.length === 0 ? org.work_trust : { day, with: addedToDay(org.work_trust?.day, org.work_trust?.with, day, gained) };
};

/**
 * The ids a record of one day holds (quest_fame's requesters, work_trust's partners): those
 * it kept on `day`, none once that day has passed; and the same with `ids` added, once each.
 */
const ofDay = (keptDay: number | undefined, ids: number[] | undefined, day: number): number[] => (keptDay === day ? ids ?? [] : []);
const addedToDay = (keptDay: number | undefined, ids: number[] | undefined, day: number, more: number[]): number[] => {
  const today = ofDay(keptDay, ids, day);
  return [...today, ...more.filter((id) => !today.includes(id))];
};

/**
 * Whether a quest of this requester already raised the organization's reputation today.
 * Standing grows from the quests of many, not from one friend's many quests in a day: a
 * gain from the same requester the same day counts nothing (a loss always counts).
 */
const famed = (org: Organization, requesterId: number | undefined, day: number) =>
  requesterId !== undefined && ofDay(org.quest_fame?.day, org.quest_fame?.from, day).includes(requesterId);

const withFame = (org: Organization, e: { reputation: number; requester_id?: number; day: number }) => {
  if (e.reputation <= 0 || e.requester_id === undefined) return org.quest_fame;
  return { day: e.day, from: addedToDay(org.quest_fame?.day, org.quest_fame?.from, e.day, [e.requester_id]) };
};

/**
 * An ended organization keeps nothing: after its end, and after anything that reaches it
 * later (a refund, a payment), its gold and goods pass to the world and its workers go
 * home. The events are followed by that forfeiture when there is anything to forfeit.
 */
export function withEstateSettled(state: Organization, events: OrganizationEvent[], day: number, reason: string): Decision<OrganizationEvent> {
  const after = events.reduce<OrganizationState>((s, e) => evolve(s, e), state);
  if (!after || !isEnded(after)) return { events };
  const goods = Object.fromEntries(Object.entries(after.holdings).filter(([, q]) => q > 0));
  if (after.treasury <= 0 && Object.keys(goods).length === 0 && after.workers <= 0) return { events };
  return { events: [...events, { type: 'estate-forfeited', day, gold: Math.max(0, after.treasury), holdings: goods, workers: Math.max(0, after.workers), reason }] };
}

/** Workers lost in wilderness and dungeons: each one independently, by the place's danger. */
export function workersLost(workers: number, place: { kind: string; danger: number } | null, draw: () => number): number {
  if (!place || !WILD_KINDS.includes(place.kind) || workers === 0) return 0;
  const p = Math.min(1, place.danger / WORKER_LOSS_DIVISOR);
  let lost = 0;
  for (let i = 0; i < workers; i++) if (draw() < p) lost += 1;
  return lost;
}

/** Ends every active project of an organization that has ended (core rules 6 and 7). */
function cancelAll(org: Organization, day: number, reason: string): OrganizationEvent[] {
  return org.projects.filter((p) => p.status === 'active')
    .map((p) => ({ type: 'project-cancelled', day, agent_id: null, project_id: p.id, refund: 0, reason }) as const);
}

/**
 * One day in the life of an organization, in order: arrival, losses in the wild, a day's
 * work on its projects, completions, then upkeep. An organization that can pay its upkeep,
 * pays. One that cannot pays what it has (the treasury never goes below zero), loses one
 * reputation per unpaid gold, and goes bankrupt (core rules 5 and 6), which cancels its
 * projects. A day already settled is not settled again.
 */
export function decideDay(state: OrganizationState, c: Pick<DayBeganCommand, 'day'> & Partial<DayBeganCommand>): Decision<OrganizationEvent> {
  if (!state || isEnded(state) || state.settled_day >= c.day) return accept();
  // Every day since it last settled, up to this one (more than one when an earlier day failed to settle it).
  const events: OrganizationEvent[] = [];
  let org: OrganizationState = state;
  for (let d = Math.max(state.settled_day + 1, c.day - MAX_CATCH_UP_DAYS + 1); d <= c.day && org && !isEnded(org); d++) {
    const one = decideOneDay(org, { ...c, day: d });
    if ('refusal' in one) return one;
    events.push(...one.events);
    // The state the next day is decided on, when it catches up on several (not after the last).
    if (d < c.day) org = one.events.reduce<OrganizationState>((s, e) => evolve(s, e), org);
  }
  return { events };
}

function decideOneDay(state: Organization, c: Pick<DayBeganCommand, 'day'> & Partial<DayBeganCommand>): Decision<OrganizationEvent> {
  const { day } = c;
  const events: OrganizationEvent[] = [];
  let org = state;
  const push = (e: OrganizationEvent) => { events.push(e); org = evolve(org, e) as Organization; };

  if (org.travel && day >= org.travel.arrives_day) push({ type: 'arrived', day, location_id: org.travel.destination_id });
  const lost = workersLost(org.workers, org.travel ? null : c.place ?? null, rng(c.seed ?? '', 'workers', org.id, day));
  if (lost > 0) push({ type: 'workers-lost', day, quantity: lost, location_id: org.location_id });
  const worked = workDay(org, day, (place) => productionFactorAt(c.modifiers, place));
  if (worked) push(worked);
  for (const p of org.projects.filter(isDue)) push({ type: 'project-completed', day, project_id: p.id, ...completion(p, day) });
  const income = establishmentIncome(org.establishments);
  if (income > 0) push({ type: 'establishment-income', day, gold: income });

  const cost = maintenanceWith(maintenanceCost(org), c.modifiers);
  if (org.treasury >= cost) {
    push({ type: 'maintenance-paid', day, cost, paid: cost, unpaid: 0, reputation_lost: 0 });
    return { events };
  }
  const paid = org.treasury;
  const unpaid = cost - paid;
  push({ type: 'maintenance-paid', day, cost, paid, unpaid, reputation_lost: Math.min(org.reputation, unpaid) });
  push({ type: 'went-bankrupt', day });
  for (const e of cancelAll(org, day, 'its owner went bankrupt')) push(e);
  return withEstateSettled(state, events, day, 'it went bankrupt');
}

/** The follow-up of its end is done: recorded once, a repeated report changes nothing. */
export function decideEndingFollowed(state: OrganizationState, day: number): Decision<OrganizationEvent> {
  if (!state) return notFound('organization not found');
  return state.ending_pending ? accept({ type: 'ending-followed', day }) : accept();
}

/** Its trust as rows of their own, whatever its status: recorded when it has any, else nothing. */
export function decideRecordTrust(state: OrganizationState, day: number): Decision<OrganizationEvent> {
  if (!state) return notFound('organization not found');
  return Object.keys(state.trust).length > 0 ? accept({ type: 'trust-recorded', day }) : accept();
}

export function decideDissolve(state: OrganizationState, agentId: number, day: number): Decision<OrganizationEvent> {
  const refused = checkControl(state, agentId);
  if (refused) return refused;
  return withEstateSettled(state!, [{ type: 'dissolved', day, agent_id: agentId }, ...cancelAll(state!, day, 'its owner was dissolved')], day, 'it was dissolved');
}

const withOp = (org: Organization, op: string | undefined, day: number) => withApplied(org.applied_ops, op, day);

const addHolding = (h: Record<string, number>, resource: string, quantity: number) => {
  const next = { ...h, [resource]: (own(h, resource) ?? 0) + quantity };
  if (next[resource] <= 0) delete next[resource];
  return next;
};

/** An ended organization's parties break up; they stay on record as disbanded. */
const disband = (org: Organization) => org.parties.map((p) => ({ ...p, status: 'disbanded' as const, members: [] }));

function mapProject(org: Organization, id: number, f: (p: Organization['projects'][number]) => Organization['projects'][number]): Organization['projects'] {
  return org.projects.map((p) => (p.id === id ? f(p) : p));
}

export function evolve(state: OrganizationState, e: OrganizationEvent): OrganizationState {
  if (e.type === 'founded') {
    return {
      id: e.id, name: e.name, kind: e.kind, location_id: e.location_id, description: e.description,
      goals: e.goals, motto: e.motto, treasury: e.treasury, reputation: e.reputation, status: 'active',
      agent_id: e.agent_id, travel: null, founded_day: e.day, ended_day: null, holdings: {}, workers: 0,
      employees: [], projects: [], establishments: [], parties: [], trust: {}, settled_day: e.day,
    };
  }
  if (!state) return state;
  switch (e.type) {
    case 'updated':
      return { ...state, ...e.changes };
    case 'establishment-income':
      return { ...state, treasury: state.treasury + e.gold };
    case 'maintenance-paid':
      return {
        ...state,
        treasury: Math.max(0, state.treasury - e.paid),
        reputation: Math.max(0, state.reputation - e.reputation_lost),
        settled_day: e.day,
      };
    case 'went-bankrupt':
      return { ...state, status: 'bankrupt', ended_day: e.day, travel: null, employees: [], parties: disband(state), ending_pending: true };
    case 'dissolved':
      return { ...state, status: 'dissolved', ended_day: e.day, travel: null, employees: [], parties: disband(state), ending_pending: true };
    case 'ending-followed':
      return { ...state, ending_pending: false };
    case 'trust-recorded':
      return state;
    case 'controller-retired':
      return { ...state, controller_retired: true };
    case 'adventurer-employed':
      return { ...state, treasury: state.treasury - (e.fee ?? 0), employees: [...state.employees, e.adventurer_id], applied_ops: withOp(state, e.op, e.day) };
    case 'adventurer-left':
      return {
        ...state,
        applied_ops: withOp(state, e.op, e.day),
        employees: state.employees.filter((a) => a !== e.adventurer_id),
        parties: state.parties.map((p) => ({ ...p, members: p.members.filter((m) => m !== e.adventurer_id) })),
      };
    case 'party-formed':
      return { ...state, parties: [...state.parties, { id: e.party_id, name: e.name, organization_id: state.id, members: [], status: 'formed', quest_id: null, formed_day: e.day }] };
    case 'party-member-added':
      return { ...state, applied_ops: withOp(state, e.op, e.day), parties: state.parties.map((p) => (p.id === e.party_id ? { ...p, members: [...p.members, e.adventurer_id] } : p)) };
    case 'party-dispatched':
      return { ...state, applied_ops: withOp(state, e.op, e.day), parties: state.parties.map((p) => (p.id === e.party_id ? { ...p, status: 'dispatched', quest_id: e.quest_id } : p)) };
    case 'message-sent':
      return { ...state, treasury: state.treasury - e.cost };
    case 'transferred': {
      let holdings = state.holdings;
      for (const [resource, delta] of Object.entries(e.holdings)) holdings = addHolding(holdings, resource, delta);
      const trust = { ...state.trust };
      for (const [other, delta] of Object.entries(e.trust)) trust[other] = Math.max(-100, Math.min(100, (trust[other] ?? 0) + delta));
      const work_trust = e.work ? withWorkTrust(state, e.trust, e.day) : state.work_trust;
      return { ...state, treasury: state.treasury + e.gold, holdings, trust, applied_ops: withOp(state, e.op, e.day), work_trust };
    }
    case 'gold-reserved':
      return { ...state, treasury: state.treasury - e.amount, applied_ops: withOp(state, e.op, e.day) };
    case 'estate-forfeited': {
      let holdings = state.holdings;
      for (const [resource, quantity] of Object.entries(e.holdings)) holdings = addHolding(holdings, resource, -quantity);
      return { ...state, treasury: state.treasury - e.gold, holdings, workers: Math.max(0, state.workers - e.workers) };
    }
    case 'quest-settled': {
      const trust = { ...state.trust };
      for (const [other, delta] of Object.entries(e.trust)) trust[other] = Math.max(-100, Math.min(100, (trust[other] ?? 0) + delta));
      const dead = new Set(e.dead);
      return {
        ...state,
        treasury: state.treasury + e.gold,
        reputation: Math.max(0, state.reputation + e.reputation),
        quest_fame: withFame(state, e),
        work_trust: withWorkTrust(state, e.trust, e.day),
        applied_ops: withOp(state, e.op, e.day),
        trust,
        employees: state.employees.filter((a) => !dead.has(a)),
        parties: state.parties.map((p) => (p.id === e.party_id
          ? { ...p, status: 'formed', quest_id: null, members: p.members.filter((m) => !dead.has(m)), returned_day: e.day }
          : { ...p, members: p.members.filter((m) => !dead.has(m)) })),
      };
    }
    case 'travel-started':
      return { ...state, travel: { destination_id: e.destination_id, departed_day: e.day, arrives_day: e.arrives_day } };
    case 'arrived':
      return { ...state, location_id: e.location_id, travel: null };
    case 'trade-settled': {
      const trades_settled = e.serial === undefined ? state.trades_settled : { ...state.trades_settled, [e.location_id]: e.serial };
      return e.side === 'buy'
        ? { ...state, trades_settled, treasury: state.treasury - e.gold, holdings: addHolding(state.holdings, e.resource, e.quantity) }
        : { ...state, trades_settled, treasury: state.treasury + e.gold, holdings: addHolding(state.holdings, e.resource, -e.quantity) };
    }
    case 'workers-hired':
      return { ...state, treasury: state.treasury - e.cost, workers: state.workers + e.quantity };
    case 'workers-released':
      return { ...state, workers: state.workers - e.quantity };
    case 'workers-lost':
      return { ...state, workers: Math.max(0, state.workers - e.quantity) };
    case 'project-started':
      return { ...state, treasury: state.treasury - e.project.budget, projects: [...state.projects, newProject(state.id, e.project, e.day)] };
    case 'project-cancelled':
      return {
        ...state,
        treasury: state.treasury + e.refund,
        projects: mapProject(state, e.project_id, (p) => ({ ...p, status: 'cancelled', ended_day: e.day, refund: e.refund })),
      };
    case 'projects-worked': {
      let holdings = state.holdings;
      const byId = new Map(e.work.map((w) => [w.project_id, w]));
      const projects = state.projects.map((p) => {
        const w = byId.get(p.id);
        if (!w) return p;
        if (p.production && w.produced > 0) holdings = addHolding(holdings, p.output_resource!, w.produced);
        return {
          ...p, progress_days: p.progress_days + 1, spent: p.spent + w.spent,
          production: p.production ? { ...p.production, staffed: w.staffed, produced_total: p.production.produced_total + w.produced } : null,
        };
      });
      return { ...state, projects, holdings };
    }
    case 'project-completed':
      return {
        ...state,
        holdings: e.output ? addHolding(state.holdings, e.output.resource, e.output.quantity) : state.holdings,
        establishments: e.establishment ? [...state.establishments, e.establishment] : state.establishments,
        projects: mapProject(state, e.project_id, (p) => ({ ...p, status: 'completed', ended_day: e.day })),
      };
  }
}
