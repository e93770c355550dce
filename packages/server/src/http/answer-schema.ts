import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

/** Formats fast-json-stringify acts on (it writes a Date as ISO text); the others only cost it validation. */
const SERIALIZED_FORMATS = new Set(['date-time', 'date', 'time']);
/** Keywords that constrain input but say nothing about how an answer is written. */
const VALIDATION_ONLY = new Set(['$schema', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'multipleOf', 'description', 'title', 'examples']);
const NESTED_BY_NAME = new Set(['properties', 'definitions', '$defs', 'patternProperties']);

const isPlainNull = (s: JsonSchema) => s.type === 'null' && Object.keys(s).length === 1;

/**
 * The JSON Schema of an answer as fast-json-stringify should see it: validation-only keywords dropped, and
 * "X or null" written as a type list. fast-json-stringify validates every branch of an anyOf to choose how to
 * write a value, which made a 20-record list slower than JSON.stringify; a type list it writes directly.
 */
export function leanAnswerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(leanAnswerSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema as JsonSchema)) {
    if (VALIDATION_ONLY.has(key)) continue;
    if (key === 'format' && !SERIALIZED_FORMATS.has(value as string)) continue;
    out[key] = NESTED_BY_NAME.has(key)
      ? Object.fromEntries(Object.entries(value as JsonSchema).map(([name, s]) => [name, leanAnswerSchema(s)]))
      : leanAnswerSchema(value);
  }
  const branches = out.anyOf as JsonSchema[] | undefined;
  if (branches?.length === 2 && Object.keys(out).length === 1) {
    const nullAt = branches.findIndex(isPlainNull);
    const other = nullAt < 0 ? undefined : branches[1 - nullAt];
    if (other && Object.keys(other).length === 0) return {};
    if (other && typeof other.type === 'string' && !other.anyOf && !other.oneOf && !other.allOf && !other.const && !other.enum) return { ...other, type: [other.type, 'null'] };
  }
  return out;
}

/**
 * The schema Fastify serializes a route's JSON answer with: fields the contract does not declare are not
 * written. Draft 7 because fast-json-stringify reads tuples as `items: [...]`, not `prefixItems`.
 */
export function answerSerializationSchema(response: z.ZodType): unknown {
  try {
    return leanAnswerSchema(z.toJSONSchema(response, { target: 'draft-7', io: 'output', unrepresentable: 'any' }));
  } catch {
    return {};
  }
}
