// The one conversion from a codec's published description (FieldSchema, the vocabulary of
// GET /api/rules) to JSON Schema 2020-12, the dialect of OpenAPI 3.1. /openapi.json and
// the MCP tools' input schemas are built with it, so they state the very bounds and
// defaults that validation enforces.
import type { FieldSchema } from './primitives';

export type JsonSchema = Record<string, unknown>;

/**
 * A FieldSchema, or the description of a value the API answers with (codecs/responses.ts):
 * those may also be `any` value, or a map whose values share one shape.
 */
export interface ValueSchema extends Omit<FieldSchema, 'type' | 'items' | 'properties'> {
  type: FieldSchema['type'] | 'any';
  items?: ValueSchema;
  properties?: Record<string, ValueSchema>;
  /** An object whose keys are free (an id or a resource name) and whose values share this shape. */
  values?: ValueSchema;
  /** A value of any of these shapes (with `type: 'any'`). */
  anyOf?: ValueSchema[];
  description?: string;
}

/**
 * Receives a named object's schema and answers what stands in its place (a $ref to a
 * shared component, in /openapi.json). Without one, every schema is written in full.
 */
export type Hoist = (name: string, schema: JsonSchema) => JsonSchema;

/** Names that can be a component's key (request codecs of paths have names like "Path(agent_id)"). */
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;

/** JSON Schema of one field or value. */
export function toJsonSchema(s: ValueSchema, hoist?: Hoist): JsonSchema {
  if (hoist && s.type === 'object' && s.name && COMPONENT_NAME.test(s.name)) {
    const ref = hoist(s.name, toJsonSchema({ ...s, name: undefined, nullable: false, default: undefined, description: undefined }, hoist));
    const out: JsonSchema = s.nullable ? { anyOf: [ref, { type: 'null' }] } : { ...ref };
    if (s.description) out.description = s.description;
    if (s.default !== undefined) out.default = s.default;
    return out;
  }
  const out: JsonSchema = {};
  if (s.description) out.description = s.description;
  if (s.type !== 'any') out.type = s.nullable ? [s.type, 'null'] : s.type;
  if (s.anyOf) out.anyOf = s.anyOf.map((a) => toJsonSchema(a, hoist));
  if (s.enum) out.enum = s.nullable ? [...s.enum, null] : [...s.enum];
  if (s.min_length !== undefined) out.minLength = s.min_length;
  if (s.max_length !== undefined) out.maxLength = s.max_length;
  if (s.pattern !== undefined) out.pattern = s.pattern;
  if (s.minimum !== undefined) out.minimum = s.minimum;
  if (s.maximum !== undefined) out.maximum = s.maximum;
  if (s.exclusive_minimum !== undefined) out.exclusiveMinimum = s.exclusive_minimum;
  if (s.min_items !== undefined) out.minItems = s.min_items;
  if (s.max_items !== undefined) out.maxItems = s.max_items;
  if (s.items) out.items = toJsonSchema(s.items, hoist);
  if (s.properties) Object.assign(out, objectSchema(s.properties, hoist));
  if (s.values) out.additionalProperties = toJsonSchema(s.values, hoist);
  if (s.closed) out.additionalProperties = false;
  if (s.default !== undefined) out.default = s.default;
  return out;
}

/** `properties` and `required` of an object whose fields are described one by one. */
export function objectSchema(properties: Record<string, ValueSchema>, hoist?: Hoist): { properties: Record<string, JsonSchema>; required?: string[] } {
  const props: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(properties)) {
    props[name] = toJsonSchema(field, hoist);
    // A field with a default may be left out; so may an optional one.
    if (field.required !== false && field.default === undefined) required.push(name);
  }
  return required.length ? { properties: props, required } : { properties: props };
}
