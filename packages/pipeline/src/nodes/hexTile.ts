import { z } from 'zod';
import { base, h3Cell, m, nonEmptyString } from './common';

const T = 'hexTile';
export const hexTileNode = z.looseObject({
  ...base(T),
  uuid: nonEmptyString(T, 'uuid'),
  tileIndex: h3Cell(T, 'tileIndex'),
  resolutionOffset: z
    .number(m(T, 'resolutionOffset must be an integer from 1 to 15'))
    .int(m(T, 'resolutionOffset must be an integer from 1 to 15'))
    .min(1, m(T, 'resolutionOffset must be an integer from 1 to 15'))
    .max(15, m(T, 'resolutionOffset must be an integer from 1 to 15'))
    .optional(),
});
export type HexTileProps = z.infer<typeof hexTileNode>;
