import { z } from 'zod';
import { base, m, nonEmptyString, resolution } from './common';

const T = 'tileQuantiles';
export const tileQuantilesNode = z.looseObject({
  ...base(T),
  uuid: nonEmptyString(T, 'uuid'),
  res: resolution(T),
  interval: z.enum(['T', 'H', 'D', 'M', 'Y'], m(T, 'interval must be one of T, H, D, M, Y')),
});
export type TileQuantilesProps = z.infer<typeof tileQuantilesNode>;
