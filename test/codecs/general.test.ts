// Behaviour shared by every request codec: what a body that is not an object gives,
// unknown fields, the wording of each 422 item (api-conventions: loc, msg, type, input,
// ctx), and how lengths and integers are read.
import assert from 'assert/strict';
import {
  AdminLocationCreate, AgentCreate, EventsQuery, MessageCreate, OrganizationCreate, QuestCreate, SuggestionReview,
  TradeCreate, WorldEventCreate, WorldEventEffect,
} from '../../codecs/requests';
import { detailItems } from '../../codecs/report';
import { accept, chars, refuse, refuseOnce, WIDE, withField, type Codec } from './harness';

const agent = { name: 'Ada', model: 'gpt' };
const quest = { title: 'Clear the road', description: 'Wolves harry the north road.', requester_id: 3, location_id: 'greenhollow', reward: 100 };
const trade = { organization_id: 4, resource: 'timber', side: 'buy', quantity: 10 };
const effect = { kind: 'production_modifier', value: 10 };
const location = { id: 'new-town', name: 'New Town', kind: 'village', description: 'A quiet place.', danger: 5, population: 100, monster_population: 0 };
const event = { title: 'Hard winter', description: 'The snows came early.', duration_days: 30, effects: [effect] };

describe('request codecs: common behaviour', () => {
  describe('a body that is not an object', () => {
    for (const [label, body] of [['a list', [agent]], ['a string', 'Ada'], ['a number', 7], ['null', null], ['true', true]] as Array<[string, unknown]>) {
      it(`refuses ${label} as a whole: model_attributes_type at ['body']`, () => {
        refuseOnce(AgentCreate, body, { loc: ['body'], type: 'model_attributes_type', input: body });
      });
    }

    it("refuses no body at all: missing at ['body'], without input", () => {
      const item = refuseOnce(AgentCreate, undefined, { loc: ['body'], type: 'missing' });
      assert.ok(!('input' in item), 'a missing value has no input');
    });

    it('reports every missing field of an empty object, in field order', () => {
      const items = refuse(QuestCreate, {});
      assert.deepEqual(items.map((i) => i.loc), [['body', 'title'], ['body', 'description'], ['body', 'requester_id'], ['body', 'location_id'], ['body', 'reward']]);
      assert.ok(items.every((i) => i.type === 'missing' && i.msg === 'Field required' && !('input' in i) && !('ctx' in i)));
    });
  });

  describe('unknown fields', () => {
    it('are ignored and left out of the decoded value', () => {
      assert.deepEqual(accept(AgentCreate, { ...agent, api_key: 'secret', treasury: 1_000_000 }), agent);
    });

    it('do not hide a problem in a known field', () => {
      refuseOnce(AgentCreate, { ...agent, name: 'A', nickname: 'A' }, { loc: ['body', 'name'], type: 'string_too_short', ctx: { min_length: 3 }, input: 'A' });
    });

    describe('a near miss of a field the shape takes and was not given is refused, naming the field meant', () => {
      // [unknown field, codec, body, the field meant]
      const misses: Array<[string, Codec, Record<string, unknown>, string]> = [
        ['recipient', MessageCreate, { sender_id: 1, body: 'Meet me at dawn.', recipient: 6 }, 'recipient_id'],
        ['recipientId', MessageCreate, { sender_id: 1, body: 'Meet me at dawn.', recipientId: 6 }, 'recipient_id'],
        ['recipent_id', MessageCreate, { sender_id: 1, body: 'Meet me at dawn.', recipent_id: 6 }, 'recipient_id'],
        ['deadline', QuestCreate, { ...quest, deadline: 3 }, 'deadline_days'],
        ['Location_ID', OrganizationCreate, { name: 'Amber House', kind: 'merchant company', Location_ID: 'ironcrag' }, 'location_id'],
      ];
      for (const [field, codec, body, meant] of misses) {
        it(`${field} for ${meant}`, () => {
          const item = refuseOnce(codec, body, { loc: ['body', field], type: 'extra_forbidden', input: body[field] });
          assert.match(item.msg, new RegExp(`did you mean ${meant}\\?`));
        });
      }

      it('not when the field meant is given too, nor a name unlike any field (a treasury, a nickname)', () => {
        accept(MessageCreate, { sender_id: 1, body: 'Meet me at dawn.', recipient_id: 6, recipient: 6 });
        const founded = accept(OrganizationCreate, { name: 'Amber House', kind: 'merchant company', treasury: 5000, nickname: 'Amber' }) as Record<string, unknown>;
        assert.ok(!('treasury' in founded) && !('nickname' in founded));
      });

      it('not a field of another kind or another name that only looks alike (location_id for an event\'s new location, event_id for agent_id, count for amount)', () => {
        accept(WorldEventCreate, { ...event, location_id: 'emberfall', quest_id: 4 });
        accept(EventsQuery, { event_id: '3' }, 'query');
        accept(TradeCreate, { ...trade, count: 3 });
      });

      it('looks at the first 32 unknown fields only: a body of many names costs no more than that', () => {
        const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`note_${i}`, i]));
        accept(MessageCreate, { sender_id: 1, body: 'Meet me at dawn.', ...many, recipient: 6 });
        refuseOnce(MessageCreate, { sender_id: 1, body: 'Meet me at dawn.', recipient: 6, ...many }, { loc: ['body', 'recipient'], type: 'extra_forbidden', input: 6 });
      });

      it('in a query too: a filter misspelt is not an unfiltered listing', () => {
        refuseOnce(EventsQuery, { category: 'trade', agent: '3' }, { loc: ['query', 'agent'], type: 'extra_forbidden', input: '3' }, 'query');
      });
    });

    it('a field inherited from the prototype does not count as given', () => {
      const body = Object.create({ name: 'Inherited' }) as Record<string, unknown>;
      body.model = 'gpt';
      refuseOnce(AgentCreate, body, { loc: ['body', 'name'], type: 'missing' });
    });
  });

  describe('the wording of each kind of problem', () => {
    // [what, codec, input, loc, type, msg, ctx]
    const cases: Array<[string, Codec, unknown, Array<string | number>, string, string, Record<string, unknown> | undefined]> = [
      ['a missing field', AgentCreate, { name: 'Ada' }, ['body', 'model'], 'missing', 'Field required', undefined],
      ['a short string', AgentCreate, { ...agent, name: 'Al' }, ['body', 'name'], 'string_too_short', 'String should have at least 3 characters', { min_length: 3 }],
      ['an empty string with min 1', MessageCreate, { sender_id: 1, body: '' }, ['body', 'body'], 'string_too_short', 'String should have at least 1 character', { min_length: 1 }],
      ['a long string', AgentCreate, { ...agent, model: chars(81) }, ['body', 'model'], 'string_too_long', 'String should have at most 80 characters', { max_length: 80 }],
      ['a string of the wrong type', AgentCreate, { ...agent, name: 123 }, ['body', 'name'], 'string_type', 'Input should be a valid string', undefined],
      ['a pattern mismatch', AdminLocationCreate, { ...location, id: 'New Town' }, ['body', 'id'], 'string_pattern_mismatch', "String should match pattern '^[a-z0-9-]+$'", { pattern: '^[a-z0-9-]+$' }],
      ['an integer too small', QuestCreate, { ...quest, reward: 0 }, ['body', 'reward'], 'greater_than_equal', 'Input should be greater than or equal to 1', { ge: 1 }],
      ['an integer too large', QuestCreate, { ...quest, reward: 1_000_001 }, ['body', 'reward'], 'less_than_equal', 'Input should be less than or equal to 1000000', { le: 1_000_000 }],
      ['a negative bound', QuestCreate, { ...quest, minimum_relationship: -101 }, ['body', 'minimum_relationship'], 'greater_than_equal', 'Input should be greater than or equal to -100', { ge: -100 }],
      ['a fraction', QuestCreate, { ...quest, reward: 1.5 }, ['body', 'reward'], 'int_from_float', 'Input should be a valid integer, got a number with a fractional part', undefined],
      ['a number as a string in JSON', QuestCreate, { ...quest, reward: '100' }, ['body', 'reward'], 'int_type', 'Input should be a valid integer', undefined],
      ['a boolean for an integer', QuestCreate, { ...quest, requester_id: true }, ['body', 'requester_id'], 'int_type', 'Input should be a valid integer', undefined],
      ['an integer beyond the safe range', QuestCreate, { ...quest, requester_id: 2 ** 53 }, ['body', 'requester_id'], 'int_type', 'Input should be a valid integer within the safe range', undefined],
      ['query text that is not an integer', EventsQuery, { limit: 'ten' }, ['query', 'limit'], 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer', undefined],
      ['a price of 0', WorldEventEffect, { ...effect, price: 0 }, ['body', 'price'], 'greater_than', 'Input should be greater than 0', { gt: 0 }],
      ['a price too large', WorldEventEffect, { ...effect, price: 1_000_001 }, ['body', 'price'], 'less_than_equal', 'Input should be less than or equal to 1000000', { le: 1_000_000 }],
      ['a price that is not a number', WorldEventEffect, { ...effect, price: 'cheap' }, ['body', 'price'], 'float_type', 'Input should be a valid number', undefined],
      ['an unknown word of two', TradeCreate, { ...trade, side: 'steal' }, ['body', 'side'], 'literal_error', "Input should be 'buy' or 'sell'", { expected: "'buy' or 'sell'" }],
      ['an unknown word of three', SuggestionReview, { status: 'new' }, ['body', 'status'], 'literal_error', "Input should be 'reviewed', 'accepted' or 'declined'", { expected: "'reviewed', 'accepted' or 'declined'" }],
      ['an empty list', WorldEventCreate, { ...event, effects: [] }, ['body', 'effects'], 'too_short', 'List should have at least 1 item after validation, not 0', { field_type: 'List', min_length: 1, actual_length: 0 }],
      ['a long list', WorldEventCreate, { ...event, effects: Array(11).fill(effect) }, ['body', 'effects'], 'too_long', 'List should have at most 10 items after validation, not 11', { field_type: 'List', max_length: 10, actual_length: 11 }],
      ['a list of the wrong type', WorldEventCreate, { ...event, effects: effect }, ['body', 'effects'], 'list_type', 'Input should be a valid list', undefined],
      ['a nested object of the wrong type', WorldEventCreate, { ...event, quest: 'slay' }, ['body', 'quest'], 'model_attributes_type', 'Input should be a valid dictionary or object to extract fields from', undefined],
    ];
    for (const [what, codec, input, loc, type, msg, ctx] of cases) {
      it(`${what}: ${type}, "${msg}"`, () => {
        const items = refuse(codec, input, loc[0] as 'body' | 'query');
        assert.equal(items.length, 1, JSON.stringify(items));
        const expected: Record<string, unknown> = { loc, msg, type };
        if (type !== 'missing') expected.input = loc.slice(1).reduce((v: any, k) => v[k], input);
        if (ctx) expected.ctx = ctx;
        assert.deepEqual(items[0], expected);
      });
    }
  });

  describe('the 422 item builder', () => {
    it("turns the place and the field path into loc, list indexes as numbers", () => {
      const r = WorldEventCreate.decode({ ...event, effects: [effect, { ...effect, value: 'x' }] });
      assert.ok(r._tag === 'Left');
      assert.deepEqual(detailItems('body', r.left).map((i) => i.loc), [['body', 'effects', 1, 'value']]);
      assert.deepEqual(detailItems('query', r.left).map((i) => i.loc), [['query', 'effects', 1, 'value']]);
    });

    it('keeps an empty input ("" and 0) as input', () => {
      refuseOnce(AgentCreate, { ...agent, name: '' }, { loc: ['body', 'name'], type: 'string_too_short', ctx: { min_length: 3 }, input: '' });
      refuseOnce(QuestCreate, { ...quest, reward: 0 }, { loc: ['body', 'reward'], type: 'greater_than_equal', ctx: { ge: 1 }, input: 0 });
    });
  });

  describe('string lengths count characters', () => {
    it('accepts 80 characters outside the Basic Multilingual Plane (160 UTF-16 units) as a name', () => {
      const name = chars(80, WIDE);
      assert.equal(name.length, 160);
      assert.equal((accept(AgentCreate, { ...agent, name }) as { name: string }).name, name);
    });

    it('refuses 2 such characters (4 UTF-16 units) as a name of at least 3', () => {
      refuseOnce(AgentCreate, { ...agent, name: chars(2, WIDE) }, { loc: ['body', 'name'], type: 'string_too_short', ctx: { min_length: 3 }, input: chars(2, WIDE) });
    });

    it('counts accented letters and mixed text by character', () => {
      assert.ok(accept(OrganizationCreate, { name: 'Caf\u00e9', kind: 'inn', motto: chars(199, '\u00e9') + WIDE }));
      refuseOnce(OrganizationCreate, { name: 'Caf\u00e9', kind: 'inn', motto: chars(200, '\u00e9') + WIDE }, {
        loc: ['body', 'motto'], type: 'string_too_long', ctx: { max_length: 200 }, input: chars(200, '\u00e9') + WIDE,
      });
    });

    it('stores text verbatim: no trimming, no normalising', () => {
      const name = '  Ada \u00e9\u0301 ';
      assert.equal((accept(AgentCreate, withField(agent, 'name', name)) as { name: string }).name, name);
    });
  });

  describe('integers', () => {
    it('accept an integral number written with a fraction part in JSON (2.0 is 2)', () => {
      // JSON.parse('2.0') is the number 2: nothing tells it apart from 2.
      assert.equal((accept(QuestCreate, { ...quest, reward: JSON.parse('2.0') }) as { reward: number }).reward, 2);
    });

    it('accept signed text and surrounding spaces in queries', () => {
      assert.deepEqual(accept(EventsQuery, { limit: '+7' }, 'query'), { limit: 7 });
      assert.deepEqual(accept(EventsQuery, { limit: ' 8 ' }, 'query'), { limit: 8 });
    });

    it('refuse exponent and hexadecimal text in queries', () => {
      for (const limit of ['1e1', '0x10', '1_0', '٣']) {
        refuseOnce(EventsQuery, { limit }, { loc: ['query', 'limit'], type: 'int_parsing', input: limit }, 'query');
      }
    });
  });

  it('does not share a decoded value with its input', () => {
    const body = { ...event, effects: [{ ...effect }] };
    const decoded = accept(WorldEventCreate, body) as { effects: Array<Record<string, unknown>> };
    assert.notEqual(decoded.effects, body.effects);
    assert.deepEqual(body.effects, [effect], 'the input is left as it was');
  });
});
