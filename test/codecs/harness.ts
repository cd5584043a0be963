// Table-driven checks for the request codecs (spec part 2 and the query strings of part 4).
//
// A shape is described by its smallest valid input, the defaults that fill the rest, and
// one rule per field. A rule lists values the field accepts (at each bound and just
// inside it) and values it refuses (just outside each bound, wrong types), each refusal
// with the 422 detail item it must produce (`type`, `ctx`). `describeShape` turns the
// table into mocha tests.
import assert from 'assert/strict';
import type * as t from 'io-ts';
import type { FieldSchema } from '../../codecs/primitives';
import { detailItems, type DetailItem, type Place } from '../../codecs/report';

/** Any codec of codecs/primitives.ts (a Field), seen as a decoder with its published schema. */
export interface Codec extends t.Decoder<unknown, unknown> {
  readonly schema: FieldSchema;
}

export type Loc = Array<string | number>;
export type Ctx = Record<string, unknown>;

// ---------------------------------------------------------------------------------------
// Decoding

/** Decodes `input` and asserts that it is accepted; returns the decoded value. */
export function accept(codec: Codec, input: unknown, place: Place = 'body'): unknown {
  const r = codec.decode(input);
  if (r._tag === 'Left') {
    assert.fail(`expected ${codec.name} to accept ${preview(input)}, got ${JSON.stringify(detailItems(place, r.left))}`);
  }
  return r.right;
}

/** Decodes `input`, asserts that it is refused, and returns the 422 detail items. */
export function refuse(codec: Codec, input: unknown, place: Place = 'body'): DetailItem[] {
  const r = codec.decode(input);
  if (r._tag === 'Right') assert.fail(`expected ${codec.name} to refuse ${preview(input)}, it decoded to ${preview(r.right)}`);
  const items = detailItems(place, r.left);
  assert.ok(items.length > 0, 'a refusal lists at least one problem');
  return items;
}

/** What one 422 detail item must say. `ctx: undefined` means the item carries no ctx. */
export interface Expected {
  loc: Loc;
  type: string;
  ctx?: Ctx;
  /** The offending value; checked when given (a missing field has no input). */
  input?: unknown;
}

/** Asserts that one detail item says what is expected, and is well-formed. */
export function assertItem(item: DetailItem, expected: Expected): void {
  const where = JSON.stringify(item);
  assert.deepEqual(item.loc, expected.loc, `loc of ${where}`);
  assert.equal(item.type, expected.type, `type of ${where}`);
  assert.deepEqual(item.ctx, expected.ctx, `ctx of ${where}`);
  assert.equal(typeof item.msg, 'string', `msg of ${where}`);
  assert.ok(item.msg.length > 0, `msg of ${where} is not empty`);
  if ('input' in expected) assert.deepEqual(item.input, expected.input, `input of ${where}`);
}

/** Asserts that `input` is refused with exactly one detail item, as expected. */
export function refuseOnce(codec: Codec, input: unknown, expected: Expected, place: Place = 'body'): DetailItem {
  const items = refuse(codec, input, place);
  assert.equal(items.length, 1, `exactly one problem, got ${JSON.stringify(items)}`);
  assertItem(items[0], expected);
  return items[0];
}

/** Sorted JSON of the locs of some items, to compare sets of problems. */
export const locsOf = (items: DetailItem[]): string[] => items.map((i) => JSON.stringify(i.loc)).sort();

// ---------------------------------------------------------------------------------------
// Building inputs

/** Marks a field that is left out of the input altogether. */
export const ABSENT = Symbol('absent');

/** A copy of `base` with one field replaced (or removed, with ABSENT). */
export function withField(base: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  const out = { ...base };
  if (value === ABSENT) delete out[field];
  else out[field] = value;
  return out;
}

/** A string of `n` characters; the default filler is one UTF-16 unit per character. */
export const chars = (n: number, filler = 'a'): string => filler.repeat(n);

/** A character outside the Basic Multilingual Plane: two UTF-16 units, one character. */
export const WIDE = '\u{1F409}'; // dragon

function preview(v: unknown): string {
  const s = typeof v === 'symbol' ? String(v) : JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > 120 ? `${s.slice(0, 120)}…` : s;
}

// ---------------------------------------------------------------------------------------
// Field rules

export interface Acceptance {
  label: string;
  value: unknown;
  /** What the field decodes to (queries turn text into numbers). */
  decoded: unknown;
}

export interface Refusal {
  label: string;
  value: unknown;
  type: string;
  ctx?: Ctx;
}

export interface Rule {
  field: string;
  /** Shown beside the field's name in the test titles. */
  note?: string;
  /** Entries that the field's published schema (GET /api/rules) must contain. */
  schema: Partial<FieldSchema>;
  accepts: Acceptance[];
  refuses: Refusal[];
}

/** Where a value comes from: JSON bodies carry numbers, query strings carry text. */
export type Source = 'json' | 'text';

const characters = (n: number, kind = '') => `${n} ${kind}character${n === 1 ? '' : 's'}`;
const items = (n: number) => `${n} item${n === 1 ? '' : 's'}`;
const distinct = (ns: number[]) => [...new Set(ns)].filter((n) => n >= 0).sort((a, b) => a - b);

/**
 * A string of `min`..`max` characters. Accepted at both bounds and just inside them,
 * refused just outside. Lengths count characters, not UTF-16 units: `max` wide characters
 * are accepted, `min - 1` wide characters (which are at least `min` UTF-16 units) refused.
 */
export function text(field: string, min: number, max: number, opts: { filler?: string; wide?: boolean } = {}): Rule {
  const filler = opts.filler ?? 'a';
  const accepts: Acceptance[] = distinct([min, min + 1, max - 1, max]).map((n) => ({
    label: characters(n), value: chars(n, filler), decoded: chars(n, filler),
  }));
  const refuses: Refusal[] = [];
  if (min > 0) refuses.push({ label: characters(min - 1), value: chars(min - 1, filler), type: 'string_too_short', ctx: { min_length: min } });
  refuses.push({ label: characters(max + 1), value: chars(max + 1, filler), type: 'string_too_long', ctx: { max_length: max } });
  if (opts.wide !== false) {
    accepts.push({ label: `${characters(max, 'wide ')} (${2 * max} UTF-16 units)`, value: chars(max, WIDE), decoded: chars(max, WIDE) });
    if (min > 1) {
      refuses.push({ label: `${characters(min - 1, 'wide ')} (${2 * (min - 1)} UTF-16 units)`, value: chars(min - 1, WIDE), type: 'string_too_short', ctx: { min_length: min } });
    }
  }
  refuses.push({ label: 'a number', value: 42, type: 'string_type' });
  refuses.push({ label: 'null', value: null, type: 'string_type' });
  return { field, schema: { type: 'string', min_length: min, max_length: max }, accepts, refuses };
}

/**
 * An integer within `min`..`max` (either may be open). JSON bodies: 1.5 is int_from_float,
 * a numeric string or null is int_type. Query strings: the text must spell an integer.
 */
export function int(field: string, min: number | undefined, max: number | undefined, source: Source = 'json'): Rule {
  const spell = (n: number) => (source === 'text' ? String(n) : n);
  const edges: number[] = [];
  if (min !== undefined) edges.push(min, min + 1);
  if (max !== undefined) edges.push(max - 1, max);
  if (min === undefined && max === undefined) edges.push(0, 1, -1, Number.MAX_SAFE_INTEGER);
  else if (min === undefined || max === undefined) edges.push(min === undefined ? -1_000_000_000 : 1_000_000_000);
  const accepts: Acceptance[] = [...new Set(edges)].sort((a, b) => a - b).map((n) => ({ label: String(spell(n)), value: spell(n), decoded: n }));
  const refuses: Refusal[] = [];
  if (min !== undefined) refuses.push({ label: String(min - 1), value: spell(min - 1), type: 'greater_than_equal', ctx: { ge: min } });
  if (max !== undefined) refuses.push({ label: String(max + 1), value: spell(max + 1), type: 'less_than_equal', ctx: { le: max } });
  const inside = min !== undefined ? min : max !== undefined ? max - 1 : 1;
  if (source === 'json') {
    refuses.push({ label: `${inside}.5`, value: inside + 0.5, type: 'int_from_float' });
    refuses.push({ label: `the string "${inside}"`, value: String(inside), type: 'int_type' });
    refuses.push({ label: 'null', value: null, type: 'int_type' });
  } else {
    refuses.push({ label: "'abc'", value: 'abc', type: 'int_parsing' });
    refuses.push({ label: `'${inside}.5'`, value: `${inside}.5`, type: 'int_parsing' });
    refuses.push({ label: "''", value: '', type: 'int_parsing' });
  }
  const schema: Partial<FieldSchema> = { type: 'integer' };
  if (min !== undefined) schema.minimum = min;
  if (max !== undefined) schema.maximum = max;
  return { field, schema, accepts, refuses };
}

/** An integer identifier: any integer (the world answers 404 for one it does not know). */
export const id = (field: string, source: Source = 'json'): Rule => int(field, undefined, undefined, source);

/** How a literal_error names the accepted words: 'a' or 'b'; 'a', 'b' or 'c'. */
export function expectedWords(words: readonly string[]): string {
  const quoted = words.map((w) => `'${w}'`);
  return quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** One of the enum words, exactly (case and spacing count). */
export function words(field: string, list: readonly string[]): Rule {
  const ctx = { expected: expectedWords(list) };
  return {
    field,
    schema: { type: 'string', enum: list },
    accepts: list.map((w) => ({ label: `'${w}'`, value: w, decoded: w })),
    refuses: [
      { label: "'other'", value: 'other', type: 'literal_error', ctx },
      { label: `'${list[0].toUpperCase()}'`, value: list[0].toUpperCase(), type: 'literal_error', ctx },
      { label: `'${list[0]} '`, value: `${list[0]} `, type: 'literal_error', ctx },
      { label: "''", value: '', type: 'literal_error', ctx },
      { label: 'a number', value: 1, type: 'literal_error', ctx },
    ],
  };
}

/** A number greater than 0 and at most `max` (fractions allowed). */
export function positive(field: string, max: number): Rule {
  return {
    field,
    schema: { type: 'number', exclusive_minimum: 0, maximum: max },
    accepts: [0.0001, 1, 2.5, max - 0.5, max].map((n) => ({ label: String(n), value: n, decoded: n })),
    refuses: [
      { label: '0', value: 0, type: 'greater_than', ctx: { gt: 0 } },
      { label: '-1', value: -1, type: 'greater_than', ctx: { gt: 0 } },
      { label: String(max + 0.5), value: max + 0.5, type: 'less_than_equal', ctx: { le: max } },
      { label: String(max + 1), value: max + 1, type: 'less_than_equal', ctx: { le: max } },
      { label: 'the string "2"', value: '2', type: 'float_type' },
    ],
  };
}

/** A list of `min`..`max` copies of a valid item (which decodes to `decodedItem`, its defaults filled in). */
export function list(field: string, item: unknown, min: number, max: number, decodedItem: unknown = item): Rule {
  const of = (n: number, x: unknown = item) => Array.from({ length: n }, () => x);
  const refuses: Refusal[] = [];
  if (min > 0) {
    refuses.push({ label: items(min - 1), value: of(min - 1), type: 'too_short', ctx: { field_type: 'List', min_length: min, actual_length: min - 1 } });
  }
  refuses.push({ label: items(max + 1), value: of(max + 1), type: 'too_long', ctx: { field_type: 'List', max_length: max, actual_length: max + 1 } });
  refuses.push({ label: 'an object', value: { 0: item }, type: 'list_type' });
  refuses.push({ label: 'null', value: null, type: 'list_type' });
  return {
    field,
    schema: { type: 'array', min_items: min, max_items: max },
    accepts: distinct([min, min + 1, max - 1, max]).map((n) => ({ label: items(n), value: of(n), decoded: of(n, decodedItem) })),
    refuses,
  };
}

/** The same rule, with null accepted as well (and decoded as null). */
export function orNull(rule: Rule): Rule {
  return {
    ...rule,
    schema: { ...rule.schema, nullable: true },
    accepts: [...rule.accepts, { label: 'null', value: null, decoded: null }],
    refuses: rule.refuses.filter((r) => r.value !== null),
  };
}

/**
 * A bound the project chose where the spec states none: location references (location_id,
 * destination_id) and the text filters of GET /api/market and /api/establishments are
 * 2-40 characters, the length of AdminLocationCreate.id.
 */
export const projectBound = (rule: Rule): Rule => ({ ...rule, note: "the project's bound; the spec states no length" });

/** The rule with some extra cases. */
export function plus(rule: Rule, extra: { accepts?: Acceptance[]; refuses?: Refusal[] }): Rule {
  return { ...rule, accepts: [...rule.accepts, ...(extra.accepts ?? [])], refuses: [...rule.refuses, ...(extra.refuses ?? [])] };
}

// ---------------------------------------------------------------------------------------
// The tests of one shape

export interface Shape {
  /** 'body' for request bodies, 'query' for query strings, 'path' for path parameters. */
  place?: Place;
  /** The smallest valid input: exactly the required fields. */
  minimal: Record<string, unknown>;
  /** What the optional fields read as when absent. */
  defaults: Record<string, unknown>;
  /** What `minimal` decodes to, if nested values gain defaults of their own (else minimal plus defaults). */
  minimalDecoded?: Record<string, unknown>;
  /** Optional fields that stay absent (not even null) when not given. */
  staysAbsent?: string[];
  /** One rule per field; together with minimal/defaults/staysAbsent they name every field. */
  rules: Rule[];
}

const showCtx = (ctx?: Ctx) => (ctx ? ` ${JSON.stringify(ctx)}` : '');

export function describeShape(name: string, codec: Codec, shape: Shape): void {
  const place: Place = shape.place ?? 'body';
  const staysAbsent = shape.staysAbsent ?? [];
  const fields = [...new Set([...Object.keys(shape.minimal), ...Object.keys(shape.defaults), ...staysAbsent, ...shape.rules.map((r) => r.field)])].sort();

  describe(name, () => {
    it(`has exactly the fields ${fields.join(', ')}, each with the published bounds`, () => {
      const published = codec.schema.properties ?? {};
      assert.deepEqual(Object.keys(published).sort(), fields);
      for (const rule of shape.rules) {
        const actual = published[rule.field] as unknown as Record<string, unknown>;
        for (const [k, v] of Object.entries(rule.schema)) assert.deepEqual(actual[k], v, `${rule.field}.${k}`);
      }
      for (const f of Object.keys(shape.minimal)) assert.equal(published[f].required, true, `${f} is published as required`);
      for (const [f, v] of Object.entries(shape.defaults)) {
        assert.equal(published[f].required, false, `${f} is published as optional`);
        assert.deepEqual(published[f].default, v, `${f} publishes its default`);
      }
      for (const f of staysAbsent) {
        assert.equal(published[f].required, false, `${f} is published as optional`);
        assert.ok(!('default' in published[f]), `${f} publishes no default`);
      }
    });

    it('decodes the smallest valid input, filling in every default', () => {
      assert.deepEqual(accept(codec, shape.minimal, place), { ...(shape.minimalDecoded ?? shape.minimal), ...shape.defaults });
    });

    for (const field of Object.keys(shape.minimal)) {
      it(`refuses ${field} absent: missing at ${JSON.stringify([place, field])}`, () => {
        refuseOnce(codec, withField(shape.minimal, field, ABSENT), { loc: [place, field], type: 'missing' }, place);
      });
    }

    for (const [field, value] of Object.entries(shape.defaults)) {
      it(`${field} absent reads as ${JSON.stringify(value)}`, () => {
        const decoded = accept(codec, withField(shape.minimal, field, ABSENT), place) as Record<string, unknown>;
        assert.ok(field in decoded, `${field} is present after decoding`);
        assert.deepEqual(decoded[field], value);
      });
    }

    for (const field of staysAbsent) {
      it(`${field} absent stays absent`, () => {
        const decoded = accept(codec, withField(shape.minimal, field, ABSENT), place) as Record<string, unknown>;
        assert.ok(!(field in decoded), `${field} is not in ${JSON.stringify(decoded)}`);
      });
    }

    for (const rule of shape.rules) {
      describe(rule.note ? `${rule.field} (${rule.note})` : rule.field, () => {
        for (const a of rule.accepts) {
          it(`accepts ${a.label}`, () => {
            const decoded = accept(codec, withField(shape.minimal, rule.field, a.value), place) as Record<string, unknown>;
            assert.deepEqual(decoded[rule.field], a.decoded);
          });
        }
        for (const r of rule.refuses) {
          it(`refuses ${r.label}: ${r.type}${showCtx(r.ctx)}`, () => {
            refuseOnce(codec, withField(shape.minimal, rule.field, r.value), { loc: [place, rule.field], type: r.type, ctx: r.ctx, input: r.value }, place);
          });
        }
      });
    }

    const broken = shape.rules.filter((r) => r.refuses.length > 0);
    if (broken.length > 1) {
      it(`reports a problem in each of ${broken.length} fields together`, () => {
        let input = { ...shape.minimal };
        for (const r of broken) input = withField(input, r.field, r.refuses[0].value);
        const items = refuse(codec, input, place);
        assert.deepEqual(locsOf(items), broken.map((r) => JSON.stringify([place, r.field])).sort());
        for (const r of broken) {
          const item = items.find((i) => i.loc[1] === r.field)!;
          assertItem(item, { loc: [place, r.field], type: r.refuses[0].type, ctx: r.refuses[0].ctx, input: r.refuses[0].value });
        }
      });
    }
  });
}
