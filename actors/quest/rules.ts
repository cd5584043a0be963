// The quest's rules: requirements (core rule 9), outcomes by strength against danger
// (core rule 8), traits (core rule 12), experience (core rule 11), bonds (core rule 13),
// and where the reserved gold goes. All pure: randomness comes in as a draw function.
import { ledger, type LedgerLine } from '../ledger';
import { accept, conflict, notFound, type Decision } from '../result';
import type { Trait } from '../adventurer/messages';
import { WORLD_FUND, type Dispatching, type Fund, type Quest, type QuestEvent, type QuestOutcome, type QuestSpec, type QuestState } from './messages';

export const EXPERIENCE = { full: 10, partial: 5, failure: 0 } as const;
export const REPUTATION = { full: 5, partial: 2, failure: -5 } as const;
export const TRUST = { full: 10, partial: 3, failure: -5 } as const;
export const BOND = { full: 5, partial: 2, failure: -3 } as const;
export const BRAVE_DANGER = 40;
export const BRAVE_BONUS = 0.2;
export const RECKLESS_BONUS = 0.15;
export const CAUTIOUS_DANGER_CUT = 0.1;
export const CAUTIOUS_MAX_CUT = 0.3;
export const DEATH_CHANCE = 0.2;
export const FAILURE_INJURY_CHANCE = 0.6;
export const PARTIAL_INJURY_CHANCE = 0.25;
export const CURIOUS_DUNGEON_FACTOR = 1.5;
/** Share of the monsters a full and a partial success clear; a failure emboldens them. */
export const MONSTERS_SLAIN = { full: 0.25, partial: 0.1, failure: -0.05 } as const;

export interface Member { id: number; strength: number; traits: Trait[] }
export interface Place { kind: string; danger: number; monster_population: number }

const has = (m: Member, t: Trait) => m.traits.includes(t);

/** A member's strength at a place: brave ones grow stronger where it is dangerous, reckless ones hit harder. */
export function memberStrength(m: Member, place: Place): number {
  let factor = 1;
  if (has(m, 'brave') && place.danger >= BRAVE_DANGER) factor += BRAVE_BONUS;
  if (has(m, 'reckless')) factor += RECKLESS_BONUS;
  return m.strength * factor;
}

export const partyStrength = (members: Member[], place: Place) => Math.round(members.reduce((n, m) => n + memberStrength(m, place), 0));

/** Danger as the party meets it: each cautious member lowers it, up to a limit. */
export function effectiveDanger(members: Member[], place: Place): number {
  const cut = Math.min(CAUTIOUS_MAX_CUT, members.filter((m) => has(m, 'cautious')).length * CAUTIOUS_DANGER_CUT);
  return Math.round(place.danger * (1 - cut));
}

/**
 * The danger a party meets is never exactly the danger on the board: the beasts may be
 * more or fewer than the scouts counted. It is the effective danger times a factor drawn
 * evenly within DANGER_SPREAD either side (from the seed and the quest), so a party at
 * the requirement can fail and a strong one can still come back with half the reward.
 */
export const DANGER_SPREAD = 0.35;
export const dangerMet = (danger: number, draw: number) => Math.round(danger * (1 - DANGER_SPREAD + 2 * DANGER_SPREAD * draw));

/**
 * The odds of each outcome for a party of `strength` against an effective `danger`, with
 * the spread drawn evenly (what an agent can weigh before dispatching). Exact over the
 * rounding of dangerMet: it counts the share of draws that give each outcome.
 */
export function outcomeOdds(strength: number, danger: number): Record<QuestOutcome, number> {
  const steps = 1000;
  const n = { full: 0, partial: 0, failure: 0 };
  for (let i = 0; i < steps; i++) n[outcomeFor(strength, dangerMet(danger, (i + 0.5) / steps))] += 1;
  return { full: n.full / steps, partial: n.partial / steps, failure: n.failure / steps };
}

/** Core rule 8, exactly: full at strength >= danger, partial at strength >= half of it, failure below. */
export function outcomeFor(strength: number, danger: number): QuestOutcome {
  if (strength >= danger) return 'full';
  if (strength * 2 >= danger) return 'partial';
  return 'failure';
}

export function experienceFor(outcome: QuestOutcome, m: Member, place: Place): number {
  const base = EXPERIENCE[outcome];
  return has(m, 'curious') && place.kind === 'dungeon' ? Math.round(base * CURIOUS_DUNGEON_FACTOR) : base;
}

/** Casualties only on failure; reckless members die twice as often; patient ones heal in half the time. */
export function fateOf(outcome: QuestOutcome, m: Member, draw: () => number): { died: boolean; injury_days: number } {
  const heal = (days: number) => (has(m, 'patient') ? Math.ceil(days / 2) : days);
  if (outcome === 'full') return { died: false, injury_days: 0 };
  if (outcome === 'partial') {
    return draw() < PARTIAL_INJURY_CHANCE ? { died: false, injury_days: heal(2 + Math.floor(draw() * 4)) } : { died: false, injury_days: 0 };
  }
  const deathChance = DEATH_CHANCE * (has(m, 'reckless') ? 2 : 1);
  if (draw() < deathChance) return { died: true, injury_days: 0 };
  return draw() < FAILURE_INJURY_CHANCE ? { died: false, injury_days: heal(3 + Math.floor(draw() * 6)) } : { died: false, injury_days: 0 };
}

/** Bond changes for each member toward each other member; loyal ones bond twice as strongly and resent less. */
export function bondsFor(outcome: QuestOutcome, members: Member[]): Map<number, Record<string, number>> {
  const result = new Map<number, Record<string, number>>();
  for (const m of members) {
    const changes: Record<string, number> = {};
    for (const other of members) {
      if (other.id === m.id) continue;
      const base = BOND[outcome];
      changes[String(other.id)] = has(m, 'loyal') ? (base > 0 ? base * 2 : Math.ceil(base / 3)) : base;
    }
    result.set(m.id, changes);
  }
  return result;
}

/** Gold paid to the accepting organization: all of it, half (rounded down), or none. */
export const rewardPaid = (outcome: QuestOutcome, reward: number) => (outcome === 'full' ? reward : outcome === 'partial' ? Math.floor(reward / 2) : 0);

/** Gives `amount` back to the funders in proportion to what each put in; the shares add up exactly. */
export function refunds(funds: Fund[], amount: number): Fund[] {
  const total = funds.reduce((n, f) => n + f.amount, 0);
  if (total === 0 || amount === 0) return [];
  const shares = funds.map((f) => ({ organization_id: f.organization_id, amount: Math.floor((f.amount * amount) / total) }));
  let left = amount - shares.reduce((n, s) => n + s.amount, 0);
  for (let i = 0; left > 0; i = (i + 1) % shares.length, left--) shares[i].amount += 1;
  const merged = new Map<number, number>();
  for (const s of shares) merged.set(s.organization_id, (merged.get(s.organization_id) ?? 0) + s.amount);
  return [...merged].filter(([, a]) => a > 0).map(([organization_id, a]) => ({ organization_id, amount: a }));
}

export const totalReward = (q: Pick<Quest, 'funds'>) => q.funds.reduce((n, f) => n + f.amount, 0);

const organizationsGold = (funds: Fund[]) => funds.filter((f) => f.organization_id !== WORLD_FUND).reduce((n, f) => n + f.amount, 0);

/**
 * Where a quest's gold goes when it leaves the quest's trust: `paid` to the acceptor, the
 * rest back to the funders in proportion. The ledger names the world's share of what the
 * acceptor gets as world_reward (gold the world adds); the rest was organizations' gold
 * held in trust (quest_escrow). The world's own refund simply is not spent.
 */
export function payoutLedger(funds: Fund[], paid: number, acceptor: number | null): LedgerLine[] {
  const back = refunds(funds, totalReward({ funds }) - paid).filter((f) => f.organization_id !== WORLD_FUND);
  const worldShare = paid + back.reduce((n, f) => n + f.amount, 0) - organizationsGold(funds);
  return ledger(
    acceptor !== null && { organization_id: acceptor, flow: 'quest_escrow', gold: paid - worldShare },
    acceptor !== null && { organization_id: acceptor, flow: 'world_reward', gold: worldShare },
    ...back.map((f): LedgerLine => ({ organization_id: f.organization_id, flow: 'quest_escrow', gold: f.amount })),
  );
}

/**
 * Days an acceptance holds. An organization that accepted a quest and sent no party within
 * them loses it: the quest is open again, and that organization may not accept it again;
 * one whose party never reported back has it end in failure. So nobody can hold another's
 * reward out of reach by accepting its quest and doing nothing.
 */
export const ACCEPTANCE_DAYS = 20;

/** The last day an accepted quest's acceptance holds, or null when it is not accepted. */
export const acceptanceEndsDay = (q: Quest): number | null =>
  (q.status === 'accepted' && q.accepted_day !== null ? q.accepted_day + ACCEPTANCE_DAYS : null);

/** What becomes of an acceptance on `day`: it stands (null), lapses ('reopen'), or fails ('fail'). */
export function acceptanceLapse(q: QuestState, day: number): 'reopen' | 'fail' | null {
  const ends = q && acceptanceEndsDay(q);
  if (!q || ends === null || day <= ends) return null;
  return q.party_id === null ? 'reopen' : 'fail';
}

/** The first day the quest has to act on its own (its deadline passed, or its acceptance lapsed), or null. */
export function dueDay(q: Quest): number | null {
  const days: number[] = [];
  if ((q.status === 'open' || q.status === 'accepted') && q.deadline_day !== null) days.push(q.deadline_day + 1);
  const ends = acceptanceEndsDay(q);
  if (ends !== null) days.push(ends + 1);
  return days.length ? Math.min(...days) : null;
}

/** Why an organization may not accept a quest (by acceptance or by dispatch to it): its own, or one it let lapse; else null. */
export function checkAcceptor(q: Quest, organizationId: number): string | null {
  if (organizationId === q.requester_id) return 'an organization cannot accept its own quest';
  return q.lapsed_by?.includes(organizationId) ? `organization ${organizationId} accepted quest ${q.id} before and sent no party within ${ACCEPTANCE_DAYS} days; it cannot accept it again` : null;
}

/**
 * Requirements (core rule 9): strength, reputation and trust with the requester. `whose`:
 * whose strength was weighed (the organization's fielded members when it accepts, the
 * party when it is sent), named in the refusal.
 */
export function checkRequirements(q: Quest, facts: { strength: number; reputation: number; trust: number }, whose?: string): string | null {
  const unmet: string[] = [];
  if (facts.strength < q.minimum_strength) unmet.push(`${whose ? `${whose} ` : ''}strength ${facts.strength} is below the required ${q.minimum_strength}`);
  if (facts.reputation < q.minimum_reputation) unmet.push(`reputation ${facts.reputation} is below the required ${q.minimum_reputation}`);
  if (facts.trust < q.minimum_relationship) unmet.push(`trust with the requester ${facts.trust} is below the required ${q.minimum_relationship}`);
  return unmet.length ? `requirements not met: ${unmet.join('; ')}` : null;
}

export function decidePost(state: QuestState, spec: QuestSpec, agentId: number | null, day: number, worldFunded = false): Decision<QuestEvent> {
  // Posted again by the world event that posted it (its retried beginning), it answers what it is.
  if (state && agentId === null && worldFunded && state.posted_by_agent_id === null && state.posted_day === day && state.title === spec.title) return accept();
  if (state) return conflict(`quest ${spec.id} already exists`);
  return accept({ type: 'posted', day, quest: spec, agent_id: agentId, ...(worldFunded ? { world_funded: true } : {}) });
}

/** An organization's name for the history, when it is known (older records have none). */
export const named = (name: string | undefined) => (name === undefined ? {} : { organization_name: name });

/**
 * The return of an ended sponsor's pledges to a live quest, decided whole and recorded
 * before the sponsor is paid; nothing when the quest is over or holds none of its gold.
 */
export function decidePledgeReturn(state: QuestState, organizationId: number, day: number, organizationName?: string): Decision<QuestEvent> {
  if (!state || (state.status !== 'open' && state.status !== 'accepted')) return accept();
  const amount = state.funds.slice(1).filter((f) => f.organization_id === organizationId).reduce((n, f) => n + f.amount, 0);
  if (amount === 0) return accept();
  return accept({ type: 'pledge-return-begun', day, pledge_return: { day, organization_id: organizationId, amount, op: `quest:${state.id}:pledge-returned`, ...named(organizationName) } });
}

/**
 * The intent of posting a quest whose requester backs the reward: the quest as it will be
 * posted and the reservation of its reward, recorded before the requester is asked.
 */
export function decideBeginPosting(state: QuestState, spec: QuestSpec, agentId: number | null, day: number): Decision<QuestEvent> {
  const d = decidePost(state, spec, agentId, day);
  if ('refusal' in d) return d;
  return accept({ type: 'reservation-begun', day, reservation: { purpose: 'reward', organization_id: spec.requester_id, amount: spec.reward, agent_id: agentId, day, op: `quest:${spec.id}:reserved:1`, quest: spec } });
}

/** The intent of a sponsorship of an open quest, recorded before the sponsor is asked. */
export function decideBeginSponsoring(state: QuestState, organizationId: number, amount: number, agentId: number, day: number, organizationName?: string): Decision<QuestEvent> {
  const closed = checkOpen(state, 'sponsored');
  if (closed) return closed;
  const op = `quest:${state!.id}:reserved:${(state!.reservations ?? 0) + 1}`;
  return accept({ type: 'reservation-begun', day, reservation: { purpose: 'sponsorship', organization_id: organizationId, amount, agent_id: agentId, day, op, ...named(organizationName) } });
}

/**
 * How a reservation under way ends once the organization answered: posted or sponsored,
 * abandoned when it refused, or still pending (null) when its outcome is unknown.
 */
export function decideReservationAnswer(state: QuestState, answer: { ok: true } | { ok: false; refusal: { status: number; detail: string } }): Decision<QuestEvent> | null {
  const r = state?.reserving;
  if (!r) return accept();
  if (!answer.ok) {
    if (answer.refusal.status === 503) return null;
    return accept({ type: 'reservation-abandoned', day: r.day, quest_id: state!.id, reason: answer.refusal.detail });
  }
  return r.purpose === 'reward'
    ? accept({ type: 'posted', day: r.day, quest: r.quest!, agent_id: r.agent_id })
    : accept({ type: 'sponsored', day: r.day, organization_id: r.organization_id, amount: r.amount, agent_id: r.agent_id!, ...named(r.organization_name) });
}

/** The intent of a dispatch every check allowed: named, recorded before the organization is asked. */
export function decideBeginDispatch(state: QuestState, d: Omit<Dispatching, 'op'>): Decision<QuestEvent> {
  if (!state) return notFound('quest not found');
  return accept({ type: 'dispatch-begun', day: d.day, dispatching: { ...d, op: `quest:${state.id}:dispatch:${(state.dispatches ?? 0) + 1}` } });
}

/**
 * How a dispatch under way ends once the organization answered: accepted (when on the
 * way) and dispatched, abandoned when it refused, or still pending (null) when unknown.
 */
export function decideDispatchAnswer(state: QuestState, answer: { ok: true } | { ok: false; refusal: { status: number; detail: string } }): Decision<QuestEvent> | null {
  const d = state?.dispatching;
  if (!d) return accept();
  if (!answer.ok) {
    if (answer.refusal.status === 503) return null;
    return accept({ type: 'dispatch-abandoned', day: d.day, reason: answer.refusal.detail });
  }
  const org = named(d.organization_name);
  const party = d.party_name === undefined ? {} : { party_name: d.party_name };
  const events: QuestEvent[] = d.accepting ? [{ type: 'accepted', day: d.day, organization_id: d.organization_id, agent_id: d.agent_id, ...org }] : [];
  return accept(...events, { type: 'dispatched', day: d.day, party_id: d.party_id, members: d.members, agent_id: d.agent_id, ...party, ...org });
}

export function checkOpen(state: QuestState, what: string): Decision<never> | null {
  if (!state) return { refusal: { status: 404, detail: 'quest not found' } };
  if (state.status !== 'open') return conflict(`quest ${state.id} is ${state.status}; only an open quest can be ${what}`);
  return null;
}

export function evolve(state: QuestState, e: QuestEvent): QuestState {
  if (e.type === 'reservation-begun' && !state && e.reservation.quest) {
    // A quest being posted: as it will be, until its reward is set aside.
    const posting = evolve(null, { type: 'posted', day: e.day, quest: e.reservation.quest, agent_id: e.reservation.agent_id });
    return { ...posting!, status: 'posting', reserving: e.reservation, reservations: 1 };
  }
  if (e.type === 'posted') {
    const { deadline_days: deadline, ...spec } = e.quest;
    return {
      ...(state?.reservations ? { reservations: state.reservations } : {}),
      ...spec, status: 'open', funds: [{ organization_id: e.world_funded ? WORLD_FUND : spec.requester_id, amount: spec.reward }],
      deadline_day: deadline === null ? null : e.day + deadline, posted_day: e.day, posted_by_agent_id: e.agent_id,
      accepted_organization_id: null, accepted_day: null, party_id: null, party_members: [], resolved_day: null,
      outcome: null, resolution: null, withdrawn_reason: null,
    };
  }
  if (!state) return state;
  switch (e.type) {
    case 'sponsored': {
      const funds = [...state.funds, { organization_id: e.organization_id, amount: e.amount }];
      return { ...state, funds, reward: totalReward({ funds }), reserving: null };
    }
    case 'reservation-begun':
      return { ...state, reserving: e.reservation, reservations: (state.reservations ?? 0) + 1 };
    case 'reservation-abandoned':
      // A posting abandoned is as if the quest never was; a sponsorship, as if never offered.
      return state.status === 'posting' ? null : { ...state, reserving: null };
    case 'accepted':
      return { ...state, status: 'accepted', accepted_organization_id: e.organization_id, accepted_day: e.day };
    case 'dispatched':
      return { ...state, party_id: e.party_id, party_members: [...e.members], dispatching: null };
    case 'dispatch-begun':
      return { ...state, dispatching: e.dispatching, dispatches: (state.dispatches ?? 0) + 1 };
    case 'dispatch-abandoned':
      return { ...state, dispatching: null };
    case 'closing-begun':
      return { ...state, closing: e.closing };
    case 'pledge-return-begun':
      return { ...state, pledge_return: e.pledge_return };
    case 'resolved':
      return { ...state, closing: null, status: 'resolved', resolved_day: e.day, outcome: e.resolution.outcome, resolution: e.resolution };
    case 'withdrawn':
      return { ...state, closing: null, status: 'withdrawn', resolved_day: e.day, withdrawn_reason: e.reason };
    case 'sponsorship-refunded': {
      const funds = state.funds.filter((f, i) => i === 0 || f.organization_id !== e.organization_id);
      return { ...state, funds, reward: totalReward({ funds }), pledge_return: null };
    }
    case 'reopened':
      return {
        ...state, status: 'open', accepted_organization_id: null, accepted_day: null, party_id: null, party_members: [],
        ...(e.lapsed_organization_id === undefined ? {} : { lapsed_by: [...(state.lapsed_by ?? []), e.lapsed_organization_id] }),
      };
  }
}
