// The world's accounting. Every history entry in which an organization's gold or goods
// move carries a ledger: one line per organization and flow, with the signed change.
// Every flow is named here; a source or sink changes the world's gold or goods, an
// internal flow only moves them between organizations and the gold quests hold in trust.
// Summing the ledger lines of an organization's events gives its treasury and holdings.
import { own, setOwn } from './own';

export const FLOWS = {
  founding_grant: { kind: 'source', what: 'gold the world grants a new organization (see founding allowance)' },
  world_reward: { kind: 'source', what: "the world's share of a world-funded quest's reward, paid to the organization that earned it" },
  project_refund: { kind: 'source', what: 'the part of an unused budget a cancelled project gives back' },
  establishment_income: { kind: 'source', what: 'the gold income establishments (inn, tavern, market, ...) pay their owner each day' },
  production: { kind: 'source', what: "goods made by production plans each day and by finished projects' output" },
  market: { kind: 'source and sink', what: 'gold and goods exchanged with a regional market: buying pays gold for goods, selling the reverse' },
  upkeep: { kind: 'sink', what: 'daily maintenance paid' },
  workers: { kind: 'sink', what: 'the hiring price of workers' },
  hiring: { kind: 'sink', what: 'the fee paid to hire an adventurer' },
  message: { kind: 'sink', what: 'the cost of a message' },
  project_budget: { kind: 'sink', what: "a project's whole budget, reserved and spent when it starts" },
  estate_forfeited: { kind: 'sink', what: "an ended organization's gold and goods, and anything that reaches it later, passing to the world" },
  quest_escrow: { kind: 'internal', what: "gold set aside for a quest (its reward, a sponsorship) and paid out or given back from it; the quest holds it in trust meanwhile" },
  contract: { kind: 'internal', what: 'gold and goods moved between the parties of a fulfilled contract' },
} as const;

export type Flow = keyof typeof FLOWS;

export interface LedgerLine {
  organization_id: number;
  flow: Flow;
  gold?: number;
  goods?: Record<string, number>;
}

/** Lines that change nothing are left out. */
export function ledger(...lines: Array<LedgerLine | null | undefined | false>): LedgerLine[] {
  const out: LedgerLine[] = [];
  for (const l of lines) {
    if (!l) continue;
    const goods = Object.fromEntries(Object.entries(l.goods ?? {}).filter(([, q]) => q !== 0));
    const line: LedgerLine = { organization_id: l.organization_id, flow: l.flow };
    if (l.gold) line.gold = l.gold;
    if (Object.keys(goods).length) line.goods = goods;
    if (line.gold !== undefined || line.goods !== undefined) out.push(line);
  }
  return out;
}

/** The organizations an entry names: those given, then every one its ledger touches, each once. */
export function involved(ids: Array<number | null | undefined>, lines: LedgerLine[] = []): number[] {
  const seen = new Set<number>();
  for (const id of [...ids, ...lines.map((l) => l.organization_id)]) if (id !== null && id !== undefined && id > 0) seen.add(id);
  return [...seen];
}

/** What the ledger lines of a flow kind add up to, in gold and per good. */
export function sumLedger(lines: LedgerLine[], filter: (l: LedgerLine) => boolean = () => true): { gold: number; goods: Record<string, number> } {
  let gold = 0;
  const goods: Record<string, number> = {};
  for (const l of lines) {
    if (!filter(l)) continue;
    gold += l.gold ?? 0;
    for (const [r, q] of Object.entries(l.goods ?? {})) setOwn(goods, r, (own(goods, r) ?? 0) + q);
  }
  return { gold, goods };
}

export const isExternal = (l: LedgerLine) => FLOWS[l.flow].kind !== 'internal';
