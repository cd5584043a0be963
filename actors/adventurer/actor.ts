// The adventurer actor. Hiring, release and joining a party change the organization too:
// the adventurer asks it (the organization is lower in the ask order) and records its own
// side only once the organization has agreed.
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { OrganizationCommand } from '../organization/messages';
import type { Adventurer, AdventurerCommand, AdventurerEvent, AdventurerState, HireCommand } from './messages';
import { decideBeginEmployment, decideDay, decideEmploymentAnswer, decideHire, decideJoinParty, decideQuestOutcome, evolve } from './rules';
import type { Refusal } from '../result';
import { intentEnded, intentRow } from '../intents';

export const adventurerView = (a: Adventurer) => ({
  id: a.id, name: a.name, strength: a.strength, level: a.level, experience: a.experience,
  traits: [...a.traits], status: a.status, organization_id: a.organization_id, party_id: a.party_id,
  injured_until: a.injured_until, joined_day: a.joined_day, quests_completed: a.quests_completed,
  bonds: a.bonds, moments: a.moments, party_history: a.party_history,
});

function chronicle(e: AdventurerEvent, after: AdventurerState): HistoryEntry[] {
  if (!after) return [];
  const data = { adventurer_id: after.id };
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
      return [{ day: e.day, category: e.died ? 'death' : 'adventurer', agent_id: null, organization_ids: [], summary: `${after.name} ${parts.join(' and ')} after "${e.quest_title}"`, data: { ...data, quest_id: e.quest_id } }];
    }
    case 'recovered':
      return [{ day: e.day, category: 'adventurer', agent_id: null, organization_ids: [], summary: `${after.name} recovered from injuries`, data }];
    case 'employment-begun':
    case 'employment-abandoned':
      return []; // intent and undoing: the hiring or release itself is told when it happens
  }
}

function project(a: AdventurerState): ProjectionRow[] {
  return a ? [{
    kind: 'adventurer', id: a.id, status: a.status, organization_id: a.organization_id,
    due_day: a.status !== 'dead' ? a.injured_until : null, doc: adventurerView(a),
  }] : [];
}

/** The organization's side of a decision that involves it, asked only once the adventurer has agreed. */
async function withOrganization(
  decision: ReturnType<typeof decideHire>, io: EntityIO, organizationId: number, command: () => OrganizationCommand,
): Promise<Outcome<AdventurerState, AdventurerEvent>> {
  if ('refusal' in decision) return decision;
  const agreed = await io.ask('organization', organizationId, command());
  if (!agreed.ok) return { refusal: agreed.refusal };
  return decision;
}

/**
 * Hiring and release, a saga: the adventurer checks its side and records its intent
 * (`employment-begun`, naming the organization's side), then asks the organization and
 * records how it ended. A crash between the steps leaves the intent, which `resume`
 * finishes; the organization applies a named operation once.
 */
async function beginEmployment(state: AdventurerState, c: HireCommand, io: EntityIO): Promise<Outcome<AdventurerState, AdventurerEvent>> {
  if (state?.employment) {
    // One a crash cut short is finished first; this one is then decided afresh.
    const pending = await continueEmployment(state, io);
    if ('refusal' in pending && !pending.events?.length) return pending;
    return { events: pending.events ?? [], andThen: (s) => beginEmployment(s, c, io) };
  }
  const d = decideBeginEmployment(state, c);
  if ('refusal' in d) return d;
  return { events: d.events, andThen: (s) => continueEmployment(s, io) };
}

async function continueEmployment(state: AdventurerState, io: EntityIO): Promise<Outcome<AdventurerState, AdventurerEvent>> {
  const m = state?.employment;
  if (!m) return { events: [] };
  const agreed = await io.ask('organization', m.organization_id, {
    type: m.change === 'hire' ? 'employ' : 'unemploy', agent_id: m.agent_id, day: m.day, adventurer_id: state!.id, op: m.op,
  });
  const d = decideEmploymentAnswer(state, agreed);
  if (d === null) return { refusal: (agreed as { refusal: Refusal }).refusal }; // unknown: the intent stays
  if ('refusal' in d) return d;
  return agreed.ok ? { events: d.events } : { events: d.events, refusal: agreed.refusal };
}

export const adventurerKind: EntityKind<AdventurerState, AdventurerCommand, AdventurerEvent> = {
  kind: 'adventurer',
  rank: RANK.adventurer,
  commands: { seed: true, status: true, hire: true, release: true, 'join-party': true, 'quest-outcome': true, freed: true, 'day-began': true, resume: true },
  initialState: null,
  evolve,
  project,
  chronicle,
  // A hiring or release is an intent until it ends (actors/intents.ts).
  eventRows: (e, after) => {
    if (!after) return [];
    if (e.type === 'employment-begun') return [intentRow({ kind: 'adventurer', id: after.id, intent: e.change, day: e.day, organization_id: e.organization_id })];
    if (e.type === 'employment-abandoned' || ((e.type === 'hired' || e.type === 'released') && !after.employment)) return [intentEnded('adventurer', after.id)];
    return [];
  },
  view: (s) => (s ? adventurerView(s) : null),
  async handle(state, c, io) {
    switch (c.type) {
      case 'seed': return state ? { events: [] } : { events: [{ type: 'appeared', day: c.day, adventurer: c.adventurer }] };
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'adventurer not found' } };
      case 'hire':
      case 'release':
        return beginEmployment(state, c, io);
      case 'resume': return continueEmployment(state, io);
      case 'join-party':
        return withOrganization(decideJoinParty(state, c), io, c.organization_id, () => ({
          type: 'add-party-member', agent_id: c.agent_id, day: c.day, party_id: c.party_id, adventurer_id: state!.id,
        }));
      case 'quest-outcome': return decideQuestOutcome(state, c);
      case 'freed':
        if (!state || state.status !== 'employed' || state.organization_id !== c.organization_id) return { events: [] };
        return { events: [{ type: 'released', day: c.day, organization_id: c.organization_id, agent_id: null, reason: c.reason, organization_name: (await io.read.row<{ name: string }>('organization', c.organization_id))?.name }] };
      case 'day-began': return decideDay(state, c.day);
    }
  },
};
