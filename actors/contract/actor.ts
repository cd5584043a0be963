// The contract actor. Fulfilment moves goods and gold between two organizations (lower in
// the ask order): both sides are checked, then the proposer hands over the goods, the
// counterparty pays and receives them, and the proposer is paid (see fulfil). A refused
// fulfilment changes nothing; the contract stays accepted.
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import { RANK } from '../order';
import type { Refusal } from '../result';
import type { Contract, ContractCommand, ContractEvent, ContractState } from './messages';
import { TRUST_ON_FULFIL, TRUST_ON_REJECT, decideAction, decidePropose, evolve } from './rules';

export const contractView = (c: Contract) => ({ ...c });

const describe = (c: Contract) => `"${c.title}" (${c.value} gold${c.resource ? ` for ${c.quantity} ${c.resource}` : ''})`;

function chronicle(e: ContractEvent, after: ContractState): HistoryEntry[] {
  if (!after) return [];
  const base = { day: e.day, agent_id: e.agent_id, organization_ids: [after.proposer_id, after.counterparty_id], data: { contract_id: after.id } };
  switch (e.type) {
    case 'proposed': return [{ ...base, category: 'contract', summary: `Organization ${after.proposer_id} proposed the contract ${describe(after)} to organization ${after.counterparty_id}` }];
    case 'accepted': return [{ ...base, category: 'contract', summary: `Organization ${after.counterparty_id} accepted the contract ${describe(after)}` }];
    case 'rejected': return [{ ...base, category: 'contract', summary: `Organization ${after.counterparty_id} rejected the contract ${describe(after)}` }];
    case 'fulfilled':
      // Each side's own record carries the gold and goods it moved (its ledger); this one says what was agreed.
      return [{ ...base, category: 'contract', summary: `The contract ${describe(after)} was fulfilled: organization ${after.counterparty_id} paid ${after.value} gold to organization ${after.proposer_id}${after.resource ? ` for ${after.quantity} ${after.resource}` : ''}` }];
  }
}

// Contracts are listed for each party: the row's organization is the proposer, its agent_id column the counterparty.
const project = (c: ContractState): ProjectionRow[] =>
  (c ? [{ kind: 'contract', id: c.id, status: c.status, organization_id: c.proposer_id, agent_id: c.counterparty_id, doc: contractView(c) }] : []);

const control = (io: EntityIO, organizationId: number, agentId: number) =>
  io.ask('organization', organizationId, { type: 'control', agent_id: agentId });

type Movement = { gold: number; holdings: Record<string, number>; trust: Record<string, number>; evenIfEnded?: boolean; inPerson?: { location_id: string | null }; op: string };

const move = (io: EntityIO, type: 'transfer' | 'check-transfer', organizationId: number, day: number, reason: string, m: Movement) =>
  io.ask<{ location_id: string }, 'organization'>('organization', organizationId, {
    type, day, reason, gold: m.gold, holdings: m.holdings, trust: m.trust, even_if_ended: m.evenIfEnded ?? false,
    ...(m.inPerson ? { in_person: m.inPerson } : {}), op: m.op,
  });

/**
 * Fulfilment: the proposer hands over the goods, the counterparty pays and receives them,
 * the proposer is paid. Both sides are checked first (the proposer has the goods, the
 * counterparty the gold, and for goods both stand at the same place, neither on the road),
 * so an ordinary refusal records nothing. Each movement is named after the contract, so
 * one asked again (the contract's own write failed and the fulfilment is retried) moves
 * nothing twice. Should a side change between the check and the movement (its own agent
 * spent the gold meanwhile), the goods go back and the refusal stands.
 *
 * Goods change hands in person; gold travels by letter and needs neither.
 */
async function fulfil(io: EntityIO, c: Contract, day: number): Promise<{ refusal: Refusal } | null> {
  const reason = `contract ${c.id}`;
  const goods = c.resource ? { [c.resource]: c.quantity } : {};
  const back = c.resource ? { [c.resource]: -c.quantity } : {};
  const deliver: Movement = { gold: 0, holdings: back, trust: {}, inPerson: c.resource ? { location_id: null } : undefined, op: `contract:${c.id}:delivered` };
  const canDeliver = await move(io, 'check-transfer', c.proposer_id, day, reason, deliver);
  if (!canDeliver.ok) return { refusal: canDeliver.refusal };
  const pay: Movement = {
    gold: -c.value, holdings: goods, trust: { [String(c.proposer_id)]: TRUST_ON_FULFIL },
    inPerson: c.resource ? { location_id: canDeliver.value.location_id } : undefined, op: `contract:${c.id}:paid`,
  };
  const canPay = await move(io, 'check-transfer', c.counterparty_id, day, reason, pay);
  if (!canPay.ok) return { refusal: canPay.refusal };

  const delivered = await move(io, 'transfer', c.proposer_id, day, reason, deliver);
  if (!delivered.ok) return { refusal: delivered.refusal };
  const paid = await move(io, 'transfer', c.counterparty_id, day, reason, pay);
  if (!paid.ok) {
    await move(io, 'transfer', c.proposer_id, day, `${reason} (goods returned)`, { gold: 0, holdings: goods, trust: {}, evenIfEnded: true, op: `contract:${c.id}:returned:${day}` });
    return { refusal: paid.refusal };
  }
  const received = await move(io, 'transfer', c.proposer_id, day, reason, { gold: c.value, holdings: {}, trust: { [String(c.counterparty_id)]: TRUST_ON_FULFIL }, evenIfEnded: true, op: `contract:${c.id}:received` });
  if (!received.ok) throw new Error(`contract ${c.id}: proposer could not be paid: ${received.refusal.detail}`);
  return null;
}

/** Trust on a rejection: a movement of trust alone, named so a retried rejection cools nothing twice. */
const cool = (io: EntityIO, organizationId: number, other: number, c: Contract, day: number) =>
  move(io, 'transfer', organizationId, day, `contract ${c.id} rejected`, { gold: 0, holdings: {}, trust: { [String(other)]: TRUST_ON_REJECT }, evenIfEnded: true, op: `contract:${c.id}:rejected` });

export const contractKind: EntityKind<ContractState, ContractCommand, ContractEvent> = {
  kind: 'contract',
  rank: RANK.contract,
  commands: { propose: true, accept: true, reject: true, fulfill: true, status: true },
  initialState: null,
  evolve,
  project,
  chronicle,
  view: (s) => (s ? contractView(s) : null),
  async handle(state, c, io): Promise<Outcome<ContractState, ContractEvent>> {
    if (c.type === 'status') return state ? { events: [] } : { refusal: { status: 404, detail: 'contract not found' } };
    if (c.type === 'propose') {
      const d = decidePropose(state, c.contract, c.agent_id, c.day);
      if ('refusal' in d) return d;
      const mine = await control(io, c.contract.proposer_id, c.agent_id);
      if (!mine.ok) return { refusal: mine.refusal };
      const other = await io.read.row<{ status: string }>('organization', c.contract.counterparty_id);
      if (!other) return { refusal: { status: 404, detail: `organization ${c.contract.counterparty_id} not found` } };
      if (other.status !== 'active') return { refusal: { status: 409, detail: `organization ${c.contract.counterparty_id} is ${other.status}` } };
      return d;
    }
    const d = decideAction(state, c);
    if ('refusal' in d) return d;
    const mine = await control(io, c.organization_id, c.agent_id);
    if (!mine.ok) return { refusal: mine.refusal };
    if (c.type === 'reject') {
      // A rejection may cool relations on both sides.
      await cool(io, state!.proposer_id, state!.counterparty_id, state!, c.day);
      await cool(io, state!.counterparty_id, state!.proposer_id, state!, c.day);
    }
    if (c.type === 'fulfill') {
      const refused = await fulfil(io, state!, c.day);
      if (refused) return refused;
    }
    return d;
  },
};
