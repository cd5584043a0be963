// Names every JavaScript object answers ('toString', 'constructor', '__proto__') given as a
// resource: the rules look them up among a record's own keys only (actors/own.ts), so a
// market or a treasury never meets a function where a number belongs.
import assert from 'assert/strict';
import type { Organization, OrganizationEvent, OrganizationState } from '../../actors/organization/messages';
import { decideFound, decideSettleTrade, decideTransfer, evolve } from '../../actors/organization/rules';
import { quoteTrade } from '../../actors/location/rules';
import type { LocationState } from '../../actors/location/messages';
import { harvestFactors, introducedEntry, marketDay, openingMarket } from '../../actors/location/market';
import { sumLedger } from '../../actors/ledger';
import { own, setOwn } from '../../actors/own';

const INHERITED = ['toString', 'valueOf', 'constructor', '__proto__', 'hasOwnProperty', 'isPrototypeOf'];

type D = { events: OrganizationEvent[] } | { refusal: { status: number; detail: string } };
const status = (d: { events: unknown[] } | { refusal: { status: number } }) => ('refusal' in d ? d.refusal.status : 200);
const founded = (): Organization => {
  const d = decideFound(null, { type: 'found', id: 3, agent_id: 1, name: 'Hearth Co', kind: 'merchant company', location_id: 'emberfall', description: '', goals: '', motto: '', day: 1 }) as D;
  assert.ok('events' in d);
  return d.events.reduce(evolve, null as OrganizationState) as Organization;
};

describe('names every object inherits, given as resources', () => {
  it('own finds only what a record holds itself; setOwn keeps even __proto__ as a key', () => {
    for (const name of INHERITED) assert.equal(own({ food: 1 }, name), undefined, name);
    assert.equal(own({ food: 1 }, 'food'), 1);
    assert.equal(own(null, 'food'), undefined);
    const r: Record<string, number> = {};
    setOwn(r, '__proto__', 5);
    assert.equal(Object.getPrototypeOf(r), Object.prototype, 'the prototype is left alone');
    assert.deepEqual(Object.keys(r), ['__proto__']);
    assert.equal(own(r, '__proto__'), 5);
  });

  it('are not traded at a market (404), on either side', () => {
    const place = { id: 'emberfall', name: 'Emberfall', market: openingMarket(1000, {}) } as unknown as LocationState;
    for (const resource of INHERITED) {
      for (const side of ['buy', 'sell'] as const) {
        const d = quoteTrade(place, { type: 'trade', day: 1, agent_id: 1, organization_id: 3, resource, side, quantity: 1 });
        assert.equal(status(d), 404, `${side} ${resource}`);
      }
    }
  });

  it('are held by no organization: selling or delivering one is refused, and a sum that is not a number moves nothing', () => {
    const org = founded();
    const trade = { type: 'settle-trade' as const, agent_id: 1, day: 1, location_id: 'emberfall' };
    for (const resource of INHERITED) {
      assert.equal(status(decideSettleTrade(org, { ...trade, resource, side: 'sell', quantity: 1, gold: 1 })), 409, resource);
      assert.equal(status(decideTransfer(org, { type: 'transfer', gold: 0, holdings: { [resource]: -500 }, trust: {}, day: 1 } as never)), 409, resource);
    }
    assert.equal(status(decideSettleTrade(org, { ...trade, resource: 'food', side: 'buy', quantity: 1, gold: NaN })), 422);
    assert.equal(status(decideTransfer(org, { type: 'transfer', gold: NaN, holdings: {}, trust: {}, day: 1 } as never)), 422);
  });

  it('introduced as a market resource, keep a day of the market in numbers', () => {
    const market = { ...openingMarket(1000, {}) };
    for (const resource of INHERITED) Object.defineProperty(market, resource, { value: introducedEntry(resource, 3, 50), enumerable: true, writable: true, configurable: true });
    const names = Object.keys(market);
    const harvest = harvestFactors('seed', 'emberfall', 7, names);
    assert.deepEqual(Object.keys(harvest), names);
    const next = marketDay(market, { population: 1000, construction: 2, harvest, prices: { '*': 10 } });
    assert.deepEqual(Object.keys(next), names);
    for (const name of names) {
      const e = own(next, name)!;
      assert.ok(Number.isFinite(e.price) && Number.isFinite(e.supply), `${name}: ${JSON.stringify(e)}`);
    }
  });

  it('sum in a ledger as any other goods', () => {
    // As the history gives them back: JSON.parse keeps "__proto__" as a key.
    const goods = (text: string) => JSON.parse(text) as Record<string, number>;
    const sum = sumLedger([
      { organization_id: 1, flow: 'market', gold: -3, goods: goods('{"__proto__": 2, "toString": 1}') },
      { organization_id: 1, flow: 'market', gold: 0, goods: goods('{"__proto__": 3, "toString": 1}') },
    ]);
    assert.equal(sum.gold, -3);
    assert.equal(Object.getPrototypeOf(sum.goods), Object.prototype);
    assert.equal(own(sum.goods, '__proto__'), 5);
    assert.equal(own(sum.goods, 'toString'), 2);
  });
});
