// AgentCreate, AgentRetire, OrganizationCreate, OrganizationUpdate and OrganizationAction
// (spec part 2): every bound at its edge, defaults, and the 422 items of each refusal.
import { AgentCreate, AgentRetire, OrganizationAction, OrganizationCreate, OrganizationUpdate } from '../../codecs/requests';
import assert from 'assert/strict';
import { accept, describeShape, projectBound, id, orNull, refuse, refuseOnce, text } from './harness';

describe('request codecs: agents and organizations', () => {
  describeShape('AgentCreate', AgentCreate, {
    minimal: { name: 'Ada', model: 'gpt' },
    defaults: {},
    rules: [text('name', 3, 80), text('model', 2, 80)],
  });

  describeShape('AgentRetire', AgentRetire, {
    minimal: { reason: 'I am done playing.' },
    defaults: {},
    rules: [text('reason', 10, 2000)],
  });

  describeShape('OrganizationCreate', OrganizationCreate, {
    minimal: { name: 'Lantern Co', kind: 'merchant company' },
    defaults: { location_id: 'emberfall', description: '', goals: '', motto: '' },
    rules: [
      text('name', 3, 80),
      text('kind', 3, 40),
      projectBound(text('location_id', 2, 40)),
      text('description', 0, 1000),
      text('goals', 0, 1000),
      text('motto', 0, 200),
    ],
  });

  // All optional; each a string or null. A field left out stays out, so that the
  // update leaves it unchanged; null is kept as null.
  describeShape('OrganizationUpdate', OrganizationUpdate, {
    minimal: {},
    defaults: {},
    staysAbsent: ['description', 'goals', 'motto'],
    rules: [
      orNull(text('description', 0, 1000)),
      orNull(text('goals', 0, 1000)),
      orNull(text('motto', 0, 200)),
    ],
  });

  describe('OrganizationUpdate takes no field but its own', () => {
    it('refuses a field it cannot change (a name, a treasury) with extra_forbidden at its place, naming the fields it takes', () => {
      const item = refuseOnce(OrganizationUpdate, { name: 'Renamed' }, { loc: ['body', 'name'], type: 'extra_forbidden', ctx: undefined, input: 'Renamed' });
      assert.match(item.msg, /description, goals, motto/);
      const items = refuse(OrganizationUpdate, { motto: 'Onward', treasury: 100000, name: 'X' });
      assert.deepEqual(items.map((i) => i.loc), [['body', 'treasury'], ['body', 'name']], 'every unknown field, and nothing else');
    });

    it('still takes any of its own fields alone, or none', () => {
      assert.deepEqual(accept(OrganizationUpdate, { motto: 'Onward' }), { motto: 'Onward' });
      assert.deepEqual(accept(OrganizationUpdate, {}), {});
    });
  });

  describeShape('OrganizationAction', OrganizationAction, {
    minimal: { organization_id: 4 },
    defaults: {},
    rules: [id('organization_id')],
  });
});
