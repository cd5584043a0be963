// Travel establishments (issue 13, establishments.ts travelCut): once a waystation stands at
// a place, a journey setting out from there takes a day less than the same journey in a
// world without it, and the travel plan quotes the journey as it then goes.
import assert from 'assert/strict';
import { establishmentProject, expectStatus } from '../support/http';
import { startTestWorld, type TestWorld } from '../support/world';

describe('travel establishments shorten the journeys setting out from their place, over HTTP', function () {
  this.timeout(120_000);

  it('a waystation at greenhollow brings a journey from there a day sooner, and the plan quotes it', async () => {
    // Two worlds of one seed, alike but for what was built: a waystation in one, a shrine (no effect) in the other.
    const [built, plain] = await Promise.all([0, 1].map(() => startTestWorld({ seed: 'travel-establishments', nodes: 1 })));
    try {
      const setUp = async (w: TestWorld, kind: string) => {
        const agent = await w.register('Carter agent');
        const org = await w.post<{ id: number }>('/api/organizations', { name: 'Greenhollow Carters', kind: 'merchant company', location_id: 'greenhollow' }, agent.key);
        expectStatus(org, 201);
        expectStatus(await w.post('/api/projects', establishmentProject(org.body.id, 'The Roadside Building', kind), agent.key), 201);
        return { id: org.body.id, key: agent.key };
      };
      const [b, p] = [await setUp(built, 'waystation'), await setUp(plain, 'shrine')];
      for (let i = 0; i < 3; i++) await Promise.all([built.tick(), plain.tick()]);
      const standing = (await built.get<Array<{ kind: string }>>('/api/establishments?location_id=greenhollow')).body;
      assert.ok(standing.some((e) => e.kind === 'waystation'), `the waystation stands: ${JSON.stringify(standing)}`);

      const danger = async (w: TestWorld) => (await w.get<{ danger: number }>('/api/locations/emberfall')).body.danger;
      assert.equal(await danger(built), await danger(plain), 'the destination is alike in both worlds');
      const day = async (w: TestWorld) => (await w.get<{ day: number }>('/api/world')).body.day;
      assert.equal(await day(built), await day(plain));

      // The quotes: a day saved where the waystation stands, none elsewhere.
      const plan = async (w: TestWorld, id: number) => (await w.get(`/api/travel/plan?organization_id=${id}&destination_id=emberfall`)).body;
      const [bPlan, pPlan] = [await plan(built, b.id), await plan(plain, p.id)];
      assert.equal(pPlan.days_saved, 0);
      assert.equal(bPlan.days_saved, 1);
      assert.equal(bPlan.road_days, pPlan.road_days);
      assert.equal(bPlan.danger_days, pPlan.danger_days);
      assert.equal(bPlan.days, pPlan.days - 1);
      assert.ok(bPlan.days >= 1);
      assert.equal(bPlan.days, bPlan.road_days + bPlan.danger_days - bPlan.days_saved);
      const elsewhere = (await built.get('/api/travel/plan?from_id=ironcrag&destination_id=emberfall')).body;
      assert.equal(elsewhere.days_saved, 0, 'only journeys from the waystation\'s place');

      // The journeys: the one from the waystation arrives a day sooner, on the day its plan quoted.
      const go = async (w: TestWorld, o: { id: number; key: string }) => {
        const r = await w.post<{ travel: { arrives_day: number } }>('/api/travel', { organization_id: o.id, destination_id: 'emberfall' }, o.key);
        expectStatus(r, 200);
        return r.body.travel.arrives_day;
      };
      const [bArrives, pArrives] = [await go(built, b), await go(plain, p)];
      assert.equal(bArrives, bPlan.arrives_day, 'the plan quotes the journey');
      assert.equal(pArrives, pPlan.arrives_day);
      assert.equal(bArrives, pArrives - 1, 'a day sooner than without the waystation');

      // And it is there on that day, while the other is still on the road.
      let today = await day(built);
      while (today < bArrives) { today = await built.tick(); await plain.tick(); }
      const where = async (w: TestWorld, id: number) => (await w.get<{ location_id: string; travel: unknown }>(`/api/organizations/${id}`)).body;
      const [bOrg, pOrg] = [await where(built, b.id), await where(plain, p.id)];
      assert.equal(bOrg.location_id, 'emberfall');
      assert.equal(bOrg.travel, null);
      assert.equal(pOrg.location_id, 'greenhollow', 'the other is still on the road');
      assert.ok(pOrg.travel);
    } finally {
      await Promise.all([built.close(), plain.close()]);
    }
  });
});
