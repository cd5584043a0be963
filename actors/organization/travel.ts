// Travel (core rule 18): the journey follows the quickest chain of routes, and the
// destination's danger adds days (one per DANGER_PER_DAY, rounded up): a dangerous place
// is approached with care.
export const DANGER_PER_DAY = 20;

export interface RouteGraphNode { id: string; danger: number; routes: Array<{ destination_id: string; distance_days: number }> }

/** Days of road between two places over the route graph (Dijkstra), or null if unreachable. */
export function roadDays(places: RouteGraphNode[], from: string, to: string): number | null {
  const byId = new Map(places.map((p) => [p.id, p]));
  const best = new Map<string, number>([[from, 0]]);
  const open = new Set<string>([from]);
  while (open.size) {
    let here = '';
    let hereDays = Infinity;
    for (const id of open) { const d = best.get(id)!; if (d < hereDays) { here = id; hereDays = d; } }
    open.delete(here);
    if (here === to) return hereDays;
    for (const r of byId.get(here)?.routes ?? []) {
      const d = hereDays + r.distance_days;
      if (d < (best.get(r.destination_id) ?? Infinity)) { best.set(r.destination_id, d); open.add(r.destination_id); }
    }
  }
  return null;
}

export const travelDays = (road: number, destinationDanger: number) => road + Math.ceil(destinationDanger / DANGER_PER_DAY);
