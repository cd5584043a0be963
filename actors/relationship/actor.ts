// The relationship actor: one per pair of organizations. A proposal of alliance comes
// here first; the relationship asks the pair's latest alliance whether it still binds
// them, then asks the new alliance to be proposed (both lower in the ask order), and
// records it. Proposals for one pair are handled one at a time, so only one can pass.
import type { Alliance } from '../alliance/messages';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { RelationshipCommand, RelationshipEvent, RelationshipState } from './messages';
import { decideProposeAlliance, evolve } from './rules';

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
  commands: { 'propose-alliance': true },
  initialState: null,
  evolve,
  project: () => [],
  chronicle: () => [],
  view: (s) => s,
  async handle(state, c, io): Promise<Outcome<RelationshipState, RelationshipEvent>> {
    const { proposer_id: p, counterparty_id: q } = c.alliance;
    const latest = await latestAlliance(state, io, p, q);
    const d = decideProposeAlliance(state, c.alliance, latest, c.day);
    if ('refusal' in d) return d;
    const proposed = await io.ask('alliance', c.alliance.id, { type: 'propose', alliance: c.alliance, agent_id: c.agent_id, day: c.day });
    if (!proposed.ok) return { refusal: proposed.refusal };
    return { events: d.events, reply: () => proposed.value };
  },
};
