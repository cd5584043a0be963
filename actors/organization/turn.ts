// The daily turn of the organizations no agent controls: each reads what it can see,
// asks its policy (policy.ts) what to do, and does it through the very commands an
// agent's requests send (trade to the market, hiring to the adventurer, accepting and
// dispatching to the quest, travel to itself), as the world (WORLD_ACTOR). A refused action
// changes nothing and ends nothing but itself. Organizations take their turns one after
// another, in id order, so that two worlds with the same seed unfold alike.
import type { Entities } from '../ports/entities';
import type { ReadModel } from '../ports/store';
import { SEEDED_ORGANIZATIONS } from '../world/generate';
import { founding, foundsToday, type ProsperityMarket, type ProsperityPlace } from '../world/founding';
import type { EstablishmentLike } from './establishments';
import { decideTurn, WORLD_ACTOR, type PolicyAction, type PolicyMarket, type PolicyMember, type PolicyParty, type PolicyPlace, type PolicyQuest, type PolicyView } from './policy';

/** Adventurers for hire an organization looks at on its turn (the first ones listed). */
export const HIRE_SAMPLE = 20;

type Row = PolicyView['org'] & { status: string; agent_id: number | null; employees: number[] };

export async function worldOrganizationsTurn(
  entities: Entities, read: ReadModel, seed: string, day: number, ids: number[],
  nextId: (sequence: string) => Promise<number>, log: (line: string) => void,
): Promise<void> {
  if (ids.length === 0) return;
  // What every organization sees alike is read once.
  const places = await read.list<PolicyPlace>('locations');
  const establishments = (await read.list<EstablishmentLike>('establishments')).map(({ kind, location_id }) => ({ kind, location_id }));
  const markets = (await read.list<PolicyMarket>('markets')).map(({ location_id, resource, price, supply }) => ({ location_id, resource, price, supply }));
  const alliancesProposed = (await read.list<{ id: number; counterparty_id: number; status: string }>('liveAlliances')).filter((a) => a.status === 'proposed');
  for (const id of [...ids].sort((a, b) => a - b)) {
    const org = await read.row<Row>('organization', id);
    if (!org || org.status !== 'active' || org.agent_id !== null) continue;
    const quests = await read.list<PolicyQuest>('liveQuests');
    const members = (await Promise.all(org.employees.map((a) => read.row<PolicyMember>('adventurer', a))))
      .filter((m): m is PolicyMember => !!m)
      .map(({ id, strength, injured_until, party_id }) => ({ id, strength, injured_until, party_id }));
    const view: PolicyView = {
      seed, day,
      org: { id, name: org.name, treasury: org.treasury, reputation: org.reputation, location_id: org.location_id, travel: org.travel, holdings: org.holdings, daily_maintenance: org.daily_maintenance },
      members, parties: await read.list<PolicyParty>('partiesOf', id), markets, quests, places, establishments, world: ids,
      available: await read.listPage<{ id: number; strength: number; hiring_fee?: number }>('adventurersAvailable', undefined, undefined, HIRE_SAMPLE),
      proposals: {
        // A contract row keeps its counterparty in agent_id (the read model's contractsOfferedTo).
        contracts: (await read.list<{ id: number; status: string }>('contractsOfferedTo', id)).filter((c) => c.status === 'proposed').map((c) => c.id).sort((a, b) => a - b),
        alliances: alliancesProposed.filter((a) => a.counterparty_id === id).map((a) => a.id).sort((a, b) => a - b),
      },
    };
    let skipJourney = false;
    for (const action of decideTurn(view)) {
      if (action.type === 'travel' && skipJourney) continue;
      const refused = await act(entities, read, seed, day, org, action, nextId);
      if (refused) {
        log(`day ${day}: ${org.name} could not ${action.type}: ${refused}`);
        // A quest it could not accept is not worth the journey.
        if (action.type === 'accept') skipJourney = true;
      }
    }
  }
}

/** Carries out one action; answers the refusal's words, or null when it was done. */
async function act(entities: Entities, read: ReadModel, seed: string, day: number, org: Row, a: PolicyAction, nextId: (sequence: string) => Promise<number>): Promise<string | null> {
  const agent_id = WORLD_ACTOR;
  const refusal = (r: { ok: boolean; refusal?: { detail: string } }) => (r.ok ? null : r.refusal!.detail);
  switch (a.type) {
    case 'decline-contract': return refusal(await entities.ask('contract', a.contract_id, { type: 'reject', organization_id: org.id, agent_id, day }));
    case 'decline-alliance': return refusal(await entities.ask('alliance', a.alliance_id, { type: 'end', organization_id: org.id, agent_id, day }));
    case 'complete': return refusal(await entities.ask('quest', a.quest_id, { type: 'complete', agent_id, day, seed }));
    case 'accept': return refusal(await entities.ask('quest', a.quest_id, { type: 'accept', organization_id: org.id, agent_id, day, seed }));
    case 'travel': return refusal(await entities.ask('organization', org.id, { type: 'travel', agent_id, day, destination_id: a.destination_id, days: a.days, from_id: org.location_id }));
    case 'hire': case 'release':
      return refusal(await entities.ask('adventurer', a.adventurer_id, { type: a.type, organization_id: org.id, organization_name: org.name, agent_id, day }));
    case 'trade':
      return refusal(await entities.ask('location', org.location_id, { type: 'trade', day, agent_id, organization_id: org.id, resource: a.resource, side: a.side, quantity: a.quantity }));
    case 'send-party': {
      let partyId = a.party_id;
      if (partyId === null) {
        partyId = await nextId('party');
        const formed = await entities.ask('organization', org.id, { type: 'form-party', agent_id, day, party_id: partyId, name: a.party_name });
        if (!formed.ok) return formed.refusal.detail;
      }
      const party = await read.row<{ name: string }>('party', partyId);
      for (const adventurer_id of a.add) {
        const joined = await entities.ask('adventurer', adventurer_id, { type: 'join-party', party_id: partyId, party_name: party?.name ?? a.party_name, organization_id: org.id, agent_id, day });
        if (!joined.ok) return joined.refusal.detail;
      }
      return refusal(await entities.ask('quest', a.quest_id, { type: 'dispatch', party_id: partyId, organization_id: org.id, agent_id, day, seed }));
    }
  }
}

/**
 * Where a place prospers, the world may found one organization today (world/founding.ts),
 * through the same `found` command an agent's founding sends: no agent, the treasury the
 * world derives from its kind. Answers the new organization's id, or null.
 */
export async function worldFounds(entities: Entities, read: ReadModel, seed: string, day: number, nextId: (sequence: string) => Promise<number>, log: (line: string) => void): Promise<number | null> {
  // Most days found nothing: the world is read only on the days that may.
  if (!foundsToday(seed, day)) return null;
  type Standing = { id: number; agent_id: number | null; location_id: string };
  const active = await read.list<Standing>('activeOrganizations', undefined, (o: Standing) => ({ id: o.id, agent_id: o.agent_id, location_id: o.location_id }));
  const worldFounded = active.filter((o) => o.agent_id === null && o.id > SEEDED_ORGANIZATIONS).length;
  const names = new Set(await read.list<string>('organizations', undefined, (o: { name: string }) => o.name));
  const places = await read.list<ProsperityPlace>('locations');
  const markets = await read.list<ProsperityMarket>('markets');
  const spec = founding(seed, day, places, markets, (place) => active.filter((o) => o.location_id === place).length, worldFounded, names);
  if (!spec) return null;
  const id = await nextId('organization');
  const r = await entities.ask('organization', id, { type: 'found', id, ...spec });
  if (!r.ok) { log(`day ${day}: the world could not found ${spec.name}: ${r.refusal.detail}`); return null; }
  return id;
}
