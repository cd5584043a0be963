// Every request shape of part 2 of the specification, with its bounds, defaults and enum
// words, plus the query strings and path identifiers of part 4.
import type * as t from 'io-ts';
import {
  arrayOf, boundedInt, boundedString, nullable, object, oneOf, optional, positiveNumber, wholeNumberText, withDefault, wordsOf,
} from './primitives';

const id = () => boundedInt(undefined, undefined);
const text = (min: number, max: number) => boundedString(min, max);
const optionalText = (max: number) => withDefault(boundedString(0, max), '');

export const AgentCreate = object('AgentCreate', {
  name: text(3, 80),
  model: text(2, 80),
});

export const AgentRetire = object('AgentRetire', {
  reason: text(10, 2000),
});

export const OrganizationCreate = object('OrganizationCreate', {
  name: text(3, 80),
  kind: text(3, 40),
  location_id: withDefault(text(2, 40), 'emberfall'),
  description: optionalText(1000),
  goals: optionalText(1000),
  motto: optionalText(200),
});

// A change names only what it changes: a field it cannot change (a name, a treasury) is refused, not ignored.
export const OrganizationUpdate = object('OrganizationUpdate', {
  description: optional(nullable(boundedString(0, 1000), { required: true })),
  goals: optional(nullable(boundedString(0, 1000), { required: true })),
  motto: optional(nullable(boundedString(0, 200), { required: true })),
}, { closed: true });

const questFields = (maxReward: number, maxDeadline: number) => ({
  title: text(3, 120),
  description: text(10, 2000),
  requester_id: id(),
  location_id: text(2, 40),
  reward: boundedInt(1, maxReward),
  deadline_days: nullable(boundedInt(1, maxDeadline)),
  minimum_strength: withDefault(boundedInt(0, 10000), 0),
  minimum_reputation: withDefault(boundedInt(0, 10000), 0),
  minimum_relationship: withDefault(boundedInt(-100, 100), -100),
});

export const QuestCreate = object('QuestCreate', questFields(1_000_000, 365));
export const AdminQuestCreate = object('AdminQuestCreate', questFields(10_000_000, 3650));

export const QuestSponsorCreate = object('QuestSponsorCreate', {
  organization_id: id(),
  amount: boundedInt(1, 1_000_000),
});

export const OrganizationAction = object('OrganizationAction', { organization_id: id() });

export const PartyCreate = object('PartyCreate', { organization_id: id(), name: text(3, 80) });
export const PartyMemberCreate = object('PartyMemberCreate', { adventurer_id: id() });
export const PartyDispatch = object('PartyDispatch', { quest_id: id() });

export const HireCreate = object('HireCreate', { organization_id: id(), adventurer_id: id() });

export const WorkerAction = object('WorkerAction', { organization_id: id(), quantity: boundedInt(1, 10000) });

export const TradeCreate = object('TradeCreate', {
  organization_id: id(),
  resource: text(2, 40),
  side: oneOf(['buy', 'sell'] as const),
  quantity: boundedInt(1, 100000),
});

export const TravelCreate = object('TravelCreate', { organization_id: id(), destination_id: text(2, 40) });

export const ContractCreate = object('ContractCreate', {
  proposer_id: id(),
  counterparty_id: id(),
  title: text(3, 120),
  terms: text(10, 2000),
  value: boundedInt(1, 10_000_000),
  resource: nullable(text(2, 40)),
  quantity: withDefault(boundedInt(0, 100000), 0),
});

export const AllianceCreate = object('AllianceCreate', {
  proposer_id: id(),
  counterparty_id: id(),
  terms: text(10, 2000),
});

export const ProjectCreate = object('ProjectCreate', {
  owner_id: id(),
  title: text(3, 120),
  kind: text(2, 40),
  description: text(10, 2000),
  location_id: text(2, 40),
  budget: boundedInt(1, 10_000_000),
  duration_days: boundedInt(1, 365),
  output_resource: nullable(text(2, 40)),
  output_quantity: withDefault(boundedInt(0, 10000), 0),
  establishment_kind: nullable(text(2, 40)),
});

export const MessageCreate = object('MessageCreate', {
  sender_id: id(),
  recipient_id: nullable(id()),
  body: text(1, 2000),
  kind: withDefault(oneOf(['message', 'rumor'] as const), 'message'),
});

export const SuggestionCreate = object('SuggestionCreate', {
  title: text(3, 120),
  body: text(10, 4000),
  category: withDefault(text(2, 40), 'feature'),
});

export const SuggestionReview = object('SuggestionReview', {
  status: oneOf(['reviewed', 'accepted', 'declined'] as const),
  // Absent keeps the note given before; null clears it (PATCH, as for an organization's profile).
  admin_note: optional(nullable(boundedString(0, 2000))),
}, { closed: true });

export const WORLD_EVENT_EFFECT_KINDS = [
  'forest_danger_modifier', 'monster_growth_modifier', 'maintenance_modifier', 'production_modifier',
  'market_price_modifier', 'population_growth_modifier', 'resource_introduction',
] as const;

export const WorldEventEffect = object('WorldEventEffect', {
  kind: oneOf(WORLD_EVENT_EFFECT_KINDS),
  value: boundedInt(-1_000_000, 1_000_000),
  resource: nullable(text(2, 40)),
  location_id: nullable(text(2, 40)),
  price: nullable(positiveNumber(1_000_000)),
});

export const LocationRouteCreate = object('LocationRouteCreate', {
  destination_id: text(2, 40),
  distance_days: boundedInt(1, 30),
  danger: boundedInt(0, 100),
});

export const AdminLocationCreate = object('AdminLocationCreate', {
  id: boundedString(2, 40, { pattern: /^[a-z0-9-]+$/ }),
  name: text(3, 80),
  kind: text(3, 40),
  description: text(10, 1000),
  danger: boundedInt(0, 100),
  population: boundedInt(0, 1_000_000),
  monster_population: boundedInt(0, 1_000_000),
  routes: withDefault(arrayOf(LocationRouteCreate, 0, 8), []),
});

export const WorldEventCreate = object('WorldEventCreate', {
  title: text(3, 120),
  description: text(10, 2000),
  duration_days: boundedInt(1, 3650),
  effects: arrayOf(WorldEventEffect, 1, 10),
  quest: nullable(AdminQuestCreate),
  location: nullable(AdminLocationCreate),
});

// Query strings: every value arrives as text.

/**
 * Paging of the listings that grow without bound (docs/decisions.md, "Listings come in
 * pages"): at most `limit` items in id order, those after `after_id` (the id of the last
 * item of the page before). The default is large enough that a small world's listing
 * fits in one page.
 */
export const PAGE_LIMIT_DEFAULT = 500;
export const PAGE_LIMIT_MAX = 1000;
// The cursor is an id as the listing writes it (a whole number; a relationship's is its pair,
// `5-9`): anything else is 422, since a client with a broken cursor answered with the first
// page again would go round it for ever.
const pageLimit = () => withDefault(boundedInt(1, PAGE_LIMIT_MAX, 'text'), PAGE_LIMIT_DEFAULT);
const pageFields = {
  limit: pageLimit(),
  after_id: optional(wholeNumberText(20)),
};
export const PageQuery = object('PageQuery', pageFields);
export const RelationshipsQuery = object('RelationshipsQuery', {
  limit: pageLimit(),
  after_id: optional(boundedString(3, 41, { pattern: /^[0-9]+-[0-9]+$/ })),
}, { misleading: { organization_id: "this listing has every pair of organizations; an organization's own trust toward each other one is its trust in GET /api/organizations/{organization_id}" } });

// Filters of the growing listings (docs/decisions.md, "What an agent needs to decide"):
// every one optional, all given ones must hold, and the page is taken from what is left.
const queryId = () => optional(boundedInt(1, undefined, 'text'));

/** The active organizations, or those standing at one place. */
export const OrganizationsQuery = object('OrganizationsQuery', {
  location_id: optional(text(2, 40)),
  ...pageFields,
}, { misleading: { status: 'this listing holds the active organizations only; a bankrupt or dissolved one is read by its id, GET /api/organizations/{organization_id}' } });

/** Projects, filtered by place, organization and status. */
export const ProjectsQuery = object('ProjectsQuery', {
  location_id: optional(text(2, 40)),
  organization_id: queryId(),
  status: optional(oneOf(['active', 'completed', 'cancelled'] as const)),
  ...pageFields,
}, { misleading: { owner_id: "a project's owner is filtered by organization_id" } });

/**
 * A place's answer lists what is there now, each list cut to `limit` items in id order
 * (docs/decisions.md, "A place answers what is there now"): four lists in one answer, so
 * smaller than a listing's page.
 */
export const PLACE_LIMIT_DEFAULT = 100;
export const PLACE_LIMIT_MAX = 500;
/** The limit of each list of a view (a place's, an organization's). */
const viewLimit = () => withDefault(boundedInt(1, PLACE_LIMIT_MAX, 'text'), PLACE_LIMIT_DEFAULT);
export const PlaceQuery = object('PlaceQuery', {
  limit: viewLimit(),
});

export const QuestsQuery = object('QuestsQuery', {
  status: optional(oneOf(['open', 'accepted', 'resolved', 'withdrawn'] as const)),
  location_id: optional(text(2, 40)),
  requester_id: queryId(),
  min_reward: optional(boundedInt(0, 10_000_000, 'text')),
  max_reward: optional(boundedInt(0, 10_000_000, 'text')),
  ...pageFields,
});
export const AdventurersQuery = object('AdventurersQuery', {
  status: optional(oneOf(['available', 'employed', 'dead'] as const)),
  location_id: optional(text(2, 40)),
  organization_id: queryId(),
  ...pageFields,
});
// A contract's or alliance's status filter takes several statuses (`proposed,accepted`): an
// organization's answer lists its live ones, and its `more` link names them.
export const ContractsQuery = object('ContractsQuery', {
  organization_id: queryId(),
  status: optional(wordsOf(['proposed', 'accepted', 'fulfilled', 'rejected'] as const)),
  ...pageFields,
});
export const AlliancesQuery = object('AlliancesQuery', {
  organization_id: queryId(),
  status: optional(wordsOf(['proposed', 'active', 'ended'] as const)),
  ...pageFields,
});
export const PartiesQuery = object('PartiesQuery', {
  organization_id: queryId(),
  ...pageFields,
});
/**
 * An organization's answer (docs/decisions.md, "An organization answers what it has now"):
 * how much of each member it carries (`brief` leaves out their moments, party history and
 * bonds), and how long each of its lists may be, as a place's.
 */
export const OrganizationViewQuery = object('OrganizationViewQuery', {
  members: withDefault(oneOf(['full', 'brief'] as const), 'full'),
  limit: viewLimit(),
});

// Quotes: what an action would do, computed by the action's own rules, changing nothing.
export const TradeQuoteQuery = object('TradeQuoteQuery', {
  side: oneOf(['buy', 'sell'] as const),
  quantity: boundedInt(1, 100000, 'text'),
  location_id: optional(text(2, 40)),
});
export const TravelPlanQuery = object('TravelPlanQuery', {
  organization_id: queryId(),
  from_id: optional(text(2, 40)),
  destination_id: text(2, 40),
});
export const QuestOddsQuery = object('QuestOddsQuery', {
  party_id: boundedInt(1, undefined, 'text'),
});
export const EventsQuery = object('EventsQuery', {
  limit: withDefault(boundedInt(1, 100, 'text'), 30),
  category: optional(text(2, 40)),
  agent_id: optional(boundedInt(1, undefined, 'text')),
  organization_id: optional(boundedInt(1, undefined, 'text')),
  before_id: optional(boundedInt(1, undefined, 'text')),
}, { misleading: { after_id: 'the history comes newest first and pages back with before_id (the Link header gives the next page); GET /api/events/stream continues after an id' } });

export const InvestigationQuery = object('InvestigationQuery', {
  window_days: withDefault(boundedInt(0, 30, 'text'), 3),
});

export const WorldEventsQuery = object('WorldEventsQuery', {
  status: optional(oneOf(['active', 'expired'] as const)),
  ...pageFields,
});

export const MarketQuery = object('MarketQuery', {
  location_id: optional(text(2, 40)),
});

export const EstablishmentsQuery = object('EstablishmentsQuery', {
  location_id: optional(text(2, 40)),
  organization_id: queryId(),
  kind: optional(text(2, 40)),
  ...pageFields,
});

export const NoQuery = object('NoQuery', {});

// Path parameters: integer ids and string ids.
const pathInt = () => boundedInt(undefined, undefined, 'text');
const pathIdCodec = <K extends string>(name: K) => object(`Path(${name})`, { [name]: pathInt() } as Record<K, ReturnType<typeof pathInt>>);

export const AgentPath = pathIdCodec('agent_id');
export const SuggestionPath = pathIdCodec('suggestion_id');
export const EventPath = pathIdCodec('event_id');
export const OrganizationPath = pathIdCodec('organization_id');
export const AdventurerPath = pathIdCodec('adventurer_id');
export const QuestPath = pathIdCodec('quest_id');
export const ContractPath = pathIdCodec('contract_id');
export const AlliancePath = pathIdCodec('alliance_id');
export const PartyPath = pathIdCodec('party_id');
export const ProjectPath = pathIdCodec('project_id');
export const LocationPath = object('Path(location_id)', { location_id: text(1, 40) });
export const ResourcePath = object('Path(resource)', { resource: text(1, 40) });
export const NoPath = object('NoPath', {});

export type AgentCreateT = t.TypeOf<typeof AgentCreate>;
export type OrganizationCreateT = t.TypeOf<typeof OrganizationCreate>;
export type OrganizationUpdateT = t.TypeOf<typeof OrganizationUpdate>;

/** Messages come newest first (not in id order): they page by `offset`, the number of newer ones to skip. */
export const MessagesQuery = object('MessagesQuery', {
  limit: withDefault(boundedInt(1, 500, 'text'), 100),
  offset: withDefault(boundedInt(0, 1_000_000, 'text'), 0),
}, { misleading: { after_id: 'messages come newest first and page by offset, the number of newer ones to skip (the Link header gives the next page)' } });

export const WorldEventPath = pathIdCodec('event_id');
