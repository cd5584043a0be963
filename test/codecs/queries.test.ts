// The query strings of spec part 4 (EventsQuery, InvestigationQuery, WorldEventsQuery,
// MarketQuery, EstablishmentsQuery), the paging of listings (PageQuery, MessagesQuery)
// and the path parameters. Their values arrive as text,
// so integers are parsed from strings, and problems are placed under 'query' or 'path'.
import assert from 'assert/strict';
import {
  AdventurerPath, AgentPath, AlliancePath, AlliancesQuery, ContractPath, ContractsQuery, EstablishmentsQuery, EventPath, EventsQuery, InvestigationQuery,
  LocationPath, MarketQuery, MessagesQuery, OrganizationPath, OrganizationViewQuery, OrganizationsQuery, PageQuery, ProjectsQuery, PartiesQuery, RelationshipsQuery, PartyPath, ProjectPath, QuestPath, ResourcePath, SuggestionPath,
  WorldEventPath, WorldEventsQuery,
} from '../../codecs/requests';
import { accept, describeShape, projectBound, id, int, refuse, refuseOnce, text, words, type Codec } from './harness';

describe('query codecs', () => {
  describeShape('EventsQuery', EventsQuery, {
    place: 'query',
    minimal: {},
    defaults: { limit: 30 },
    staysAbsent: ['category', 'agent_id', 'organization_id', 'before_id'],
    rules: [
      int('limit', 1, 100, 'text'),
      text('category', 2, 40),
      int('agent_id', 1, undefined, 'text'),
      int('organization_id', 1, undefined, 'text'),
      int('before_id', 1, undefined, 'text'),
    ],
  });

  describe('EventsQuery: text that is not one integer', () => {
    it('refuses a repeated parameter (?limit=1&limit=2): int_parsing', () => {
      refuseOnce(EventsQuery, { limit: ['1', '2'] }, { loc: ['query', 'limit'], type: 'int_parsing', input: ['1', '2'] }, 'query');
    });

    it('refuses an integer beyond the safe range: int_type', () => {
      refuseOnce(EventsQuery, { agent_id: '9007199254740993' }, { loc: ['query', 'agent_id'], type: 'int_type', input: '9007199254740993' }, 'query');
    });

    it('refuses a JSON number where text is expected (queries are text): int_parsing', () => {
      refuseOnce(EventsQuery, { limit: 5 }, { loc: ['query', 'limit'], type: 'int_parsing', input: 5 }, 'query');
    });
  });

  describe('after_id where a listing pages otherwise: refused, saying how it pages, not ignored (an answer from the newest would pass for the page asked for)', () => {
    it('EventsQuery: the history pages back with before_id', () => {
      const [item, ...rest] = refuse(EventsQuery, { after_id: '5', limit: '2' }, 'query');
      assert.equal(rest.length, 0);
      assert.deepEqual(item.loc, ['query', 'after_id']);
      assert.equal(item.type, 'extra_forbidden');
      assert.equal(item.input, '5');
      assert.match(item.msg, /newest first and pages back with before_id/);
      assert.match(item.msg, /GET \/api\/events\/stream continues after an id/);
    });

    it('MessagesQuery: messages page by offset', () => {
      const [item, ...rest] = refuse(MessagesQuery, { after_id: '5' }, 'query');
      assert.equal(rest.length, 0);
      assert.deepEqual(item.loc, ['query', 'after_id']);
      assert.equal(item.type, 'extra_forbidden');
      assert.match(item.msg, /page by offset/);
    });

    it('PageQuery, which pages by after_id, takes it', () => {
      accept(PageQuery, { after_id: '5' });
    });

    it('PageQuery gives a cursor back as the listing writes ids, without leading zeros, so that it names the item it was read from', () => {
      for (const [given, read] of [['010', '10'], ['00100', '100'], ['0', '0'], ['000', '0'], ['7', '7'], ['00000000000000000009', '9']]) {
        assert.equal((accept(PageQuery, { after_id: given }, 'query') as { after_id: string }).after_id, read, given);
      }
    });
  });

  describe('a filter that a listing does not take but a caller may well send: refused, saying what to send instead (an unfiltered answer would pass for a filtered one)', () => {
    for (const [codec, field, says] of [
      [ProjectsQuery, 'owner_id', /filtered by organization_id/],
      [RelationshipsQuery, 'organization_id', /trust in GET \/api\/organizations\/\{organization_id\}/],
      [OrganizationsQuery, 'status', /active organizations only; a bankrupt or dissolved one is read by its id/],
    ] as const) {
      it(`${codec.name}: ${field}`, () => {
        const [item, ...rest] = refuse(codec, { [field]: '5' }, 'query');
        assert.equal(rest.length, 0);
        assert.deepEqual([item.loc, item.type, item.input], [['query', field], 'extra_forbidden', '5']);
        assert.match(item.msg, says);
      });
    }
  });

  describeShape('InvestigationQuery', InvestigationQuery, {
    place: 'query',
    minimal: {},
    defaults: { window_days: 3 },
    rules: [int('window_days', 0, 30, 'text')],
  });

  // The paging of listings (docs/decisions.md, "Listings come in pages").
  /** A paging cursor: an id as the listing writes it, `pattern`; anything else is refused rather than read as the first page. */
  const cursor = (min: number, max: number, pattern: string, filler: string, refused: string[]) => {
    const rule = text('after_id', min, max, { filler, wide: false });
    return projectBound({
      ...rule,
      schema: { ...rule.schema, pattern },
      refuses: [...rule.refuses, ...refused.map((v) => ({ label: `'${v}'`, value: v, type: 'string_pattern_mismatch', ctx: { pattern } }))],
    });
  };
  const paging = [projectBound(int('limit', 1, 1000, 'text')), cursor(1, 20, '^[0-9]+$', '7', ['abc', '-1', '1.5', '3-4', ' 5'])];

  describeShape('PageQuery', PageQuery, {
    place: 'query',
    minimal: {},
    defaults: { limit: 500 },
    staysAbsent: ['after_id'],
    rules: paging,
  });

  describeShape('RelationshipsQuery', RelationshipsQuery, {
    place: 'query',
    minimal: {},
    defaults: { limit: 500 },
    staysAbsent: ['after_id'],
    rules: [paging[0], {
      ...cursor(3, 41, '^[0-9]+-[0-9]+$', '1', ['abc', '5-x', '-55', '55-', '5--5']),
      // Only pairs: the filler's plain digits have no dash, so the bounds are checked with pairs.
      accepts: ['1-2', '12345678901234567890-12345678901234567890'].map((v) => ({ label: v, value: v, decoded: v })),
    }],
  });

  describeShape('MessagesQuery', MessagesQuery, {
    place: 'query',
    minimal: {},
    defaults: { limit: 100, offset: 0 },
    rules: [projectBound(int('limit', 1, 500, 'text')), projectBound(int('offset', 0, 1_000_000, 'text'))],
  });

  describeShape('WorldEventsQuery', WorldEventsQuery, {
    place: 'query',
    minimal: {},
    defaults: { limit: 500 },
    staysAbsent: ['status', 'after_id'],
    rules: [words('status', ['active', 'expired']), ...paging],
  });

  describeShape('MarketQuery', MarketQuery, {
    place: 'query',
    minimal: {},
    defaults: {},
    staysAbsent: ['location_id'],
    rules: [projectBound(text('location_id', 2, 40))],
  });

  describeShape('EstablishmentsQuery', EstablishmentsQuery, {
    place: 'query',
    minimal: {},
    defaults: { limit: 500 },
    staysAbsent: ['location_id', 'organization_id', 'kind', 'after_id'],
    rules: [projectBound(text('location_id', 2, 40)), int('organization_id', 1, undefined, 'text'), projectBound(text('kind', 2, 40)), ...paging],
  });

  // A contract's or alliance's status filter takes one status or several, separated by commas.
  describe('ContractsQuery and AlliancesQuery: status, one word or several', () => {
    it('reads one status or several, each once, in the order of the status words', () => {
      assert.deepEqual((accept(ContractsQuery, { status: 'accepted' }, 'query') as { status?: string[] }).status, ['accepted']);
      assert.deepEqual((accept(ContractsQuery, { status: 'accepted,proposed,accepted' }, 'query') as { status?: string[] }).status, ['proposed', 'accepted']);
      assert.deepEqual((accept(AlliancesQuery, { status: 'active,proposed' }, 'query') as { status?: string[] }).status, ['proposed', 'active']);
      assert.equal((accept(ContractsQuery, {}, 'query') as { status?: string[] }).status, undefined);
    });

    it('refuses an empty word, an unknown one, another case or a repeated parameter: literal_error', () => {
      for (const bad of ['', 'proposed,', ',proposed', 'proposed,,accepted', 'proposed,friendly', 'Proposed', 'proposed accepted', ['proposed', 'accepted']]) {
        refuseOnce(ContractsQuery, { status: bad }, { loc: ['query', 'status'], type: 'literal_error', input: bad, ctx: { expected: "one or more of 'proposed', 'accepted', 'fulfilled', 'rejected', separated by commas" } }, 'query');
      }
      refuseOnce(AlliancesQuery, { status: 'active,fulfilled' }, { loc: ['query', 'status'], type: 'literal_error', input: 'active,fulfilled', ctx: { expected: "one or more of 'proposed', 'active', 'ended', separated by commas" } }, 'query');
    });
  });

  describeShape('PartiesQuery', PartiesQuery, {
    place: 'query',
    minimal: {},
    defaults: { limit: 500 },
    staysAbsent: ['organization_id', 'after_id'],
    rules: [int('organization_id', 1, undefined, 'text'), ...paging],
  });

  describeShape('OrganizationViewQuery', OrganizationViewQuery, {
    place: 'query',
    minimal: {},
    defaults: { members: 'full', limit: 100 },
    rules: [words('members', ['full', 'brief']), int('limit', 1, 500, 'text')],
  });

  it('reports every query problem together', () => {
    const items = refuse(EventsQuery, { limit: '0', category: 'x', agent_id: 'abc', before_id: '1.5' }, 'query');
    assert.deepEqual(items.map((i) => [i.loc, i.type]), [
      [['query', 'limit'], 'greater_than_equal'],
      [['query', 'category'], 'string_too_short'],
      [['query', 'agent_id'], 'int_parsing'],
      [['query', 'before_id'], 'int_parsing'],
    ]);
  });
});

describe('path parameter codecs', () => {
  const integerPaths: Array<[string, Codec]> = [
    ['agent_id', AgentPath], ['suggestion_id', SuggestionPath], ['event_id', EventPath], ['event_id', WorldEventPath],
    ['organization_id', OrganizationPath], ['adventurer_id', AdventurerPath], ['quest_id', QuestPath],
    ['contract_id', ContractPath], ['alliance_id', AlliancePath], ['party_id', PartyPath], ['project_id', ProjectPath],
  ];

  for (const [name, codec] of integerPaths) {
    describe(`${codec.name}: an integer id as text`, () => {
      const rule = id(name, 'text');
      it(`decodes ${rule.accepts.map((a) => a.label).join(', ')} to numbers`, () => {
        for (const a of rule.accepts) assert.deepEqual(accept(codec, { [name]: a.value }, 'path'), { [name]: a.decoded });
      });
      for (const r of rule.refuses) {
        it(`refuses ${r.label}: ${r.type} at ['path', '${name}']`, () => {
          refuseOnce(codec, { [name]: r.value }, { loc: ['path', name], type: r.type, input: r.value }, 'path');
        });
      }
    });
  }

  for (const [name, codec] of [['location_id', LocationPath], ['resource', ResourcePath]] as Array<[string, Codec]>) {
    it(`${codec.name} takes a string id as it is`, () => {
      assert.deepEqual(accept(codec, { [name]: 'sunken-crypt' }, 'path'), { [name]: 'sunken-crypt' });
      refuseOnce(codec, {}, { loc: ['path', name], type: 'missing' }, 'path');
    });
  }
});
