// The policy of an organization that no agent controls (a seeded or world-founded one):
// a pure function of what it can see today and a seeded draw, giving the actions it takes.
// The daily turn (turn.ts) carries them out through the same commands an agent's requests
// use, so every refusal, cost and history entry is the same as for an agent.
import { own } from '../own';
import { rng } from '../random';
import { MAINTENANCE_PER_ADVENTURER, partyResting } from './rules';
import { travelCut, type EstablishmentLike } from './establishments';
import { roadDays, travelDays, type RouteGraphNode } from './travel';

/**
 * The agent id the world's own commands carry when it acts for an organization without an
 * agent. Agents' ids start at 1, so no agent can carry it; checkControl lets it act only
 * for organizations whose agent_id is null.
 */
export const WORLD_ACTOR = 0;

/** Days of upkeep an organization keeps in hand before it spends on hiring or goods. */
export const RESERVE_DAYS = 60;
/** Below this many days of upkeep in hand it releases an idle adventurer each day. */
export const LEAN_DAYS = 20;
export const MAX_MEMBERS = 6;
/** Of the gold above its reserve, the share it spends on goods in one day. */
export const TRADE_BUDGET_SHARE = 0.1;
/** The smallest order worth placing. */
export const MIN_LOT = 5;
/** A good is bought where its price elsewhere is at least this many times the local one. */
export const BUY_MARGIN = 1.2;
/** Held goods are sold where the local price is at least this share of the best price elsewhere. */
export const SELL_SHARE = 0.95;
/** An order takes at most this share of the market's supply. */
export const ORDER_SUPPLY_SHARE = 0.05;
/** How far beyond its strength an organization may dare: a quest's danger up to strength × (1 + this × draw). */
export const BOLDNESS = 0.6;
/** The chance that an idle organization sets out for another market. */
export const WANDER_CHANCE = 0.15;

export interface PolicyMarket { location_id: string; resource: string; price: number; supply: number }
export interface PolicyQuest {
  id: number; requester_id: number; location_id: string; reward: number; status: 'open' | 'accepted';
  minimum_strength: number; minimum_reputation: number; accepted_organization_id: number | null; party_id: number | null;
}
export interface PolicyPlace extends RouteGraphNode { has_market: boolean }
export interface PolicyMember { id: number; strength: number; injured_until: number | null; party_id: number | null }
export interface PolicyParty { id: number; status: string; members: number[]; quest_id: number | null; returned_day?: number }

/** What an organization sees on its turn: itself, its people, the markets, the quest board, the map, a few adventurers for hire. */
export interface PolicyView {
  seed: string;
  day: number;
  org: {
    id: number; name: string; treasury: number; reputation: number; location_id: string;
    travel: { destination_id: string; arrives_day: number } | null; holdings: Record<string, number>; daily_maintenance: number;
  };
  members: PolicyMember[];
  parties: PolicyParty[];
  markets: PolicyMarket[];
  quests: PolicyQuest[];
  places: PolicyPlace[];
  /** The world's establishments: its journeys take a day less from a place with a travel one (establishments.ts travelCut). */
  establishments: EstablishmentLike[];
  /** The organizations no agent controls: it takes only their quests, and leaves agents' quests to agents. */
  world: number[];
  /** Available adventurers (a bounded sample). */
  available: Array<{ id: number; strength: number; hiring_fee?: number }>;
  /** Contracts and alliances proposed to it, not yet answered (absent: none). */
  proposals?: { contracts: number[]; alliances: number[] };
}

export type PolicyAction =
  /** The world signs no contracts and makes no alliances: it declines what agents propose to it. */
  | { type: 'decline-contract'; contract_id: number }
  | { type: 'decline-alliance'; alliance_id: number }
  | { type: 'complete'; quest_id: number }
  | { type: 'accept'; quest_id: number }
  | { type: 'travel'; destination_id: string; days: number }
  /** Form a party (party_id null) or use a formed one, add the members not yet in it, and dispatch it. */
  | { type: 'send-party'; quest_id: number; party_id: number | null; party_name: string; add: number[] }
  | { type: 'hire'; adventurer_id: number }
  | { type: 'release'; adventurer_id: number }
  | { type: 'trade'; resource: string; side: 'buy' | 'sell'; quantity: number };

const fit = (m: PolicyMember, day: number) => m.injured_until === null || m.injured_until <= day;
const dangerAt = (v: PolicyView, id: string) => v.places.find((p) => p.id === id)?.danger ?? 100;

/** The organization's day: at most one completion per dispatched party, one quest move, one hiring or release (on lean days), two trades, one journey. */
export function decideTurn(v: PolicyView): PolicyAction[] {
  const r = rng(v.seed, 'policy', v.org.id, v.day);
  const actions: PolicyAction[] = [];
  const { org } = v;

  // Proposals get their answer on its next turn, wherever it is: no.
  for (const id of v.proposals?.contracts ?? []) actions.push({ type: 'decline-contract', contract_id: id });
  for (const id of v.proposals?.alliances ?? []) actions.push({ type: 'decline-alliance', alliance_id: id });

  // Parties sent out come back with their outcome the day after.
  for (const q of v.quests) {
    if (q.status === 'accepted' && q.accepted_organization_id === org.id && q.party_id !== null) actions.push({ type: 'complete', quest_id: q.id });
  }
  if (org.travel) return actions;

  const reserve = org.daily_maintenance * RESERVE_DAYS;
  const spare = org.treasury - reserve;
  const here = org.location_id;
  // A journey's days, as the travel action counts them (setting out from here).
  const cut = travelCut(v.establishments, here);
  const journeyDays = (road: number, to: string) => travelDays(road, dangerAt(v, to), cut);

  // A party ready to go: a formed one not back from a quest today, whose members are all fit, else the fit members in no party.
  const ready = v.parties.find((p) => p.status === 'formed' && p.members.length > 0 && partyResting(p, v.day, p.id) === null
    && p.members.every((id) => { const m = v.members.find((x) => x.id === id); return m !== undefined && fit(m, v.day); }));
  const free = v.members.filter((m) => m.party_id === null && fit(m, v.day));
  const team = ready ? v.members.filter((m) => ready.members.includes(m.id)) : free;
  const strength = team.reduce((s, m) => s + m.strength, 0);
  const dare = strength * (1 + BOLDNESS * r());

  // A quest it can win (or dares to): its own accepted one first, else the best-paying open one
  // within reach that another organization of the world posted.
  const mine = v.quests.find((q) => q.status === 'accepted' && q.accepted_organization_id === org.id && q.party_id === null);
  let target: PolicyQuest | undefined = mine;
  let targetDays = 0;
  if (!target && team.length > 0) {
    let best = -1;
    for (const q of v.quests) {
      if (q.status !== 'open' || q.requester_id === org.id || !v.world.includes(q.requester_id)) continue;
      if (q.minimum_reputation > org.reputation || q.minimum_strength > strength || dangerAt(v, q.location_id) > dare) continue;
      const road = q.location_id === here ? 0 : roadDays(v.places, here, q.location_id);
      if (road === null) continue;
      const days = q.location_id === here ? 0 : journeyDays(road, q.location_id);
      const worth = q.reward / (1 + days);
      if (worth > best) { best = worth; target = q; targetDays = days; }
    }
  }
  let journey: PolicyAction | null = null;
  if (target && team.length > 0) {
    if (target.location_id === here) {
      actions.push({ type: 'send-party', quest_id: target.id, party_id: ready?.id ?? null, party_name: `${org.name} Party ${v.day}`, add: ready ? [] : team.map((m) => m.id) });
    } else {
      if (target.status === 'open') actions.push({ type: 'accept', quest_id: target.id });
      const road = roadDays(v.places, here, target.location_id);
      if (road !== null) journey = { type: 'travel', destination_id: target.location_id, days: target === mine ? journeyDays(road, target.location_id) : targetDays };
    }
  } else if (v.members.length < MAX_MEMBERS && v.available.length > 0) {
    // Nothing it can win: it hires the strongest adventurer on offer, while it keeps the upkeep, the new one's included, in hand after the fee.
    const strongest = v.available.reduce((a, b) => (b.strength > a.strength ? b : a));
    if (org.treasury - (strongest.hiring_fee ?? 0) > (org.daily_maintenance + MAINTENANCE_PER_ADVENTURER) * RESERVE_DAYS) actions.push({ type: 'hire', adventurer_id: strongest.id });
  }
  // Who may be let go today: members at home and not sent out with a party this turn (a
  // member of a party away on a quest cannot be released).
  const sending = actions.find((a): a is Extract<PolicyAction, { type: 'send-party' }> => a.type === 'send-party');
  const goingOut = new Set(sending ? [...sending.add, ...(sending.party_id === null ? [] : v.parties.find((p) => p.id === sending.party_id)?.members ?? [])] : []);
  const atHome = (m: PolicyMember) => !goingOut.has(m.id) && (m.party_id === null || v.parties.find((p) => p.id === m.party_id)?.status === 'formed');
  // (A veteran whose career is over leaves by itself, once home: actors/adventurer/rules.ts decideRetirement.)
  if (org.treasury < org.daily_maintenance * LEAN_DAYS) {
    // Lean days: it lets its weakest idle adventurer go.
    const idle = v.members.filter((m) => m.party_id === null && atHome(m)).sort((a, b) => a.strength - b.strength || a.id - b.id)[0];
    if (idle) actions.push({ type: 'release', adventurer_id: idle.id });
  }

  // Trade where prices favour it: sell what fetches here (nearly) the best price of any market,
  // buy what sells elsewhere for well above the price here.
  const local = v.markets.filter((m) => m.location_id === here);
  const elsewhere = (resource: string) => Math.max(0, ...v.markets.filter((m) => m.location_id !== here && m.resource === resource).map((m) => m.price));
  for (const m of local) {
    const held = own(org.holdings, m.resource) ?? 0;
    if (held > 0 && m.price >= elsewhere(m.resource) * SELL_SHARE) actions.push({ type: 'trade', resource: m.resource, side: 'sell', quantity: held });
  }
  if (spare > 0 && !journey) {
    const bargain = local
      .filter((m) => m.price > 0 && !((own(org.holdings, m.resource) ?? 0) > 0) && elsewhere(m.resource) >= m.price * BUY_MARGIN)
      .sort((a, b) => elsewhere(b.resource) / b.price - elsewhere(a.resource) / a.price || a.resource.localeCompare(b.resource))[0];
    if (bargain) {
      const quantity = Math.min(Math.floor((spare * TRADE_BUDGET_SHARE) / bargain.price), Math.floor(bargain.supply * ORDER_SUPPLY_SHARE));
      if (quantity >= MIN_LOT) actions.push({ type: 'trade', resource: bargain.resource, side: 'buy', quantity });
    }
  }

  // Idle, it carries its goods to the market that pays best for them, or now and then wanders to another market.
  if (!journey && !target) {
    const goods = Object.entries(org.holdings).filter(([, q]) => q > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const bestFor = (resource: string) => v.markets.filter((m) => m.resource === resource && m.location_id !== here).sort((a, b) => b.price - a.price || a.location_id.localeCompare(b.location_id))[0];
    const carry = goods.length ? bestFor(goods[0][0]) : undefined;
    const localPrice = (resource: string) => local.find((m) => m.resource === resource)?.price ?? 0;
    let destination: string | null = null;
    if (carry && carry.price * SELL_SHARE > localPrice(carry.resource)) destination = carry.location_id;
    else if (r() < WANDER_CHANCE || !v.places.find((p) => p.id === here)?.has_market) {
      const markets = v.places.filter((p) => p.has_market && p.id !== here && roadDays(v.places, here, p.id) !== null);
      if (markets.length) destination = markets[Math.floor(r() * markets.length)].id;
    }
    if (destination) {
      const road = roadDays(v.places, here, destination);
      if (road !== null) journey = { type: 'travel', destination_id: destination, days: journeyDays(road, destination) };
    }
  }
  if (journey) actions.push(journey);
  return actions;
}
