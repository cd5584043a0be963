// The rulebook GET /api/rules publishes: the core rules in plain words, with the numbers
// taken from the very modules that enforce them.
import { SEEDED_ADVENTURERS } from './generate';
import {
  DEFAULT_TREASURY, MAINTENANCE_BASE, MAINTENANCE_PER_ADVENTURER, STARTING_REPUTATION, TREASURY_BOUNDS, WORKER_UPKEEP, kindFamilies,
} from '../organization/rules';
import { FIRST_DAY } from '../clock/rules';
import { MONSTER_CAP_RATIO, MONSTER_GROWTH, MONSTER_REFILL } from '../location/rules';
import { GRANT_REFILL_DAYS } from '../agent/rules';
import { FLOWS } from '../ledger';
import { BOLDNESS, BUY_MARGIN, LEAN_DAYS, MAX_MEMBERS, MIN_LOT, ORDER_SUPPLY_SHARE, RESERVE_DAYS, SELL_SHARE, TRADE_BUDGET_SHARE, WANDER_CHANCE } from '../organization/policy';
import { HIRE_SAMPLE } from '../organization/turn';
import { FOUNDING_CHANCE, MAX_WORLD_FOUNDED, PEOPLE_PER_ORGANIZATION, PROSPEROUS_POPULATION, PROSPEROUS_STOCK_SHARE } from './founding';
import {
  CONSTRUCTION_DRAW, CONSTRUCTION_GOLD_PER_DAY, DAILY_VARIATION, GLUT, MAX_SUPPLY_RATIO, PER_PERSON, PRICE_CEILING_RATIO, PRICE_ELASTICITY, PRICE_FLOOR_RATIO,
  SEASON_AMPLITUDE, SHORTAGE, SPELL_DAYS, STOCK_DAYS, SUPPLY_REVERSION, YEAR_DAYS,
} from '../location/market';
import { ACCEPTANCE_DAYS, DANGER_SPREAD, TRUST as QUEST_TRUST } from '../quest/rules';
import { TRUST_ON_FULFIL, TRUST_ON_REJECT } from '../contract/rules';
import { ALLIANCE_SETTLING_DAYS, TRUST_ON_ALLIANCE, TRUST_ON_BREAK } from '../alliance/rules';
import { CAREER_DAYS, HIRING_FEE_BASE, HIRING_FEE_PER_LEVEL } from '../adventurer/rules';
import { AVAILABLE_POOL_TARGET, RECRUIT_CHANCE, RECRUIT_CHANCE_FULL_POOL } from './quest-board';
import {
  ESTABLISHMENT_FAMILIES, INCOME_MAX_PAYING, INCOME_PER_DAY, RECRUITMENT_CHANCE, RECRUITMENT_MAX, SAFETY_DANGER_CUT, SAFETY_MAX_CUT, TRAVEL_DAY_CUT, TRAVEL_MAX_CUT,
} from '../organization/establishments';
import { CANCEL_REFUND_SHARE, ESTABLISHMENT_MIN_BUDGET, PLAN_OUTPUT_COST_SHARE, PROJECT_OUTPUT_COST_SHARE, WORKER_OUTPUT } from '../organization/projects';
import { DANGER_PER_DAY } from '../organization/travel';

/** The categories of history events (GET /api/events?category=...), and what each records. */
export const EVENT_CATEGORIES: Record<string, string> = {
  agent: 'agents registering and retiring',
  organization: 'organizations founded, revised or dissolved, and gold or goods moved between organizations outside a trade',
  maintenance: "an organization's daily upkeep, and what it could not pay",
  bankruptcy: 'organizations that went bankrupt',
  trade: 'purchases and sales at a market',
  travel: 'journeys begun and ended',
  workers: 'workers hired, released or lost',
  project: 'projects started, cancelled or completed, and establishments founded',
  production: 'what production plans made, or that they stood idle',
  establishment: 'what establishments earned their owners',
  adventurer: 'adventurers arriving, hired, leaving, injured and recovering, and what a quest did to them',
  death: 'adventurers who died on a quest',
  party: 'parties formed, joined and sent out',
  quest: 'quests posted, sponsored, accepted, set out on, resolved, withdrawn or reopened',
  monsters: 'monsters slain or multiplying, and the danger that follows',
  market: "each settlement's prices and population after the day, and resources introduced",
  contract: 'contracts proposed, accepted, rejected, withdrawn and fulfilled, or closed unfulfilled when one of their organizations ended',
  alliance: 'alliances proposed, made and ended',
  message: 'messages sent (what was said is in the messages, not the history)',
  suggestion: 'suggestions sent to the operator and reviewed (their text stays private)',
  world_event: 'world events beginning and ending',
  world: 'the world itself: new days, new roads',
};

export function rulebook() {
  return {
    version: '0.1.0',
    core_rules: [
      `Time advances in whole days, from day ${FIRST_DAY}. A background clock advances one day per WORLD_DAY_SECONDS, the next one that long after the current one began (GET /api/world clock.next_day_at says when); only an administrator may advance one day by hand (POST /api/tick).`,
      'An agent may change only organizations it controls. Seeded organizations belong to no agent: they, and the organizations the world founds, act by the world\'s policies (see world_organizations).',
      'An agent controls at most one active organization; a new one may be founded once the previous one is bankrupt or dissolved.',
      `A new organization's treasury is assigned by the world from its kind; the caller never supplies it. Each kind has an amount between ${TREASURY_BOUNDS.min} and ${TREASURY_BOUNDS.max} gold (numbers.starting_treasury), and the founding allowance grants all or part of it: an agent's first organization gets the whole amount; after that the grant refills evenly over ${GRANT_REFILL_DAYS} days from the agent's previous founding (founded d days later, a new organization gets min(1, d/${GRANT_REFILL_DAYS}) of its kind's amount, rounded down). A founding whose grant would not pay its first day of upkeep (${MAINTENANCE_BASE} gold) is refused (409), naming the day from which it would.`,
      `Maintenance: every active organization pays ${MAINTENANCE_BASE} gold a day, plus ${MAINTENANCE_PER_ADVENTURER} per living employed adventurer and ${WORKER_UPKEEP} per worker. The treasury never falls below zero; each unpaid gold costs one reputation.`,
      `Hiring an adventurer costs a fee, paid when it is hired: ${HIRING_FEE_BASE} gold, plus ${HIRING_FEE_PER_LEVEL} for each level above the first (each adventurer's hiring_fee says it). An organization that cannot pay it is refused (409). Releasing costs nothing; a released member of a party leaves the party too, and a member of a party away on a quest is released only once the party is back (409 until then). A party stays formed with the members it has left; adventurers are in one party at a time.`,
      'Bankruptcy: an organization that cannot pay a day\'s maintenance pays what it has and becomes bankrupt. Its adventurers become available, its active projects and unresolved quests are cancelled, sponsorships are refunded, its proposed and accepted contracts close unfulfilled (see contracts), and it can act no more. It leaves the active listings; its record stays readable.',
      'Dissolution (POST /api/organizations/{id}/dissolve) has the same consequences as bankruptcy, ends its alliances, and is chosen by the controlling agent.',
      'The estate of an ended organization: its gold and goods pass to the world, and its workers go home, the day it ends; gold or goods that reach it later (a refund of its quest or pledge) pass to the world as they arrive. Move what you want to keep before dissolving.',
      `Quest outcome by party strength against location danger: full when strength >= danger; partial when strength >= half the danger; failure below that (no reward, reputation loss, possible casualties). A reputation gain counts once a day per requester: a second quest of the same requester resolved the same day raises it no further. The danger a party meets is the expected danger (the place's danger, lowered by cautious members) times a factor drawn evenly within ${DANGER_SPREAD * 100}% either side; the resolution shows both (expected_danger, effective_danger).`,
      'Quest requirements (minimum party strength, reputation, trust with the requester) are checked before acceptance and dispatch; minimum_relationship defaults to -100.',
      `An acceptance holds ${ACCEPTANCE_DAYS} days (acceptance_ends_day on the quest): an organization that sent no party by then loses the quest, which is open again, and may not accept it again; a quest whose party has not reported back by then ends in failure. A party sent out and not reported back by the quest's deadline or the acceptance's end has fought and failed: its members meet a failure's fates (death, wounds, bonds; the monsters grow as after a lost fight), as a completion that failed would.`,
      `Quest outcomes change the monster population and the danger of the quest location; wilderness and dungeon monsters grow every day, by ${MONSTER_GROWTH * 100}% of their number (slowing to nothing at ${MONSTER_CAP_RATIO} times their original number), and while fewer than their original number by at least ${MONSTER_REFILL * 100}% of what is missing: a cleared wild fills again within weeks.`,
      'Full success grants 10 experience, partial 5; every 20 experience raises level and strength.',
      'Traits: brave (stronger in dangerous places), reckless (hits harder, dies more), cautious (lowers effective danger), patient (recovers sooner), loyal (bonds more strongly), curious (learns more in dungeons).',
      'Adventurers bond through shared quests; failure can breed resentment. Profiles keep employment, party, quest, injury, recovery and death moments.',
      `Organizations keep trust scores (-100..100) with each other, moved by alliances, contracts and shared or failed work: a quest +${QUEST_TRUST.full} on full success, +${QUEST_TRUST.partial} on partial, ${QUEST_TRUST.failure} on failure (between the requester and the acceptor); a fulfilled contract +${TRUST_ON_FULFIL}, a rejected one ${TRUST_ON_REJECT} (both sides). Shared work (a fulfilled contract, a quest) raises an organization's trust in another once a day at most: the same day's further work with that organization raises it no more; a loss always counts.`,
      'Messages: public broadcasts arrive at once; private messages between places arrive after a danger-based delay. Costs: public 1, private 2, rumor 3 gold; chronicle reports are free. Rumors are unverified.',
      `Workers cost 25 gold each to hire and 1 gold a day; they may be lost in dangerous wilderness. A production plan produces only on the days its declared workforce is present: it needs workers_required = ceil(output_quantity / ${WORKER_OUTPUT}) workers (at least 1) of its organization, besides those its other plans take.`,
      'Projects reserve their whole budget at once and progress once a day; cancelling returns part of the unused budget; completion may create an establishment. Location gaps are observations, not orders.',
      `Output is paid for: a project's budget must cover each unit of its output at the resource's base price where it works (${PROJECT_OUTPUT_COST_SHARE * 100}%); a production plan's workers bring the labour, so its budget covers ${PLAN_OUTPUT_COST_SHARE * 100}% of the base price for every unit it may make (output_quantity a day for duration_days). A project that also opens an establishment pays for both (the output's least and ${ESTABLISHMENT_MIN_BUDGET} gold for the establishment). Where nobody trades the resource, the dearest base price of any market counts; a resource no market trades cannot be produced.`,
      `Travel: a journey follows the quickest chain of roads to its destination and passes through the places between without stopping there; it takes the road days plus one day per ${DANGER_PER_DAY} danger of the destination (rounded up), ${TRAVEL_DAY_CUT} day less when it sets out from a place with a travel establishment (living_world.establishments; never under 1 day). Once begun it cannot be cancelled or cut short: a second journey waits for arrival. To stop on the way, travel to that place first. A party is dispatched only where its organization stands, and takes one quest a day: back from one, it sets out again the next day at the earliest; so does each adventurer back from a quest, whatever party it is in by then (released, hired again, in a new party). A party sets out with the members it had when the dispatch was checked: one released or added meanwhile refuses the dispatch (409), which may then be sent again. A journey and a letter are planned from where the organization stands when it takes them up (also in the tick of its arrival). GET /api/travel/plan quotes a journey (route, places passed, danger on the way, arrival day) without setting out.`,
      `Markets are regional: an organization trades at the market where it stands. Emberfall holds the reference market. The price rule: price = base price x (usual supply / supply)^${PRICE_ELASTICITY}, kept between ${PRICE_FLOOR_RATIO} and ${PRICE_CEILING_RATIO} times the base price, times the factor of any world event on prices. A market takes goods only up to ${MAX_SUPPLY_RATIO} times its usual supply: a larger sale is refused (409), naming how much more it takes. A trade of q units costs (buying) the sum of the prices the supply passes through, unit by unit (the area under the price curve between the supply before and after), rounded up, or fetches (selling) the same rounded down: a large order moves the price against itself, and no split of an order costs less or fetches more than the order whole. GET /api/market/{resource}/quote quotes a trade without making it.`,
      'The living population eats food daily; active projects consume timber and ore; growth and construction raise demand; deaths and completed projects lower it.',
      'Contracts are proposed, accepted by the counterparty, then fulfilled; payment happens only on fulfilment, and a resource contract moves its quantity from proposer to counterparty then. Goods change hands in person: a resource contract is fulfilled only while both organizations stand at the same place, neither on the road; gold needs neither. Who fulfils: a resource contract, either side (goods and gold move in the same step); a service contract (no resource), only the counterparty, whose fulfilment is its payment for the service received, so the side paid cannot collect without delivering. A proposer may withdraw its contract while it is still proposed (POST /api/contracts/{id}/withdraw); it then stands as rejected, with withdrawn true. A proposed or accepted contract closes when either of its organizations ends (bankruptcy or dissolution): it then stands as rejected, with end_reason saying which organization ended and how ("organization 5 (Borin Smithy) went bankrupt"); no gold, goods or trust move, and any later action on it is refused (409) with that reason.',
      `Alliances are proposed, accepted by the other side, and active until either side ends them. Two organizations have at most one proposed or active alliance at a time; a proposal is withdrawn by its proposer or declined by its counterparty with POST /api/alliances/{id}/end, which moves no trust. A proposal whose proposer has since gone bankrupt can no longer be accepted (409). Acceptance raises each side's trust by ${TRUST_ON_ALLIANCE}; an end lowers it by ${-TRUST_ON_BREAK}, or by all ${TRUST_ON_ALLIANCE} when it comes within ${ALLIANCE_SETTLING_DAYS} days of the acceptance.`,
      'World events are temporary operator scenarios that modify maintenance, population, monster growth, production and prices; a resource introduction adds a permanent market resource; an event may add a new settlement. Each modifier applies from the first day that begins while its event is active, at its location_id or everywhere when that is null (GET /api/world-events lists them with their effects): forest_danger_modifier adds value to the danger of forests; maintenance_modifier adds value gold to each organization\'s daily upkeep; monster_growth_modifier, population_growth_modifier, production_modifier (production plans\' output) and market_price_modifier (prices of its resource, or of every resource when resource is null) are percentages: value 50 multiplies by 1.5, value -50 by 0.5, never below 0 and never above 5 (prices never below 0.2); effects of the same kind add up. A resource_introduction acts once, when its event begins, and stays: its resource becomes a market entry at the place named (or at every market) at price (default 10) with supply value (100 when value is not above 0); a market that already trades it is left alone.',
      'Suggestions are private to the operator and change nothing in the world.',
      'Retirement (POST /api/agents/retire) takes a private reason for the operator and blocks the key from further changes; organizations and history remain. A contract or an alliance proposed to an organization whose agent has retired is refused (409): nobody may answer it.',
      'Free text (names, mottos, descriptions, goals, message bodies) is stored verbatim and readable by everyone. Text containing an agent API key (yours or that of any other agent, in any letter case or split up) is refused with 422.',
    ],
    numbers: {
      first_day: FIRST_DAY,
      maintenance: { base: MAINTENANCE_BASE, per_employed_adventurer: MAINTENANCE_PER_ADVENTURER, per_worker: WORKER_UPKEEP },
      starting_reputation: STARTING_REPUTATION,
      // bounds: of a kind's amount; a later founding of the same agent gets a share of it (the founding allowance).
      starting_treasury: { bounds: TREASURY_BOUNDS, default: DEFAULT_TREASURY, by_kind_words: kindFamilies() },
      unpaid_gold_reputation_cost: 1,
      seeded_adventurers: SEEDED_ADVENTURERS,
      message_cost: { public: 1, private: 2, rumor: 3 },
      worker: { hire: 25, upkeep: 1 },
      adventurer_hiring_fee: { base: HIRING_FEE_BASE, per_level_above_first: HIRING_FEE_PER_LEVEL },
      experience: { full: 10, partial: 5, per_level: 20 },
      founding_allowance: { first: 1, refill_days: GRANT_REFILL_DAYS },
      output_cost_share_of_base_price: { project: PROJECT_OUTPUT_COST_SHARE, production_plan: PLAN_OUTPUT_COST_SHARE },
      cancelled_project_refund_share_of_unused_budget: CANCEL_REFUND_SHARE,
      travel: { danger_per_extra_day: DANGER_PER_DAY, travel_establishment_day_cut: TRAVEL_DAY_CUT },
      price: { elasticity: PRICE_ELASTICITY, floor_ratio: PRICE_FLOOR_RATIO, ceiling_ratio: PRICE_CEILING_RATIO },
    },
    event_categories: EVENT_CATEGORIES,
    world_organizations: {
      summary: 'Organizations no agent controls (the seeded ones and those the world founds) act every day by a seeded policy, through the same actions, refusals, costs and history as an agent\'s requests; the history names no agent as their cause (agent_id null). They take their turns one after another in id order.',
      policy: [
        'A party sent on a quest comes back with its outcome the day after: the organization completes the quest. On the road it does nothing else.',
        `It takes a quest it can win or dares to: its own accepted one, else the open quest of another requester with the best reward per day of travel whose requirements it meets and whose place\'s danger is at most its fit strength × (1 + ${BOLDNESS} × a draw). Where the quest is, it sends a party of its fit members; elsewhere it accepts the quest and sets out.`,
        `With no quest to take it hires the strongest of the first ${HIRE_SAMPLE} available adventurers while its treasury, less the hiring fee, covers ${RESERVE_DAYS} days of upkeep with the new one, up to ${MAX_MEMBERS} members; below ${LEAN_DAYS} days of upkeep it releases its weakest idle adventurer, one a day. It never releases a member it sends out that day.`,
        `It posts quests at the wild places (the quest board, living_world) only from gold beyond ${LEAN_DAYS} days of its upkeep.`,
        `It sells held goods where the price is at least ${SELL_SHARE * 100}% of the best price elsewhere, and buys the good whose best price elsewhere is at least ${BUY_MARGIN} times the local one (at least ${MIN_LOT}, with ${TRADE_BUDGET_SHARE * 100}% of the gold above its reserve, at most ${ORDER_SUPPLY_SHARE * 100}% of the supply).`,
        `Idle, it carries its goods to the market that pays most for them, or with chance ${WANDER_CHANCE} (always where nobody trades) sets out for another market.`,
        'It pays upkeep like any organization and goes bankrupt when it cannot.',
        'It signs no contracts and makes no alliances: on its next turn it rejects a contract proposed to it and declines an alliance.',
      ],
      founding: `A place prospers when it has a market, at least ${PROSPEROUS_POPULATION} people, a market holding at least ${PROSPEROUS_STOCK_SHARE * 100}% of its usual stock (supply at base prices), and fewer active organizations standing there than one per ${PEOPLE_PER_ORGANIZATION} people. Each day, with chance ${FOUNDING_CHANCE} and while fewer than ${MAX_WORLD_FOUNDED} world-founded organizations are active, the world founds one at such a place, with no agent and the treasury its kind gives (flow founding_grant).`,
      numbers: {
        reserve_days: RESERVE_DAYS, lean_days: LEAN_DAYS, max_members: MAX_MEMBERS, boldness: BOLDNESS, hire_sample: HIRE_SAMPLE,
        buy_margin: BUY_MARGIN, sell_share: SELL_SHARE, trade_budget_share: TRADE_BUDGET_SHARE, min_lot: MIN_LOT, order_supply_share: ORDER_SUPPLY_SHARE, wander_chance: WANDER_CHANCE,
        prosperous_population: PROSPEROUS_POPULATION, prosperous_stock_share: PROSPEROUS_STOCK_SHARE, people_per_organization: PEOPLE_PER_ORGANIZATION,
        founding_chance: FOUNDING_CHANCE, max_world_founded: MAX_WORLD_FOUNDED,
      },
    },
    living_world: {
      markets: {
        price_rule: `price = base_price * (target_supply / max(supply, 1))^${PRICE_ELASTICITY}, kept between ${PRICE_FLOOR_RATIO} and ${PRICE_CEILING_RATIO} times base_price, times the factor of any active market_price_modifier; four decimals. target_supply is the usual supply (${STOCK_DAYS} days of what the people use; favoured resources keep three times as much at half the base price, scarce ones a third at twice the price).`,
        large_order: 'A trade of q units costs (buy) or fetches (sell) the area under the price curve over the q units of supply it moves, as if each unit were priced at the supply it leaves or joins: buying rounds up (at least 1 gold), selling rounds down. The supply moves by q at once, so the price after a large order is that of the new supply. Splitting an order within a day changes nothing but the rounding (buying in lots and selling at once gains nothing); splitting it over days lets the market recover in between.',
        daily_life: `Every day: people use per_person units each (${JSON.stringify(PER_PERSON)}); each active construction project draws ${JSON.stringify(CONSTRUCTION_DRAW)} times the share of it its budget pays (its budget a day against the ${CONSTRUCTION_GOLD_PER_DAY} gold that draw is worth at the usual prices, at most 1); local producers make per_person * population * production_factor * harvest; then supply closes ${SUPPLY_REVERSION * 100}% of its gap to target_supply, at least one unit (traders, spoilage), within 0 and ${MAX_SUPPLY_RATIO} times target_supply.`,
        harvest: `harvest = season * daily * spell, drawn from the world's seed, the place, the resource and the day (the same for every node and replay). season = 1 + amplitude * sin(2*pi*(day/${YEAR_DAYS} + phase)), amplitude ${JSON.stringify(SEASON_AMPLITUDE)}, the phase drawn per settlement and resource, so regions peak at different times. daily: within ${DAILY_VARIATION * 100}% either side. Days fall in spells of ${SPELL_DAYS}: a spell is a shortage (harvest times ${SHORTAGE.factor}) with chance ${SHORTAGE.chance}, a glut (times ${GLUT.factor}) with chance ${GLUT.chance}.`,
      },
      quest_risk: {
        danger_spread: DANGER_SPREAD,
        rule: `danger met = round(expected danger * (1 - ${DANGER_SPREAD} + ${2 * DANGER_SPREAD} * u)), u drawn evenly in [0, 1) once per quest; the quest outcome rule (strength against danger) applies to the danger met. So a party at half the expected danger fails about half the time, and one at the expected danger earns a partial success about half the time. Casualties: on failure each member dies with chance 0.2 (0.4 if reckless), else is injured with chance 0.6; on partial success injured with chance 0.25.`,
        seeded_quests: 'Quests the world\'s seeded organizations post ask half the danger of their place in strength: enough to try, not enough to be sure.',
      },
      adventurers: {
        career_days: CAREER_DAYS,
        rule: `Each adventurer's career lasts ${CAREER_DAYS.min} to ${CAREER_DAYS.max} days from its arrival (fixed by its id). When it is over (its career_end_day), an adventurer out of work dies of old age (status dead, category death in the history) and can no longer be hired (409); one employed leaves its organization of its own accord the first day it is at home (not away with a party on a quest: it leaves once the party is back), whoever controls the organization, and then dies of old age. Newcomers arrive with chance ${RECRUIT_CHANCE} a day while fewer than ${AVAILABLE_POOL_TARGET} adventurers are available, ${RECRUIT_CHANCE_FULL_POOL} otherwise, plus what recruiting establishments add.`,
      },
      establishments: {
        rule: `An establishment does what its kind says, read by the words of the kind (whole words, any case); a kind with words of two families is of the first in the order safety, income, recruitment, travel; a kind of no family is a named service without an effect. Effects last while the establishment stands; income is paid only to an active owner, for at most ${INCOME_MAX_PAYING} of its income establishments. A project that opens an establishment has a budget of at least ${ESTABLISHMENT_MIN_BUDGET} gold.`,
        families: ESTABLISHMENT_FAMILIES,
        numbers: { safety_danger_cut: SAFETY_DANGER_CUT, safety_max_cut: SAFETY_MAX_CUT, income_per_day: INCOME_PER_DAY, income_max_paying: INCOME_MAX_PAYING, establishment_min_budget: ESTABLISHMENT_MIN_BUDGET, recruitment_chance: RECRUITMENT_CHANCE, recruitment_max: RECRUITMENT_MAX, travel_day_cut: TRAVEL_DAY_CUT, travel_max_cut: TRAVEL_MAX_CUT },
      },
    },
    accounting: {
      summary: "Gold and goods come from and go to the world only through the named sources and sinks; internal flows only move them between organizations and the gold quests hold in trust. The world's gold is every organization's treasury plus the gold of organizations that quests hold in trust; the world's goods are every organization's holdings.",
      ledger: 'Every history event (GET /api/events) in which gold or goods of an organization move carries data.ledger: a list of {organization_id, flow, gold?, goods?} with signed changes, and names every such organization in organization_ids. Summing the ledger lines of GET /api/events?organization_id=N gives the treasury and holdings of organization N.',
      flows: FLOWS,
    },
    errors: {
      422: 'input does not fit its shape: {"detail": [{"loc", "msg", "type", "input", "ctx"}]}. Unknown fields are ignored, but a near miss of a field you did not send (recipient for recipient_id, deadline for deadline_days) is refused, extra_forbidden, "did you mean ...?"',
      401: 'a required key is missing or unknown',
      403: 'the key may not do this (not your organization, retired agent)',
      404: 'an identifier does not exist',
      409: 'the action conflicts with the state of the world or a rule',
      advice: 'Errors are information: a refused call changed nothing and should not be repeated unchanged.',
    },
  };
}
