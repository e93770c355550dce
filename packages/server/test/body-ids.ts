import type { z } from 'zod';

type Def = { type: string; format?: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; options?: z.ZodType[]; left?: z.ZodType; right?: z.ZodType; valueType?: z.ZodType };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/**
 * The places in a request body schema that hold resource ids (uuid strings), as paths like
 * `datasets[]`, `users[].userId` or `resource.id`: every one of them must be checked like an id in a path.
 */
export function idFieldsOf(schema: z.ZodType | undefined, at = ''): string[] {
  if (!schema) return [];
  const d = defOf(schema);
  switch (d.type) {
    case 'string':
      return d.format === 'uuid' || d.format === 'guid' ? [at] : [];
    case 'object':
      return Object.entries(d.shape ?? {}).flatMap(([k, v]) => idFieldsOf(v, at ? `${at}.${k}` : k));
    case 'array':
      return idFieldsOf(d.element, `${at}[]`);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return idFieldsOf(d.innerType, at);
    case 'pipe':
      return [...new Set([...idFieldsOf(d.in, at), ...idFieldsOf(d.out, at)])];
    case 'union':
      return [...new Set((d.options ?? []).flatMap((o) => idFieldsOf(o, at)))];
    case 'intersection':
      return [...new Set([...idFieldsOf(d.left, at), ...idFieldsOf(d.right, at)])];
    case 'record':
      return idFieldsOf(d.valueType, `${at}{}`);
    default:
      return [];
  }
}
