// A world left alone: `npm run simulate -- --days 100 [--seed S]` runs a fresh world with
// no agent for N days on a temporary folder and prints its pulse: the price range of every
// market, the days each settlement's prices moved, trades and quests by the seeded
// organizations, quest outcomes, arrivals, deaths, bankruptcies and foundings.
// test/http/living-world.test.ts runs the same simulation and checks the pulse.
import { allEvents } from '../test/support/sagas';
import { startTestWorld, type TestWorld } from '../test/support/world';

interface MarketRow { resource: string; price: number; supply: number; location_id: string }
interface OrgRow { id: number; name: string; agent_id: number | null; status: string; founded_day?: number }
interface QuestRow { id: number; requester_id: number; accepted_organization_id: number | null; status: string; outcome: string | null }
interface EventRow { id: number; day: number; category: string; summary: string; organization_ids?: number[]; agent_id: number | null }

export interface Pulse {
  days: number;
  /** Per settlement and resource: the lowest and highest price seen, and the supply range. */
  markets: Record<string, Record<string, { min: number; max: number; min_supply: number; max_supply: number }>>;
  /** Per settlement: on how many of the simulated days any of its prices changed from the day before. */
  price_change_days: Record<string, number>;
  seeded_organizations: { trades: number; quests_posted: number; quests_taken: number };
  quest_outcomes: { full: number; partial: number; failure: number };
  arrivals: number;
  deaths: number;
  bankruptcies: number;
  foundings: number;
}

/** Runs `days` days in the world `w` (no agent acts) and gathers its pulse. */
export async function simulate(w: TestWorld, days: number, onDay: (day: number) => void = () => undefined): Promise<Pulse> {
  const settlements = (await w.get<Array<{ id: string; population: number }>>('/api/locations')).body.filter((l) => l.population > 0).map((l) => l.id);
  const orgsAtStart = new Set((await w.get<OrgRow[]>('/api/organizations')).body.map((o) => o.id));
  const markets: Pulse['markets'] = {};
  const changes: Record<string, number> = Object.fromEntries(settlements.map((s) => [s, 0]));
  let previous: Record<string, string> = {};
  const board = async (id: string) => (await w.get<MarketRow[]>(`/api/market?location_id=${id}`)).body;
  const look = async () => {
    const now: Record<string, string> = {};
    for (const id of settlements) {
      const rows = await board(id);
      now[id] = rows.map((r) => `${r.resource}:${r.price}`).join(',');
      for (const r of rows) {
        const m = ((markets[id] ??= {})[r.resource] ??= { min: r.price, max: r.price, min_supply: r.supply, max_supply: r.supply });
        m.min = Math.min(m.min, r.price); m.max = Math.max(m.max, r.price);
        m.min_supply = Math.min(m.min_supply, r.supply); m.max_supply = Math.max(m.max_supply, r.supply);
      }
    }
    return now;
  };
  previous = await look();
  for (let i = 0; i < days; i++) {
    const day = await w.tick();
    const now = await look();
    for (const id of settlements) if (now[id] !== previous[id]) changes[id] += 1;
    previous = now;
    onDay(day);
  }

  const allOrgs = await w.services.read.list<OrgRow>('organizations');
  const seeded = new Set(allOrgs.filter((o) => o.agent_id === null).map((o) => o.id));
  const quests = await w.services.read.list<QuestRow>('questsListed');
  const events = (await allEvents(w)) as unknown as EventRow[];
  const outcomes = { full: 0, partial: 0, failure: 0 };
  for (const q of quests) if (q.status === 'resolved' && q.outcome && q.outcome in outcomes) outcomes[q.outcome as keyof typeof outcomes] += 1;
  return {
    days,
    markets,
    price_change_days: changes,
    seeded_organizations: {
      trades: events.filter((e) => e.category === 'trade' && (e.organization_ids ?? []).some((id) => seeded.has(id))).length,
      quests_posted: quests.filter((q) => seeded.has(q.requester_id)).length,
      quests_taken: quests.filter((q) => q.accepted_organization_id !== null && seeded.has(q.accepted_organization_id)).length,
    },
    quest_outcomes: outcomes,
    arrivals: events.filter((e) => e.category === 'adventurer' && / arrived looking for work/.test(e.summary) && e.day > 1).length,
    deaths: events.filter((e) => e.category === 'death').length,
    bankruptcies: events.filter((e) => e.category === 'bankruptcy').length,
    foundings: allOrgs.filter((o) => !orgsAtStart.has(o.id)).length,
  };
}

/** The pulse as lines of text. */
export function describePulse(p: Pulse): string {
  const lines = [`A world left alone for ${p.days} days`, '', 'Markets (price low-high, supply low-high; days its prices moved):'];
  for (const [place, resources] of Object.entries(p.markets)) {
    lines.push(`  ${place} (prices moved on ${p.price_change_days[place]} of ${p.days} days)`);
    for (const [r, m] of Object.entries(resources)) lines.push(`    ${r.padEnd(8)} ${m.min.toFixed(4)} - ${m.max.toFixed(4)}   supply ${m.min_supply} - ${m.max_supply}`);
  }
  lines.push('', `Seeded organizations: ${p.seeded_organizations.trades} trades, ${p.seeded_organizations.quests_posted} quests posted, ${p.seeded_organizations.quests_taken} quests taken`);
  lines.push(`Quest outcomes: ${p.quest_outcomes.full} full, ${p.quest_outcomes.partial} partial, ${p.quest_outcomes.failure} failure`);
  lines.push(`Adventurers: ${p.arrivals} arrivals, ${p.deaths} deaths`);
  lines.push(`Organizations: ${p.bankruptcies} bankruptcies, ${p.foundings} foundings`);
  return lines.join('\n');
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name: string) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : undefined; };
  const days = Math.max(1, Math.floor(Number(option('days') ?? '100')) || 100);
  const seed = option('seed') ?? 'simulate';
  const w = await startTestWorld({ seed, nodes: 1, store: 'sqlite' });
  try {
    const pulse = await simulate(w, days, (day) => { if (day % 10 === 0) process.stderr.write(`day ${day}\n`); });
    console.log(describePulse(pulse));
  } finally {
    await w.close();
  }
}

if (require.main === module) main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
