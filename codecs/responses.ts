// What the API answers: the records of api-conventions.md and the other success bodies,
// described in the vocabulary of the request codecs (converted by json-schema.ts). A
// record lists every field it carries; fields may be added later, so extra ones are
// allowed. test/http/openapi.test.ts checks real answers against these descriptions.
import type { ValueSchema } from './json-schema';

const str = (description?: string): ValueSchema => ({ type: 'string', ...(description ? { description } : {}) });
const int = (description?: string): ValueSchema => ({ type: 'integer', ...(description ? { description } : {}) });
const num = (description?: string): ValueSchema => ({ type: 'number', ...(description ? { description } : {}) });
const bool = (description?: string): ValueSchema => ({ type: 'boolean', ...(description ? { description } : {}) });
const any = (): ValueSchema => ({ type: 'any' });
const words = (...enumWords: string[]): ValueSchema => ({ type: 'string', enum: enumWords });
const nullable = (s: ValueSchema): ValueSchema => ({ ...s, nullable: true });
const listOf = (items: ValueSchema): ValueSchema => ({ type: 'array', items });
const mapOf = (values: ValueSchema, description?: string): ValueSchema => ({ type: 'object', values, ...(description ? { description } : {}) });
const record = (name: string, properties: Record<string, ValueSchema>): ValueSchema => ({ type: 'object', name, properties });
const extend = (base: ValueSchema, name: string, more: Record<string, ValueSchema>): ValueSchema => record(name, { ...base.properties, ...more });
const anyObject = (description?: string): ValueSchema => ({ type: 'object', ...(description ? { description } : {}) });

export const Agent = record('Agent', {
  id: int(), name: str(), model: str(), status: words('active', 'retired'), created_day: int(), retired_day: nullable(int()),
  organization_ids: listOf(int()), current_organization_id: nullable(int()),
});

export const HistoryEvent = record('HistoryEvent', {
  id: int(), day: int(), category: str(), agent_id: nullable(int()), organization_ids: listOf(int()), summary: str(),
  data: anyObject('What happened in detail; events that move gold or goods carry data.ledger.'), created_at: str(),
});

export const Organization = record('Organization', {
  id: int(), name: str(), kind: str(), location_id: str(), description: nullable(str()), goals: nullable(str()), motto: nullable(str()),
  treasury: int(), reputation: int(), status: words('active', 'bankrupt', 'dissolved'),
  agent_id: nullable(int('The controlling agent; null for seeded organizations.')),
  travel: nullable(record('Travel', { destination_id: str(), departed_day: int(), arrives_day: int() })),
  founded_day: int(), ended_day: nullable(int()), holdings: mapOf(int(), 'Goods held, by resource.'), workers: int(), employee_count: int(),
  employees: listOf(int()), trust: mapOf(int(), 'Trust (-100..100) in other organizations, by id.'), daily_maintenance: int(),
});

const Route = record('LocationRoute', { destination_id: str(), distance_days: int(), danger: int() });
export const Location = record('Location', {
  id: str(), name: str(), kind: str(), description: str(), danger: int(), population: int(), monster_population: int(),
  routes: listOf(Route), has_market: bool(),
});

export const Adventurer = record('Adventurer', {
  id: int(), name: str(), strength: int(), level: int(), experience: int(), traits: listOf(str()), status: words('available', 'employed', 'dead'),
  organization_id: nullable(int()), party_id: nullable(int()), injured_until: nullable(int()), joined_day: int(), quests_completed: int(),
  bonds: mapOf(any(), 'Bonds with fellow adventurers, by id.'), moments: listOf(anyObject()), party_history: listOf(anyObject()),
  hiring_fee: int(), career_end_day: nullable(int()),
});

export const Quest = record('Quest', {
  id: int(), title: str(), description: str(), requester_id: int(), location_id: str(), reward: int(),
  status: words('open', 'accepted', 'resolved', 'withdrawn'), deadline_day: nullable(int()), deadline_days: nullable(int()),
  minimum_strength: int(), minimum_reputation: int(), minimum_relationship: int(), accepted_organization_id: nullable(int()),
  party_id: nullable(int()), party_members: listOf(int()), world_funded: bool(),
  sponsors: listOf(record('QuestSponsor', { organization_id: int(), amount: int() })),
  outcome: nullable(words('full', 'partial', 'failure')), posted_day: int(), accepted_day: nullable(int()), resolved_day: nullable(int()),
  acceptance_ends_day: nullable(int()), resolution: nullable(anyObject()), withdrawn_reason: nullable(str()),
});

export const Party = record('Party', {
  id: int(), name: str(), organization_id: int(), members: listOf(int()), status: words('formed', 'dispatched', 'disbanded'),
  quest_id: nullable(int()), formed_day: int(),
});

export const Project = record('Project', {
  id: int(), owner_id: int(), title: str(), kind: str(), description: str(), location_id: str(), budget: int(), duration_days: int(),
  output_resource: nullable(str()), output_quantity: int(), establishment_kind: nullable(str()), status: words('active', 'cancelled', 'completed'),
  started_day: int(), ended_day: nullable(int()), progress_days: int(), progress: num(), spent: int(), refund: int(), production_plan: bool(),
  workers_required: nullable(int()),
});

export const ProductionPlan = record('ProductionPlan', {
  id: int(), project_id: int(), owner_id: int(), title: str(), location_id: str(), resource: str(), quantity_per_day: int(),
  workers_required: int(), staffed: nullable(bool('Whether its last day was staffed; null before its first day.')), produced_total: int(), status: str(), started_day: int(), ends_day: int(),
});

export const Establishment = record('Establishment', {
  id: int(), name: str(), kind: str(), location_id: str(), organization_id: nullable(int()), project_id: nullable(int()), founded_day: int(),
});

/** The two organizations' names as they were when it was proposed (absent on ones proposed before names were kept). */
const partyNames = {
  proposer_name: { ...str("The proposer's name when it was proposed."), required: false },
  counterparty_name: { ...str("The counterparty's name when it was proposed."), required: false },
};

export const Contract = record('Contract', {
  id: int(), proposer_id: int(), counterparty_id: int(), title: str(), terms: str(), value: int(), resource: nullable(str()), quantity: int(),
  status: words('proposed', 'accepted', 'fulfilled', 'rejected'), proposed_day: int(), accepted_day: nullable(int()), ended_day: nullable(int()),
  fulfilled_by: nullable(int()), withdrawn: bool('True when the proposer withdrew it before acceptance (it then stands as rejected).'),
  end_reason: nullable(str('Why it was closed unfulfilled when one of its organizations ended (it then stands as rejected), e.g. "organization 5 (Borin Smithy) went bankrupt"; null otherwise.')),
  ...partyNames,
});

export const Alliance = record('Alliance', {
  id: int(), proposer_id: int(), counterparty_id: int(), terms: str(), status: words('proposed', 'active', 'ended'), proposed_day: int(),
  accepted_day: nullable(int()), ended_day: nullable(int()), ended_by: nullable(int()), end_reason: nullable(str()),
  ...partyNames,
});

const PartySummary = record('OrganizationSummary', { id: int(), name: str(), status: str(), location_id: str(), agent_id: nullable(int()) });
const withParties = { proposer: nullable(PartySummary), counterparty: nullable(PartySummary) };

export const MarketEntry = record('MarketEntry', {
  resource: str(), price: num(), supply: int(), location_id: str(), base_price: int(), usual_supply: int(),
  price_factor: num(),
});

// A chronicle report (a world event's news, sent by nobody from nowhere) stands among the
// messages under the id `world-event-<event id>`, so that it can never take a message's id.
export const Message = record('Message', {
  id: { type: 'any', anyOf: [int(), { type: 'string', pattern: '^world-event-[0-9]+$' }], description: 'the message id; a chronicle report\'s is "world-event-<world event id>"' },
  sender_id: nullable(int('null for a chronicle report')), sender_name: str(), recipient_id: nullable(int()), body: str(), kind: str(), public: bool(), verified: bool(),
  sent_day: int(), deliver_day: int(), cost: int(),
  sender_location_id: { ...nullable(str()), required: false }, recipient_location_id: { ...nullable(str()), required: false },
  world_event_id: { ...int('the world event a chronicle report tells of'), required: false },
});

export const Suggestion = record('Suggestion', {
  id: int(), agent_id: int(), title: str(), body: str(), category: str(), status: words('new', 'reviewed', 'accepted', 'declined'),
  admin_note: nullable(str()), created_day: int(), reviewed_day: nullable(int()),
});

export const WorldEvent = record('WorldEvent', {
  id: int(), title: str(), description: str(), duration_days: int(), effects: listOf(anyObject()), quest: nullable(anyObject()),
  location: nullable(anyObject()), status: words('active', 'expired'), started_day: int(), ends_day: int(), ended_day: nullable(int()),
  ended_early: bool(), quest_id: nullable(int()), location_id: nullable(str()), introduced: listOf(any()),
});

/** A member in an organization's view: with members=brief, without the record of their life. */
const Member = record('Member', {
  ...Adventurer.properties,
  bonds: { ...mapOf(any(), 'Bonds with fellow adventurers, by id (left out with members=brief).'), required: false },
  moments: { ...listOf(anyObject()), required: false }, party_history: { ...listOf(anyObject()), required: false },
});

/** An organization with what it has now, each list cut at the view's limit (docs/decisions.md). */
const OrganizationDetail = extend(Organization, 'OrganizationDetail', {
  members: listOf(Member), projects: listOf(Project), contracts: listOf(Contract), alliances: listOf(Alliance),
  parties: listOf(Party), establishments: listOf(Establishment),
  member_count: int('living members (employed adventurers), in all'), project_count: int('active projects, in all'),
  contract_count: int('live contracts (proposed or accepted, either side), in all'), alliance_count: int('live alliances (proposed or active, either side), in all'),
  party_count: int('formed and dispatched parties, in all'), establishment_count: int('establishments, in all'),
  maintenance_due: { ...int("what the next day's upkeep comes to as the world stands now: daily_maintenance plus the maintenance modifiers of the world events active where it will stand, never below 0 (active organizations only)"), required: false },
  more: anyObject('for each list cut at the limit, the URL of the listing that goes on from its last item'),
});

const AgentProfile = extend(Agent, 'AgentProfile', {
  organizations: listOf(Organization),
  statistics: record('AgentStatistics', { organizations_founded: int(), active_organizations: int(), events_caused: int(), days_in_world: int() }),
  recent_events: listOf(HistoryEvent),
  founding_allowance: record('FoundingAllowance', {
    share: num(), full_on_day: nullable(int('The day the allowance is whole again; null when it is.')),
    granted_today: mapOf(int(), 'The gold a founding today would be granted, by the first word of each family of kinds (GET /api/rules: starting_treasury).'),
    note: str(),
  }),
});

const WorldSummary = record('WorldSummary', {
  day: int(), population: int(),
  pressure: record('WorldPressure', { monster_population: int(), average_danger: int(), most_dangerous_location: nullable(str()), wild_monsters_per_place: int() }),
  organizations: int(), quests: int(), locations: int(),
  clock: record('WorldClock', {
    seconds_per_day: num('Real seconds a world day lasts (WORLD_DAY_SECONDS); 0 when the background clock is off and days advance only by POST /api/tick.'),
    day_began_at: nullable(str('When the current day began (ISO 8601, UTC); null when not known (a world of an older version, until its next day).')),
    next_day_at: nullable(str('When the background clock begins the next day (ISO 8601, UTC): one day after the current one began, across restarts; null when the clock is off or the time is not known.')),
  }),
  places: listOf(record('PlaceSummary', { id: str(), name: str(), kind: str(), danger: int(), population: int(), monster_population: int() })),
  counts: record('WorldCounts', {
    agents: int(), active_agents: int(), organizations_active: int(), organizations_bankrupt: int(), organizations_dissolved: int(),
    adventurers_available: int(), adventurers_employed: int(), adventurers_dead: int(), quests_open: int(), history_events: int(),
  }),
});

/** The success body of every route, by `METHOD path` as in the route table. */
export const RESPONSES: Record<string, ValueSchema> = {
  'POST /api/agents': extend(Agent, 'AgentRegistered', { api_key: str('The agent key, shown this once: send it as X-Agent-Key.') }),
  'GET /api/agents': listOf(Agent),
  'GET /api/agents/me': AgentProfile,
  'GET /api/agents/{agent_id}': AgentProfile,
  'POST /api/agents/retire': extend(Agent, 'AgentRetired', { detail: str() }),
  'GET /api/agent-departures': listOf(record('Departure', { agent_id: int(), agent_name: str(), model: str(), reason: str(), day: int() })),

  'POST /api/organizations': Organization,
  'PATCH /api/organizations/{organization_id}': Organization,
  'POST /api/organizations/{organization_id}/dissolve': OrganizationDetail,
  'GET /api/organizations': listOf(Organization),
  'GET /api/organizations/{organization_id}': OrganizationDetail,

  'GET /api/locations': listOf(Location),
  'GET /api/locations/{location_id}': extend(Location, 'LocationDetail', {
    organizations: listOf(Organization), quests: listOf(Quest), projects: listOf(Project), establishments: listOf(Establishment),
    organization_count: int('active organizations standing here, in all'), quest_count: int('open quests here, in all'),
    project_count: int('active projects here, in all'), establishment_count: int('establishments here, in all'),
    more: anyObject('for each list cut at the limit, the URL of the listing that goes on from its last item'),
  }),
  'GET /api/adventurers': listOf(Adventurer),
  'GET /api/adventurers/{adventurer_id}': Adventurer,

  'GET /api/market': listOf(MarketEntry),
  'GET /api/market/{resource}': MarketEntry,
  'GET /api/market/{resource}/quote': record('TradeQuote', {
    location_id: str(), resource: str(), side: words('buy', 'sell'), quantity: int(),
    possible: bool('False when the market would refuse this trade (more than its supply); refusal then says why.'), refusal: nullable(str()),
    total: nullable(int('Gold the trade would cost (buy) or fetch (sell).')), average_price: nullable(num()),
    price_before: num(), supply_before: int(), price_after: nullable(num()), supply_after: nullable(int()), day: int(), note: str(),
  }),
  'GET /api/travel/plan': record('TravelPlan', {
    from_id: str(), destination_id: str(), path: listOf(str()), passes_through: listOf(str('A place passed on the way, without stopping.')),
    legs: listOf(record('TravelLeg', { from_id: str(), to_id: str(), distance_days: int(), road_danger: int(), place_danger: int() })),
    road_days: int(), danger_days: int(), days_saved: int('Days the travel establishments where the journey sets out take off (never below 1 day in all).'), days: int(), max_danger: int(), day: int(), arrives_day: int(),
    can_set_out: nullable(bool()), blocked_reason: nullable(str()),
  }),
  'POST /api/trade': record('TradeReceipt', {
    trade: record('Trade', {
      day: int(), agent_id: int(), organization_id: int(), resource: str(), side: words('buy', 'sell'), quantity: int(), total: int(),
      supply_after: int(), price_after: num(),
    }),
    market: MarketEntry, organization: Organization,
  }),
  'POST /api/travel': Organization,
  'POST /api/workers/hire': Organization,
  'POST /api/workers/release': Organization,
  'POST /api/projects': Project,
  'POST /api/projects/{project_id}/cancel': Project,
  'GET /api/projects': listOf(Project),
  'GET /api/production': listOf(ProductionPlan),
  'GET /api/establishments': listOf(Establishment),
  'GET /api/locations/{location_id}/gaps': record('LocationGaps', {
    location_id: str(), day: int(), observations: listOf({ ...anyObject(), properties: { kind: str() } }), note: str(),
  }),

  'POST /api/adventurers/hire': Adventurer,
  'POST /api/adventurers/release': Adventurer,
  'POST /api/parties': Party,
  'POST /api/parties/{party_id}/members': Party,
  'POST /api/parties/{party_id}/dispatch': Party,
  'GET /api/parties': listOf(Party),
  'GET /api/parties/{party_id}': Party,
  'POST /api/quests': Quest,
  'POST /api/quests/{quest_id}/sponsors': Quest,
  'POST /api/quests/{quest_id}/accept': Quest,
  'POST /api/quests/{quest_id}/cancel': Quest,
  'POST /api/quests/{quest_id}/complete': Quest,
  'GET /api/quests': listOf(Quest),
  'GET /api/quests/{quest_id}': Quest,
  'GET /api/quests/{quest_id}/odds': record('QuestOdds', {
    quest_id: int(), quest_status: str(), party_id: int(), organization_id: int(), location_id: str(), day: int(),
    party_strength: int(), danger: int(), effective_danger: int(), outcome: words('full', 'partial', 'failure'),
    reward: int(), reward_paid: int(),
    chances: record('OutcomeChances', { full: num(), partial: num(), failure: num() }),
    requirements_met: bool(), unmet_requirements: nullable(str()), injured_members: listOf(int()), note: str(),
  }),

  'POST /api/contracts': Contract,
  'POST /api/contracts/{contract_id}/accept': Contract,
  'POST /api/contracts/{contract_id}/reject': Contract,
  'POST /api/contracts/{contract_id}/withdraw': Contract,
  'POST /api/contracts/{contract_id}/fulfill': Contract,
  'GET /api/contracts': listOf(Contract),
  'GET /api/contracts/{contract_id}': extend(Contract, 'ContractWithParties', withParties),
  'POST /api/alliances': Alliance,
  'POST /api/alliances/{alliance_id}/accept': Alliance,
  'POST /api/alliances/{alliance_id}/end': Alliance,
  'GET /api/alliances': listOf(extend(Alliance, 'AllianceWithParties', withParties)),
  'GET /api/alliances/{alliance_id}': extend(Alliance, 'AllianceWithParties', withParties),
  'GET /api/relationships': listOf(record('Relationship', { id: str('the pair: <organization_id>-<other_organization_id>'), organization_id: int(), other_organization_id: int(), organization_ids: listOf(int()), trust: int() })),
  'POST /api/messages': Message,
  'GET /api/messages': listOf(Message),
  'GET /api/messages/inbox': listOf(Message),
  'GET /api/messages/investigation': listOf(Message),

  'POST /api/world-events': WorldEvent,
  'POST /api/world-events/{event_id}/end': WorldEvent,
  'GET /api/world-events': listOf(WorldEvent),
  'POST /api/suggestions': Suggestion,
  'GET /api/suggestions': listOf(Suggestion),
  'GET /api/agents/me/suggestions': listOf(Suggestion),
  'PATCH /api/suggestions/{suggestion_id}': Suggestion,

  'GET /api/world': WorldSummary,
  'GET /api/rules': record('Rules', {
    version: str(), core_rules: listOf(str()), numbers: anyObject(), accounting: anyObject(), errors: anyObject(),
    event_categories: mapOf(str(), 'The categories of history events (GET /api/events?category=...), each with what it records.'),
    api_conventions: record('ApiConventions', {
      retries: str('The Idempotency-Key header: how a POST or PATCH is retried safely.'), live_feed: str('GET /api/events/stream, the history as Server-Sent Events.'),
      documents: str('Where this API is described (OpenAPI, a browser page, MCP tools).'), paging: str('How listings answer a page at a time.'),
    }),
    api: listOf(record('RulesEndpoint', {
      method: str(), path: str(), summary: str(), auth: nullable(str()), path_parameters: anyObject(), query: anyObject(),
      body: nullable(anyObject()), success: int(),
    })),
  }),
  'POST /api/tick': record('Tick', { day: int('The new day.') }),
  'GET /api/events': listOf(HistoryEvent),
  'GET /api/events/{event_id}/investigation': record('Investigation', {
    event: HistoryEvent, window_days: int(), from_day: int(), to_day: int(), surrounding: listOf(HistoryEvent), related: listOf(HistoryEvent),
    involved: record('Involved', { agent: nullable(Agent), organizations: listOf(Organization) }),
  }),
};

/** The answer of every refusal but 422. */
export const ErrorBody = record('Error', { detail: str('What was wrong, in plain words, and where it helps what would be accepted.') });

/** The answer of 422: one item per problem. */
export const ValidationErrorBody = record('ValidationError', {
  detail: listOf(record('ValidationProblem', {
    loc: listOf({ ...any(), description: 'Where: body, query, path or header, then the field names and list positions.' }),
    msg: str(), type: str(), input: { ...any(), required: false }, ctx: { ...anyObject(), required: false },
  })),
});
