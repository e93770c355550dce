import { z } from 'zod';
import { base, m, nonEmptyStringList } from './common';

const T = 'join';
export const joinNode = z.looseObject({
  ...base(T),
  join: z.enum(['LEFT', 'INNER', 'FULL'], m(T, 'join must be LEFT, INNER or FULL')),
  on: z
    .array(z.looseObject({ columns: nonEmptyStringList(T, 'on.columns') }, m(T, 'on entries must be {columns: [...]}')), m(T, 'on must be a list'))
    .min(1, m(T, 'on must not be empty')),
});
export type JoinProps = z.infer<typeof joinNode>;
