// Bounded building blocks for every request shape. Each codec reports its failures in
// the vocabulary of the 422 body (type, msg, ctx) and describes itself, so the rules
// endpoint shows the very bounds that validation enforces.
import * as t from 'io-ts';

/** A field's published description (GET /api/rules reads these). */
export interface FieldSchema {
  type: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  required?: boolean;
  nullable?: boolean;
  default?: unknown;
  min_length?: number;
  max_length?: number;
  minimum?: number;
  maximum?: number;
  exclusive_minimum?: number;
  pattern?: string;
  enum?: readonly string[];
  min_items?: number;
  max_items?: number;
  items?: FieldSchema;
  properties?: Record<string, FieldSchema>;
  /** An object that takes no fields but its properties (a change whose unknown field would change nothing). */
  closed?: boolean;
  name?: string;
}

/** The failure a codec reports; the reporter turns it into a 422 detail item. */
export interface Problem {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
}

export class Field<A, O = A> extends t.Type<A, O, unknown> {
  constructor(name: string, is: t.Is<A>, validate: t.Validate<unknown, A>, encode: t.Encode<A, O>, readonly schema: FieldSchema) {
    super(name, is, validate, encode);
  }
}

export const fail = (u: unknown, c: t.Context, p: Problem): t.Validation<never> =>
  t.failure(u, c, JSON.stringify(p));

const missing = (u: unknown, c: t.Context) => fail(u, c, { type: 'missing', msg: 'Field required' });

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Where a value comes from decides how a number may be written: JSON bodies carry numbers, paths and queries carry text. */
export type Source = 'json' | 'text';

export function boundedString(min: number, max: number, opts: { pattern?: RegExp } = {}): Field<string> {
  const schema: FieldSchema = { type: 'string', required: true, min_length: min, max_length: max };
  if (opts.pattern) schema.pattern = opts.pattern.source;
  return new Field<string>(
    `string(${min}..${max})`,
    (u): u is string => typeof u === 'string' && u.length >= min && u.length <= max,
    (u, c) => {
      if (u === undefined) return missing(u, c);
      if (typeof u !== 'string') return fail(u, c, { type: 'string_type', msg: 'Input should be a valid string' });
      const length = [...u].length;
      if (length < min) {
        return fail(u, c, { type: 'string_too_short', msg: `String should have at least ${plural(min, 'character')}`, ctx: { min_length: min } });
      }
      if (length > max) {
        return fail(u, c, { type: 'string_too_long', msg: `String should have at most ${plural(max, 'character')}`, ctx: { max_length: max } });
      }
      if (opts.pattern && !opts.pattern.test(u)) {
        return fail(u, c, { type: 'string_pattern_mismatch', msg: `String should match pattern '${opts.pattern.source}'`, ctx: { pattern: opts.pattern.source } });
      }
      return t.success(u);
    },
    t.identity,
    schema,
  );
}

/**
 * A whole number written as text, of at most `max` digits, given back without leading zeros
 * ("010" is "10"): a listing's cursor names an id as the listing writes it, so that the page
 * starts after the item it names, however the caller wrote the number.
 */
export function wholeNumberText(max: number): Field<string> {
  const digits = boundedString(1, max, { pattern: /^[0-9]+$/ });
  return new Field<string>(digits.name, digits.is, (u, c) => {
    const r = digits.validate(u, c);
    return r._tag === 'Right' ? t.success(r.right.replace(/^0+(?=[0-9])/, '')) : r;
  }, t.identity, digits.schema);
}

export function boundedInt(min: number | undefined, max: number | undefined, source: Source = 'json'): Field<number> {
  const schema: FieldSchema = { type: 'integer', required: true };
  if (min !== undefined) schema.minimum = min;
  if (max !== undefined) schema.maximum = max;
  return new Field<number>(
    `integer(${min ?? ''}..${max ?? ''})`,
    (u): u is number => Number.isSafeInteger(u) && (min === undefined || (u as number) >= min) && (max === undefined || (u as number) <= max),
    (u, c) => {
      if (u === undefined) return missing(u, c);
      let n: unknown = u;
      if (source === 'text') {
        if (typeof u !== 'string' || !/^[+-]?\d+$/.test(u.trim())) {
          return fail(u, c, { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' });
        }
        n = Number(u.trim());
      }
      if (typeof n !== 'number' || !Number.isFinite(n)) {
        return fail(u, c, { type: 'int_type', msg: 'Input should be a valid integer' });
      }
      if (!Number.isInteger(n)) {
        return fail(u, c, { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' });
      }
      if (!Number.isSafeInteger(n)) {
        return fail(u, c, { type: 'int_type', msg: 'Input should be a valid integer within the safe range' });
      }
      if (min !== undefined && n < min) {
        return fail(u, c, { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${min}`, ctx: { ge: min } });
      }
      if (max !== undefined && n > max) {
        return fail(u, c, { type: 'less_than_equal', msg: `Input should be less than or equal to ${max}`, ctx: { le: max } });
      }
      return t.success(n);
    },
    t.identity,
    schema,
  );
}

/** A number with an exclusive lower bound and an inclusive upper bound (world-event prices). */
export function positiveNumber(max: number): Field<number> {
  return new Field<number>(
    `number(>0..${max})`,
    (u): u is number => typeof u === 'number' && u > 0 && u <= max,
    (u, c) => {
      if (u === undefined) return missing(u, c);
      if (typeof u !== 'number' || !Number.isFinite(u)) return fail(u, c, { type: 'float_type', msg: 'Input should be a valid number' });
      if (u <= 0) return fail(u, c, { type: 'greater_than', msg: 'Input should be greater than 0', ctx: { gt: 0 } });
      if (u > max) return fail(u, c, { type: 'less_than_equal', msg: `Input should be less than or equal to ${max}`, ctx: { le: max } });
      return t.success(u);
    },
    t.identity,
    { type: 'number', required: true, exclusive_minimum: 0, maximum: max },
  );
}

export function oneOf<W extends string>(words: readonly W[]): Field<W> {
  const expected = words.map((w) => `'${w}'`).join(words.length > 2 ? ', ' : ' or ').replace(/, ([^,]*)$/, ' or $1');
  return new Field<W>(
    `enum(${words.join('|')})`,
    (u): u is W => typeof u === 'string' && (words as readonly string[]).includes(u),
    (u, c) => {
      if (u === undefined) return missing(u, c);
      if (typeof u !== 'string' || !(words as readonly string[]).includes(u)) {
        return fail(u, c, { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } });
      }
      return t.success(u as W);
    },
    t.identity,
    { type: 'string', required: true, enum: words },
  );
}

/** One or more of the words, separated by commas (a query's filter that takes several values): the distinct words given, in the order of `words`. */
export function wordsOf<W extends string>(words: readonly W[]): Field<readonly W[]> {
  const one = `(${words.join('|')})`;
  const pattern = new RegExp(`^${one}(,${one})*$`);
  const expected = `one or more of ${words.map((w) => `'${w}'`).join(', ')}, separated by commas`;
  return new Field<readonly W[]>(
    `words(${words.join('|')})`,
    (u): u is readonly W[] => Array.isArray(u) && u.length > 0 && u.every((w) => (words as readonly string[]).includes(w)),
    (u, c) => {
      if (u === undefined) return missing(u, c);
      if (typeof u !== 'string' || !pattern.test(u)) {
        return fail(u, c, { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } });
      }
      const given = new Set(u.split(','));
      return t.success(words.filter((w) => given.has(w)));
    },
    t.identity,
    // No `enum`: the published schema would then refuse a list; the pattern names the words.
    { type: 'string', required: true, pattern: pattern.source },
  );
}

/** Accepts null as well; a missing field reads as null unless `required` says otherwise. */
export function nullable<A>(inner: Field<A>, opts: { required?: boolean } = {}): Field<A | null> {
  return new Field<A | null>(
    `${inner.name} | null`,
    (u): u is A | null => u === null || inner.is(u),
    (u, c) => {
      if (u === null) return t.success(null);
      if (u === undefined) return opts.required ? missing(u, c) : t.success(null);
      return inner.validate(u, c);
    },
    t.identity,
    { ...inner.schema, nullable: true, required: !!opts.required, ...(opts.required ? {} : { default: null }) },
  );
}

/** An optional field that reads as `value` when absent. */
export function withDefault<A>(inner: Field<A>, value: A): Field<A> {
  return new Field<A>(
    inner.name,
    inner.is,
    // A default list or object is copied, so no decoded value shares it with another.
    (u, c) => (u === undefined ? t.success(typeof value === 'object' && value !== null ? structuredClone(value) : value) : inner.validate(u, c)),
    t.identity,
    { ...inner.schema, required: false, default: value },
  );
}

const withoutDefault = ({ default: _default, ...schema }: FieldSchema): FieldSchema => schema;

/** An optional field that stays absent (undefined) when not given. */
export function optional<A>(inner: Field<A>): Field<A | undefined> {
  return new Field<A | undefined>(
    inner.name,
    (u): u is A | undefined => u === undefined || inner.is(u),
    (u, c) => (u === undefined ? t.success(undefined) : inner.validate(u, c)),
    t.identity,
    // Absent stays absent: whatever default the inner field names does not apply.
    { ...withoutDefault(inner.schema), required: false },
  );
}

export function arrayOf<A>(item: Field<A>, min: number, max: number): Field<A[]> {
  return new Field<A[]>(
    `array(${item.name})`,
    (u): u is A[] => Array.isArray(u) && u.length >= min && u.length <= max && u.every(item.is),
    (u, c) => {
      if (u === undefined) return missing(u, c);
      if (!Array.isArray(u)) return fail(u, c, { type: 'list_type', msg: 'Input should be a valid list' });
      if (u.length < min) {
        return fail(u, c, { type: 'too_short', msg: `List should have at least ${plural(min, 'item')} after validation, not ${u.length}`, ctx: { field_type: 'List', min_length: min, actual_length: u.length } });
      }
      if (u.length > max) {
        return fail(u, c, { type: 'too_long', msg: `List should have at most ${plural(max, 'item')} after validation, not ${u.length}`, ctx: { field_type: 'List', max_length: max, actual_length: u.length } });
      }
      const out: A[] = [];
      const errors: t.Errors = [];
      u.forEach((v, i) => {
        const r = item.validate(v, t.appendContext(c, String(i), item, v));
        if (r._tag === 'Left') errors.push(...r.left); else out.push(r.right);
      });
      return errors.length ? t.failures(errors) : t.success(out);
    },
    t.identity,
    { type: 'array', required: true, min_items: min, max_items: max, items: item.schema },
  );
}

type Props = Record<string, Field<any>>;
export type TypeOfProps<P extends Props> = { [K in keyof P]: t.TypeOf<P[K]> };

/** Edits (insertions, deletions, substitutions) between two short names, or `limit + 1` once it is known to be more. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...next) > limit) return limit + 1;
    row = next;
  }
  return row[b.length];
}

const bare = (name: string) => name.toLowerCase().replace(/[_-]/g, '');
const SUFFIXES = ['_ids', '_id', '_days'];
/** A name without its suffix, and the suffix. */
const stemOf = (name: string): [string, string] => {
  const lower = name.toLowerCase();
  const suffix = SUFFIXES.find((x) => lower.endsWith(x) && lower.length > x.length) ?? '';
  return [bare(lower.slice(0, lower.length - suffix.length)), suffix];
};
/** Names longer than this are no one's misspelling; past this many unknown fields, the rest are not looked at. */
const NAME_MAX = 64;
const UNKNOWN_MAX = 32;

/**
 * The field an unknown one was probably meant to be: the same name in another case or
 * spelling of its separators (`recipientId`), without the suffix the field has
 * (`recipient` for `recipient_id`, `deadline` for `deadline_days`), or with the same suffix
 * and a stem one letter away (two for stems of eight letters or more: `recipent_id`). An
 * optional field misspelt would otherwise be ignored and take its default: a private
 * letter sent as a public message, a deadline never set.
 */
export function meantField(unknown: string, fields: string[]): string | undefined {
  if (unknown.length > NAME_MAX) return undefined;
  const u = bare(unknown);
  const [stem, suffix] = stemOf(unknown);
  return fields.find((f) => bare(f) === u)
    ?? fields.find((f) => SUFFIXES.some((x) => f.toLowerCase() === `${unknown.toLowerCase()}${x}`))
    ?? fields.find((f) => {
      const [fStem, fSuffix] = stemOf(f);
      const limit = Math.min(stem.length, fStem.length) >= 8 ? 2 : 1;
      return fSuffix === suffix && fStem.length >= 4 && editDistance(stem, fStem, limit) <= limit;
    });
}

/**
 * A JSON object of named fields. Unknown fields are ignored, unless the object is `closed`:
 * then each is refused (`extra_forbidden`). An unknown field that is a near miss of a field
 * the object takes and was not given (`meantField`) is refused either way, naming the
 * field meant. So is a field named in `misleading`, one that a caller may well send
 * expecting what it does elsewhere (paging forward with after_id where the listing pages
 * otherwise), with what to send instead. Every field is checked and all problems are
 * reported together.
 */
export function object<P extends Props>(name: string, props: P, opts: { closed?: boolean; misleading?: Record<string, string> } = {}): Field<TypeOfProps<P>> {
  const properties: Record<string, FieldSchema> = {};
  for (const [k, v] of Object.entries(props)) properties[k] = v.schema;
  return new Field<TypeOfProps<P>>(
    name,
    (u): u is TypeOfProps<P> => typeof u === 'object' && u !== null && !Array.isArray(u) && Object.entries(props).every(([k, v]) => v.is((u as any)[k])),
    (u, c) => {
      if (u === undefined) return missing(u, c);
      if (typeof u !== 'object' || u === null || Array.isArray(u)) {
        return fail(u, c, { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' });
      }
      const out: Record<string, unknown> = {};
      const errors: t.Errors = [];
      for (const [k, codec] of Object.entries(props)) {
        const v = Object.prototype.hasOwnProperty.call(u, k) ? (u as Record<string, unknown>)[k] : undefined;
        const r = codec.validate(v, t.appendContext(c, k, codec, v));
        if (r._tag === 'Left') errors.push(...r.left); else if (r.right !== undefined) out[k] = r.right;
      }
      const names = Object.keys(props);
      let unknowns = 0;
      let notGiven: string[] | undefined; // the fields a near miss may have meant, found at the first unknown one
      for (const [k, v] of Object.entries(u)) {
        if (Object.prototype.hasOwnProperty.call(props, k)) continue;
        const instead = opts.misleading && Object.prototype.hasOwnProperty.call(opts.misleading, k) ? opts.misleading[k] : undefined;
        if (instead !== undefined) {
          const r = fail(v, t.appendContext(c, k, t.unknown, v), { type: 'extra_forbidden', msg: `Extra inputs are not permitted: ${k} is not a field here; ${instead} (the fields are ${names.join(', ')})` });
          if (r._tag === 'Left') errors.push(...r.left);
          continue;
        }
        if (!opts.closed && ++unknowns > UNKNOWN_MAX) break;
        notGiven ??= names.filter((f) => !Object.prototype.hasOwnProperty.call(u, f));
        const meant = meantField(k, notGiven);
        if (!opts.closed && meant === undefined) continue;
        const msg = meant === undefined
          ? `Extra inputs are not permitted (the fields are ${names.join(', ')})`
          : `Extra inputs are not permitted: did you mean ${meant}? (the fields are ${names.join(', ')})`;
        const r = fail(v, t.appendContext(c, k, t.unknown, v), { type: 'extra_forbidden', msg });
        if (r._tag === 'Left') errors.push(...r.left);
      }
      return errors.length ? t.failures(errors) : t.success(out as TypeOfProps<P>);
    },
    t.identity,
    { type: 'object', required: true, name, properties, ...(opts.closed ? { closed: true } : {}) },
  );
}
