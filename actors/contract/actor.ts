// The contract actor. Fulfilment moves goods and gold between two organizations (lower in
// the ask order): both sides are checked, then the proposer hands over the goods, the
// counterparty pays and receives them, and the proposer is paid (see fulfil). A refused
// fulfilment changes nothing; the contract stays accepted. When one of its organizations
// ends, a proposed or accepted contract closes with it (`party-ended`, asked by the
// follow-up of the end), as rejected with its `end_reason`; nothing moves.
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { Refusal } from '../result';
import type { Contract, ContractAction, ContractCommand, ContractEvent, ContractState } from './messages';
import { TRUST_ON_FULFIL, TRUST_ON_REJECT, decideAction, decideBeginFulfilment, decideBeginRejection, decidePartyEnded, decidePropose, decideRecordRow, evolve, fulfilmentOp } from './rules';
import { intentEnded, intentRow } from '../intents';
import { endedNow, firstEnded } from '../organization/ending';

export const contractView = ({ fulfilment: _f, fulfilment_attempts: _a, rejection: _r, ...c }: Contract) => ({ ...c, withdrawn: c.withdrawn ?? false, end_reason: c.end_reason ?? null });

const describe = (c: Contract) => `"${c.title}" (${c.value} gold${c.resource ? ` for ${c.quantity} ${c.resource}` : ''})`;

/** The organizations by the names they had when the contract was proposed. */
const proposerOf = (c: Contract) => c.proposer_name ?? `organization ${c.proposer_id}`;
const counterpartyOf = (c: Contract) => c.counterparty_name ?? `organization ${c.counterparty_id}`;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function chronicle(e: ContractEvent, after: ContractState): HistoryEntry[] {
  if (!after) return [];
  const base = { day: e.day, agent_id: e.agent_id, organization_ids: [after.proposer_id, after.counterparty_id], data: { contract_id: after.id } };
  switch (e.type) {
    case 'proposed': return [{ ...base, category: 'contract', summary: `${capital(proposerOf(after))} proposed the contract ${describe(after)} to ${counterpartyOf(after)}` }];
    case 'accepted': return [{ ...base, category: 'contract', summary: `${capital(counterpartyOf(after))} accepted the contract ${describe(after)}` }];
    case 'rejected': return [{ ...base, category: 'contract', summary: `${capital(counterpartyOf(after))} rejected the contract ${describe(after)}` }];
    case 'withdrawn': return [{ ...base, category: 'contract', summary: `${capital(proposerOf(after))} withdrew the contract ${describe(after)} it had proposed to ${counterpartyOf(after)}` }];
    case 'closed':
      return [{
        ...base, category: 'contract', summary: `The contract ${describe(after)} between ${proposerOf(after)} and ${counterpartyOf(after)} was closed unfulfilled (${e.reason}); nothing moved`,
        data: { contract_id: after.id, ended_organization_id: e.organization_id, reason: e.reason },
      }];
    case 'fulfilment-begun':
    case 'fulfilment-undoing':
    case 'fulfilment-abandoned':
    case 'rejection-begun':
    case 'row-recorded':
      return []; // intents, undoing and a row written again: each side's own record tells what moved; the rejection is told when it is recorded
    case 'fulfilled':
      // Each side's own record carries the gold and goods it moved (its ledger); this one says what was agreed.
      return [{ ...base, category: 'contract', summary: `The contract ${describe(after)} was fulfilled: ${counterpartyOf(after)} paid ${after.value} gold to ${proposerOf(after)}${after.resource ? ` for ${after.quantity} ${after.resource}` : ''}` }];
  }
}

// Contracts are listed for each party: the row's organization is the proposer, its agent_id column the counterparty.
const project = (c: ContractState): ProjectionRow[] =>
  (c ? [{ kind: 'contract', id: c.id, status: c.status, organization_id: c.proposer_id, agent_id: c.counterparty_id, doc: contractView(c) }] : []);

const control = (io: EntityIO, organizationId: number, agentId: number) =>
  io.ask('organization', organizationId, { type: 'control', agent_id: agentId });

type Movement = { gold: number; holdings: Record<string, number>; trust: Record<string, number>; work?: boolean; evenIfEnded?: boolean; inPerson?: { location_id: string | null }; op: string };

const move = (io: EntityIO, type: 'transfer' | 'check-transfer', organizationId: number, day: number, reason: string, m: Movement) =>
  io.ask<{ location_id: string }, 'organization'>('organization', organizationId, {
    type, day, reason, gold: m.gold, holdings: m.holdings, trust: m.trust, even_if_ended: m.evenIfEnded ?? false,
    ...(m.inPerson ? { in_person: m.inPerson } : {}), op: m.op, ...(m.work ? { work: true } : {}),
  });

/**
 * Fulfilment, a saga: both sides are checked first (the proposer has the goods, the
 * counterparty the gold, and for goods both stand at the same place, neither on the road),
 * so an ordinary refusal records nothing. Then the contract records its intent
 * (`fulfilment-begun`, numbered), and the proposer hands over the goods, the counterparty
 * pays and receives them, the proposer is paid: each movement named after the contract
 * and the attempt, so one asked again moves nothing twice; then the contract records
 * `fulfilled`. Should the counterparty refuse to pay after the check (its own agent spent
 * the gold meanwhile), the contract records that it is undoing, the goods go back, and it
 * records `fulfilment-abandoned` and answers the refusal. A crash between the steps leaves
 * the intent, which `resume` (or the contract's next command) finishes.
 *
 * Goods change hands in person; gold travels by letter and needs neither.
 */
async function checkFulfilment(io: EntityIO, c: Contract, day: number): Promise<{ refusal: Refusal } | { location_id: string | null }> {
  const reason = `the contract "${c.title}"`;
  const deliver = deliverOf(c, 0);
  const canDeliver = await move(io, 'check-transfer', c.proposer_id, day, reason, deliver);
  if (!canDeliver.ok) return { refusal: canDeliver.refusal };
  const locationId = c.resource ? canDeliver.value.location_id : null;
  const canPay = await move(io, 'check-transfer', c.counterparty_id, day, reason, payOf(c, 0, locationId));
  if (!canPay.ok) return { refusal: canPay.refusal };
  return { location_id: locationId };
}

const deliverOf = (c: Contract, attempt: number): Movement => ({
  gold: 0, holdings: c.resource ? { [c.resource]: -c.quantity } : {}, trust: {}, inPerson: c.resource ? { location_id: null } : undefined, op: fulfilmentOp(c.id, attempt, 'delivered'),
});
const payOf = (c: Contract, attempt: number, locationId: string | null): Movement => ({
  gold: -c.value, holdings: c.resource ? { [c.resource]: c.quantity } : {}, trust: { [String(c.proposer_id)]: TRUST_ON_FULFIL }, work: true,
  inPerson: c.resource ? { location_id: locationId } : undefined, op: fulfilmentOp(c.id, attempt, 'paid'),
});

async function continueFulfilment(state: ContractState, io: EntityIO): Promise<Outcome<ContractState, ContractEvent>> {
  const f = state?.fulfilment;
  if (!f) return { events: [] };
  const c = state!;
  const reason = `the contract "${c.title}"`;
  const unknown = (r: { refusal: Refusal }): Outcome<ContractState, ContractEvent> => ({ refusal: r.refusal.status === 503 ? r.refusal : { status: 503, detail: `the world could not finish this action in time; read the current state before trying again (contract ${c.id}: ${r.refusal.detail})` } });
  if (f.undoing) {
    const returned = await move(io, 'transfer', c.proposer_id, f.day, `${reason} (goods returned)`, {
      gold: 0, holdings: c.resource ? { [c.resource]: c.quantity } : {}, trust: {}, evenIfEnded: true, op: fulfilmentOp(c.id, f.attempt, 'returned'),
    });
    if (!returned.ok) return unknown(returned);
    return { events: [{ type: 'fulfilment-abandoned', day: f.day, agent_id: f.agent_id, reason: f.reason ?? 'the counterparty could not pay' }], refusal: { status: 409, detail: f.reason ?? 'the counterparty could not pay' } };
  }
  const delivered = await move(io, 'transfer', c.proposer_id, f.day, reason, deliverOf(c, f.attempt));
  if (!delivered.ok) {
    if (delivered.refusal.status === 503) return unknown(delivered);
    return { events: [{ type: 'fulfilment-abandoned', day: f.day, agent_id: f.agent_id, reason: delivered.refusal.detail }], refusal: delivered.refusal };
  }
  const paid = await move(io, 'transfer', c.counterparty_id, f.day, reason, payOf(c, f.attempt, f.location_id));
  if (!paid.ok) {
    if (paid.refusal.status === 503) return unknown(paid);
    // The goods go back; recorded first, so that a crash meanwhile never pays after all.
    return { events: [{ type: 'fulfilment-undoing', day: f.day, agent_id: f.agent_id, reason: paid.refusal.detail }], andThen: (s) => continueFulfilment(s, io) };
  }
  const received = await move(io, 'transfer', c.proposer_id, f.day, reason, {
    gold: c.value, holdings: {}, trust: { [String(c.counterparty_id)]: TRUST_ON_FULFIL }, work: true, evenIfEnded: true, op: fulfilmentOp(c.id, f.attempt, 'received'),
  });
  if (!received.ok) return unknown(received);
  return { events: [{ type: 'fulfilled', day: f.day, agent_id: f.agent_id, organization_id: f.organization_id }] };
}

/** Trust on a rejection: a movement of trust alone, named so a retried rejection cools nothing twice. */
const cool = (io: EntityIO, organizationId: number, other: number, c: Contract, day: number) =>
  move(io, 'transfer', organizationId, day, `contract ${c.id} rejected`, { gold: 0, holdings: {}, trust: { [String(other)]: TRUST_ON_REJECT }, evenIfEnded: true, op: `contract:${c.id}:rejected` });

/**
 * Rejection, a saga: the contract records its intent (`rejection-begun`), the trust of
 * each side cools (named movements, so one asked again cools nothing twice), then the
 * contract records `rejected`. A side that cannot be reached leaves the intent pending
 * (503), finished by `resume` or the contract's next command; a side that refuses outright
 * (none is expected: an ended organization takes it too) cools nothing, as before.
 */
async function continueRejection(state: ContractState, io: EntityIO): Promise<Outcome<ContractState, ContractEvent>> {
  const r = state?.rejection;
  if (!r) return { events: [] };
  const c = state!;
  for (const [side, other] of [[c.proposer_id, c.counterparty_id], [c.counterparty_id, c.proposer_id]]) {
    const cooled = await cool(io, side, other, c, r.day);
    if (!cooled.ok && cooled.refusal.status === 503) return { refusal: cooled.refusal };
  }
  return { events: [{ type: 'rejected', day: r.day, agent_id: r.agent_id }] };
}

/**
 * An action on a live contract whose other organization has ended, before the follow-up
 * of that end closed it (it runs right after the end, but a crash or a failed write may
 * leave it pending): the contract closes now, as the follow-up would close it (the same
 * event, so the follow-up then finds nothing to do), and the action is refused with why.
 * Answers null while the other organization is active (or unknown).
 */
async function closeIfOtherEnded(state: Contract, c: ContractAction, io: EntityIO): Promise<Outcome<ContractState, ContractEvent> | null> {
  const other = c.organization_id === state.proposer_id ? state.counterparty_id : state.proposer_id;
  const ended = await endedNow(io, other);
  if (!ended) return null;
  const d = decidePartyEnded(state, other, ended.how, ended.day);
  if ('refusal' in d || !d.events.length) return null;
  // The refusal is the one the closed contract gives any later action.
  const refused = decideAction(d.events.reduce(evolve, state as ContractState), c);
  return { events: d.events, refusal: 'refusal' in refused ? refused.refusal : { status: 409, detail: `contract ${state.id} was closed unfulfilled` } };
}

/**
 * A proposal is recorded, then it reads whether either organization has ended (endedNow).
 * One that ended meanwhile may have had its follow-up list its live contracts before this one
 * could be seen (the counterparty was checked in the read model before the record); the
 * contract then closes as that follow-up would have closed it.
 */
async function closeIfEndedMeanwhile(state: ContractState, io: EntityIO): Promise<Outcome<ContractState, ContractEvent>> {
  if (!state) return { events: [] };
  const ended = await firstEnded(io, [state.proposer_id, state.counterparty_id]);
  if (!ended) return { events: [] };
  const d = decidePartyEnded(state, ended.id, ended.how, ended.day);
  return 'refusal' in d ? { events: [] } : { events: d.events };
}

/** Goes on with the fulfilment or rejection under way; nothing when there is none. */
const continuePending = (state: ContractState, io: EntityIO) => (state?.rejection ? continueRejection(state, io) : continueFulfilment(state, io));

export const contractKind: EntityKind<ContractState, ContractCommand, ContractEvent> = {
  kind: 'contract',
  rank: RANK.contract,
  commands: { propose: true, accept: true, reject: true, withdraw: true, fulfill: true, status: true, resume: true, 'party-ended': true, 'record-row': true },
  initialState: null,
  evolve,
  project,
  chronicle,
  view: (s) => (s ? contractView(s) : null),
  // A fulfilment is an intent until it ends (actors/intents.ts).
  eventRows: (e, after) => {
    if (!after) return [];
    if (e.type === 'fulfilment-begun') return [intentRow({ kind: 'contract', id: after.id, intent: 'fulfilment', day: e.day })];
    if (e.type === 'rejection-begun') return [intentRow({ kind: 'contract', id: after.id, intent: 'rejection', day: e.day })];
    if (e.type === 'fulfilled' || e.type === 'fulfilment-abandoned' || e.type === 'rejected') return [intentEnded('contract', after.id)];
    return [];
  },
  async handle(state, c, io): Promise<Outcome<ContractState, ContractEvent>> {
    if (c.type === 'status') return state ? { events: [] } : { refusal: { status: 404, detail: 'contract not found' } };
    if (c.type === 'resume') return continuePending(state, io);
    if (state?.fulfilment || state?.rejection) {
      // A fulfilment or rejection a crash cut short is finished first; the command is then decided afresh.
      const finishing = state.fulfilment;
      const pending = await continuePending(state, io);
      if ('refusal' in pending && !pending.events?.length) return pending;
      // Asked again for what it was doing (a caller retrying after a 503), it answers with the end.
      if (c.type === 'fulfill' && finishing && !finishing.undoing && !('refusal' in pending)) return pending;
      if (c.type === 'reject' && !finishing) return pending;
      return { events: pending.events ?? [], andThen: (s) => contractKind.handle(s, c, io) };
    }
    if (c.type === 'propose') {
      const d = decidePropose(state, c.contract, c.agent_id, c.day);
      if ('refusal' in d) return d;
      const mine = await control(io, c.contract.proposer_id, c.agent_id);
      if (!mine.ok) return { refusal: mine.refusal };
      const other = await io.read.row<{ status: string }>('organization', c.contract.counterparty_id);
      if (!other) return { refusal: { status: 404, detail: `organization ${c.contract.counterparty_id} not found` } };
      if (other.status !== 'active') return { refusal: { status: 409, detail: `organization ${c.contract.counterparty_id} is ${other.status}` } };
      return { events: d.events, andThen: (s) => closeIfEndedMeanwhile(s, io) };
    }
    // An organization ended: the follow-up of its end closes its live contracts (nothing moves).
    if (c.type === 'party-ended') return decidePartyEnded(state, c.organization_id, c.how, c.day);
    if (c.type === 'record-row') return decideRecordRow(state, c.day);
    const d = decideAction(state, c);
    if ('refusal' in d) return d;
    const mine = await control(io, c.organization_id, c.agent_id);
    if (!mine.ok) return { refusal: mine.refusal };
    const closed = await closeIfOtherEnded(state!, c, io);
    if (closed) return closed;
    if (c.type === 'reject') {
      // A rejection cools relations on both sides.
      const begun = decideBeginRejection(state, c);
      if ('refusal' in begun) return begun;
      return { events: begun.events, andThen: (s) => continueRejection(s, io) };
    }
    if (c.type === 'fulfill') {
      const checked = await checkFulfilment(io, state!, c.day);
      if ('refusal' in checked) return checked;
      const begun = decideBeginFulfilment(state, c, checked.location_id);
      if ('refusal' in begun) return begun;
      return { events: begun.events, andThen: (s) => continueFulfilment(s, io) };
    }
    return d;
  },
};
