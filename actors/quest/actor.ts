// The quest actor. It holds the reward's gold in trust for the funders and is the only
// one that pays it out. It asks lower ranks only: the location (monsters), the adventurers
// (their fate), and the organizations (gold, reputation, trust, parties). A refused action
// changes nothing: it is refused before the quest records anything, or (gold an
// organization would not set aside after the quest recorded its intent) undone.
import { rng } from '../random';
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import { followedBy, type EntityIO, type EntityKind, type Outcome } from '../entity';
import { involved as involvedIn, type LedgerLine } from '../ledger';
import { RANK } from '../order';
import { conflict, type Refusal, type Result } from '../result';
import { intentEnded, intentRow } from '../intents';
import { partyResting } from '../organization/rules';
import type { PartyRecord, Trait } from '../adventurer/messages';
import { adventurerResting } from '../adventurer/rules';
import { endedNow } from '../organization/ending';
import { WORLD_FUND, type Closing, type Quest, type QuestCommand, type QuestEvent, type QuestOutcome, type QuestState, type Resolution, type SettlementPart } from './messages';
import {
  ACCEPTANCE_DAYS, MONSTERS_SLAIN, REPUTATION, TRUST, acceptanceEndsDay, acceptanceLapse, bondsFor, checkAcceptor, checkOpen, checkRequirements, dueDay, dangerMet, decideBeginDispatch, decideBeginPosting, named, decideBeginSponsoring, decideDispatchAnswer, decidePledgeReturn, decidePost, decideReservationAnswer, effectiveDanger, evolve,
  experienceFor, fateOf, outcomeFor, partyStrength, payoutLedger, rewardPaid, totalReward, type Member, type Place,
} from './rules';

export const questView = (q: Quest) => ({
  id: q.id, title: q.title, description: q.description, requester_id: q.requester_id, location_id: q.location_id,
  reward: q.reward, status: q.status, deadline_day: q.deadline_day,
  deadline_days: q.deadline_day === null ? null : q.deadline_day - q.posted_day, minimum_strength: q.minimum_strength,
  minimum_reputation: q.minimum_reputation, minimum_relationship: q.minimum_relationship,
  accepted_organization_id: q.accepted_organization_id, party_id: q.party_id, party_members: q.party_members,
  world_funded: q.funds[0]?.organization_id === WORLD_FUND,
  sponsors: q.funds.slice(1).map((f) => ({ organization_id: f.organization_id, amount: f.amount })),
  outcome: q.outcome, posted_day: q.posted_day, accepted_day: q.accepted_day, resolved_day: q.resolved_day,
  // The last day the acceptance holds: a party must be sent, and report back, by then.
  acceptance_ends_day: acceptanceEndsDay(q),
  resolution: q.resolution, withdrawn_reason: q.withdrawn_reason,
});

/** An organization by name for the history; its number only in records from before names were kept. */
const called = (name: string | undefined, id: number | null) => name ?? `organization ${id}`;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** An organization's name as the read model has it (for the history), if it has one. */
const nameOf = async (io: EntityIO, id: number) => (await io.read.row<{ name: string }>('organization', id))?.name;

function chronicle(e: QuestEvent, after: QuestState, before: QuestState): HistoryEntry[] {
  if (!after) return [];
  const data = { quest_id: after.id };
  const parties = [after.requester_id, after.accepted_organization_id];
  const involved = involvedIn(parties);
  switch (e.type) {
    case 'posted':
      return [{ day: e.day, category: 'quest', agent_id: e.agent_id, organization_ids: [after.requester_id], summary: `${capital(called(after.requester_name, after.requester_id))} posted "${after.title}" at ${after.location_id} for ${after.reward} gold${e.world_funded ? ' paid by the world' : ''}`, data: { ...data, reward: after.reward, world_funded: !!e.world_funded } }];
    case 'sponsored':
      return [{ day: e.day, category: 'quest', agent_id: e.agent_id, organization_ids: [e.organization_id, after.requester_id], summary: `${capital(called(e.organization_name, e.organization_id))} pledged ${e.amount} gold to "${after.title}"; the reward is now ${after.reward}`, data: { ...data, amount: e.amount } }];
    case 'accepted':
      return [{ day: e.day, category: 'quest', agent_id: e.agent_id, organization_ids: involved, summary: `${capital(called(e.organization_name, e.organization_id))} accepted "${after.title}"`, data }];
    case 'dispatched':
      return [{ day: e.day, category: 'quest', agent_id: e.agent_id, organization_ids: involved, summary: `${e.party_name !== undefined ? `The party "${e.party_name}"${e.organization_name ? ` of ${e.organization_name}` : ''}` : `Party ${e.party_id}`} set out on "${after.title}" at ${after.location_id}`, data: { ...data, party_id: e.party_id, members: e.members } }];
    case 'resolved': {
      const r = e.resolution;
      const words = { full: 'a full success', partial: 'a partial success', failure: 'a failure' }[r.outcome];
      const lines = e.payments ?? [];
      return [{ day: e.day, category: 'quest', agent_id: e.agent_id, organization_ids: involvedIn(parties, lines), summary: `"${after.title}" ended in ${words} (strength ${r.party_strength} against danger ${r.effective_danger}): ${r.reward_paid} gold paid${r.casualties.length ? `, ${r.casualties.length} dead` : ''}${r.reason !== 'completed' ? ` (${r.reason})` : ''}`, data: { ...data, ...r, payments: lines } }];
    }
    case 'withdrawn': {
      const lines = e.payments ?? [];
      return [{ day: e.day, category: 'quest', agent_id: e.agent_id, organization_ids: involvedIn(parties, lines), summary: `"${after.title}" was withdrawn (${e.reason}); ${totalReward(after)} gold returned to its funders`, data: { ...data, payments: lines } }];
    }
    case 'sponsorship-refunded':
      return [{ day: e.day, category: 'quest', agent_id: null, organization_ids: [e.organization_id, after.requester_id], summary: `The ${e.amount} gold ${called(e.organization_name, e.organization_id)} pledged to "${after.title}" went back to it as it ended; the reward is now ${after.reward}`, data: { ...data, amount: e.amount } }];
    case 'closing-begun':
    case 'pledge-return-begun':
    case 'reservation-begun':
    case 'reservation-abandoned':
    case 'dispatch-begun':
    case 'dispatch-abandoned':
      return []; // intents and undoing: the end is told when it is recorded
    case 'reopened':
      return [{ day: e.day, category: 'quest', agent_id: null, organization_ids: [after.requester_id, ...(before?.accepted_organization_id ? [before.accepted_organization_id] : [])], summary: `"${after.title}" is open again (${e.reason})`, data }];
  }
}

const project = (q: QuestState): ProjectionRow[] =>
  (q && q.status !== 'posting' ? [{
    kind: 'quest', id: q.id, status: q.status, location_id: q.location_id, organization_id: q.requester_id, agent_id: q.posted_by_agent_id,
    due_day: dueDay(q),
    doc: questView(q),
  }] : []);

type Facts = { reputation: number; trust: number; location_id: string };

/** The organization's standing for a quest, after checking that the agent controls it. */
const standing = (io: EntityIO, organizationId: number, agentId: number, requesterId: number) =>
  io.ask<Facts, 'organization'>('organization', organizationId, { type: 'quest-standing', agent_id: agentId, requester_id: requesterId });

interface AdventurerRow { id: number; name?: string; strength: number; traits: Trait[]; status: string; organization_id: number | null; injured_until: number | null; party_history: PartyRecord[] }

/** Strength an organization can field: its living, uninjured employed adventurers. */
async function fieldStrength(io: EntityIO, organizationId: number, day: number, place: Place): Promise<number> {
  const ready = (await io.read.list<AdventurerRow>('employeesOf', organizationId))
    .filter((a) => a.injured_until === null || a.injured_until <= day);
  return partyStrength(ready, place);
}

async function placeOf(io: EntityIO, locationId: string): Promise<Place> {
  const l = await io.read.row<Place>('location', locationId);
  return l ?? { kind: 'unknown', danger: 0, monster_population: 0 };
}

/** The adventurers of these ids that have a row, in the same order. */
async function rowsOf(io: EntityIO, ids: number[]): Promise<AdventurerRow[]> {
  const rows = await Promise.all(ids.map((id) => io.read.row<AdventurerRow>('adventurer', id)));
  return rows.filter((a): a is AdventurerRow => !!a);
}

type Part = SettlementPart;

function part(parts: Map<number, Part>, organizationId: number): Part {
  if (!parts.has(organizationId)) parts.set(organizationId, { gold: 0, flows: [], reputation: 0, trust: {}, party_id: null, dead: [] });
  return parts.get(organizationId)!;
}

/** Adds a payout's ledger lines to the parts: each organization's gold and where it comes from. */
function pay(parts: Map<number, Part>, payments: LedgerLine[]): void {
  for (const l of payments) {
    const p = part(parts, l.organization_id);
    p.gold += l.gold ?? 0;
    if (l.gold) p.flows.push({ flow: l.flow as 'quest_escrow' | 'world_reward', gold: l.gold });
  }
}

/** The settlements of the parts: the world's own gold goes back to the world. */
const settlementsOf = (parts: Map<number, Part>) =>
  [...parts].filter(([id]) => id !== WORLD_FUND).map(([organization_id, p]) => ({ organization_id, part: p }));

/**
 * Closing a quest (resolving or withdrawing it) is a saga: it is decided whole, the fates
 * drawn once, and recorded (`closing-begun`) before anyone is asked; then each member
 * takes its outcome (once per quest), the place's monsters change (once per quest), each
 * organization is settled (a named settlement, applied once), and the quest records the
 * end. A crash between the steps leaves the intent, which `resume` (or the quest's next
 * command) finishes with the same decisions.
 */
function beginClosing(closing: Closing, day: number, io: EntityIO): Outcome<QuestState, QuestEvent> {
  return { events: [{ type: 'closing-begun', day, closing }], andThen: (s) => continueClosing(s, io) };
}

async function continueClosing(state: QuestState, io: EntityIO): Promise<Outcome<QuestState, QuestEvent>> {
  const c = state?.closing;
  if (!c) return { events: [] };
  const q = state!;
  const pending = (what: string, r: Result<unknown>): Outcome<QuestState, QuestEvent> | null => {
    if (r.ok) return null;
    // Nothing to undo here (members may already have lived through it): the closing stays pending and is tried again.
    return { refusal: { status: 503, detail: `the world could not finish this action in time; read the current state before trying again (quest ${q.id}: ${what}: ${r.refusal.detail})` } };
  };
  for (const o of c.outcomes) {
    const r = await io.ask('adventurer', o.adventurer_id, {
      type: 'quest-outcome', day: c.end.day, quest_id: q.id, quest_title: q.title, outcome: o.outcome, experience: o.experience,
      injury_days: o.injury_days, died: o.died, bonds: o.bonds,
    });
    const stop = pending(`adventurer ${o.adventurer_id} could not take the outcome`, r);
    if (stop) return stop;
  }
  if (c.monsters) {
    const r = await io.ask('location', c.monsters.location_id, { type: 'monsters-changed', day: c.end.day, change: c.monsters.change, quest_id: q.id });
    const stop = pending('the location could not change', r);
    if (stop) return stop;
  }
  for (const { organization_id, part: p } of c.settlements) {
    const r = await io.ask('organization', organization_id, { type: 'quest-settled', day: c.end.day, quest_id: q.id, quest_title: q.title, requester_id: q.requester_id, reason: c.reason, op: c.op, ...p });
    const stop = pending(`organization ${organization_id} could not settle`, r);
    if (stop) return stop;
  }
  return { events: [c.end] };
}

/**
 * Returning an ended sponsor's pledge is a saga too: decided and recorded
 * (`pledge-return-begun`), then the sponsor is paid (a named settlement, applied once),
 * then the quest records `sponsorship-refunded`. Nothing to undo: a sponsor that cannot
 * take it now leaves it pending, and the quest finishes it before anything else.
 */
async function continuePledgeReturn(state: QuestState, io: EntityIO): Promise<Outcome<QuestState, QuestEvent>> {
  const p = state?.pledge_return;
  if (!p) return { events: [] };
  const back = await io.ask('organization', p.organization_id, {
    type: 'quest-settled', day: p.day, quest_id: state!.id, quest_title: state!.title, gold: p.amount, flows: [{ flow: 'quest_escrow', gold: p.amount }], op: p.op,
    reputation: 0, trust: {}, party_id: null, dead: [], reason: 'pledge returned',
  });
  if (!back.ok) {
    return { refusal: { status: 503, detail: `the world could not finish this action in time; read the current state before trying again (quest ${state!.id}: organization ${p.organization_id} could not take its pledge back: ${back.refusal.detail})` } };
  }
  return { events: [{ type: 'sponsorship-refunded', day: p.day, organization_id: p.organization_id, amount: p.amount, ...named(p.organization_name) }] };
}

/**
 * Posting a quest whose requester backs the reward, and sponsoring one, are sagas: the
 * quest records its intent (`reservation-begun`: the gold to set aside, named, and for a
 * posting the quest as it will be; no row and no history until it is posted), asks the
 * organization to set the gold aside (once per name), then records `posted` or
 * `sponsored`, or `reservation-abandoned` when the organization refused (a posting
 * abandoned is as if the quest never was).
 */
async function continueReserving(state: QuestState, io: EntityIO): Promise<Outcome<QuestState, QuestEvent>> {
  const r = state?.reserving;
  if (!r) return { events: [] };
  const reserved = await io.ask('organization', r.organization_id, {
    type: 'reserve-gold', agent_id: r.agent_id, day: r.day, amount: r.amount, quest_id: state!.id, quest_title: state!.title, purpose: r.purpose, op: r.op,
  });
  const d = decideReservationAnswer(state, reserved);
  if (d === null) return { refusal: (reserved as { refusal: Refusal }).refusal }; // unknown: the intent stays
  if ('refusal' in d) return d;
  if (!reserved.ok) return { events: d.events, refusal: reserved.refusal };
  return { events: d.events, andThen: (s) => confirmLinked(s, io, r.organization_id, r.purpose === 'reward' ? 'organization-ended' : 'sponsor-ended') };
}

/**
 * A quest that has just recorded a link with an organization (its posting, an acceptance, a
 * pledge) reads whether that organization has ended (endedNow). One that ended meanwhile may
 * have had the follow-up of its end list the live quests before this record could be seen;
 * the quest then does what that follow-up would have done (actors/organization/ending.ts).
 */
async function confirmLinked(state: QuestState, io: EntityIO, organizationId: number, follow: 'organization-ended' | 'sponsor-ended'): Promise<Outcome<QuestState, QuestEvent>> {
  if (!state) return { events: [] };
  const ended = await endedNow(io, organizationId);
  if (!ended) return { events: [] };
  return handleQuest(state, { type: follow, organization_id: organizationId, day: ended.day }, io);
}

/**
 * Dispatching a party is a saga: once every check passed, the quest records its intent
 * (`dispatch-begun`: the party, its members, whether it accepts the quest on the way, and
 * the name of the organization's side), the organization sends the party (once per name),
 * and the quest records `dispatched` (after `accepted`), or `dispatch-abandoned` when the
 * organization refused.
 */
async function continueDispatch(state: QuestState, io: EntityIO): Promise<Outcome<QuestState, QuestEvent>> {
  const d = state?.dispatching;
  if (!d) return { events: [] };
  const sent = await io.ask('organization', d.organization_id, {
    type: 'dispatch-party', agent_id: d.agent_id, day: d.day, party_id: d.party_id, quest_id: state!.id, quest_title: state!.title, location_id: state!.location_id, op: d.op, members: d.members,
  });
  const answer = decideDispatchAnswer(state, sent);
  if (answer === null) return { refusal: (sent as { refusal: Refusal }).refusal }; // unknown: the intent stays
  if ('refusal' in answer) return answer;
  if (!sent.ok) return { events: answer.events, refusal: sent.refusal };
  // Accepted on the way: a link with the organization, confirmed as an acceptance is.
  return d.accepting ? { events: answer.events, andThen: (s) => confirmLinked(s, io, d.organization_id, 'organization-ended') } : { events: answer.events };
}

/** Goes on with what is under way (one at a time); nothing when there is none. */
const continuePending = (state: QuestState, io: EntityIO) =>
  (state?.reserving ? continueReserving(state, io)
    : state?.dispatching ? continueDispatch(state, io)
      : state?.pledge_return ? continuePledgeReturn(state, io) : continueClosing(state, io));

/** Everything the funders get back when a quest ends without paying out, and the party home. */
function unwind(q: Quest, reason: string): { payments: LedgerLine[]; settlements: Closing['settlements'] } {
  const parts = new Map<number, Part>();
  const payments = payoutLedger(q.funds, 0, null);
  pay(parts, payments);
  if (q.accepted_organization_id !== null && q.party_id !== null) part(parts, q.accepted_organization_id).party_id = q.party_id;
  return { payments, settlements: settlementsOf(parts) };
}

/** The quest is withdrawn: its funders are paid back and its party comes home. */
function withdraw(io: EntityIO, q: Quest, day: number, agentId: number | null, reason: string): Outcome<QuestState, QuestEvent> {
  const { payments, settlements } = unwind(q, reason);
  return beginClosing({
    end: { type: 'withdrawn', day, agent_id: agentId, reason, payments }, outcomes: [], monsters: null, settlements, reason, op: `quest:${q.id}:withdrawn`,
  }, day, io);
}

/** `seed` undefined: a day command of an older version, which carried none; its party is resolved as then, without fates. */
async function resolve(io: EntityIO, q: Quest, day: number, seed: string | undefined, agentId: number | null, forced: QuestOutcome | null, reason: string): Promise<Outcome<QuestState, QuestEvent>> {
  const place = await placeOf(io, q.location_id);
  const members: Member[] = (await rowsOf(io, q.party_members))
    .filter((a) => a.status !== 'dead');
  const strength = partyStrength(members, place);
  const expected = effectiveDanger(members, place);
  const danger = dangerMet(expected, rng(seed ?? '', 'quest-danger', q.id)());
  const outcome = forced ?? outcomeFor(strength, danger);
  const draw = rng(seed ?? '', 'quest', q.id, day);
  const bonds = bondsFor(outcome, members);
  const casualties: number[] = [];
  const injured: number[] = [];
  // A party sent out fights, whether its organization reports back or its time runs out
  // first (a failure then, with a failure's fates: waiting is never safer than reporting).
  const sent = q.party_id !== null && seed !== undefined;
  const outcomes: Closing['outcomes'] = [];
  for (const m of members) {
    const fate = sent ? fateOf(outcome, m, draw) : { died: false, injury_days: 0 };
    if (fate.died) casualties.push(m.id);
    if (fate.injury_days) injured.push(m.id);
    outcomes.push({
      adventurer_id: m.id, outcome, experience: sent ? experienceFor(outcome, m, place) : 0,
      injury_days: fate.injury_days, died: fate.died, bonds: sent ? bonds.get(m.id) ?? {} : {},
    });
  }
  const monstersChange = sent ? -Math.round(place.monster_population * MONSTERS_SLAIN[outcome]) : 0;
  const reward = totalReward(q);
  const paid = rewardPaid(outcome, reward);
  const acceptor = q.accepted_organization_id!;
  const parts = new Map<number, Part>();
  const payments = payoutLedger(q.funds, paid, acceptor);
  pay(parts, payments);
  const mine = part(parts, acceptor);
  mine.reputation += REPUTATION[outcome];
  mine.trust[String(q.requester_id)] = TRUST[outcome];
  mine.party_id = q.party_id;
  mine.dead = casualties;
  if (q.requester_id !== acceptor) part(parts, q.requester_id).trust[String(acceptor)] = TRUST[outcome];
  const resolution: Resolution = {
    outcome, reason, party_strength: strength, effective_danger: danger, expected_danger: expected, reward_paid: paid, refunded: reward - paid,
    experience: sent && members[0] ? experienceFor(outcome, members[0], place) : 0, casualties, injured, monsters_change: monstersChange,
  };
  return beginClosing({
    end: { type: 'resolved', day, agent_id: agentId, resolution, payments }, outcomes,
    monsters: monstersChange !== 0 ? { location_id: q.location_id, change: monstersChange } : null,
    settlements: settlementsOf(parts), reason: `quest ${outcome}`, op: `quest:${q.id}:resolved`,
  }, day, io);
}

/** Whose strength an acceptance weighs: the living, uninjured members the organization employs (fieldStrength). */
const FIELDED = 'the organization\'s fielded';

export const questKind: EntityKind<QuestState, QuestCommand, QuestEvent> = {
  kind: 'quest',
  rank: RANK.quest,
  commands: {
    post: true, sponsor: true, accept: true, dispatch: true, complete: true, cancel: true,
    'organization-ended': true, 'sponsor-ended': true, 'day-began': true, status: true, resume: true,
  },
  initialState: null,
  evolve,
  project,
  chronicle,
  view: (s) => (s && s.status !== 'posting' ? questView(s) : null),
  // A posting, sponsorship, dispatch, closing or pledge return is an intent until it ends (actors/intents.ts).
  eventRows: (e, after) => {
    if (e.type === 'reservation-abandoned') return [intentEnded('quest', e.quest_id)]; // a posting abandoned leaves no state
    if (!after) return [];
    if (e.type === 'closing-begun') return [intentRow({ kind: 'quest', id: after.id, intent: e.closing.end.type === 'resolved' ? 'resolution' : 'withdrawal', day: e.day })];
    if (e.type === 'pledge-return-begun') return [intentRow({ kind: 'quest', id: after.id, intent: 'pledge-return', day: e.day })];
    if (e.type === 'reservation-begun') {
      const r = e.reservation;
      return [intentRow({ kind: 'quest', id: after.id, intent: r.purpose === 'reward' ? 'posting' : 'sponsorship', day: e.day, organization_id: r.organization_id })];
    }
    if (e.type === 'dispatch-begun') return [intentRow({ kind: 'quest', id: after.id, intent: 'dispatch', day: e.day, organization_id: e.dispatching.organization_id })];
    if (e.type === 'resolved' || e.type === 'withdrawn' || e.type === 'sponsorship-refunded' || e.type === 'sponsored' || e.type === 'dispatched' || e.type === 'dispatch-abandoned'
      || (e.type === 'posted' && !e.world_funded)) return [intentEnded('quest', after.id)];
    return [];
  },
  handle: handleQuest,
};

async function handleQuest(state: QuestState, c: QuestCommand, io: EntityIO, dayKept = false): Promise<Outcome<QuestState, QuestEvent>> {
  if (c.type === 'resume') return continuePending(state, io);
  // A quest whose deadline or acceptance has run out by the command's day settles that first,
  // as its day would (the day's tick reaches every quest a little after the day begins).
  if (state && !dayKept && (c.type === 'accept' || c.type === 'dispatch' || c.type === 'complete')) {
    const due = dueDay(state);
    if (due !== null && c.day >= due) return followedBy(await handleQuest(state, { type: 'day-began', day: c.day, seed: c.seed }, io), (s) => handleQuest(s, c, io, true));
  }
  if ((state?.closing || state?.pledge_return || state?.reserving || state?.dispatching) && c.type !== 'status') {
    // What a crash cut short is finished first; the command is then decided afresh.
    const finishing = state.closing;
    const posting = state.status === 'posting';
    const sending = state.dispatching;
    const pending = await continuePending(state, io);
    if ('refusal' in pending && !pending.events?.length) return pending;
    // Asked again for what it was doing (a caller retrying after a 503), it answers with the end.
    if (finishing && ((c.type === 'complete' && finishing.end.type === 'resolved') || (c.type === 'cancel' && finishing.end.type === 'withdrawn'))) return pending;
    if (posting && c.type === 'post') return pending;
    if (sending && c.type === 'dispatch' && c.party_id === sending.party_id) return pending;
    return followedBy(pending, (s) => handleQuest(s, c, io));
  }
  switch (c.type) {
    case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'quest not found' } };

    case 'post': {
      // The requester's name goes with the quest, so that its history names it.
      const quest = { ...c.quest, requester_name: c.quest.requester_name ?? await nameOf(io, c.quest.requester_id) };
      const d = decidePost(state, quest, c.agent_id, c.day, c.world_funded);
      if ('refusal' in d || c.world_funded) return d;
      const begun = decideBeginPosting(state, quest, c.agent_id, c.day);
      if ('refusal' in begun) return begun;
      return { events: begun.events, andThen: (s) => continueReserving(s, io) };
    }

    case 'sponsor': {
      const begun = decideBeginSponsoring(state, c.organization_id, c.amount, c.agent_id, c.day, await nameOf(io, c.organization_id));
      if ('refusal' in begun) return begun;
      return { events: begun.events, andThen: (s) => continueReserving(s, io) };
    }

    case 'accept': {
      const closed = checkOpen(state, 'accepted');
      if (closed) return closed;
      const q = state!;
      const barred = checkAcceptor(q, c.organization_id);
      if (barred) return conflict(barred);
      const facts = await standing(io, c.organization_id, c.agent_id, q.requester_id);
      if (!facts.ok) return { refusal: facts.refusal };
      const unmet = checkRequirements(q, { ...facts.value, strength: await fieldStrength(io, c.organization_id, c.day, await placeOf(io, q.location_id)) }, FIELDED);
      if (unmet) return conflict(unmet);
      return {
        events: [{ type: 'accepted', day: c.day, organization_id: c.organization_id, agent_id: c.agent_id, organization_name: await nameOf(io, c.organization_id) }],
        andThen: (s) => confirmLinked(s, io, c.organization_id, 'organization-ended'),
      };
    }

    case 'dispatch': {
      if (!state) return { refusal: { status: 404, detail: 'quest not found' } };
      const q = state;
      const accepting = q.status === 'open';
      if (accepting) {
        // Dispatching to an open quest accepts it on the way, with the same checks.
        const barred = checkAcceptor(q, c.organization_id);
        if (barred) return conflict(barred);
        const facts = await standing(io, c.organization_id, c.agent_id, q.requester_id);
        if (!facts.ok) return { refusal: facts.refusal };
        const unmet = checkRequirements(q, { ...facts.value, strength: await fieldStrength(io, c.organization_id, c.day, await placeOf(io, q.location_id)) }, FIELDED);
        if (unmet) return conflict(unmet);
      } else if (q.status !== 'accepted') {
        return conflict(`quest ${q.id} is ${q.status}; a party can be dispatched only to an open or accepted quest`);
      } else if (q.accepted_organization_id !== c.organization_id) {
        // The caller's right to the party was checked; what stands in the way is the quest's state (409, as a quest not open).
        return conflict(`quest ${q.id} was accepted by organization ${q.accepted_organization_id}, not by the party's organization: it is not open to others until that acceptance ends`);
      } else if (q.party_id !== null) {
        return conflict(`party ${q.party_id} is already on quest ${q.id}`);
      }
      const party = await io.read.row<{ members: number[]; name?: string; returned_day?: number }>('party', c.party_id);
      const members = await rowsOf(io, party?.members ?? []);
      const hurt = members.find((m) => m.injured_until !== null && m.injured_until > c.day);
      if (hurt) return conflict(`adventurer ${hurt.id} is injured until day ${hurt.injured_until}; a party sets out only with every member fit`);
      const tired = members.map((m) => adventurerResting(m, c.day)).find((why) => why !== null);
      if (tired) return conflict(tired);
      // Checked again by the organization, which keeps the party (decideDispatchParty); said here before anything is recorded.
      const resting = party && partyResting(party, c.day, c.party_id);
      if (resting) return conflict(resting);
      const strength = partyStrength(members, await placeOf(io, q.location_id));
      // Requirements hold at dispatch too (core rule 9): the party's strength, the organization's reputation and trust.
      const standingNow = await standing(io, c.organization_id, c.agent_id, q.requester_id);
      if (!standingNow.ok) return { refusal: standingNow.refusal };
      const unmet = checkRequirements(q, { ...standingNow.value, strength }, 'the party\'s');
      if (unmet) return conflict(unmet);
      // The names the history gives the party and its organization, read now and kept on the intent.
      const organizationName = await nameOf(io, c.organization_id);
      const names = { ...(party?.name === undefined ? {} : { party_name: party.name }), ...(organizationName === undefined ? {} : { organization_name: organizationName }) };
      const begun = decideBeginDispatch(q, { party_id: c.party_id, organization_id: c.organization_id, agent_id: c.agent_id, day: c.day, members: members.map((m) => m.id), accepting, ...names });
      if ('refusal' in begun) return begun;
      return { events: begun.events, andThen: (s) => continueDispatch(s, io) };
    }

    case 'complete': {
      if (!state) return { refusal: { status: 404, detail: 'quest not found' } };
      const q = state;
      if (q.status !== 'accepted') return conflict(`quest ${q.id} is ${q.status}; only an accepted quest can be completed`);
      const facts = await standing(io, q.accepted_organization_id!, c.agent_id, q.requester_id);
      if (!facts.ok) return { refusal: facts.refusal };
      if (q.party_id === null) return conflict(`no party has been dispatched on quest ${q.id}; dispatch one first`);
      return resolve(io, q, c.day, c.seed, c.agent_id, null, 'completed');
    }

    case 'cancel': {
      const closed = checkOpen(state, 'cancelled');
      if (closed) return closed;
      const q = state!;
      const facts = await standing(io, q.requester_id, c.agent_id, q.requester_id);
      if (!facts.ok) return { refusal: facts.refusal };
      return withdraw(io, q, c.day, c.agent_id, 'withdrawn by the requester');
    }

    case 'organization-ended': {
      if (!state || (state.status !== 'open' && state.status !== 'accepted')) return { events: [] };
      const q = state;
      if (q.requester_id === c.organization_id) {
        return withdraw(io, q, c.day, null, 'its requester ended');
      }
      if (q.accepted_organization_id === c.organization_id) {
        return { events: [{ type: 'reopened', day: c.day, reason: 'the organization that accepted it ended' }] };
      }
      return { events: [] };
    }

    case 'sponsor-ended': {
      const d = decidePledgeReturn(state, c.organization_id, c.day, await nameOf(io, c.organization_id));
      if ('refusal' in d || d.events.length === 0) return d;
      return { events: d.events, andThen: (s) => continuePledgeReturn(s, io) };
    }

    case 'day-began': {
      if (!state) return { events: [] };
      if (state.deadline_day !== null && c.day > state.deadline_day) {
        if (state.status === 'open') return withdraw(io, state, c.day, null, 'its deadline passed');
        if (state.status === 'accepted') return resolve(io, state, c.day, c.seed, null, 'failure', 'its deadline passed');
        return { events: [] };
      }
      const lapse = acceptanceLapse(state, c.day);
      if (lapse === 'reopen') {
        const holder = state.accepted_organization_id!;
        return { events: [{ type: 'reopened', day: c.day, reason: `${(await nameOf(io, holder)) ?? `organization ${holder}`} accepted it on day ${state.accepted_day} and sent no party within ${ACCEPTANCE_DAYS} days`, lapsed_organization_id: holder }] };
      }
      if (lapse === 'fail') return resolve(io, state, c.day, c.seed, null, 'failure', `its party did not report back within ${ACCEPTANCE_DAYS} days of its acceptance`);
      return { events: [] };
    }
  }
}

