// The contract actor. Fulfilment moves goods and gold between two organizations (lower in
// the ask order): the proposer's goods are set aside first, then the counterparty pays
// and receives them, then the proposer is paid. If the counterparty cannot pay, the goods
// go back and nothing has changed; the contract stays accepted.
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityIO, EntityKind, Outcome } from '../entity';
import { ledger } from '../ledger';
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
    case 'fulfilled': {
      const goods = after.resource ? after.quantity : 0;
      const lines = ledger(
        { organization_id: after.counterparty_id, flow: 'contract', gold: -after.value, goods: after.resource ? { [after.resource]: goods } : {} },
        { organization_id: after.proposer_id, flow: 'contract', gold: after.value, goods: after.resource ? { [after.resource]: -goods } : {} },
      );
      return [{ ...base, category: 'contract', summary: `The contract ${describe(after)} was fulfilled: organization ${after.counterparty_id} paid ${after.value} gold to organization ${after.proposer_id}${after.resource ? ` for ${after.quantity} ${after.resource}` : ''}`, data: { ...base.data, ledger: lines } }];
    }
  }
}

// Contracts are listed for each party: the row's organization is the proposer, its agent_id column the counterparty.
const project = (c: ContractState): ProjectionRow[] =>
  (c ? [{ kind: 'contract', id: c.id, status: c.status, organization_id: c.proposer_id, agent_id: c.counterparty_id, doc: contractView(c) }] : []);

const control = (io: EntityIO, organizationId: number, agentId: number) =>
  io.ask('organization', organizationId, { type: 'control', agent_id: agentId });

const transfer = (io: EntityIO, organizationId: number, day: number, reason: string, gold: number, holdings: Record<string, number>, trust: Record<string, number>, evenIfEnded = false, inPerson?: { location_id: string | null }) =>
  io.ask<{ location_id: string }, 'organization'>('organization', organizationId, { type: 'transfer', day, reason, gold, holdings, trust, even_if_ended: evenIfEnded, ...(inPerson ? { in_person: inPerson } : {}) });

/**
 * Goods change hands in person: a resource contract is fulfilled only while both parties
 * stand at the same place, neither on the road. Gold travels by letter and needs neither.
 */
async function fulfil(io: EntityIO, c: Contract, day: number): Promise<{ refusal: Refusal } | null> {
  const reason = `contract ${c.id}`;
  const goods = c.resource ? { [c.resource]: c.quantity } : {};
  const back = c.resource ? { [c.resource]: -c.quantity } : {};
  const setAside = await transfer(io, c.proposer_id, day, reason, 0, back, {}, false, c.resource ? { location_id: null } : undefined);
  if (!setAside.ok) return { refusal: setAside.refusal };
  const meetAt = c.resource ? { location_id: setAside.value.location_id } : undefined;
  const paid = await transfer(io, c.counterparty_id, day, reason, -c.value, goods, { [String(c.proposer_id)]: TRUST_ON_FULFIL }, false, meetAt);
  if (!paid.ok) {
    await transfer(io, c.proposer_id, day, `${reason} (goods returned)`, 0, goods, {}, true);
    return { refusal: paid.refusal };
  }
  const received = await transfer(io, c.proposer_id, day, reason, c.value, {}, { [String(c.counterparty_id)]: TRUST_ON_FULFIL }, true);
  if (!received.ok) throw new Error(`contract ${c.id}: proposer could not be paid: ${received.refusal.detail}`);
  return null;
}

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
      await transfer(io, state!.proposer_id, c.day, `contract ${state!.id} rejected`, 0, {}, { [String(state!.counterparty_id)]: TRUST_ON_REJECT }, true);
      await transfer(io, state!.counterparty_id, c.day, `contract ${state!.id} rejected`, 0, {}, { [String(state!.proposer_id)]: TRUST_ON_REJECT }, true);
    }
    if (c.type === 'fulfill') {
      const refused = await fulfil(io, state!, c.day);
      if (refused) return refused;
    }
    return d;
  },
};
