import { z } from 'zod';
import { base, m } from './common';

const T = 'limit';
/** offset: the catalog says "positive if given"; 0 is accepted too (non-negative), the SDK sends it. */
export const limitNode = z.looseObject({
  ...base(T),
  length: z.number(m(T, 'length must be an integer above 0')).int(m(T, 'length must be an integer above 0')).min(1, m(T, 'length must be an integer above 0')),
  offset: z.number(m(T, 'offset must be a non-negative integer')).int(m(T, 'offset must be a non-negative integer')).min(0, m(T, 'offset must be a non-negative integer')).optional(),
});
export type LimitProps = z.infer<typeof limitNode>;
