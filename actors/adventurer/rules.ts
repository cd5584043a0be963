// The adventurer's rules: employment, parties, progression (core rule 11), injuries,
// recovery and death, bonds (core rule 13).
import { accept, conflict, forbidden, notFound, type Decision } from '../result';
import { hasApplied, withApplied } from '../applied';
import { hash32 } from '../random';
import type { Adventurer, AdventurerEvent, AdventurerState, HireCommand, JoinPartyCommand, Moment, QuestOutcomeCommand } from './messages';

export const EXPERIENCE_PER_LEVEL = 20;
export const STRENGTH_PER_LEVEL = 3;
export const MAX_MOMENTS = 100;

/** Level for an amount of experience: one at the start, one more every 20. */
export const levelFor = (experience: number) => 1 + Math.floor(experience / EXPERIENCE_PER_LEVEL);

/** The fee an organization pays when it hires an adventurer: a base, and more for each level above the first. */
export const HIRING_FEE_BASE = 20;
export const HIRING_FEE_PER_LEVEL = 10;
export const hiringFee = (a: Pick<Adventurer, 'level'>) => HIRING_FEE_BASE + HIRING_FEE_PER_LEVEL * (a.level - 1);

/**
 * A career lasts CAREER_DAYS.min to CAREER_DAYS.max days from arrival (a pure function of
 * the adventurer's id, so a replay agrees). When it is over, an adventurer out of work
 * dies of old age; one employed leaves its organization the first day it is at home (not
 * away with a party), then dies of old age (decideRetirement). So no organization keeps a
 * veteran for ever, the pool of available adventurers turns over, and the newcomers of the
 * quest board refill it.
 */
export const CAREER_DAYS = { min: 40, max: 200 } as const;
export const careerDays = (id: number) => CAREER_DAYS.min + (hash32('career', id) % (CAREER_DAYS.max - CAREER_DAYS.min + 1));
/** The day the career of adventurer `id`, arrived on `joinedDay`, is over. */
export const careerEndDay = (id: number, joinedDay: number) => joinedDay + careerDays(id);

/** Whether the adventurer's career is over on `day`. */
export const careerOver = (a: Pick<Adventurer, 'career_end_day'>, day: number) => a.career_end_day !== undefined && a.career_end_day <= day;

/**
 * The day the adventurer next needs the daily settling: its wounds heal, or its career ends
 * (employed, it is settled each day from then until it has left: one away with a party
 * leaves once home).
 */
export function dueDay(a: Adventurer): number | null {
  if (a.status === 'dead') return null;
  const ends = a.employment == null ? a.career_end_day ?? null : null;
  if (a.injured_until === null) return ends;
  return ends === null ? a.injured_until : Math.min(a.injured_until, ends);
}

/** An employed adventurer writes its row again (its due day with it); any other has nothing to write. */
export function decideRecordDueDay(state: AdventurerState, day: number): Decision<AdventurerEvent> {
  if (!state) return notFound('adventurer not found');
  return state.status === 'employed' ? accept({ type: 'due-day-recorded', day }) : accept();
}

/** The organization's name, where it is known (it names the organization in the history). */
const named = (name: string | undefined) => (name === undefined ? {} : { organization_name: name });

const isInjured = (a: Adventurer, day: number) => a.injured_until !== null && a.injured_until > day;

/** The day an adventurer last came back from a quest (the newest resolution in its party history), or null. */
export function lastQuestDay(a: Pick<Adventurer, 'party_history'>): number | null {
  let last: number | null = null;
  for (const r of a.party_history) {
    // Entries of before resolved_day was kept give the day of their outcome.
    const back = r.resolved_day ?? (r.outcome !== null ? r.day : null);
    if (back !== null && (last === null || back > last)) last = back;
  }
  return last;
}

/**
 * Why an adventurer may not set out on a quest on `day`, or null. One back from a quest
 * today rests until tomorrow, in whatever party it is now: the party's own rest
 * (partyResting) would otherwise be dodged by releasing it, hiring it again and sending
 * it with a new party.
 */
export function adventurerResting(a: Pick<Adventurer, 'id' | 'party_history'> & { name?: string }, day: number): string | null {
  const back = lastQuestDay(a);
  if (back === null || back < day) return null;
  return `adventurer ${a.name ?? a.id} came back from a quest on day ${back}; it sets out again on day ${back + 1} at the earliest, whatever party it is in`;
}

export function decideHire(state: AdventurerState, c: HireCommand): Decision<AdventurerEvent> {
  if (!state) return notFound('adventurer not found');
  if (state.status === 'dead') return conflict(`${state.name} is dead`);
  if (c.type === 'hire') {
    if (state.status === 'employed') return conflict(`${state.name} already works for organization ${state.organization_id}`);
    if (careerOver(state, c.day)) return conflict(`${state.name}'s career ended on day ${state.career_end_day}; it takes no more work`);
    return accept({ type: 'hired', day: c.day, organization_id: c.organization_id, agent_id: c.agent_id, ...named(c.organization_name) });
  }
  if (state.organization_id !== c.organization_id) return forbidden(`${state.name} is not a member of organization ${c.organization_id}`);
  // A party member leaves its party with the organization; whether its party is away on a quest, the organization knows.
  return accept({ type: 'released', day: c.day, organization_id: c.organization_id, agent_id: c.agent_id, reason: 'released by the organization', ...named(c.organization_name) });
}

/** The name of the organization's side of the adventurer's next hiring or release (applied once). */
const nextEmploymentOp = (a: Adventurer) => `adventurer:${a.id}:employment:${(a.employment_changes ?? 0) + 1}`;

/** The intent of a hiring or release the adventurer agrees to: decided as before, recorded first. */
export function decideBeginEmployment(state: AdventurerState, c: HireCommand): Decision<AdventurerEvent> {
  const d = decideHire(state, c);
  if ('refusal' in d) return d;
  const op = nextEmploymentOp(state!);
  // A hiring names its fee, so that the organization, asked again after a crash, charges what was first asked.
  const fee = c.type === 'hire' ? { fee: hiringFee(state!) } : {};
  return accept({ type: 'employment-begun', day: c.day, change: c.type, organization_id: c.organization_id, agent_id: c.agent_id, op, ...named(c.organization_name), ...fee });
}

/**
 * How a hiring or release under way ends once the organization answered: done, abandoned
 * when it refused, or still pending (null) when its outcome is unknown.
 */
export function decideEmploymentAnswer(state: AdventurerState, answer: { ok: true } | { ok: false; refusal: { status: number; detail: string } }): Decision<AdventurerEvent> | null {
  const m = state?.employment;
  if (!m) return accept();
  if (!answer.ok) {
    if (answer.refusal.status === 503) return null;
    return accept({ type: 'employment-abandoned', day: m.day, organization_id: m.organization_id, reason: answer.refusal.detail });
  }
  return m.change === 'hire'
    ? accept({ type: 'hired', day: m.day, organization_id: m.organization_id, agent_id: m.agent_id, ...named(m.organization_name) })
    : accept({
      type: 'released', day: m.day, organization_id: m.organization_id, agent_id: m.career_over ? null : m.agent_id,
      reason: m.career_over ? 'its career is over' : 'released by the organization', ...named(m.organization_name),
    });
}

/** The agent id a release the adventurer begins itself carries: no agent's (it is `career_over`, and its history names nobody). */
export const NO_AGENT = 0;

/**
 * An employed adventurer whose career is over leaves its organization of its own accord,
 * once it is at home (`awayWithParty` false): the intent of that release (the saga a
 * release by the organization runs, no agent's), recorded first. Then it dies of old age.
 * Nothing while its career lasts, while away, or while a hiring, release or joining is
 * under way.
 */
export function decideRetirement(state: AdventurerState, day: number, awayWithParty: boolean, organizationName?: string): Decision<AdventurerEvent> {
  if (!state || state.status !== 'employed' || state.organization_id === null || state.employment || state.joining || !careerOver(state, day) || awayWithParty) return accept();
  const op = nextEmploymentOp(state);
  return accept({ type: 'employment-begun', day, change: 'release', organization_id: state.organization_id, agent_id: NO_AGENT, op, ...named(organizationName), career_over: true });
}

export function decideJoinParty(state: AdventurerState, c: JoinPartyCommand): Decision<AdventurerEvent> {
  if (!state) return notFound('adventurer not found');
  if (state.status !== 'employed' || state.organization_id !== c.organization_id) {
    return forbidden(`${state.name} is not a member of organization ${c.organization_id}`);
  }
  if (state.party_id === c.party_id) return conflict(`${state.name} is already in this party`);
  if (state.party_id !== null) return conflict(`${state.name} is already in party ${state.party_id}; one party at a time`);
  if (isInjured(state, c.day)) return conflict(`${state.name} is injured until day ${state.injured_until}`);
  return accept({ type: 'joined-party', day: c.day, party_id: c.party_id, party_name: c.party_name, organization_id: c.organization_id, agent_id: c.agent_id });
}

/** The intent of joining a party the adventurer agrees to: decided as before, recorded first. */
export function decideBeginJoining(state: AdventurerState, c: JoinPartyCommand): Decision<AdventurerEvent> {
  const d = decideJoinParty(state, c);
  if ('refusal' in d) return d;
  const op = `adventurer:${state!.id}:party:${(state!.party_joinings ?? 0) + 1}`;
  return accept({ type: 'joining-begun', day: c.day, party_id: c.party_id, party_name: c.party_name, organization_id: c.organization_id, agent_id: c.agent_id, op });
}

/**
 * How a party joining under way ends once the organization answered: joined, abandoned
 * when it refused, or still pending (null) when its outcome is unknown.
 */
export function decideJoiningAnswer(state: AdventurerState, answer: { ok: true } | { ok: false; refusal: { status: number; detail: string } }): Decision<AdventurerEvent> | null {
  const j = state?.joining;
  if (!j) return accept();
  if (!answer.ok) {
    if (answer.refusal.status === 503) return null;
    return accept({ type: 'joining-abandoned', day: j.day, party_id: j.party_id, organization_id: j.organization_id, reason: answer.refusal.detail });
  }
  return accept({ type: 'joined-party', day: j.day, party_id: j.party_id, party_name: j.party_name, organization_id: j.organization_id, agent_id: j.agent_id });
}

export function decideQuestOutcome(state: AdventurerState, c: QuestOutcomeCommand): Decision<AdventurerEvent> {
  if (!state) return notFound('adventurer not found');
  if (state.status === 'dead') return accept();
  // A quest's outcome is taken once (the quest's retried closing asks again).
  if (hasApplied(state.quests_endured, c.quest_id)) return accept();
  const experience = c.died ? 0 : c.experience;
  const levelsGained = levelFor(state.experience + experience) - levelFor(state.experience);
  return accept({
    type: 'quest-endured', day: c.day, quest_id: c.quest_id, quest_title: c.quest_title, outcome: c.outcome,
    experience, levels_gained: levelsGained, strength_gained: levelsGained * STRENGTH_PER_LEVEL,
    injury_days: c.died ? 0 : c.injury_days, died: c.died, bonds: c.bonds,
  });
}

/** The adventurer's day: one out of work past its career dies of old age (naming the organization it has just left, `left`, if any); wounds heal. */
export function decideDay(state: AdventurerState, day: number, left?: number): Decision<AdventurerEvent> {
  if (!state || state.status === 'dead') return accept();
  if (state.status === 'available' && !state.employment && careerOver(state, day)) {
    return accept({ type: 'aged-out', day, ...(left === undefined ? {} : { organization_id: left }) });
  }
  if (state.injured_until === null || state.injured_until > day) return accept();
  return accept({ type: 'recovered', day });
}

const remember = (a: Adventurer, m: Moment): Moment[] => [...a.moments, m].slice(-MAX_MOMENTS);

export function evolve(state: AdventurerState, e: AdventurerEvent): AdventurerState {
  if (e.type === 'appeared') {
    return {
      ...e.adventurer, traits: [...e.adventurer.traits], status: 'available', organization_id: null, party_id: null,
      injured_until: null, joined_day: e.day, quests_completed: 0, bonds: {}, career_end_day: careerEndDay(e.adventurer.id, e.day),
      moments: [{ day: e.day, kind: 'joined', text: `${e.adventurer.name} arrived looking for work` }], party_history: [],
    };
  }
  if (!state) return state;
  switch (e.type) {
    case 'employment-begun':
      return {
        ...state,
        employment: { day: e.day, change: e.change, organization_id: e.organization_id, agent_id: e.agent_id, op: e.op, ...named(e.organization_name), ...(e.fee === undefined ? {} : { fee: e.fee }), ...(e.career_over ? { career_over: true as const } : {}) },
        employment_changes: (state.employment_changes ?? 0) + 1,
      };
    case 'employment-abandoned':
      return { ...state, employment: null };
    case 'joining-begun':
      return { ...state, joining: { day: e.day, party_id: e.party_id, party_name: e.party_name, organization_id: e.organization_id, agent_id: e.agent_id, op: e.op }, party_joinings: (state.party_joinings ?? 0) + 1 };
    case 'joining-abandoned':
      return { ...state, joining: null };
    case 'hired':
      return { ...state, employment: null, status: 'employed', organization_id: e.organization_id, moments: remember(state, { day: e.day, kind: 'employed', text: `hired by ${e.organization_name ?? `organization ${e.organization_id}`}` }) };
    case 'released':
      return {
        ...state, employment: null, status: 'available', organization_id: null, party_id: null,
        moments: remember(state, { day: e.day, kind: 'released', text: `left ${e.organization_name ?? `organization ${e.organization_id}`}: ${e.reason}` }),
      };
    case 'joined-party':
      return {
        ...state, joining: null, party_id: e.party_id,
        party_history: [...state.party_history, { party_id: e.party_id, organization_id: e.organization_id, quest_id: null, outcome: null, day: e.day, joined_day: e.day, resolved_day: null }],
        moments: remember(state, { day: e.day, kind: 'party', text: `joined the party "${e.party_name}"` }),
      };
    case 'quest-endured': {
      const bonds = { ...state.bonds };
      for (const [other, delta] of Object.entries(e.bonds)) bonds[other] = Math.max(-100, Math.min(100, (bonds[other] ?? 0) + delta));
      // Each quest of a party is kept: the first fills the party's entry, later ones add their own.
      const last = state.party_history[state.party_history.length - 1];
      const joined = [...state.party_history].reverse().find((r) => r.party_id === state.party_id);
      const history = last && last.party_id === state.party_id && last.quest_id === null
        ? [...state.party_history.slice(0, -1), { ...last, quest_id: e.quest_id, outcome: e.outcome, day: e.day, joined_day: last.joined_day ?? last.day, resolved_day: e.day }]
        : [...state.party_history, {
          party_id: state.party_id ?? 0, organization_id: state.organization_id ?? 0, quest_id: e.quest_id, outcome: e.outcome, day: e.day,
          joined_day: joined ? joined.joined_day ?? null : null, resolved_day: e.day,
        }];
      let moments = remember(state, { day: e.day, kind: 'quest', text: `${e.outcome} on "${e.quest_title}"${e.experience ? `, +${e.experience} experience` : ''}` });
      if (e.levels_gained) moments = [...moments, { day: e.day, kind: 'level' as const, text: `reached level ${state.level + e.levels_gained}` }].slice(-MAX_MOMENTS);
      if (e.injury_days) moments = [...moments, { day: e.day, kind: 'injured' as const, text: `injured for ${e.injury_days} days` }].slice(-MAX_MOMENTS);
      if (e.died) moments = [...moments, { day: e.day, kind: 'died' as const, text: `died on "${e.quest_title}"` }].slice(-MAX_MOMENTS);
      return {
        ...state, bonds, party_history: history, moments,
        quests_endured: withApplied(state.quests_endured, e.quest_id, e.day),
        experience: state.experience + e.experience,
        level: state.level + e.levels_gained,
        strength: state.strength + e.strength_gained,
        quests_completed: state.quests_completed + (e.outcome === 'failure' ? 0 : 1),
        injured_until: e.injury_days ? e.day + e.injury_days : state.injured_until,
        status: e.died ? 'dead' : state.status,
        party_id: e.died ? null : state.party_id,
        organization_id: e.died ? null : state.organization_id,
      };
    }
    case 'recovered':
      return { ...state, injured_until: null, moments: remember(state, { day: e.day, kind: 'recovered', text: 'recovered from injuries' }) };
    case 'aged-out':
      return { ...state, status: 'dead', injured_until: null, moments: remember(state, { day: e.day, kind: 'died', text: 'died of old age' }) };
    case 'due-day-recorded':
      return state;
  }
}
