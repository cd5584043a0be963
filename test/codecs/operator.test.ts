// SuggestionCreate, SuggestionReview, WorldEventEffect, LocationRouteCreate,
// AdminLocationCreate and WorldEventCreate (spec part 2), including the loc of problems
// inside nested objects and arrays.
import assert from 'assert/strict';
import {
  AdminLocationCreate, LocationRouteCreate, SuggestionCreate, SuggestionReview, WORLD_EVENT_EFFECT_KINDS, WorldEventCreate,
  WorldEventEffect,
} from '../../codecs/requests';
import {
  ABSENT, accept, assertItem, describeShape, int, list, locsOf, orNull, plus, positive, refuse, refuseOnce, text, withField, words,
  type Acceptance, type Refusal, type Rule,
} from './harness';

const PATTERN = '^[a-z0-9-]+$';

const effect = { kind: 'production_modifier', value: 10 };
const effectDecoded = { ...effect, resource: null, location_id: null, price: null };
const route = { destination_id: 'emberfall', distance_days: 2, danger: 10 };
const location = {
  id: 'new-town', name: 'New Town', kind: 'village', description: 'A quiet place by the lake.',
  danger: 5, population: 100, monster_population: 0,
};
const locationDecoded = { ...location, routes: [] };
const adminQuest = {
  title: 'Scout the pass', description: 'See what lurks in the pass.', requester_id: 1, location_id: 'emberfall', reward: 500,
};
const adminQuestDecoded = { ...adminQuest, deadline_days: null, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: -100 };
const worldEvent = { title: 'Hard winter', description: 'The snows came early.', duration_days: 30, effects: [effect] };

/** A nested object or null (default null): a valid object decodes with its own defaults filled in. */
const nested = (field: string, name: string, value: Record<string, unknown>, decoded: Record<string, unknown>): Rule => ({
  field,
  schema: { type: 'object', name, nullable: true },
  accepts: [
    { label: `a valid ${name}`, value, decoded },
    { label: 'null', value: null, decoded: null },
  ],
  refuses: [
    { label: 'a list', value: [value], type: 'model_attributes_type' },
    { label: 'a string', value: 'x', type: 'model_attributes_type' },
  ],
});

describe('request codecs: operator desk', () => {
  describeShape('SuggestionCreate', SuggestionCreate, {
    minimal: { title: 'More maps', body: 'Please add more maps to the world.' },
    defaults: { category: 'feature' },
    rules: [text('title', 3, 120), text('body', 10, 4000), text('category', 2, 40)],
  });

  describeShape('SuggestionReview', SuggestionReview, {
    minimal: { status: 'accepted' },
    defaults: {},
    // Absent, the note given before stays (a PATCH); null clears it.
    staysAbsent: ['admin_note'],
    rules: [words('status', ['reviewed', 'accepted', 'declined']), orNull(text('admin_note', 0, 2000))],
  });

  describe('world events', () => {
    it('knows exactly the seven effect kinds of the spec', () => {
      assert.deepEqual([...WORLD_EVENT_EFFECT_KINDS].sort(), [
        'forest_danger_modifier', 'maintenance_modifier', 'market_price_modifier', 'monster_growth_modifier',
        'population_growth_modifier', 'production_modifier', 'resource_introduction',
      ]);
    });

    describeShape('WorldEventEffect', WorldEventEffect, {
      minimal: effect,
      defaults: { resource: null, location_id: null, price: null },
      rules: [
        words('kind', WORLD_EVENT_EFFECT_KINDS),
        int('value', -1_000_000, 1_000_000),
        orNull(text('resource', 2, 40)),
        orNull(text('location_id', 2, 40)),
        orNull(positive('price', 1_000_000)),
      ],
    });

    describeShape('LocationRouteCreate', LocationRouteCreate, {
      minimal: route,
      defaults: {},
      rules: [text('destination_id', 2, 40), int('distance_days', 1, 30), int('danger', 0, 100)],
    });

    const mismatch = (value: string): Refusal => ({ label: JSON.stringify(value), value, type: 'string_pattern_mismatch', ctx: { pattern: PATTERN } });
    const fits = (value: string): Acceptance => ({ label: JSON.stringify(value), value, decoded: value });

    describeShape('AdminLocationCreate', AdminLocationCreate, {
      minimal: location,
      defaults: { routes: [] },
      rules: [
        plus(text('id', 2, 40, { wide: false }), {
          accepts: [fits('a1'), fits('--'), fits('0123456789-abcdefghijklmnopqrstuvwxyz')],
          refuses: [mismatch('New-Town'), mismatch('new town'), mismatch('new_town'), mismatch('caf\u00e9'), mismatch('ab\n'), mismatch(' ab')],
        }),
        text('name', 3, 80),
        text('kind', 3, 40),
        text('description', 10, 1000),
        int('danger', 0, 100),
        int('population', 0, 1_000_000),
        int('monster_population', 0, 1_000_000),
        list('routes', route, 0, 8),
      ],
    });

    describeShape('WorldEventCreate', WorldEventCreate, {
      minimal: worldEvent,
      minimalDecoded: { ...worldEvent, effects: [effectDecoded] },
      defaults: { quest: null, location: null },
      rules: [
        text('title', 3, 120),
        text('description', 10, 2000),
        int('duration_days', 1, 3650),
        list('effects', effect, 1, 10, effectDecoded),
        nested('quest', 'AdminQuestCreate', adminQuest, adminQuestDecoded),
        nested('location', 'AdminLocationCreate', location, locationDecoded),
      ],
    });

    describe('WorldEventCreate: problems inside nested objects and lists', () => {
      const event = (over: Record<string, unknown>) => ({ ...worldEvent, ...over });

      it('decodes a full event, filling defaults inside effects, quest and location', () => {
        const decoded = accept(WorldEventCreate, event({ effects: [effect, { ...effect, price: 2.5 }], quest: adminQuest, location: { ...location, routes: [route] } }));
        assert.deepEqual(decoded, {
          ...worldEvent,
          effects: [effectDecoded, { ...effectDecoded, price: 2.5 }],
          quest: adminQuestDecoded,
          location: { ...location, routes: [route] },
        });
      });

      it('places an effect problem at [body, effects, index, field]', () => {
        const effects = [effect, { ...effect, kind: 'plague' }];
        refuseOnce(WorldEventCreate, event({ effects }), {
          loc: ['body', 'effects', 1, 'kind'], type: 'literal_error', input: 'plague',
          ctx: { expected: "'forest_danger_modifier', 'monster_growth_modifier', 'maintenance_modifier', 'production_modifier', 'market_price_modifier', 'population_growth_modifier' or 'resource_introduction'" },
        });
      });

      it('places a price problem at [body, effects, 0, price]', () => {
        refuseOnce(WorldEventCreate, event({ effects: [{ ...effect, price: 0 }] }), { loc: ['body', 'effects', 0, 'price'], type: 'greater_than', ctx: { gt: 0 }, input: 0 });
      });

      it('reports every missing field of an empty effect', () => {
        const items = refuse(WorldEventCreate, event({ effects: [{}] }));
        assert.equal(items.length, 2);
        assertItem(items[0], { loc: ['body', 'effects', 0, 'kind'], type: 'missing' });
        assertItem(items[1], { loc: ['body', 'effects', 0, 'value'], type: 'missing' });
      });

      it('places an effect that is not an object at [body, effects, index]', () => {
        refuseOnce(WorldEventCreate, event({ effects: [effect, effect, 'x'] }), { loc: ['body', 'effects', 2], type: 'model_attributes_type', input: 'x' });
      });

      it('lets the quest use the admin bounds (reward 10000000, deadline 3650), not QuestCreate ones', () => {
        const decoded = accept(WorldEventCreate, event({ quest: { ...adminQuest, reward: 10_000_000, deadline_days: 3650 } })) as { quest: { reward: number; deadline_days: number } };
        assert.equal(decoded.quest.reward, 10_000_000);
        assert.equal(decoded.quest.deadline_days, 3650);
      });

      it('places a quest problem at [body, quest, field]', () => {
        refuseOnce(WorldEventCreate, event({ quest: { ...adminQuest, reward: 10_000_001 } }), { loc: ['body', 'quest', 'reward'], type: 'less_than_equal', ctx: { le: 10_000_000 }, input: 10_000_001 });
        refuseOnce(WorldEventCreate, event({ quest: withField(adminQuest, 'title', ABSENT) }), { loc: ['body', 'quest', 'title'], type: 'missing' });
      });

      it('places a location problem at [body, location, field]', () => {
        refuseOnce(WorldEventCreate, event({ location: { ...location, id: 'New Town' } }), { loc: ['body', 'location', 'id'], type: 'string_pattern_mismatch', ctx: { pattern: PATTERN }, input: 'New Town' });
      });

      it('places a route problem at [body, location, routes, index, field]', () => {
        const routes = [route, route, { ...route, danger: 101 }];
        refuseOnce(WorldEventCreate, event({ location: { ...location, routes } }), { loc: ['body', 'location', 'routes', 2, 'danger'], type: 'less_than_equal', ctx: { le: 100 }, input: 101 });
      });

      it('places too many routes at [body, location, routes]', () => {
        const routes = Array.from({ length: 9 }, () => route);
        refuseOnce(WorldEventCreate, event({ location: { ...location, routes } }), {
          loc: ['body', 'location', 'routes'], type: 'too_long', ctx: { field_type: 'List', max_length: 8, actual_length: 9 },
        });
      });

      it('reports problems at every depth together', () => {
        const items = refuse(WorldEventCreate, {
          title: 'Hi',
          description: 'The snows came early.',
          duration_days: 3651,
          effects: [{ ...effect, kind: 'plague' }, effect, { ...effect, value: 1_000_001 }],
          quest: { ...adminQuest, reward: 0 },
          location: { ...location, routes: [{ ...route, distance_days: 31 }, { destination_id: 'x', distance_days: 1, danger: 0 }] },
        });
        assert.deepEqual(locsOf(items), [
          ['body', 'duration_days'],
          ['body', 'effects', 0, 'kind'],
          ['body', 'effects', 2, 'value'],
          ['body', 'location', 'routes', 0, 'distance_days'],
          ['body', 'location', 'routes', 1, 'destination_id'],
          ['body', 'quest', 'reward'],
          ['body', 'title'],
        ].map((l) => JSON.stringify(l)).sort());
        const at = (...loc: Array<string | number>) => items.find((i) => JSON.stringify(i.loc) === JSON.stringify(['body', ...loc]))!;
        assertItem(at('title'), { loc: ['body', 'title'], type: 'string_too_short', ctx: { min_length: 3 }, input: 'Hi' });
        assertItem(at('duration_days'), { loc: ['body', 'duration_days'], type: 'less_than_equal', ctx: { le: 3650 }, input: 3651 });
        assertItem(at('effects', 2, 'value'), { loc: ['body', 'effects', 2, 'value'], type: 'less_than_equal', ctx: { le: 1_000_000 }, input: 1_000_001 });
        assertItem(at('quest', 'reward'), { loc: ['body', 'quest', 'reward'], type: 'greater_than_equal', ctx: { ge: 1 }, input: 0 });
        assertItem(at('location', 'routes', 0, 'distance_days'), { loc: ['body', 'location', 'routes', 0, 'distance_days'], type: 'less_than_equal', ctx: { le: 30 }, input: 31 });
        assertItem(at('location', 'routes', 1, 'destination_id'), { loc: ['body', 'location', 'routes', 1, 'destination_id'], type: 'string_too_short', ctx: { min_length: 2 }, input: 'x' });
      });
    });
  });
});
