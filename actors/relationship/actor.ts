// The relationship actor: one per pair of organizations. A proposal of alliance comes
// here first; the relationship asks the pair's latest alliance whether it still binds
// them, then asks the new alliance to be proposed (both lower in the ask order), and
// records it. Proposals for one pair are handled one at a time, so only one can pass.
import type { Alliance } from '../alliance/messages';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { RelationshipCommand, RelationshipEvent, RelationshipState } from './messages';
import { decideBeginOpening, decideOpeningAnswer, evolve } from './rules';
import type { Refusal } from '../result';
import { intentEnded, intentRow } from '../intents';

/**
 * A proposal is a saga: once the pair allows it, the relationship records its intent
 * (`alliance-opening`), asks the alliance to be proposed (the same proposal asked again
 * answers what it is), and records `alliance-opened`, or `alliance-opening-abandoned`
 * when the alliance refused. A crash between the steps leaves the intent, which `resume`
 * (or the pair's next proposal) finishes, so no second alliance can slip in meanwhile.
 */
async function continueOpening(state: RelationshipState, io: EntityIO): Promise<Outcome<RelationshipState, RelationshipEvent>> {
  const o = state?.opening;
  if (!o) return { events: [] };
  const proposed = await io.ask('alliance', o.alliance.id, { type: 'propose', alliance: o.alliance, agent_id: o.agent_id, day: o.day });
  const d = decideOpeningAnswer(state, proposed);
  if (d === null) return { refusal: (proposed as { refusal: Refusal }).refusal }; // unknown: the intent stays
  if ('refusal' in d) return d;
  return proposed.ok ? { events: d.events, reply: () => proposed.value } : { events: d.events, refusal: proposed.refusal };
}

/** The pair's latest alliance. A pair whose alliances predate relationships is found in the read model once. */
async function latestAlliance(state: RelationshipState, io: EntityIO, a: number, b: number): Promise<{ id: number; status: string } | null> {
  if (state?.alliance_id != null) {
    const r = await io.ask<Alliance, 'alliance'>('alliance', state.alliance_id, { type: 'status' });
    return r.ok && r.value ? { id: r.value.id, status: r.value.status } : null;
  }
  if (state) return null;
  const rows = (await io.read.list<Alliance>('liveAlliancesProposedBy', a)).filter((x) => x.counterparty_id === b)
    .concat((await io.read.list<Alliance>('liveAlliancesProposedBy', b)).filter((x) => x.counterparty_id === a));
  return rows.length ? { id: rows[0].id, status: rows[0].status } : null;
}

export const relationshipKind: EntityKind<RelationshipState, RelationshipCommand, RelationshipEvent> = {
  kind: 'relationship',
  rank: RANK.relationship,
  commands: { 'propose-alliance': true, resume: true },
  initialState: null,
  evolve,
  project: () => [],
  chronicle: () => [],
  // A proposal is an intent until it ends (actors/intents.ts); the intent's id is the pair's key.
  eventRows: (e, after) => {
    const key = e.organization_ids.join('-');
    return e.type === 'alliance-opening' ? [intentRow({ kind: 'relationship', id: key, intent: 'proposal', day: e.day })] : [intentEnded('relationship', key)];
  },
  view: (s) => s,
  async handle(state, c, io): Promise<Outcome<RelationshipState, RelationshipEvent>> {
    if (c.type === 'resume') return continueOpening(state, io);
    if (state?.opening) {
      // A proposal a crash cut short is finished first; this one is then decided afresh.
      const finishing = state.opening;
      const pending = await continueOpening(state, io);
      if ('refusal' in pending && !pending.events?.length) return pending;
      // Asked again for the same proposal (a caller retrying after a 503), it answers with its end.
      if (finishing.alliance.id === c.alliance.id) return pending;
      return { events: pending.events ?? [], andThen: (s) => relationshipKind.handle(s, c, io) };
    }
    const { proposer_id: p, counterparty_id: q } = c.alliance;
    const latest = await latestAlliance(state, io, p, q);
    const d = decideBeginOpening(state, c.alliance, latest, c.day, c.agent_id);
    if ('refusal' in d) return d;
    return { events: d.events, andThen: (s) => continueOpening(s, io) };
  },
};
