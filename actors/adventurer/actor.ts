// The adventurer actor. Hiring, release and joining a party change the organization too:
// the adventurer records its intent, asks the organization (lower in the ask order) and
// records its own side once the organization has agreed (see begin).
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import { followedBy, type EntityIO, type EntityKind, type Outcome } from '../entity';
import { RANK } from '../order';
import type { Adventurer, AdventurerCommand, AdventurerEvent, AdventurerState, HireCommand, JoinPartyCommand } from './messages';
import { careerOver, decideRecordDueDay, hiringFee, decideBeginEmployment, decideBeginJoining, decideDay, decideEmploymentAnswer, decideRetirement, dueDay, decideJoiningAnswer, decideQuestOutcome, evolve } from './rules';
import type { Refusal } from '../result';
import { intentEnded, intentRow } from '../intents';
import { endReason, endedNow } from '../organization/ending';

export const adventurerView = (a: Adventurer) => ({
  id: a.id, name: a.name, strength: a.strength, level: a.level, experience: a.experience,
  traits: [...a.traits], status: a.status, organization_id: a.organization_id, party_id: a.party_id,
  injured_until: a.injured_until, joined_day: a.joined_day, quests_completed: a.quests_completed,
  bonds: a.bonds, moments: a.moments, party_history: a.party_history, hiring_fee: hiringFee(a),
  // The day its career ends (null for one recorded before careers): then it leaves its organization, once home, and dies of old age.
  career_end_day: a.career_end_day ?? null,
});

function chronicle(e: AdventurerEvent, after: AdventurerState, before?: AdventurerState): HistoryEntry[] {
  if (!after) return [];
  const data = { adventurer_id: after.id };
  // What befalls an employed adventurer is part of its organization's story (GET /api/events?organization_id=...); one who died has just left it.
  const employer = after.organization_id ?? before?.organization_id ?? null;
  const employers = employer === null ? [] : [employer];
  switch (e.type) {
    case 'appeared':
      return [{ day: e.day, category: 'adventurer', agent_id: null, organization_ids: [], summary: `${after.name} arrived looking for work (strength ${after.strength}, ${after.traits.join(' and ')})`, data }];
    case 'hired':
      return [{ day: e.day, category: 'adventurer', agent_id: e.agent_id, organization_ids: [e.organization_id], summary: `${after.name} was hired by ${e.organization_name ?? `organization ${e.organization_id}`}`, data }];
    case 'released':
      return [{ day: e.day, category: 'adventurer', agent_id: e.agent_id, organization_ids: [e.organization_id], summary: `${after.name} left ${e.organization_name ?? `organization ${e.organization_id}`} (${e.reason})`, data }];
    case 'joined-party':
      return [{ day: e.day, category: 'party', agent_id: e.agent_id, organization_ids: [e.organization_id], summary: `${after.name} joined the party "${e.party_name}"`, data: { ...data, party_id: e.party_id } }];
    case 'quest-endured': {
      const parts = [e.died ? 'died' : e.injury_days ? `was injured for ${e.injury_days} days` : 'came back unhurt'];
      if (e.levels_gained) parts.push(`reached level ${after.level}`);
      return [{ day: e.day, category: e.died ? 'death' : 'adventurer', agent_id: null, organization_ids: employers, summary: `${after.name} ${parts.join(' and ')} after "${e.quest_title}"`, data: { ...data, quest_id: e.quest_id } }];
    }
    case 'recovered':
      return [{ day: e.day, category: 'adventurer', agent_id: null, organization_ids: employers, summary: `${after.name} recovered from injuries`, data }];
    case 'due-day-recorded':
      return []; // bookkeeping of the read model
    case 'aged-out':
      // One that has just left its organization at the end of its career ends that organization's story of it too.
      return [{ day: e.day, category: 'death', agent_id: null, organization_ids: e.organization_id === undefined ? [] : [e.organization_id], summary: `${after.name} died of old age`, data: { ...data, cause: 'old age' } }];
    case 'employment-begun':
    case 'employment-abandoned':
    case 'joining-begun':
    case 'joining-abandoned':
      return []; // intent and undoing: the hiring, release or joining itself is told when it happens
  }
}

function project(a: AdventurerState): ProjectionRow[] {
  return a ? [{
    kind: 'adventurer', id: a.id, status: a.status, organization_id: a.organization_id,
    due_day: dueDay(a), doc: adventurerView(a),
  }] : [];
}

/**
 * Hiring, release and joining a party are sagas: the adventurer checks its side and
 * records its intent (`employment-begun` or `joining-begun`, naming the organization's
 * side), then asks the organization and records how it ended. A crash between the steps
 * leaves the intent, which `resume` (or the adventurer's next command) finishes; the
 * organization applies a named operation once. One at a time: a command that finds one
 * under way finishes it first, then is decided afresh.
 */
async function begin(state: AdventurerState, c: HireCommand | JoinPartyCommand, io: EntityIO): Promise<Outcome<AdventurerState, AdventurerEvent>> {
  const d = c.type === 'join-party' ? decideBeginJoining(state, c) : decideBeginEmployment(state, c);
  if ('refusal' in d) return d;
  return { events: d.events, andThen: (s) => continuePending(s, io) };
}

/** Goes on with the hiring, release or joining under way; nothing when there is none. */
async function continuePending(state: AdventurerState, io: EntityIO): Promise<Outcome<AdventurerState, AdventurerEvent>> {
  const m = state?.employment;
  const j = state?.joining;
  if (!m && !j) return { events: [] };
  const agreed = m
    ? await io.ask('organization', m.organization_id, {
      type: m.change === 'hire' ? 'employ' : 'unemploy', agent_id: m.agent_id, day: m.day, adventurer_id: state!.id, op: m.op, adventurer_name: state!.name,
      ...(m.fee === undefined ? {} : { fee: m.fee }), ...(m.career_over ? { career_over: true } : {}),
    })
    : await io.ask('organization', j!.organization_id, {
      type: 'add-party-member', agent_id: j!.agent_id, day: j!.day, party_id: j!.party_id, adventurer_id: state!.id, op: j!.op,
    });
  const d = m ? decideEmploymentAnswer(state, agreed) : decideJoiningAnswer(state, agreed);
  if (d === null) return { refusal: (agreed as { refusal: Refusal }).refusal }; // unknown: the intent stays
  if ('refusal' in d) return d;
  if (!agreed.ok) return { events: d.events, refusal: agreed.refusal };
  if (m?.change === 'hire') return { events: d.events, andThen: (s) => confirmEmployer(s, io, m.organization_id) };
  // Gone from its organization at the end of its career, it dies of old age (decideDay).
  if (m?.career_over) return { events: d.events, andThen: async (s) => decideDay(s, m.day, m.organization_id) };
  return { events: d.events };
}

/**
 * The day of an adventurer: one employed whose career is over leaves its organization if it
 * is at home (its party, if any, not away on a quest: read from the party's row; the
 * organization checks it again), then dies; otherwise wounds heal, or one out of work
 * past its career dies.
 */
async function settleDay(state: AdventurerState, day: number, io: EntityIO): Promise<Outcome<AdventurerState, AdventurerEvent>> {
  if (state?.status === 'employed' && state.organization_id !== null && careerOver(state, day)) {
    const party = state.party_id === null ? null : await io.read.row<{ status: string }>('party', state.party_id);
    const organization = await io.read.row<{ name: string }>('organization', state.organization_id);
    const d = decideRetirement(state, day, party?.status === 'dispatched', organization?.name);
    if ('refusal' in d) return d;
    if (d.events.length) return { events: d.events, andThen: (s) => continuePending(s, io) };
  }
  return decideDay(state, day);
}

/**
 * A hired adventurer reads whether its new organization has ended (endedNow). One that ended
 * meanwhile may have had the follow-up of its end list its employees before this hiring
 * could be seen; the adventurer then goes free as that follow-up would have set it free.
 */
async function confirmEmployer(state: AdventurerState, io: EntityIO, organizationId: number): Promise<Outcome<AdventurerState, AdventurerEvent>> {
  if (!state) return { events: [] };
  const ended = await endedNow(io, organizationId);
  if (!ended) return { events: [] };
  return adventurerKind.handle(state, { type: 'freed', organization_id: organizationId, day: ended.day, reason: endReason(ended.how) }, io);
}

/** A command that finds an action under way finishes it first (its refusal, if any, is the old action's own), then is decided. */
async function afterPending(state: AdventurerState, c: AdventurerCommand, io: EntityIO): Promise<Outcome<AdventurerState, AdventurerEvent>> {
  const pending = await continuePending(state, io);
  if ('refusal' in pending && !pending.events?.length) return pending;
  return followedBy(pending, (s) => adventurerKind.handle(s, c, io));
}

export const adventurerKind: EntityKind<AdventurerState, AdventurerCommand, AdventurerEvent> = {
  kind: 'adventurer',
  rank: RANK.adventurer,
  commands: { seed: true, status: true, hire: true, release: true, 'join-party': true, 'quest-outcome': true, freed: true, 'day-began': true, resume: true, 'record-due-day': true },
  initialState: null,
  evolve,
  project,
  chronicle,
  // A hiring, release or joining is an intent until it ends (actors/intents.ts).
  eventRows: (e, after) => {
    if (!after) return [];
    if (e.type === 'employment-begun') return [intentRow({ kind: 'adventurer', id: after.id, intent: e.change, day: e.day, organization_id: e.organization_id })];
    if (e.type === 'joining-begun') return [intentRow({ kind: 'adventurer', id: after.id, intent: 'joining', day: e.day, organization_id: e.organization_id })];
    if (e.type === 'employment-abandoned' || e.type === 'joining-abandoned') return [intentEnded('adventurer', after.id)];
    if ((e.type === 'hired' || e.type === 'released' || e.type === 'joined-party') && !after.employment && !after.joining) return [intentEnded('adventurer', after.id)];
    return [];
  },
  view: (s) => (s ? adventurerView(s) : null),
  async handle(state, c, io) {
    if ((state?.employment || state?.joining) && c.type !== 'status' && c.type !== 'seed' && c.type !== 'resume') return afterPending(state, c, io);
    switch (c.type) {
      case 'seed': return state ? { events: [] } : { events: [{ type: 'appeared', day: c.day, adventurer: c.adventurer }] };
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'adventurer not found' } };
      case 'hire':
      case 'release':
      case 'join-party':
        return begin(state, c, io);
      case 'resume': return continuePending(state, io);
      case 'quest-outcome': return decideQuestOutcome(state, c);
      case 'freed':
        if (!state || state.status !== 'employed' || state.organization_id !== c.organization_id) return { events: [] };
        return { events: [{ type: 'released', day: c.day, organization_id: c.organization_id, agent_id: null, reason: c.reason, organization_name: (await io.read.row<{ name: string }>('organization', c.organization_id))?.name }] };
      case 'day-began': return settleDay(state, c.day, io);
      case 'record-due-day': return decideRecordDueDay(state, c.day);
    }
  },
};
