// The alliance actor. Proposals arrive through the pair's relationship actor, which keeps
// one proposed or active alliance per pair. Acceptance raises trust on both sides; a member ending an active
// alliance lowers it (core rule 14).
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { Alliance, AllianceCommand, AllianceEvent, AllianceState } from './messages';
import { TRUST_ON_ALLIANCE, TRUST_ON_BREAK, decideAction, decideMemberEnded, decidePropose, evolve } from './rules';

/** The organizations by the names they had when the alliance was proposed. */
const proposerOf = (a: Alliance) => a.proposer_name ?? `organization ${a.proposer_id}`;
const counterpartyOf = (a: Alliance) => a.counterparty_name ?? `organization ${a.counterparty_id}`;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function chronicle(e: AllianceEvent, after: AllianceState): HistoryEntry[] {
  if (!after) return [];
  const base = { day: e.day, agent_id: e.agent_id, organization_ids: [after.proposer_id, after.counterparty_id], category: 'alliance', data: { alliance_id: after.id } };
  switch (e.type) {
    case 'proposed': return [{ ...base, summary: `${capital(proposerOf(after))} proposed an alliance to ${counterpartyOf(after)}` }];
    case 'accepted': return [{ ...base, summary: `${capital(proposerOf(after))} and ${counterpartyOf(after)} are now allied` }];
    case 'ended': return [{ ...base, summary: `The alliance of ${proposerOf(after)} and ${counterpartyOf(after)} ended (${e.reason})` }];
  }
}

// The row's organization is the proposer, its agent_id column the counterparty.
const project = (a: AllianceState): ProjectionRow[] =>
  (a ? [{ kind: 'alliance', id: a.id, status: a.status, organization_id: a.proposer_id, agent_id: a.counterparty_id, doc: { ...a } }] : []);

async function trustBoth(io: EntityIO, a: Alliance, day: number, delta: number): Promise<void> {
  for (const [me, other] of [[a.proposer_id, a.counterparty_id], [a.counterparty_id, a.proposer_id]]) {
    await io.ask('organization', me, { type: 'transfer', day, reason: `alliance ${a.id}`, gold: 0, holdings: {}, trust: { [String(other)]: delta }, even_if_ended: true });
  }
}

export const allianceKind: EntityKind<AllianceState, AllianceCommand, AllianceEvent> = {
  kind: 'alliance',
  rank: RANK.alliance,
  commands: { propose: true, accept: true, end: true, 'member-ended': true, status: true },
  initialState: null,
  evolve,
  project,
  chronicle,
  view: (s) => (s ? { ...s } : null),
  async handle(state, c, io): Promise<Outcome<AllianceState, AllianceEvent>> {
    switch (c.type) {
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'alliance not found' } };
      case 'propose': {
        // The pair's relationship, which asked for this proposal, has made sure no other alliance binds them.
        const { proposer_id: p, counterparty_id: q } = c.alliance;
        const d = decidePropose(state, c.alliance, c.agent_id, c.day);
        if ('refusal' in d) return d;
        const mine = await io.ask('organization', p, { type: 'control', agent_id: c.agent_id });
        if (!mine.ok) return { refusal: mine.refusal };
        const other = await io.read.row<{ status: string }>('organization', q);
        if (!other) return { refusal: { status: 404, detail: `organization ${q} not found` } };
        if (other.status !== 'active') return { refusal: { status: 409, detail: `organization ${q} is ${other.status}` } };
        return d;
      }
      case 'accept':
      case 'end': {
        const d = decideAction(state, c);
        if ('refusal' in d) return d;
        const mine = await io.ask('organization', c.organization_id, { type: 'control', agent_id: c.agent_id });
        if (!mine.ok) return { refusal: mine.refusal };
        await trustBoth(io, state!, c.day, c.type === 'accept' ? TRUST_ON_ALLIANCE : TRUST_ON_BREAK);
        return d;
      }
      case 'member-ended': return decideMemberEnded(state, c.organization_id, c.day);
    }
  },
};
