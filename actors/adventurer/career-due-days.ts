// Worlds older than the end of employed adventurers' careers gave an employed adventurer's
// read-model row no due day (rules.ts dueDay), so the daily fan-out, which visits only the
// adventurers whose due day has come, would first visit a veteran after its actor next
// wrote. At start-up every employed adventurer of such a world writes its row again, once,
// through its actor (command `record-due-day`): from then on its career's end brings it to
// the fan-out, and a veteran already past it leaves and dies on the next day.
import { forEachLimited } from '../concurrency';
import type { Entities } from '../ports/entities';
import type { Store } from '../ports/store';

/** The setting that marks a world's employed adventurers' due days written. */
export const CAREER_DUE_DAYS_WRITTEN = 'career_due_days_written';

/** Adventurers writing their rows at once (each is one write). */
const AT_ONCE = 16;

/** Has every employed adventurer write its row again (once per world); answers how many did. */
export async function writeCareerDueDaysOnce(entities: Entities, store: Store, day: number): Promise<number> {
  if (await store.setting(CAREER_DUE_DAYS_WRITTEN)) return 0;
  const employed = (await store.ids('adventurersEmployed')).map(Number);
  await forEachLimited(employed, AT_ONCE, async (id) => {
    const r = await entities.ask('adventurer', id, { type: 'record-due-day', day });
    // Not marked written: the next start tries again (writing twice changes nothing).
    if (!r.ok) throw new Error(`adventurer ${id} could not write its due day: ${r.refusal.detail}`);
  });
  await store.setSetting(CAREER_DUE_DAYS_WRITTEN, String(day));
  return employed.length;
}
