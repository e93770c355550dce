import { z } from 'zod';
import { base, m, stringList } from './common';

const T = 'group';
export const groupNode = z
  .looseObject({ ...base(T), by: stringList(T, 'by'), expressions: stringList(T, 'expressions') })
  .refine((n) => n.by.length > 0 || n.expressions.length > 0, m(T, 'by or expressions must not be empty'))
  .refine((n) => [...n.by, ...n.expressions].every((s) => s.trim().length > 0), m(T, 'by and expressions entries must not be empty'));
export type GroupProps = z.infer<typeof groupNode>;
