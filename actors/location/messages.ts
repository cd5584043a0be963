// What a location actor is told, and what it records. A location owns its place in the
// world (danger, population, monsters, routes) and, where people live, its regional market.
import type { Applied } from '../applied';
import type { Market, MarketEntry } from './market';
import type { LocationModifiers } from '../world-event/effects';

export interface Route { destination_id: string; distance_days: number; danger: number }

export interface LocationSpec {
  id: string;
  name: string;
  kind: string;
  description: string;
  danger: number;
  population: number;
  monster_population: number;
  routes: Route[];
}

export interface MarketProfile { favours?: string[]; scarce?: string[] }

export interface Location extends LocationSpec {
  /** The danger and monsters the place was created with: danger is derived from them and today's monsters. */
  base_danger: number;
  base_monsters: number;
  /** Danger added by active world events (forest danger modifier). */
  danger_modifier: number;
  /** The population the land can feed; growth slows as it nears it. */
  capacity: number;
  /** null where nobody lives (wilderness, dungeons): nothing is traded there. */
  market: Market | null;
  settled_day: number;
  /** The world event that founded the place; absent for the world's own places. */
  seeded_by_event?: number;
  /** A trade under way: agreed and recorded before the organization is asked, cleared when it ends. */
  pending_trade?: PendingTrade | null;
  /** The quests whose fight has changed its monsters, with their days: each changes them once (actors/applied.ts; absent in records from before this was kept). */
  quests_fought?: Applied<number>;
  /** How many trades it has begun: numbers each, so the organization settles each once. */
  trades_begun?: number;
}

/** A trade as agreed (the quote), numbered. */
export interface PendingTrade extends Omit<Traded, 'type'> { serial: number }

/** `world_event_id`: the world event that founds the place (none for the world's own places). */
export interface SeedLocationCommand { type: 'seed'; location: LocationSpec; profile: MarketProfile; day: number; world_event_id?: number }
export interface LocationStatusCommand { type: 'status' }
export interface LocationDayCommand { type: 'day-began'; day: number; construction: number; modifiers?: LocationModifiers; /** The world's seed: today's harvest is drawn from it. */ seed?: string }
export interface AddRouteCommand { type: 'add-route'; day: number; route: Route }
export interface IntroduceResourceCommand { type: 'introduce-resource'; day: number; resource: string; price: number; supply: number; world_event_id: number }
export interface TradeCommand {
  type: 'trade';
  day: number;
  agent_id: number;
  organization_id: number;
  resource: string;
  side: 'buy' | 'sell';
  quantity: number;
}
export interface MonstersChangedCommand { type: 'monsters-changed'; day: number; change: number; quest_id: number }
/** Finish a trade a crash cut short (actors/intents.ts); nothing when none is under way. */
export interface LocationResumeCommand { type: 'resume' }
export type LocationCommand =
  | LocationResumeCommand | SeedLocationCommand | LocationStatusCommand | LocationDayCommand | TradeCommand | MonstersChangedCommand | AddRouteCommand | IntroduceResourceCommand;

export interface LocationSeeded { type: 'seeded'; day: number; location: LocationSpec; market: Market | null; world_event_id?: number }
export interface DaySettled { type: 'day-settled'; day: number; population: number; market: Market | null; monster_population: number; danger_modifier?: number }
export interface RouteAdded { type: 'route-added'; day: number; route: Route }
export interface ResourceIntroduced { type: 'resource-introduced'; day: number; entry: MarketEntry; world_event_id: number }
export interface MonstersChanged { type: 'monsters-changed'; day: number; change: number; quest_id: number }
/** A trade as commanded, with what it cost or fetched and where it left the market. */
export interface Traded extends Omit<TradeCommand, 'type'> {
  type: 'traded';
  total: number;
  supply_after: number;
  price_after: number;
}
/**
 * The intent of a trade, recorded before the organization is asked to pay or deliver:
 * the quote and its number. It ends with traded, or trade-abandoned when the organization refused.
 */
export interface TradeBegun { type: 'trade-begun'; day: number; trade: PendingTrade }
export interface TradeAbandoned { type: 'trade-abandoned'; day: number; serial: number; reason: string }
export type LocationEvent = LocationSeeded | DaySettled | Traded | MonstersChanged | RouteAdded | ResourceIntroduced | TradeBegun | TradeAbandoned;

export type LocationState = Location | null;
