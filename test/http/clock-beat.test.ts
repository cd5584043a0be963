// The background clock keeps its beat (core rule 1: one world day per configured
// interval): the next day begins one interval after the current one began, across restarts,
// and GET /api/world says when (its clock). Real seconds on a real server: days of a few
// seconds, a world stopped and started again on the same folder.
import assert from 'assert/strict';
import fs from 'fs';
import { startTestWorld, tempDir, type TestWorld } from '../support/world';
import { waitFor } from '../support/wait';

const dayOf = async (w: TestWorld): Promise<number> => (await w.get('/api/world')).body.day;

describe('the background clock across restarts (core rule 1: one day per interval)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let w: TestWorld | null = null;
  beforeEach(() => { dataDir = tempDir('worldsim-beat-'); });
  afterEach(async () => {
    if (w) await w.close();
    w = null;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Waits until the world's day is past `day`, and answers when that was seen. */
  const dayAfter = async (world: TestWorld, day: number, ms: number) => {
    await waitFor(async () => (await dayOf(world)) > day, `a day after day ${day}`, ms, 20);
    return Date.now();
  };

  type WorldClock = { seconds_per_day: number; day_began_at: string | null; next_day_at: string | null };
  const clockOf = async (world: TestWorld): Promise<{ day: number } & WorldClock> => {
    const body = (await world.get('/api/world')).body;
    return { day: body.day, ...body.clock };
  };
  const ms = (iso: string | null) => Date.parse(iso ?? 'not given');

  it('says when the day began and when the next begins (GET /api/world clock), and the background clock keeps that beat across a restart', async () => {
    // Days of 12 s: the restart has about 11 s to be done before day 3 is due, on a loaded machine too.
    const period = 12;
    w = await startTestWorld({ dataDir, daySeconds: period });
    await dayAfter(w, 1, 3 * period * 1000);
    const before = await clockOf(w);
    assert.equal(before.day, 2);
    assert.equal(before.seconds_per_day, period);
    await new Promise((r) => setTimeout(r, 500));
    await w.close();
    w = await startTestWorld({ dataDir, daySeconds: period });
    assert.deepEqual(await clockOf(w), before, 'the restart began no day and moved the next one neither way');
    await dayAfter(w, 2, 3 * period * 1000);
    const after = await clockOf(w);
    // A timer that began again at the restart would have begun day 3 a whole period after it, at least 0.5 s late.
    assert.equal(after.day_began_at, before.next_day_at, 'day 3 began when it was due');
  });

  it('begins an overdue day once at start-up after a stop of several periods, then one a period', async () => {
    const period = 2;
    w = await startTestWorld({ dataDir, daySeconds: period });
    await dayAfter(w, 1, 3 * period * 1000);
    const stopped = await clockOf(w);
    await w.close();
    w = null;
    await new Promise((r) => setTimeout(r, 3 * period * 1000));
    const restarting = Date.now();
    w = await startTestWorld({ dataDir, daySeconds: period });
    await dayAfter(w, stopped.day, 10_000);
    const resumed = await clockOf(w);
    assert.equal(resumed.day, stopped.day + 1, 'one day for the whole stop, not one per period missed');
    assert.ok(ms(resumed.day_began_at) >= restarting, `the day began at start-up (${resumed.day_began_at}), not when it was due`);
    assert.equal(ms(resumed.next_day_at) - ms(resumed.day_began_at), period * 1000);
    await dayAfter(w, resumed.day, 2 * period * 1000);
    // Due then; recorded at that time unless the ticker looked much later (a loaded machine), then when it did.
    const lateBy = ms((await clockOf(w)).day_began_at) - ms(resumed.next_day_at);
    assert.ok(lateBy >= 0 && lateBy < 1_000, `the next period counts from the day begun at start-up (began ${lateBy} ms after it was due)`);
  });

  it('says the clock is off (seconds_per_day 0, no next day) when days advance only by POST /api/tick', async () => {
    w = await startTestWorld({ dataDir, daySeconds: 0 });
    await w.tick();
    const clock = await clockOf(w);
    assert.equal(clock.seconds_per_day, 0);
    assert.equal(clock.next_day_at, null);
    assert.ok(Math.abs(ms(clock.day_began_at) - Date.now()) < 10_000, 'the tick recorded when its day began');
  });
});
