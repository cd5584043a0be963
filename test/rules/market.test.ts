import assert from 'assert/strict';
import {
  CONSTRUCTION_DRAW, MAX_SUPPLY_RATIO, SUPPLY_REVERSION, PRICE_CEILING_RATIO, PRICE_FLOOR_RATIO, marketDay, openingMarket, populationDay, priceFor, reversion, tradeTotal, valueBetween, type Market, type MarketEntry,
} from '../../actors/location/market';
import { decideDay, decideSeed, evolve, quoteTrade } from '../../actors/location/rules';
import type { LocationEvent, LocationState, TradeCommand } from '../../actors/location/messages';
import { generateWorld } from '../../actors/world/generate';

const entry = { resource: 'food', target_supply: 1000, supply: 1000, base_price: 2, price: 2, production_factor: 1, per_person: 0.01 };

describe('market rules', () => {
  describe('pricing', () => {
    it('sits at the base price at the usual supply', () => {
      assert.equal(priceFor(entry, 1000), 2);
    });

    it('rises as supply falls and falls as supply rises', () => {
      assert.ok(priceFor(entry, 500) > 2);
      assert.ok(priceFor(entry, 2000) < 2);
    });

    it('stays positive and within its bounds at any supply', () => {
      for (const supply of [0, 1, 10, 1e6, 1e9]) {
        const p = priceFor(entry, supply);
        assert.ok(p >= 2 * PRICE_FLOOR_RATIO && p <= 2 * PRICE_CEILING_RATIO && p > 0, `${supply} -> ${p}`);
      }
    });

    it('charges a buyer the area under the price curve over the supply taken, rounded up, and pays a seller the same rounded down', () => {
      const buy = tradeTotal(entry, 'buy', 100);
      assert.equal(buy.supplyAfter, 900);
      // Summed unit by unit, at the middle of each unit's step: the same area, nearly.
      const units = (from: number, to: number) => { let sum = 0; for (let s = from; s < to; s++) sum += priceFor({ ...entry, price_factor: 1 }, s + 0.5); return sum; };
      assert.ok(Math.abs(valueBetween(entry, 900, 1000) - units(900, 1000)) < 0.01, `${valueBetween(entry, 900, 1000)} against ${units(900, 1000)}`);
      assert.equal(buy.total, Math.ceil(valueBetween(entry, 900, 1000)));
      assert.ok(buy.total > 2 * 100 && buy.total < priceFor(entry, 900) * 100, 'between the prices before and after');
      const sell = tradeTotal(entry, 'sell', 100);
      assert.equal(sell.supplyAfter, 1100);
      assert.equal(sell.total, Math.floor(valueBetween(entry, 1000, 1100)));
      assert.ok(sell.total < buy.total, 'a round trip loses gold');
    });

    it('follows the price within its bounds: at the ceiling when nearly nothing is left, at the floor in a glut', () => {
      assert.equal(valueBetween(entry, 0, 1), 2 * PRICE_CEILING_RATIO);
      assert.equal(valueBetween(entry, 1e7, 1e7 + 10), 2 * PRICE_FLOOR_RATIO * 10);
      assert.equal(valueBetween({ ...entry, price_factor: 3 }, 500, 600), 3 * valueBetween(entry, 500, 600));
      const parts = [0, 1, 5, 37, 240, 999, 5000, 7500, 20000];
      let sum = 0;
      for (let i = 1; i < parts.length; i++) sum += valueBetween(entry, parts[i - 1], parts[i]);
      assert.ok(Math.abs(sum - valueBetween(entry, 0, 20000)) < 1e-6, 'areas add up across the bends of the curve');
    });

    it('gives no gold for buying in lots and selling at once, or buying at once and selling in lots, at one market on one day', () => {
      for (const start of [entry, { ...entry, supply: 150 }, { ...entry, supply: 6000 }, { ...entry, price_factor: 1.7 }]) {
        for (const lot of [1, 3, 20, 33]) {
          let m: MarketEntry = { ...start, price: priceFor(start, start.supply) };
          const step = (side: 'buy' | 'sell', q: number) => {
            const t = tradeTotal(m, side, q);
            m = { ...m, supply: t.supplyAfter, price: t.priceAfter };
            return side === 'buy' ? -t.total : t.total;
          };
          let gold = 0;
          for (let i = 0; i < 5; i++) gold += step('buy', lot);
          gold += step('sell', 5 * lot);
          assert.ok(gold <= 0, `lots of ${lot} from supply ${start.supply}: ${gold}`);
          gold = step('buy', 5 * lot);
          for (let i = 0; i < 5; i++) gold += step('sell', lot);
          assert.ok(gold <= 0, `one buy of ${5 * lot}, sold in lots, from supply ${start.supply}: ${gold}`);
          assert.equal(m.supply, start.supply);
        }
      }
    });
  });

  describe('regional differences (core rule 19)', () => {
    const emberfall = openingMarket(12000, {});
    const timberTown = openingMarket(3500, { favours: ['timber'] });
    const oreTown = openingMarket(2800, { favours: ['ore'], scarce: ['food', 'timber'] });

    it('makes timber cheaper where timber is favoured', () => {
      assert.ok(timberTown.timber.price < emberfall.timber.price);
    });

    it('makes ore cheaper and food and timber dearer in the ore town', () => {
      assert.ok(oreTown.ore.price < emberfall.ore.price);
      assert.ok(oreTown.food.price > emberfall.food.price);
      assert.ok(oreTown.timber.price > emberfall.timber.price);
    });
  });

  describe('consumption (core rule 20)', () => {
    const market = openingMarket(10000, {});

    it('lets the population eat food every day, more as it grows', () => {
      const barren = { food: { ...market.food, production_factor: 0 } };
      const small = marketDay(barren, { population: 10000, construction: 0 });
      const large = marketDay(barren, { population: 20000, construction: 0 });
      const eaten = market.food.supply - 10000 * 0.01;
      assert.equal(small.food.supply, Math.round(eaten + reversion(market.food.target_supply - eaten)));
      assert.ok(large.food.supply < small.food.supply, 'a larger population eats more');
    });

    it('closes a tenth of the gap to the usual supply a day, and a whole unit at least, so a small gap does not stay for good', () => {
      assert.equal(reversion(400), 400 * SUPPLY_REVERSION);
      assert.equal(reversion(-400), -400 * SUPPLY_REVERSION);
      assert.equal(reversion(4), 1);
      assert.equal(reversion(-4), -1);
      assert.equal(reversion(0.5), 0.5);
      assert.equal(reversion(0), 0);
      // Silk introduced at 46 of a usual 50, nobody making or using it: it reaches 50 in four days, where it stayed at 46.
      let silk: Market = { silk: { ...market.food, supply: 46, target_supply: 50, per_person: 0, production_factor: 0 } };
      for (let d = 0; d < 4; d++) silk = marketDay(silk, { population: 1000, construction: 0 });
      assert.equal(silk.silk.supply, 50);
    });

    it('restocks from local production', () => {
      const plenty = { food: { ...market.food, production_factor: 1.5 } };
      assert.ok(marketDay(plenty, { population: 10000, construction: 0 }).food.supply > market.food.supply);
    });

    it('keeps a world event\'s price factor within five times down or up (the market\'s own floor and ceiling ratios)', () => {
      for (const [given, kept] of [[0, PRICE_FLOOR_RATIO], [0.1, PRICE_FLOOR_RATIO], [0.5, 0.5], [3, 3], [1000, PRICE_CEILING_RATIO]]) {
        const day = marketDay(market, { population: 10000, construction: 0, prices: { '*': given } });
        assert.equal(day.food.price_factor, kept, `a factor of ${given}`);
        assert.equal(day.food.price, priceFor(day.food, day.food.supply));
        assert.ok(day.food.price >= day.food.base_price * PRICE_FLOOR_RATIO * PRICE_FLOOR_RATIO, 'never below a fifth of the floor');
      }
    });

    it('draws timber and ore for active construction, and stops when it ends', () => {
      const building = marketDay(market, { population: 10000, construction: 5 });
      const idle = marketDay(market, { population: 10000, construction: 0 });
      assert.ok(building.timber.supply < idle.timber.supply);
      assert.ok(building.ore.supply < idle.ore.supply);
      const drawn = CONSTRUCTION_DRAW.timber * 5 * (1 - SUPPLY_REVERSION);
      assert.ok(Math.abs(idle.timber.supply - building.timber.supply - drawn) <= 1, 'five projects draw five times the construction draw');
    });

    it('grows a fed population toward its capacity and shrinks a starving one', () => {
      const fed = openingMarket(1000, {});
      assert.ok(populationDay(1000, 1500, fed) > 1000);
      assert.equal(populationDay(1500, 1500, fed), 1500);
      // However fast a world event makes it grow, not past what the land can feed.
      assert.equal(populationDay(1000, 1500, fed, 1_000_000), 1500);
      for (const population of [1, 700, 1400, 1499]) assert.ok(populationDay(population, 1500, fed, 1_000_000) <= 1500);
      const starving = { ...fed, food: { ...fed.food, supply: 0 } };
      assert.ok(populationDay(1000, 1500, starving) < 1000);
    });
  });

  describe('a location over a thousand days with nobody acting', () => {
    it('keeps prices, supplies and populations of every seeded settlement within sane bounds', () => {
      for (const { profile, ...spec } of generateWorld('long-run').locations) {
        const seeded = decideSeed(null, { type: 'seed', location: spec, profile, day: 1 });
        assert.ok('events' in seeded);
        let state: LocationState = seeded.events.reduce(evolve, null as LocationState);
        for (let day = 2; day <= 1001; day++) {
          const d = decideDay(state, day, day <= 900 && day % 50 < 10 ? 2 : 0);
          assert.ok('events' in d);
          state = d.events.reduce(evolve, state);
          if (!state!.market) continue;
          for (const m of Object.values(state!.market)) {
            assert.ok(m.price > 0 && m.price >= m.base_price * PRICE_FLOOR_RATIO && m.price <= m.base_price * PRICE_CEILING_RATIO, `${spec.id} ${m.resource} price ${m.price} on day ${day}`);
            assert.ok(m.supply >= 0 && m.supply <= m.target_supply * MAX_SUPPLY_RATIO, `${spec.id} ${m.resource} supply ${m.supply}`);
          }
        }
        if (spec.population > 0) {
          assert.ok(state!.population >= spec.population * 0.5, `${spec.id} population collapsed to ${state!.population}`);
          assert.ok(state!.population <= state!.capacity, `${spec.id} population ${state!.population} beyond capacity`);
          for (const m of Object.values(state!.market!)) {
            assert.ok(m.supply > 0, `${spec.id} ran out of ${m.resource}`);
            assert.ok(m.price <= m.base_price * 3, `${spec.id} ${m.resource} settled at ${m.price}, over three times its base`);
          }
        }
      }
    });
  });

  describe('trade at a location', () => {
    const seeded = decideSeed(null, {
      type: 'seed', day: 1, profile: {},
      location: { id: 'here', name: 'Here', kind: 'town', description: 'a town', danger: 5, population: 1000, monster_population: 0, routes: [] },
    }) as { events: LocationEvent[] };
    const town = seeded.events.reduce(evolve, null as LocationState);
    const trade = (over: Partial<TradeCommand>): TradeCommand => ({ type: 'trade', day: 2, agent_id: 1, organization_id: 9, resource: 'food', side: 'buy', quantity: 10, ...over });

    it('quotes a buy and moves supply and price when recorded', () => {
      const d = quoteTrade(town, trade({}));
      assert.ok('events' in d);
      const after = d.events.reduce(evolve, town)!;
      assert.equal(after.market!.food.supply, town!.market!.food.supply - 10);
      assert.ok(after.market!.food.price >= town!.market!.food.price);
    });

    it('refuses more than the supply, an unknown resource, and a place without a market', () => {
      const tooMuch = quoteTrade(town, trade({ quantity: town!.market!.food.supply + 1 }));
      assert.ok('refusal' in tooMuch && tooMuch.refusal.status === 409);
      const unknown = quoteTrade(town, trade({ resource: 'gems' }));
      assert.ok('refusal' in unknown && unknown.refusal.status === 404);
      const wild = quoteTrade({ ...town!, market: null }, trade({}));
      assert.ok('refusal' in wild && wild.refusal.status === 409);
    });

    it('buys goods only up to MAX_SUPPLY_RATIO times its usual supply, so a flood never fetches the floor price without end', () => {
      const food = town!.market!.food;
      const room = Math.floor(food.target_supply * MAX_SUPPLY_RATIO) - food.supply;
      assert.ok(room > 0);
      const tooMuch = quoteTrade(town, trade({ side: 'sell', quantity: room + 1 }));
      assert.ok('refusal' in tooMuch && tooMuch.refusal.status === 409, JSON.stringify(tooMuch));
      assert.match(tooMuch.refusal.detail, new RegExp(`takes at most ${room} more food`));
      const full = quoteTrade(town, trade({ side: 'sell', quantity: room }));
      assert.ok('events' in full, JSON.stringify(full));
      const glutted = full.events.reduce(evolve, town)!;
      assert.equal(glutted.market!.food.supply, Math.floor(food.target_supply * MAX_SUPPLY_RATIO));
      const more = quoteTrade(glutted, trade({ side: 'sell', quantity: 1 }));
      assert.ok('refusal' in more && /takes at most 0 more food/.test(more.refusal.detail));
      // The most it takes is still above the floor: what it pays for a unit never reaches the floor price.
      assert.ok(priceFor(food, Math.floor(food.target_supply * MAX_SUPPLY_RATIO)) > food.base_price * PRICE_FLOOR_RATIO);
      // Buying is unaffected.
      assert.ok('events' in quoteTrade(glutted, trade({ side: 'buy', quantity: 10 })));
    });

    it('refuses a sale that would fetch nothing (paid in whole gold, rounded down), naming the least that fetches a gold piece', () => {
      const cheap = { ...town!, market: { ...town!.market!, food: { ...town!.market!.food, price_factor: PRICE_FLOOR_RATIO } } };
      const one = quoteTrade(cheap, trade({ side: 'sell', quantity: 1 }));
      assert.ok('refusal' in one && one.refusal.status === 409, JSON.stringify(one));
      const least = Number(/sell at least (\d+)/.exec(one.refusal.detail)?.[1]);
      assert.ok(least > 1, one.refusal.detail);
      const enough = quoteTrade(cheap, trade({ side: 'sell', quantity: least }));
      assert.ok('events' in enough && (enough.events[0] as { total: number }).total >= 1, JSON.stringify(enough));
      const fewer = quoteTrade(cheap, trade({ side: 'sell', quantity: least - 1 }));
      assert.ok('refusal' in fewer, 'one fewer still fetches nothing');
      // A buy always costs at least a gold piece.
      const buy = quoteTrade(cheap, trade({ side: 'buy', quantity: 1 }));
      assert.ok('events' in buy && (buy.events[0] as { total: number }).total === 1);
    });
  });
});
