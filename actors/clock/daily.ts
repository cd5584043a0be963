// The daily fan-out: what a node does when the bus says a day began. It finds the
// entities that have work to do from the read model (never by asking every actor) and
// asks each of them to settle the day, with bounded concurrency. Each entity remembers
// the last day it settled, so a repeated day (after a restart) changes nothing.
import { forEachLimited } from '../../infra/concurrency';
import type { ReadModel } from '../../infra/store/ports';
import type { Region } from '../region';
import type { DayBegan } from './messages';

export const TICK_CONCURRENCY = 256;

export function dailyTick(region: Region, read: ReadModel, log: (line: string) => void = () => undefined) {
  return async ({ day }: DayBegan): Promise<void> => {
    const settle = (kind: string) => async (id: string) => {
      const r = await region.ask(kind, id, { type: 'day-began', day }, 120_000);
      if (!r.ok) log(`day ${day}: ${kind} ${id} could not settle: ${r.refusal.detail}`);
    };
    await forEachLimited(read.ids('organization', { status: 'active' }), TICK_CONCURRENCY, settle('organization'));
  };
}
