// A travel plan (a quote of POST /api/travel): the quickest chain of routes the journey
// follows, the places it passes, the danger of each road and place on the way, and the
// days it takes. The days come from the very rules the journey uses (travel.ts, and the
// travel establishments where it sets out: establishments.ts travelCut), so the plan's
// arrival day is the journey's.
import { quickestRoads, roadDays, travelDays, type RouteGraphNode } from './travel';

export interface PlanPlace extends RouteGraphNode {
  name: string;
  routes: Array<{ destination_id: string; distance_days: number; danger?: number }>;
}

export interface TravelLeg { from_id: string; to_id: string; distance_days: number; road_danger: number; place_danger: number }

export interface TravelPlan {
  from_id: string;
  destination_id: string;
  /** Every place from the start to the destination, both included. */
  path: string[];
  /** The places passed on the way (neither the start nor the destination): the journey does not stop there. */
  passes_through: string[];
  legs: TravelLeg[];
  road_days: number;
  /** Extra days for the destination's danger (one per 20, rounded up). */
  danger_days: number;
  /** Days the travel establishments where the journey sets out take off (never below 1 day in all). */
  days_saved: number;
  /** road_days + danger_days - days_saved. */
  days: number;
  /** The highest danger of any road or place on the way, the destination included. */
  max_danger: number;
}

/** The quickest path between two places (travel.ts quickestRoads: the journey's own), or null if none. */
export const quickestPath = (places: PlanPlace[], from: string, to: string): string[] | null => quickestRoads(places, from, to)?.path ?? null;

/**
 * The plan of a journey from `from` to `to`, or null when no road leads there. `cut` is
 * travelCut of the establishments at `from`, as the journey itself takes it.
 */
export function travelPlan(places: PlanPlace[], from: string, to: string, cut = 0): TravelPlan | null {
  // The journey to where one stands is none: no road, no days (and the action refuses it).
  if (from === to && places.some((p) => p.id === to)) {
    return { from_id: from, destination_id: to, path: [from], passes_through: [], legs: [], road_days: 0, danger_days: 0, days_saved: 0, days: 0, max_danger: 0 };
  }
  const road = roadDays(places, from, to);
  const path = quickestPath(places, from, to);
  const destination = places.find((p) => p.id === to);
  if (road === null || path === null || !destination) return null;
  const byId = new Map(places.map((p) => [p.id, p]));
  const legs: TravelLeg[] = [];
  for (let i = 1; i < path.length; i++) {
    const route = byId.get(path[i - 1])!.routes.find((r) => r.destination_id === path[i])!;
    legs.push({ from_id: path[i - 1], to_id: path[i], distance_days: route.distance_days, road_danger: route.danger ?? 0, place_danger: byId.get(path[i])?.danger ?? 0 });
  }
  const full = travelDays(road, destination.danger);
  const days = travelDays(road, destination.danger, cut);
  return {
    from_id: from, destination_id: to, path, passes_through: path.slice(1, -1), legs,
    road_days: road, danger_days: full - road, days_saved: full - days, days,
    max_danger: legs.reduce((n, l) => Math.max(n, l.road_danger, l.place_danger), 0),
  };
}
