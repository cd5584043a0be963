// The world's accounting, over a real world (docs/accounting.md): random actions by four
// agents over many days (trading, travel, workers, projects and production plans, quests
// with sponsors, expeditions of parties that complete quests, contracts with goods,
// messages, alliances, dissolving and founding again, bankruptcy, world-funded bounties). After every step the world's gold
// and goods changed by exactly the named flows in the new history events' ledgers, and
// replaying the ledgers gives every organization's treasury and holdings. The seed is
// fixed; bench/accounting.ts runs the same check with thousands more actions.
import assert from 'assert/strict';
import fc from 'fast-check';
import { EconomyDriver, actionArbitrary } from '../support/economy-driver';
import { startTestWorld, type TestWorld } from '../support/world';

// A seed whose 400 actions exercise every flow and every kind of action the assertions
// below list (they fail loudly if a change of the driver makes it exercise less).
export const ACCOUNTING_SEED = 6;

describe('accounting: no gold or goods from nothing (random actions over a real world)', function () {
  this.timeout(300_000);
  let w: TestWorld;
  after(async () => { await w?.close(); });

  it('keeps the world\'s gold and goods equal to the named flows, and every treasury equal to its history, through 400 random actions', async () => {
    w = await startTestWorld({ seed: 'accounting' });
    const driver = new EconomyDriver(w, 4);
    await driver.start();
    for (const action of fc.sample(actionArbitrary(4), { seed: ACCOUNTING_SEED, numRuns: 400 })) await driver.step(action);
    const { answers, flows } = driver.report();
    const succeeded = (kind: string) => Object.entries(answers).filter(([k]) => k.startsWith(`${kind} 20`)).reduce((n, [, c]) => n + c, 0);
    // The run must have exercised the flows it claims to check.
    for (const kind of ['tick', 'buy', 'sell', 'project', 'cancel-project', 'post-quest', 'sponsor', 'expedition', 'propose-contract', 'fulfil-contract', 'world-event', 'dissolve', 'found']) {
      assert.ok(succeeded(kind) > 0, `some ${kind} succeeded: ${JSON.stringify(answers)}`);
    }
    for (const flow of ['founding_grant', 'world_reward', 'market', 'upkeep', 'workers', 'message', 'project_budget', 'project_refund', 'quest_escrow', 'contract', 'estate_forfeited', 'production']) {
      assert.ok((flows[flow] ?? 0) > 0, `the ${flow} flow occurred: ${JSON.stringify(flows)}`);
    }
  });
});
