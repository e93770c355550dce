import fc from 'fast-check';

/** The parts of JSON Schema (as the OpenAPI document writes the zod validators) that the fuzz reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: boolean | JsonSchema;
}

/** Real values the generated bodies refer to, so that calls get past "not found" to the handler. */
export interface Pools {
  /** Ids of real records by kind: map, dataset, tag, user, organization, … */
  byKind: Record<string, string[]>;
  emails: string[];
  /** Known-good text for strings named so (`query`: SQL that runs), drawn most of the time. */
  texts?: Record<string, string[]>;
  /** Known-good numbers for numbers named so (`n`: a version that exists), drawn most of the time. */
  numbers?: Record<string, number[]>;
}

/** The kind of record a parameter or property names, from its name (`datasetId`, `users`) or the path's collection. */
export function kindOf(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const n = name.toLowerCase().replace(/ids?$/, '').replace(/s$/, '');
  const aliases: Record<string, string> = {
    source: 'dataset', dataconnection: 'data-connection', connection: 'data-connection', org: 'organization',
    asset: 'map-asset', 'map-asset': 'map-asset', template: 'query-template', querytemplate: 'query-template',
    primaryuser: 'user', secondaryuser: 'user', 'data-connection': 'data-connection', parent: 'map',
  };
  return aliases[n] ?? n;
}

/**
 * Ids for a uuid whose kind the schema does not name: records' ids. A job's id is only ever taken by the job
 * calls, which name their kind (`/v1/jobs/{id}`).
 */
const allIds = (pools: Pools) => Object.entries(pools.byKind).flatMap(([kind, ids]) => (kind === 'job' ? [] : ids));

/**
 * A fast-check arbitrary of values valid for `schema`, with uuids drawn mostly from real ids: the
 * OpenAPI fuzz uses it so that most calls reach a handler instead of stopping at 404 or 422.
 */
export function arbitraryOf(schema: JsonSchema | undefined, pools: Pools, hint?: string, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.jsonValue({ maxDepth: 1 });
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => arbitraryOf(s, pools, hint, depth + 1)));
  if (schema.allOf?.length) return arbitraryOf(Object.assign({}, ...schema.allOf) as JsonSchema, pools, hint, depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((t) => arbitraryOf({ ...schema, type: t }, pools, hint, depth)));
  switch (types[0]) {
    case 'object': {
      const props = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, arbitraryOf(s, pools, k, depth + 1)]));
      return fc.record(props, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    case 'array': {
      const min = schema.minItems ?? 0;
      return fc.array(arbitraryOf(schema.items, pools, hint, depth + 1), { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'string':
      return stringOf(schema, pools, hint);
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1000);
      const any = types[0] === 'integer' ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true });
      const known = hint ? pools.numbers?.[hint] : undefined;
      return known?.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: any }) : any;
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: JsonSchema, pools: Pools, hint: string | undefined): fc.Arbitrary<string> {
  const known = hint ? pools.texts?.[hint] : undefined;
  if (known?.length) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: stringOf(schema, { ...pools, texts: {} }, hint) });
  if (schema.format === 'uuid') {
    const kind = kindOf(hint);
    const ids = (kind && pools.byKind[kind]?.length ? pools.byKind[kind] : allIds(pools)) ?? [];
    return ids.length ? fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.uuid() }) : fc.uuid();
  }
  if (schema.format === 'email') return pools.emails.length ? fc.oneof(fc.constantFrom(...pools.emails), fc.emailAddress()) : fc.emailAddress();
  if (schema.format === 'date-time') return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  if (schema.pattern) {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}
