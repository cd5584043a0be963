// The alliance actor. Proposals arrive through the pair's relationship actor, which keeps
// one proposed or active alliance per pair. Acceptance raises trust on both sides; a member ending an active
// alliance lowers it (core rule 14); each is a saga (see continueChange).
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { Alliance, AllianceCommand, AllianceEvent, AllianceState } from './messages';
import { TRUST_ON_ALLIANCE, breakTrust, decideBeginChange, decideChangeDone, decideMemberEnded, decidePropose, evolve, trustOp } from './rules';
import { intentEnded, intentRow } from '../intents';
import { firstEnded } from '../organization/ending';

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
    case 'change-begun': return []; // the intent: the acceptance or end is told when it is recorded
  }
}

const allianceView = ({ changing: _c, ...a }: Alliance) => ({ ...a });

// The row's organization is the proposer, its agent_id column the counterparty.
const project = (a: AllianceState): ProjectionRow[] =>
  (a ? [{ kind: 'alliance', id: a.id, status: a.status, organization_id: a.proposer_id, agent_id: a.counterparty_id, doc: allianceView(a) }] : []);

/**
 * Accepting an alliance and a member's ending it are sagas: the alliance records its
 * intent (`change-begun`), the trust of each side moves (named movements, so one asked
 * again moves nothing twice), then it records `accepted` or `ended`. Nothing to undo (an
 * ended organization takes trust all the same): a side that cannot be reached leaves it
 * pending (503), finished by `resume` or the alliance's next command.
 */
async function continueChange(state: AllianceState, io: EntityIO): Promise<Outcome<AllianceState, AllianceEvent>> {
  const ch = state?.changing;
  if (!ch) return { events: [] };
  const a = state!;
  const delta = ch.change === 'accept' ? TRUST_ON_ALLIANCE : breakTrust(a.accepted_day, ch.day);
  for (const [me, other] of [[a.proposer_id, a.counterparty_id], [a.counterparty_id, a.proposer_id]]) {
    const moved = await io.ask('organization', me, { type: 'transfer', day: ch.day, reason: `alliance ${a.id}`, gold: 0, holdings: {}, trust: { [String(other)]: delta }, even_if_ended: true, op: trustOp(a.id, ch.change) });
    if (!moved.ok && moved.refusal.status === 503) return { refusal: moved.refusal };
  }
  const d = decideChangeDone(state);
  return 'refusal' in d ? d : { events: d.events };
}

/**
 * A proposal is recorded, then it reads whether either member has been dissolved (endedNow).
 * One dissolved meanwhile may have had its follow-up list its alliances before this one could
 * be seen (the counterparty was checked in the read model before the record); the alliance
 * then ends as that follow-up would have ended it. (A bankrupt member's alliances stand: only
 * dissolution ends them.)
 */
async function endIfDissolvedMeanwhile(state: AllianceState, io: EntityIO): Promise<Outcome<AllianceState, AllianceEvent>> {
  if (!state) return { events: [] };
  const ended = await firstEnded(io, [state.proposer_id, state.counterparty_id], (how) => how === 'dissolution');
  if (!ended) return { events: [] };
  const d = decideMemberEnded(state, ended.id, ended.day);
  return 'refusal' in d ? { events: [] } : { events: d.events };
}

export const allianceKind: EntityKind<AllianceState, AllianceCommand, AllianceEvent> = {
  kind: 'alliance',
  rank: RANK.alliance,
  commands: { propose: true, accept: true, end: true, 'member-ended': true, status: true, resume: true },
  initialState: null,
  evolve,
  project,
  chronicle,
  view: (s) => (s ? allianceView(s) : null),
  // An acceptance or an end by a member is an intent until it ends (actors/intents.ts).
  eventRows: (e, after) => {
    if (!after) return [];
    if (e.type === 'change-begun') return [intentRow({ kind: 'alliance', id: after.id, intent: e.changing.change === 'accept' ? 'acceptance' : 'ending', day: e.day })];
    if (e.type === 'accepted' || e.type === 'ended') return [intentEnded('alliance', after.id)];
    return [];
  },
  async handle(state, c, io): Promise<Outcome<AllianceState, AllianceEvent>> {
    if (c.type === 'resume') return continueChange(state, io);
    if (state?.changing && c.type !== 'status') {
      // A change a crash cut short is finished first; the command is then decided afresh.
      const finishing = state.changing;
      const pending = await continueChange(state, io);
      if ('refusal' in pending) return pending;
      // Asked again for what it was doing (a caller retrying after a 503), it answers with the end.
      if ((c.type === 'accept' || c.type === 'end') && c.type === finishing.change && c.organization_id === finishing.organization_id) return pending;
      return { events: pending.events, andThen: (s) => allianceKind.handle(s, c, io) };
    }
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
        return { events: d.events, andThen: (s) => endIfDissolvedMeanwhile(s, io) };
      }
      case 'accept':
      case 'end': {
        const d = decideBeginChange(state, c);
        if ('refusal' in d) return d;
        const mine = await io.ask('organization', c.organization_id, { type: 'control', agent_id: c.agent_id });
        if (!mine.ok) return { refusal: mine.refusal };
        if (c.type === 'accept') {
          // A bankrupt proposer's proposal outlives it (core rule 7 ends alliances on dissolution only), but no one may bind it to a new alliance.
          const proposer = await io.read.row<{ status: string }>('organization', state!.proposer_id);
          if (proposer && proposer.status !== 'active') {
            return { refusal: { status: 409, detail: `organization ${state!.proposer_id} is ${proposer.status}; its proposal can no longer be accepted (decline it with POST /api/alliances/${state!.id}/end)` } };
          }
        }
        // A proposal withdrawn or declined ends at once; an acceptance or the end of an active alliance moves trust first.
        if (!d.events.some((e) => e.type === 'change-begun')) return { events: d.events };
        return { events: d.events, andThen: (s) => continueChange(s, io) };
      }
      case 'member-ended': return decideMemberEnded(state, c.organization_id, c.day);
    }
  },
};
