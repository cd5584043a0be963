// What a world of an older version lacks, made good once per world at start-up by the
// actors it concerns (an agent told its organization ended, an organization's trust rows,
// an employed adventurer's due day): each is asked through its own actor, so nothing it
// writes meanwhile is overwritten, and a setting marks the world done once all answered.
import { forEachLimited } from './concurrency';
import type { Store } from './ports/store';
import type { Result } from './result';

/** Actors asked at once (each answer is one write). */
const AT_ONCE = 16;

/**
 * Unless `setting` marks the world done: asks each of `targets()` with `ask`, then marks it
 * done with the day; answers how many were asked. A refusal throws (`failure` says what was
 * not done) and leaves the mark unset, so the next start tries again: asking twice changes
 * nothing.
 */
export async function askEachOncePerWorld<T>(
  store: Store, setting: string, day: number, targets: () => Promise<T[]>,
  ask: (target: T) => Promise<Result<unknown>>, failure: (target: T) => string,
): Promise<number> {
  if (await store.setting(setting)) return 0;
  const asked = await targets();
  await forEachLimited(asked, AT_ONCE, async (target) => {
    const r = await ask(target);
    if (!r.ok) throw new Error(`${failure(target)}: ${r.refusal.detail}`);
  });
  await store.setSetting(setting, String(day));
  return asked.length;
}
