// What an entity has applied once, by name: a step of a saga asked again (its initiator's
// intent resumed after a crash or a lost answer) is recognized and not applied twice.
// Each name is kept with the day it was applied and forgotten APPLIED_KEPT_DAYS later, so
// that the memory of an entity that lives for years stays the size of a month: a pending
// intent is resumed at every start and on every day (actors/intents.ts), so a step is asked
// again within a day or two of its first time, not a month later.

/** A name with the day it was applied; a bare name comes from a record of before the days were kept. */
export type AppliedEntry<T extends string | number> = T | readonly [T, number];
export type Applied<T extends string | number> = ReadonlyArray<AppliedEntry<T>>;

/** Days of the world an applied name is remembered. */
export const APPLIED_KEPT_DAYS = 30;
/** The newest names kept at most, whatever their days (an entity applying thousands a day). */
export const APPLIED_KEPT_MAX = 2048;

const nameOf = <T extends string | number>(e: AppliedEntry<T>): T => (Array.isArray(e) ? (e as readonly [T, number])[0] : (e as T));

/** Whether `name` was applied (within the days it is kept). */
export function hasApplied<T extends string | number>(applied: Applied<T> | undefined, name: T | undefined): boolean {
  if (name === undefined || !applied) return false;
  for (const e of applied) if (nameOf(e) === name) return true;
  return false;
}

/**
 * The memory after `name` is applied on `day`: the names of the last APPLIED_KEPT_DAYS days,
 * at most APPLIED_KEPT_MAX of them, then this one. A bare name (from an older record) is
 * dated `day`: it is kept for the days to come as if applied today. No name: unchanged.
 */
export function withApplied<T extends string | number>(applied: Applied<T> | undefined, name: T | undefined, day: number): Applied<T> | undefined {
  if (name === undefined) return applied;
  const since = day - APPLIED_KEPT_DAYS;
  const kept: Array<readonly [T, number]> = [];
  for (const e of applied ?? []) {
    const dated: readonly [T, number] = Array.isArray(e) ? (e as readonly [T, number]) : [e as T, day];
    if (dated[1] > since) kept.push(dated);
  }
  kept.push([name, day]);
  return kept.length > APPLIED_KEPT_MAX ? kept.slice(-APPLIED_KEPT_MAX) : kept;
}
