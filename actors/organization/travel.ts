// Travel (core rule 18): the journey follows the quickest chain of routes, and the
// destination's danger adds days (one per DANGER_PER_DAY, rounded up): a dangerous place
// is approached with care. A travel establishment where the journey sets out takes days
// off (establishments.ts travelCut), never below one day.
export const DANGER_PER_DAY = 20;

export interface RouteGraphNode { id: string; danger: number; routes: Array<{ destination_id: string; distance_days: number }> }

/**
 * The quickest chain of roads between two places over the route graph (Dijkstra, ties
 * broken by route order): its days and every place on it, both ends included; null if
 * unreachable. The journey (roadDays) and its quote (travel-plan.ts) both follow it.
 */
export function quickestRoads(places: RouteGraphNode[], from: string, to: string): { days: number; path: string[] } | null {
  const byId = new Map(places.map((p) => [p.id, p]));
  const best = new Map<string, number>([[from, 0]]);
  const previous = new Map<string, string>();
  const open = new Set<string>([from]);
  while (open.size) {
    let here = '';
    let hereDays = Infinity;
    for (const id of open) { const d = best.get(id)!; if (d < hereDays) { here = id; hereDays = d; } }
    open.delete(here);
    if (here === to) {
      const path = [to];
      while (path[0] !== from) path.unshift(previous.get(path[0])!);
      return { days: hereDays, path };
    }
    for (const r of byId.get(here)?.routes ?? []) {
      const d = hereDays + r.distance_days;
      if (d < (best.get(r.destination_id) ?? Infinity)) { best.set(r.destination_id, d); previous.set(r.destination_id, here); open.add(r.destination_id); }
    }
  }
  return null;
}

/**
 * Where an organization stands as day `day` begins: where its journey arrives, if it
 * arrives by then; else where it is. The day's place, its world events and its upkeep
 * are that place's (actors/clock/daily.ts), and so is the upkeep an organization's
 * detail announces for the next day.
 */
export const standsAtDayStart = (o: { location_id: string; travel: { destination_id: string; arrives_day: number } | null }, day: number): string =>
  (o.travel && o.travel.arrives_day <= day ? o.travel.destination_id : o.location_id);

/** Days of road between two places over the route graph, or null if unreachable. */
export const roadDays = (places: RouteGraphNode[], from: string, to: string): number | null => quickestRoads(places, from, to)?.days ?? null;

/**
 * A journey's days: the road, one more per DANGER_PER_DAY of the destination's danger
 * (rounded up), less `cut` (travelCut of the place it sets out from), never under 1 day.
 * The journey to where one stands (0 days) stays none.
 */
export function travelDays(road: number, destinationDanger: number, cut = 0): number {
  const days = road + Math.ceil(destinationDanger / DANGER_PER_DAY);
  return days > 0 ? Math.max(1, days - cut) : days;
}
