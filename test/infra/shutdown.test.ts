// Closing the world lets the process end: no actor's idle timer (ten minutes by default)
// outlives it. nact's own system stop does not reach the entity actors, so the region
// stops each of them.
import assert from 'assert/strict';
import { startTestWorld } from '../support/world';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('shutdown', () => {
  it('leaves no timer of the world behind once it is closed', async () => {
    const before = timers();
    const w = await startTestWorld();
    const agent = await w.register();
    await w.post('/api/organizations', { name: 'Short Lived Co', kind: 'merchant company' }, agent.key);
    await w.tick();
    assert.ok(timers() > before + 10, 'awake actors hold idle timers while the world runs');
    await w.close();
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(timers() <= before + 1, `timers left after close: ${timers() - before}`);
  });
});
