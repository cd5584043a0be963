// Worlds older than the end of employed adventurers' careers gave an employed adventurer's
// read-model row no due day (rules.ts dueDay), so the daily fan-out, which visits only the
// adventurers whose due day has come, would first visit a veteran after its actor next
// wrote. At start-up every employed adventurer of such a world writes its row again, once,
// through its actor (command `record-due-day`, actors/once-per-world.ts): from then on its
// career's end brings it to the fan-out, and a veteran already past it leaves and dies on
// the next day.
import type { Entities } from '../ports/entities';
import type { Store } from '../ports/store';
import { askEachOncePerWorld } from '../once-per-world';

/** The setting that marks a world's employed adventurers' due days written. */
export const CAREER_DUE_DAYS_WRITTEN = 'career_due_days_written';

/** Has every employed adventurer write its row again (once per world); answers how many did. */
export function writeCareerDueDaysOnce(entities: Entities, store: Store, day: number): Promise<number> {
  return askEachOncePerWorld(store, CAREER_DUE_DAYS_WRITTEN, day, async () => (await store.ids('adventurersEmployed')).map(Number),
    (id) => entities.ask('adventurer', id, { type: 'record-due-day', day }),
    (id) => `adventurer ${id} could not write its due day`);
}
