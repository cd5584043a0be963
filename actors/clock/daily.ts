// The daily fan-out: what a node does when the bus says a day began. It finds the
// entities that have work to do from the read model (never by asking every actor) and
// asks each of them to settle the day, with bounded concurrency. Each entity remembers
// the last day it settled, so a repeated day (after a restart) changes nothing.
import { forEachLimited } from '../../infra/concurrency';
import type { ReadModel } from '../../infra/store/ports';
import type { Region } from '../region';
import type { DayBegan } from './messages';

export const TICK_CONCURRENCY = 256;

export function dailyTick(region: Region, read: ReadModel, seed: string, log: (line: string) => void = () => undefined) {
  return async ({ day }: DayBegan): Promise<void> => {
    const settle = async (kind: string, id: string, command: object) => {
      const r = await region.ask(kind, id, { ...command, type: 'day-began', day }, 120_000);
      if (!r.ok) log(`day ${day}: ${kind} ${id} could not settle: ${r.refusal.detail}`);
    };

    // Places first: markets and populations live through the day.
    const construction = new Map<string, number>();
    for (const p of read.rows<{ location_id: string; production_plan: boolean }>('project', { status: 'active' })) {
      if (!p.production_plan) construction.set(p.location_id, (construction.get(p.location_id) ?? 0) + 1);
    }
    const places = read.rows<{ id: string; kind: string; danger: number }>('location');
    await forEachLimited(places, TICK_CONCURRENCY, (l) => settle('location', l.id, { construction: construction.get(l.id) ?? 0 }));

    // Then organizations: arrivals, work, upkeep.
    const facts = new Map(places.map((l) => [l.id, { kind: l.kind, danger: l.danger }]));
    const organizations = read.rows<{ id: number; location_id: string }>('organization', { status: 'active' });
    await forEachLimited(organizations, TICK_CONCURRENCY, (o) =>
      settle('organization', String(o.id), { seed, place: facts.get(o.location_id) ?? null }));
  };
}
